#!/usr/bin/env bash
# run_unprivileged.sh COMMAND...: runs COMMAND as an unprivileged user, so
# that the kernel's ptrace checks apply (root's CAP_SYS_PTRACE passes them
# all): as `nobody` through setpriv when run as root, as the caller otherwise.
# For the MPI itself (not for mpix-rma), UCX runs on shared memory only: its
# CMA transport aborts the MPI where ptrace access is refused, its
# shared-memory transport must not look peers up through /proc links, and
# its TCP endpoints stall MPI_Finalize of such ranks on a loaded machine.
export UCX_TLS=^cma,tcp UCX_POSIX_USE_PROC_LINK=n HOME=/tmp
if [ "$(id -u)" -eq 0 ]; then
  exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
fi
exec "$@"
