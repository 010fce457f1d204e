#!/usr/bin/env bash
# expect_job_ends.sh LIMIT EXIT_CODE COMMAND...: runs an MPI launch in which a
# rank leaves (exit, abort, return without MPI_Finalize) and passes if the
# whole job ends by itself within LIMIT seconds with EXIT_CODE, the code the
# leaving rank chose; a job still running then is a hang, and another code
# (a crash, a signal) is not the departure the test made.
limit=$1 expected=$2
shift 2
start=$(date +%s)
timeout -k 5 "$limit" "$@"
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "expect_job_ends: HANG: the job was still running after ${limit}s"
  exit 1
fi
if [ "$rc" -ne "$expected" ]; then
  echo "expect_job_ends: WRONG exit code $rc (expected $expected)"
  exit 1
fi
echo "expect_job_ends: the job ended by itself after $(( $(date +%s) - start ))s (exit code $rc)"
