// The pooled boards of claimed copies (collectives/claimed_boards.hpp).
#include "collectives/claimed_boards.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "node/descriptor_passing.hpp"
#include "node/direct_copy.hpp"
#include "node/node_config.hpp"
#include "src/error.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

constexpr std::size_t line = 64;
// A new segment holds at least this much, so that the regions of a
// communicator's requests (a few lines each, plus their staged copies)
// share one or a few segments.
constexpr std::size_t least_segment_bytes = 256 * 1024;

}  // namespace

std::string ClaimedBoards::unavailable() {
  if (const char* why = mpi_implementation::ranks_are_not_processes()) return why;
  return descriptor_passing_unavailable();
}

ClaimedBoards::Lease::~Lease() {
  if (pool_ && segment_) pool_->give_back(segment_.get());
}

void ClaimedBoards::give_back(const SharedSegment* segment) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Segment& s : segments_)
    if (s.memory.get() == segment) --s.live;
}

void ClaimedBoards::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  segments_.clear();
  peer_segments_.clear();
  reachable_.clear();
}

ClaimedBoards::Lease ClaimedBoards::take(const std::shared_ptr<ClaimedBoards>& self, const Comm& comm,
                                         std::size_t bytes, const char* row,
                                         const std::function<void(char* region)>& fill) {
  ClaimedBoards& pool = *self;
  const int node_size = comm.node_size(), me = comm.node_rank();
  const auto n = static_cast<std::size_t>(node_size);
  std::string why;
  if (node_size > 1) why = unavailable();
  allow_cma_from_peers(comm.config().section<NodeConfig>().ptrace_peers);

  // Who is active: regions are reused only where no node rank is.
  struct Process {
    std::int64_t pid;
    std::uint64_t probe;
    std::uint64_t active;
  };
  const Process process{static_cast<std::int64_t>(getpid()), cma_probe_address(),
                        pool.activity_.idle() ? 0u : 1u};
  std::vector<Process> processes(n);
  mpi_check(MPI_Allgather(&process, 3, MPI_INT64_T, processes.data(), 3, MPI_INT64_T, comm.node()),
            "MPI_Allgather");
  const bool reuse = std::none_of(processes.begin(), processes.end(), [](const Process& p) { return p.active; });

  // This rank's region.
  struct Region {
    std::uint64_t segment, offset, bytes, new_segment_bytes;
  };
  Region mine{0, 0, (bytes + line - 1) / line * line, 0};
  Lease lease;
  bool created = false;
  if (node_size > 1 && why.empty()) {
    std::lock_guard<std::mutex> lock(pool.mutex_);
    if (reuse)
      for (Segment& s : pool.segments_)
        if (s.live == 0) s.end = 0;
    auto room = std::find_if(pool.segments_.begin(), pool.segments_.end(), [&](const Segment& s) {
      return s.memory->size() - s.end >= mine.bytes;
    });
    try {
      if (room == pool.segments_.end()) {
        const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        const std::size_t size = (std::max(2 * mine.bytes, least_segment_bytes) + page - 1) / page * page;
        pool.segments_.push_back({std::make_shared<SharedSegment>(size, "mpix-claimed-boards", true), 0, 0});
        room = pool.segments_.end() - 1;
        created = true;
        mine.new_segment_bytes = size;
      }
      mine.segment = static_cast<std::uint64_t>(room - pool.segments_.begin());
      mine.offset = room->end;
      room->end += mine.bytes;
      ++room->live;
      lease.pool_ = self;
      lease.segment_ = room->memory;
      lease.mine_ = room->memory->base() + mine.offset;
      lease.mine_bytes_ = mine.bytes;
      std::memset(lease.mine_, 0, mine.bytes);
      fill(lease.mine_);
    } catch (const Error& e) {
      why = e.what();
    }
  }
  if (!why.empty()) mine.bytes = 0;  // none: its peers look no further, and its own error names why
  std::vector<Region> regions(n);
  mpi_check(MPI_Allgather(&mine, 4, MPI_UINT64_T, regions.data(), 4, MPI_UINT64_T, comm.node()), "MPI_Allgather");

  // New segments go to every peer; then each peer's region, mapped.
  lease.peers_.assign(n, nullptr);
  lease.peer_bytes_.assign(n, 0);
  lease.pids_.resize(n);
  for (std::size_t p = 0; p < n; ++p) lease.pids_[p] = static_cast<pid_t>(processes[p].pid);
  if (node_size > 1) {
    std::lock_guard<std::mutex> lock(pool.mutex_);
    pool.peer_segments_.resize(n);
    pool.reachable_.resize(n, 0);
    const bool any_new =
        std::any_of(regions.begin(), regions.end(), [](const Region& r) { return r.new_segment_bytes > 0; });
    if (any_new) {  // every rank sees the same regions: collective over the node alike
      SharedDescriptors shared = share_descriptor(comm.node(), created ? lease.segment_->fd() : -1);
      if (created) lease.segment_->close_fd();
      if (why.empty() && !shared.why.empty()) why = "descriptor passing: " + shared.why;
      for (int p = 0; p < node_size && why.empty(); ++p) {
        const Region& r = regions[static_cast<std::size_t>(p)];
        if (p == me || r.new_segment_bytes == 0) continue;
        const int fd = shared.of[static_cast<std::size_t>(p)].get();
        // The size a peer names is mapped only if its segment has it: a
        // mapping past a segment's end faults where it is read.
        struct stat segment {};
        if (fstat(fd, &segment) != 0 || static_cast<std::uint64_t>(segment.st_size) < r.new_segment_bytes) {
          why = "node rank " + std::to_string(p) + "'s board is smaller than it says";
          break;
        }
        auto mapping = std::make_shared<PeerMapping>(fd, static_cast<std::size_t>(r.new_segment_bytes), true);
        if (!mapping->ok()) {
          why = mapping->why();
          break;
        }
        auto& of_peer = pool.peer_segments_[static_cast<std::size_t>(p)];
        if (of_peer.size() <= r.segment) of_peer.resize(static_cast<std::size_t>(r.segment) + 1);
        of_peer[static_cast<std::size_t>(r.segment)] = std::move(mapping);
      }
    }
    for (int p = 0; p < node_size && why.empty(); ++p) {
      const auto peer = static_cast<std::size_t>(p);
      const Region& r = regions[peer];
      if (p == me || r.bytes == 0) continue;
      const auto& of_peer = pool.peer_segments_[peer];
      const std::shared_ptr<PeerMapping> mapping = r.segment < of_peer.size() ? of_peer[r.segment] : nullptr;
      if (mapping == nullptr || r.offset > mapping->size() || r.bytes > mapping->size() - r.offset) {
        why = "node rank " + std::to_string(p) + "'s board is not one this rank maps";
        break;
      }
      if (!pool.reachable_[peer]) {
        std::string refused;
        if (!cma_reachable(lease.pids_[peer], static_cast<std::uintptr_t>(processes[peer].probe), refused)) {
          why = "CMA to node rank " + std::to_string(p) + ": " + refused;
          break;
        }
        pool.reachable_[peer] = 1;
      }
      lease.held_.push_back(mapping);
      lease.peers_[peer] = mapping->base() + r.offset;
      lease.peer_bytes_[peer] = static_cast<std::size_t>(r.bytes);
    }
  }

  int ok = why.empty() ? 1 : 0;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm.global()), "MPI_Allreduce");
  if (ok) return lease;
  // A segment made for this request goes with it: its peers may not hold
  // it, and the next one made is passed to them afresh.
  if (created) {
    std::lock_guard<std::mutex> lock(pool.mutex_);
    lease.pool_.reset();
    pool.segments_.pop_back();
  }
  if (!why.empty()) throw Error(MPI_ERR_OTHER, std::string(row) + ": " + why);
  throw Error(MPI_ERR_OTHER, std::string(row) + ": a rank cannot copy to or from its node peers (its own error "
                                                "names the reason)");
}

}  // namespace mpix
