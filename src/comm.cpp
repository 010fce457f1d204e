#include "src/comm.hpp"

#include <sched.h>

#include <algorithm>
#include <cstring>

#include "src/error.hpp"

namespace mpix {

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

  UniqueComm shared;
  mpi_check(MPI_Comm_split_type(global(), MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, shared.out()),
            "MPI_Comm_split_type");
  count_machine_cores(shared.get());
  if (emulated_node_size > 0) {
    int shared_rank = 0;
    mpi_check(MPI_Comm_rank(shared.get(), &shared_rank), "MPI_Comm_rank");
    mpi_check(MPI_Comm_split(shared.get(), shared_rank / emulated_node_size, rank_, node_.out()),
              "MPI_Comm_split");
  } else {
    node_ = std::move(shared);
  }

  // The node's first global rank identifies the node on every rank.
  int my_rank_in_node = 0;
  mpi_check(MPI_Comm_rank(node(), &my_rank_in_node), "MPI_Comm_rank");
  int first = rank_;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, node()), "MPI_Allreduce");
  std::vector<int> first_of(size);
  mpi_check(MPI_Allgather(&first, 1, MPI_INT, first_of.data(), 1, MPI_INT, global()), "MPI_Allgather");

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
  machine_cores_ = std::max(1, CPU_COUNT(&mask));
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
