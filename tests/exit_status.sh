#!/usr/bin/env bash
# exit_status.sh EXPECTED COMMAND...: runs COMMAND and passes its output on;
# when it ends with another status than EXPECTED (a number, or "nonzero"
# for a job that must abort, whose status the MPI chooses; a crash in MPI_Finalize
# after the last line was printed, a job that did not abort when it had
# to), says so in a line every test with an output pattern fails on. CTest
# judges a test with PASS_REGULAR_EXPRESSION by its output alone, so
# mpix_add_test runs every such test under this script.
expected=$1
shift
"$@"
status=$?
if { [ "$expected" = nonzero ] && [ "$status" -eq 0 ]; } ||
   { [ "$expected" != nonzero ] && [ "$status" -ne "$expected" ]; }; then
  echo "exit_status: FAILED: the command ended with status $status, not $expected"
  exit 1
fi
exit 0
