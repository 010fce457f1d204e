#!/usr/bin/env bash
# run_unprivileged.sh COMMAND...: runs COMMAND as an unprivileged user, so
# that the kernel's ptrace checks apply (root's CAP_SYS_PTRACE passes them
# all): as `nobody` through setpriv when run as root, as the caller otherwise.
# UCX's own CMA transport aborts the MPI where ptrace access is refused, and
# its shared-memory transport must not look peers up through /proc links:
# both are set off for the MPI itself (not for mpix-rma).
export UCX_TLS=^cma UCX_POSIX_USE_PROC_LINK=n HOME=/tmp
if [ "$(id -u)" -eq 0 ]; then
  exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
fi
exec "$@"
