// Which path reaches each target of a window: what every rank publishes
// about its memory, and the range checks every transfer passes.
#include "rma/window.hpp"

#include <cstdio>

#include "node/peer_memory.hpp"

namespace mpix {

namespace {

// What every rank publishes about its part of the window.
struct Published {
  long long size;  // -1: dynamic
  long long disp_unit;
  long long mpi_lead;
  PeerMemory memory;
};

}  // namespace

void Window::exchange_and_choose_paths(void* base, MPI_Aint size, int disp_unit, MPI_Win shm, const Config& all_config) {
  const WindowConfig& config = all_config.section<WindowConfig>();
  const PtracePeers ptrace_peers = all_config.section<NodeConfig>().ptrace_peers;
  const int n = xcomm_->size();
  // Memory-handle windows over a dynamic window may use CMA later: describe
  // allows it whatever the kind.
  const Published mine{kind_ == Kind::dynamic ? -1 : static_cast<long long>(size), disp_unit, mpi_lead_,
                       PeerMemory::describe(base, kind_ == Kind::dynamic ? 0 : static_cast<std::size_t>(size),
                                            ptrace_peers)};
  std::vector<Published> all(n);
  mpi_check(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm()), "MPI_Allgather");

  remotes_.resize(n);
  const bool want_shm = config.node_path == NodePath::automatic || config.node_path == NodePath::shm;
  std::string why_not;
  for (int r = 0; r < n; ++r) {
    Remote& remote = remotes_[r];
    remote.size = all[r].size;
    remote.disp_unit = static_cast<int>(all[r].disp_unit);
    remote.mpi_lead = static_cast<MPI_Aint>(all[r].mpi_lead);
    if (kind_ == Kind::dynamic || config.node_path == NodePath::mpi || !xcomm_->same_node(r)) continue;
    if (shm != MPI_WIN_NULL && want_shm) {
      // Allocated windows: MPI's shared segment, load/store.
      MPI_Aint peer_size = 0;
      int peer_unit = 0;
      void* peer_base = nullptr;
      mpi_check(MPI_Win_shared_query(shm, xcomm_->node_rank_of(r), &peer_size, &peer_unit, &peer_base),
                "MPI_Win_shared_query");
      remote.direct.mode = DirectTarget::Mode::shm;
      remote.direct.shm_base = static_cast<char*>(peer_base);
      continue;
    }
    if (r == rank_ && base == nullptr) continue;
    // User memory takes CMA from MPIX_CMA_MIN_BYTES up, and on ordered
    // windows where it measured faster (route_to).
    DirectPath path = choose_direct_path(all[r].memory, r == rank_, config.node_path, ptrace_peers);
    remote.direct = path.target;
    remote.segment = std::move(path.segment);
    if (why_not.empty()) why_not = path.why_not;
  }
  const DirectTarget::Mode self = remotes_[rank_].direct.mode;
  DirectTarget::Mode node = DirectTarget::Mode::none;
  for (int r = 0; r < n; ++r)
    if (r != rank_ && xcomm_->same_node(r)) node = remotes_[r].direct.mode;
  paths_ = std::string("self:") + path_name(self) + " node:" + path_name(node) + " off-node:mpi";
  // One line a node (its first rank's: the reasons are the node's, its
  // kernel's or the simulator's, as a rule); every rank's at MPIX_VERBOSE=2.
  const bool says_why = all_config.verbose >= 2 || (all_config.verbose >= 1 && xcomm_->node_rank_of(rank_) == 0);
  if (says_why && !why_not.empty())
    std::fprintf(stderr, "mpix-rma (window rank %d): on-node targets use MPI RMA: %s\n", rank_, why_not.c_str());
}

std::string Window::paths() const { return paths_; }

void Window::throw_target_rank_error(int target, int size) {
  throw Error(MPI_ERR_RANK, "target_rank = " + std::to_string(target) + " is not in [0, " + std::to_string(size) + ")");
}

void Window::throw_range_error(const Transfer& t, MPI_Aint window_bytes) {
  throw Error(MPI_ERR_RMA_RANGE, "target_disp = " + std::to_string(t.disp) + " with " + std::to_string(t.target_count) +
                                     " elements reaches past the " + std::to_string(window_bytes) +
                                     "-byte window of rank " + std::to_string(t.target));
}

}  // namespace mpix
