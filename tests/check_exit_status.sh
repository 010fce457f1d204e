#!/usr/bin/env bash
# check_exit_status.sh: exit_status.sh tells an MPI abort from a crash by the
# launchers' own words; each case below is a job's last lines as MPICH's or
# Open MPI's launcher prints them, with the status it returns.
script=$(dirname "$0")/exit_status.sh
failures=0
expect() {  # expect pass|fail STATUS OUTPUT
  local verdict=$1 status=$2 text=$3
  if bash "$script" abort sh -c 'printf "%s\n" "$1"; exit "$2"' _ "$text" "$status" >/dev/null; then
    got=pass
  else
    got=fail
  fi
  if [ "$got" != "$verdict" ]; then
    echo "WRONG: status $status with \"$text\": $got, expected $verdict"
    failures=$((failures + 1))
  fi
}
# An MPI abort; the launcher ending the other ranks is part of it.
expect pass 2 "Abort(2) on node 0: Fatal error in MPI_Comm_call_errhandler: Invalid count"
expect pass 9 "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)"
expect pass 15 "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Terminated (signal 15)"
expect pass 2 "mpirun noticed that process rank 1 with PID 7 on node vm exited on signal 9 (Killed)."
# A crash, by either launcher.
expect fail 11 "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)"
expect fail 6 "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Aborted (signal 6)"
expect fail 1 "mpirun noticed that process rank 0 with PID 7 on node vm exited on signal 11 (Segmentation fault)."
expect fail 139 "Segmentation fault"
expect fail 1 "[vm:00007] *** Process received signal *** Caught signal 8 (Floating point exception)"
# No abort at all.
expect fail 0 "done"
[ "$failures" -eq 0 ] && echo "exit_status.sh: every case judged as expected"
exit "$failures"
