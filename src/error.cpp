#include "src/error.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace mpix {

namespace {
struct LastError {
  int code = MPI_SUCCESS;
  std::string message;
};
thread_local LastError last_error;
}  // namespace

void throw_mpi_error(int rc, const char* call) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  throw Error(rc, std::string(call) + " failed: " + std::string(text, len));
}

namespace {
std::string limit_text(int resource) {
  rlimit l{};
  if (getrlimit(resource, &l) != 0) return "unknown";
  return l.rlim_cur == RLIM_INFINITY ? std::string("unlimited") : std::to_string(l.rlim_cur);
}
}  // namespace

std::string system_error(const std::string& call, int err) {
  std::string text = call + ": " + std::strerror(err);
  switch (err) {
    case EMFILE:
      text += " (this process's open-file limit, RLIMIT_NOFILE, is " + limit_text(RLIMIT_NOFILE) +
              ": raise it with `ulimit -n` before mpiexec, or free requests and windows you no longer use)";
      break;
    case ENFILE:
      text += " (the system-wide open-file limit is reached: see /proc/sys/fs/file-max)";
      break;
    case ENOMEM: {
      std::string max_maps = "unknown";
      std::ifstream("/proc/sys/vm/max_map_count") >> max_maps;
      text += " (out of memory, or of mappings: RLIMIT_AS is " + limit_text(RLIMIT_AS) +
              ", RLIMIT_MEMLOCK " + limit_text(RLIMIT_MEMLOCK) + ", vm.max_map_count " + max_maps +
              "; free requests and windows you no longer use, or raise the limit)";
      break;
    }
    case EPERM:
    case EACCES:
      text += " (refused by the kernel's ptrace or security policy: Yama ptrace_scope, a container, "
              "non-dumpable processes; MPIX_PTRACE_PEERS=off avoids every call that needs it)";
      break;
    default: break;
  }
  return text;
}

bool is_resource_error(int err) { return err == EMFILE || err == ENFILE || err == ENOMEM || err == ENOBUFS; }

void remember_error(int code, const std::string& message) {
  last_error.code = code;
  last_error.message = message;
}

bool recall_error(int code, std::string& message) {
  if (code == MPI_SUCCESS || code != last_error.code) return false;
  message = last_error.message;
  return true;
}

}  // namespace mpix
