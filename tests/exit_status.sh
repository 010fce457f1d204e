#!/usr/bin/env bash
# exit_status.sh EXPECTED COMMAND...: runs COMMAND and passes its output on;
# when it ends otherwise than EXPECTED, says so in a line every test with an
# output pattern fails on. EXPECTED is a status, or "abort" for a job that
# must end through MPI's abort (MPI_Abort, or an error on
# MPI_ERRORS_ARE_FATAL): a status from 1 to 127, and no process ended by a
# signal. A crash is not an abort: MPICH's launcher returns the signal's
# number as its status (11 for a segmentation fault) and says "(signal N)",
# Open MPI's returns 128 + N and says "exited on signal". Only the signals
# of a crash count (SIGILL, SIGABRT, SIGBUS, SIGFPE, SIGSEGV): once one rank
# aborts, the launcher ends the others with SIGKILL or SIGTERM, and says so
# in the same words. CTest judges a
# test with PASS_REGULAR_EXPRESSION by its output alone, so mpix_add_test
# runs every such test under this script.
#
# A failure is reported within seconds: once the command has printed
# WRONG (every test program's word for a failure), its ranks may wait
# forever on a peer that left the exchange, so a job still running
# failure_grace seconds later is ended, rather than left to CTest's limit.
expected=$1
shift
failure_grace=10
output=$(mktemp "${TMPDIR:-/tmp}/exit_status.XXXXXX")
trap 'rm -f "$output"' EXIT
# The job gets a process group of its own, so that ending it ends what it
# started (smpirun leaves its simulation running otherwise).
setsid "$@" > >(tee "$output") 2>&1 &
job=$!
failed_at=""
while kill -0 "$job" 2>/dev/null; do
  if [ -z "$failed_at" ] && grep -q WRONG "$output"; then
    failed_at=$SECONDS
  elif [ -n "$failed_at" ] && [ $((SECONDS - failed_at)) -ge "$failure_grace" ]; then
    echo "exit_status: FAILED: WRONG was printed $failure_grace s ago and the job has not ended: ending it"
    kill -TERM -- -"$job" 2>/dev/null
    sleep 2
    kill -KILL -- -"$job" 2>/dev/null
    exit 1
  fi
  sleep 0.2
done
wait "$job"
status=$?
why=""
crash_signal='(4|6|7|8|11)'
if [ "$expected" = abort ]; then
  if [ "$status" -eq 0 ] || [ "$status" -ge 128 ]; then
    why="the command ended with status $status, not an MPI abort's (1 to 127)"
  elif grep -Eq "EXIT STRING: .*\\(signal $crash_signal\\)|exited on signal $crash_signal[^0-9]|Caught signal $crash_signal[^0-9]" "$output"; then
    why="a process of the job ended on a signal (a crash, not an MPI abort)"
  fi
elif [ "$status" -ne "$expected" ]; then
  why="the command ended with status $status, not $expected"
fi
if [ -n "$why" ]; then
  echo "exit_status: FAILED: $why"
  exit 1
fi
exit 0
