#include "src/comm.hpp"

#include <sched.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>

#include "src/error.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

// What two processes must share to share memory and reach each other's
// node channel: the kernel (its boot), the host, and the IPC and network
// namespaces (memfd descriptors pass over abstract Unix sockets, which
// live in the network namespace). A hash (FNV-1a) of them; what cannot be
// read counts as empty, so processes that cannot tell stay apart only if
// something else differs.
std::uint64_t machine_key() {
  // Ranks that are not processes share all of that: their simulated host
  // is their machine.
  std::string identity = mpi_implementation::simulated_host();
  if (!identity.empty()) identity += '\n';
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) identity += host;
  identity += '\n';
  if (FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    char id[64] = {};
    if (std::fgets(id, sizeof id, f) != nullptr) identity += id;
    std::fclose(f);
  }
  for (const char* ns : {"/proc/self/ns/ipc", "/proc/self/ns/net"}) {
    char target[128] = {};
    if (readlink(ns, target, sizeof target - 1) > 0) identity += target;
    identity += '\n';
  }
  std::uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : identity) hash = (hash ^ c) * 1099511628211ULL;
  return hash;
}

// Why the kernel refuses this process single copies from pid, or empty. The
// kernel checks ptrace access before it touches an address, so reading one
// byte at address 0 answers without one: EFAULT is access granted. (The
// node layer's cma_reachable reads a published probe byte instead; this
// layer sits below it, and needs no address.)
std::string cma_refused_by(std::uint64_t pid) {
  char byte = 0;
  iovec local{&byte, 1};
  iovec remote{nullptr, 1};
  if (process_vm_readv(static_cast<pid_t>(pid), &local, 1, &remote, 1, 0) < 0 && errno != EFAULT)
    return "process_vm_readv from pid " + std::to_string(pid) + ": " + std::strerror(errno);
  return {};
}

// What every rank publishes about its process.
struct Identity {
  std::uint64_t machine;  // machine_key()
  std::uint64_t pid;
};
static_assert(sizeof(Identity) == 2 * sizeof(std::uint64_t), "Identity travels as two MPI_UINT64_T");

}  // namespace

Comm::Comm(MPI_Comm user, Config config) : user_(user), config_(std::move(config)) {
  const int emulated_node_size = config_.node_size;
  if (user == MPI_COMM_NULL) throw Error(MPI_ERR_COMM, "comm is MPI_COMM_NULL");
  int inter = 0;
  mpi_check(MPI_Comm_test_inter(user, &inter), "MPI_Comm_test_inter");
  if (inter) throw Error(MPI_ERR_COMM, "comm is an intercommunicator; only intracommunicators are supported");
  if (emulated_node_size < 0) throw Error(MPI_ERR_ARG, "emulated node size is negative");

  int size = 0;
  mpi_check(MPI_Comm_dup(user, global_.out()), "MPI_Comm_dup");
  // The library's own communicators (this one and every one made from it)
  // return MPI's errors, which become the library's agreed error codes: an
  // MPI refusal inside the library (a window this MPI cannot create, say)
  // must not end the job on the user's behalf. The user's communicator
  // keeps the user's handler, which the C API raises errors on.
  mpi_check(MPI_Comm_set_errhandler(global_.get(), MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  mpi_check(MPI_Comm_rank(global(), &rank_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(global(), &size), "MPI_Comm_size");

  // The machine of each rank, from every rank's machine_key(): one
  // MPI_Allgather of 64-bit keys, then MPI_Comm_split by the first rank of
  // the same machine. (MPI_Comm_split_type's shared-memory split would do,
  // but costs MPICH milliseconds the first time in a process, which a
  // program under the drop-in would pay in its first served call.) Every
  // rank derives every rank's node from the keys alone.
  const Identity mine{machine_key(), static_cast<std::uint64_t>(getpid())};
  std::vector<Identity> identities(static_cast<std::size_t>(size));
  mpi_check(MPI_Allgather(&mine, 2, MPI_UINT64_T, identities.data(), 2, MPI_UINT64_T, global()), "MPI_Allgather");
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) keys[static_cast<std::size_t>(r)] = identities[static_cast<std::size_t>(r)].machine;
  if (mpi_implementation::one_sided_hangs_without_cma() != nullptr)
    for (int r = 0; r < size && machine_cma_refused_.empty(); ++r)
      if (r != rank_ && keys[static_cast<std::size_t>(r)] == mine.machine)
        machine_cma_refused_ = cma_refused_by(identities[static_cast<std::size_t>(r)].pid);
  // first_of[r]: the first global rank of r's node; its rank on the machine
  // counts the machine's ranks before it, in global rank order (the
  // order MPI_Comm_split keeps with rank_ as the key).
  std::vector<int> first_of(static_cast<std::size_t>(size)), machine_first(static_cast<std::size_t>(size));
  {
    std::unordered_map<std::uint64_t, std::vector<int>> machines;  // key -> its ranks, ascending
    for (int r = 0; r < size; ++r) machines[keys[static_cast<std::size_t>(r)]].push_back(r);
    for (const auto& [key, members] : machines)
      for (std::size_t i = 0; i < members.size(); ++i) {
        const std::size_t node_start =
            emulated_node_size > 0 ? i / static_cast<std::size_t>(emulated_node_size) * emulated_node_size : 0;
        machine_first[static_cast<std::size_t>(members[i])] = members.front();
        first_of[static_cast<std::size_t>(members[i])] = members[node_start];
      }
  }
  // One machine and one node, the common case, needs no split at all (a
  // process's first MPI_Comm_split costs MPICH milliseconds too): the
  // node is a duplicate.
  const bool one_machine = std::all_of(keys.begin(), keys.end(), [&](std::uint64_t k) { return k == keys[0]; });
  const bool one_node = one_machine && (emulated_node_size == 0 || emulated_node_size >= size);
  if (one_node) {
    count_machine_cores(global());
    mpi_check(MPI_Comm_dup(global(), node_.out()), "MPI_Comm_dup");
  } else {
    UniqueComm machine;
    mpi_check(MPI_Comm_split(global(), machine_first[static_cast<std::size_t>(rank_)], rank_, machine.out()),
              "MPI_Comm_split");
    count_machine_cores(machine.get());
    if (emulated_node_size > 0) {
      mpi_check(MPI_Comm_split(machine.get(), first_of[static_cast<std::size_t>(rank_)], rank_, node_.out()),
                "MPI_Comm_split");
    } else {
      node_ = std::move(machine);
    }
  }
  int my_rank_in_node = 0;
  mpi_check(MPI_Comm_rank(node(), &my_rank_in_node), "MPI_Comm_rank");

  node_of_.assign(size, -1);
  node_rank_of_.assign(size, 0);
  std::vector<int> id_of_first(size, -1);
  for (int r = 0; r < size; ++r) {
    int& id = id_of_first[first_of[r]];
    if (id < 0) {
      id = static_cast<int>(node_sizes_.size());
      node_sizes_.push_back(0);
    }
    node_of_[r] = id;
    node_rank_of_[r] = node_sizes_[id]++;
  }
  if (node_rank_of_[rank_] != my_rank_in_node)
    throw Error(MPI_ERR_INTERN, "node split disagrees with the node communicator's rank order");

  mpi_check(MPI_Comm_dup(MPI_COMM_SELF, self_.out()), "MPI_Comm_dup");
  mpi_check(MPI_Comm_set_errhandler(self_.get(), MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
}

void Comm::count_machine_cores(MPI_Comm machine) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) CPU_ZERO(&mask);
  // The union over the machine's ranks: a bitwise OR of the masks' bytes.
  std::vector<unsigned char> bytes(sizeof mask);
  std::memcpy(bytes.data(), &mask, sizeof mask);
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, bytes.data(), static_cast<int>(bytes.size()), MPI_UNSIGNED_CHAR, MPI_BOR,
                          machine),
            "MPI_Allreduce");
  std::memcpy(&mask, bytes.data(), sizeof mask);
  mpi_check(MPI_Comm_size(machine, &machine_ranks_), "MPI_Comm_size");
  const int simulated = mpi_implementation::simulated_host_cores();
  machine_cores_ = simulated > 0 ? simulated : std::max(1, CPU_COUNT(&mask));
}

void Comm::close_components() const {
  // Closed components stay: a request freed later gives back into them.
  std::vector<std::pair<std::type_index, std::shared_ptr<Component>>> components;
  {
    std::lock_guard<std::mutex> lock(components_mutex_);
    components = components_;
  }
  for (auto it = components.rbegin(); it != components.rend(); ++it) it->second->close();
}

}  // namespace mpix
