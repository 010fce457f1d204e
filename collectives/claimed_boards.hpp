// The boards of a communicator's claimed copies (collectives/
// claimed_copies.hpp), pooled: each rank's boards are regions of shared
// segments it owns, which its node peers map once, not once per request.
//
// Why: a request made its own segment, passed it to every node peer over a
// socket and mapped theirs, about 45 us of every init here, where the
// Starts it serves take a microsecond or less: a program that makes a
// small persistent exchange and starts it a few dozen times would not have
// repaid it. A region in a segment the peers already map costs two
// allgathers over the node.
//
// Protocol, at a request's init (take(), collective over the node, then
// over the communicator):
//  - every rank says whether any request of the pool is active on it
//    (started, its transfers not yet seen done: ClaimedBoards::Activity);
//  - where none is on any node rank, each rank's segments that hold no
//    live region start afresh (their regions' requests are freed);
//  - each rank takes a zeroed region from the end of a segment with room,
//    or from a new segment, and every rank learns each peer's segment,
//    offset and bytes (allgather); new segments go to the peers as
//    descriptors (node/descriptor_passing.hpp), checked against the size
//    their owner names, and are mapped;
//  - the outcome is agreed over the communicator: every rank has its
//    boards, or the init fails on every rank alike, naming the reason (and
//    a segment made for it goes with it: the next one made is passed
//    afresh).
// Invariants: a region is reused only while no request of the pool is
// active on any node rank, so no peer's request still reads or claims in
// it (a request freed on one rank may still be running on another, whose
// wait reads the claims in this rank's board); a region stays mapped while
// its request lives, and a segment while any request uses it, also after
// the communicator's components close (close() drops the pool's own hold).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "node/shared_segment.hpp"
#include "src/comm.hpp"

namespace mpix {

class ClaimedBoards final : public Component {
 public:
  // One request's boards: this rank's region, and each node peer's for the
  // same request. Holds the segments; gives the region back when it goes.
  class Lease {
   public:
    Lease() = default;
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = default;

    char* mine() const { return mine_; }
    std::size_t mine_bytes() const { return mine_bytes_; }
    // Node rank peer's region (nullptr for this rank) and its bytes.
    char* of(int peer) const { return peers_[static_cast<std::size_t>(peer)]; }
    std::size_t bytes_of(int peer) const { return peer_bytes_[static_cast<std::size_t>(peer)]; }
    pid_t pid_of(int peer) const { return pids_[static_cast<std::size_t>(peer)]; }

   private:
    friend class ClaimedBoards;
    std::shared_ptr<ClaimedBoards> pool_;
    std::shared_ptr<SharedSegment> segment_;  // this rank's region's
    std::vector<std::shared_ptr<PeerMapping>> held_;  // the peers' regions' segments
    char* mine_ = nullptr;
    std::size_t mine_bytes_ = 0;
    std::vector<char*> peers_;
    std::vector<std::size_t> peer_bytes_;
    std::vector<pid_t> pids_;
  };

  // Counts this rank's active requests of the pool: one from its Start
  // until its wait sees every transfer done (start() and done()).
  class Activity {
   public:
    void start() { active_.fetch_add(1, std::memory_order_relaxed); }
    void done() { active_.fetch_sub(1, std::memory_order_relaxed); }
    bool idle() const { return active_.load(std::memory_order_relaxed) == 0; }

   private:
    std::atomic<long> active_{0};
  };

  // Collective over comm.node(), then comm.global(): a region of bytes
  // here, zeroed, then written by fill before any peer can read it, and
  // every node peer's, for a request of row. Throws the same Error on every
  // rank where a rank cannot have them (naming its reason). self: this pool
  // (the communicator's component), which the lease holds.
  static Lease take(const std::shared_ptr<ClaimedBoards>& self, const Comm& comm, std::size_t bytes, const char* row,
                    const std::function<void(char* region)>& fill);
  Activity& activity() { return activity_; }
  // Why no rank of a node can have boards (simulated ranks are threads; a
  // kernel or seccomp policy without memfd or descriptor passing), or "".
  static std::string unavailable();
  // Local: drops the pool's hold on its segments and peers' mappings
  // (leases alive keep theirs).
  void close() override;

 private:
  struct Segment {
    std::shared_ptr<SharedSegment> memory;
    std::size_t end = 0;  // bytes taken from its start
    long live = 0;        // regions whose leases are alive
  };
  // Local: the region's lease went.
  void give_back(const SharedSegment* segment);

  std::mutex mutex_;  // segments_' counts: leases go on any thread
  std::vector<Segment> segments_;
  // Per node rank, its segments by index, mapped here.
  std::vector<std::vector<std::shared_ptr<PeerMapping>>> peer_segments_;
  std::vector<char> reachable_;  // per node rank: CMA to it was probed and works
  Activity activity_;
};

}  // namespace mpix
