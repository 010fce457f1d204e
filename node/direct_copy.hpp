// The node path: moving bytes straight into (or out of) a target process on
// the same node, by load/store into a shared-memory segment or by a Linux CMA
// single copy (process_vm_writev). Both complete when they return, so they are
// ordered and thread-scoped by construction.
#pragma once

#include <mpi.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "node/node_config.hpp"

namespace mpix {

struct DirectTarget {
  enum class Mode { none, shm, cma };
  Mode mode = Mode::none;
  char* shm_base = nullptr;  // shm: the target's segment mapped here
  pid_t pid = 0;             // cma: the target process
  std::uintptr_t address = 0;

  void put(MPI_Aint offset, const void* origin, std::size_t bytes) const;
  void get(MPI_Aint offset, void* origin, std::size_t bytes) const;
};

// Copies count pairs of iovecs (local[i] and remote[i] of equal length) to
// pid's memory (write) or from it, in order, one system call unless a call
// stops short; the iovecs are advanced in place. Throws Error on failure.
void cma_copy_vectors(pid_t pid, iovec* local, iovec* remote, int count, bool write);

// The CMA system calls (process_vm_readv/writev) this process has made: what
// ran, not what was chosen, for tests and reports that claim a path.
std::uint64_t cma_calls();

// Whether this process may copy into pid's memory: reads one byte at address.
// On failure, why names the reason (ptrace policy, container, ...).
bool cma_reachable(pid_t pid, std::uintptr_t address, std::string& why);

// Lets processes of the same user attach with CMA under Yama ptrace policy,
// where the configuration says to widen ptrace access (MPIX_PTRACE_PEERS).
void allow_cma_from_peers(PtracePeers policy);

// An address in this process that peers may probe with cma_reachable.
std::uintptr_t cma_probe_address();

}  // namespace mpix
