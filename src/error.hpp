// Errors inside the library are exceptions carrying an MPI error code; the C
// API converts them back to codes (c_api.cpp). Messages name the argument and
// its value; the C layer adds the rank.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace mpix {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

[[noreturn]] void throw_mpi_error(int rc, const char* call);

// Every MPI call inside the library goes through this: a failing call becomes
// an Error naming the call and carrying MPI's own message.
inline void mpi_check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw_mpi_error(rc, call);
}

// What a failed system call means for the user: "call: strerror(err)",
// and for the errors that come from a resource limit, the limit, its current
// value and what to change (RLIMIT_NOFILE for descriptors, memory limits
// and the map count for mappings, ptrace policy for permission errors).
std::string system_error(const std::string& call, int err);
// Whether err is a limit that may pass (descriptors, memory), not a
// capability the system lacks.
bool is_resource_error(int err);

// Remembers the full message of the last error returned to this thread, for
// MPIX_Error_string.
void remember_error(int code, const std::string& message);
bool recall_error(int code, std::string& message);

}  // namespace mpix
