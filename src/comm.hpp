// A communicator as the algorithms see it: a private duplicate of the user's
// communicator, its split into nodes, and the configuration everything
// built on it runs under (taken from the environment by MPIX_Comm_init,
// built in code by tests and tools).
#pragma once

#include <mpi.h>

#include <memory>
#include <mutex>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include "src/config.hpp"
#include "src/mpi_handle.hpp"

namespace mpix {

// Per-communicator state a transport or a collective family owns (the
// windows and node channels it keeps for reuse), as Open MPI's coll/xhc
// keeps its module state on the communicator. Created on first use through
// Comm::component<T>(); closed when the communicator is freed.
class Component {
 public:
  virtual ~Component() = default;
  // Frees what the component keeps for reuse. Collective where its
  // resources are: every rank closes its components at MPIX_Comm_free, in
  // the reverse order of their creation, which is the same on every rank
  // as components are created inside agreed (collective) set-up. A request
  // still alive afterwards gives back into a closed component, which frees
  // at once.
  virtual void close() = 0;
};

class Comm {
 public:
  // Collective over user; every rank passes the same config.
  // config.node_size > 0 cuts every real node into nodes of that many
  // consecutive ranks (the last one may be smaller); it never merges real
  // nodes, so ranks on one emulated node always share memory.
  Comm(MPI_Comm user, Config config);

  // The user's communicator (not owned): errors are raised on its error
  // handler, the one it has when they happen, as MPI raises its own.
  MPI_Comm user() const { return user_; }
  MPI_Comm global() const { return global_.get(); }
  MPI_Comm node() const { return node_.get(); }
  // This process alone, errors returned: for local checks through MPI calls
  // that must not abort (is a datatype usable?).
  MPI_Comm self() const { return self_.get(); }

  const Config& config() const { return config_; }
  int rank() const { return rank_; }
  int size() const { return static_cast<int>(node_of_.size()); }
  int num_nodes() const { return static_cast<int>(node_sizes_.size()); }
  int node_id() const { return node_of_[rank_]; }
  int node_rank() const { return node_rank_of_[rank_]; }
  int node_size() const { return node_sizes_[node_id()]; }
  int node_of(int rank) const { return node_of_[rank]; }
  int node_rank_of(int rank) const { return node_rank_of_[rank]; }
  bool same_node(int rank) const { return node_of_[rank] == node_id(); }
  // The ranks of this process's real shared-memory node (emulated nodes
  // share its cores) and the CPUs they may run on together (the union of
  // their affinity masks). More ranks than cores: a waiting rank that spins
  // holds the core the rank it waits for needs.
  int machine_ranks() const { return machine_ranks_; }
  int machine_cores() const { return machine_cores_; }
  bool oversubscribed() const { return machine_ranks_ > machine_cores_; }
  // Why the kernel refuses this process single copies (CMA) from another
  // process of its machine (ptrace policy, a non-dumpable peer, a
  // container), or empty. Probed only where the MPI's own one-sided
  // transport needs CMA (mpi_implementation::one_sided_hangs_without_cma);
  // empty elsewhere. Local.
  const std::string& machine_cma_refused() const { return machine_cma_refused_; }

  // This communicator's T (a Component with a default constructor), made on
  // first use. Shared: requests built on the communicator hold it.
  template <class T>
  std::shared_ptr<T> component() const {
    std::lock_guard<std::mutex> lock(components_mutex_);
    for (const auto& [type, made] : components_)
      if (type == typeid(T)) return std::static_pointer_cast<T>(made);
    auto made = std::make_shared<T>();
    components_.emplace_back(typeid(T), made);
    return made;
  }
  // Closes every component, newest first (see Component::close).
  void close_components() const;

 private:
  void count_machine_cores(MPI_Comm machine);

  MPI_Comm user_;
  Config config_;
  UniqueComm global_;
  UniqueComm node_;
  UniqueComm self_;
  int rank_ = 0;
  std::vector<int> node_of_;       // node id of every rank, ids dense in order of first rank
  std::vector<int> node_rank_of_;  // rank inside its node, of every rank
  std::vector<int> node_sizes_;
  int machine_ranks_ = 1;
  int machine_cores_ = 1;
  std::string machine_cma_refused_;
  mutable std::mutex components_mutex_;
  mutable std::vector<std::pair<std::type_index, std::shared_ptr<Component>>> components_;
};

}  // namespace mpix
