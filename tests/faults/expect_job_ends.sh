#!/usr/bin/env bash
# expect_job_ends.sh LIMIT EXIT_CODE COMMAND...: runs an MPI launch in which a
# rank leaves (exit, abort, return without MPI_Finalize) and passes if the
# whole job ends by itself within LIMIT seconds with EXIT_CODE, the code the
# leaving rank chose, or the code of a peer the launcher then killed (MPICH's
# hydra reports whichever it saw first: 9 or 15); a job still running then is
# a hang, and another code (a crash: 11, 6, ...) is not the departure the
# test made.
limit=$1 expected=$2
shift 2
# What the ranks report before they leave (a file survives the launcher
# killing the job; its forwarded stdout may not).
EXPECT_JOB_ENDS_REPORT=$(mktemp)
export EXPECT_JOB_ENDS_REPORT
trap 'rm -f "$EXPECT_JOB_ENDS_REPORT"' EXIT
start=$(date +%s)
timeout -k 5 "$limit" "$@"
rc=$?
cat "$EXPECT_JOB_ENDS_REPORT"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "expect_job_ends: HANG: the job was still running after ${limit}s"
  exit 1
fi
if [ "$rc" -ne "$expected" ] && [ "$rc" -ne 9 ] && [ "$rc" -ne 15 ]; then
  echo "expect_job_ends: WRONG exit code $rc (expected $expected)"
  exit 1
fi
echo "expect_job_ends: the job ended by itself after $(( $(date +%s) - start ))s (exit code $rc)"
