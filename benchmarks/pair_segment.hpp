// Two ranks of one node and a segment both can load from and store to: the
// simplest exchange through memory, with no library code, which the floor
// benchmarks (bench_copy_floor, bench_neighbor's `staged`) time beside
// MPI's own call to say what moving the data costs on this machine now.
//
// Each rank owns `buffers` regions of `bytes` in the segment, used in turn,
// and two flags, each on its own cache line. A turn: the owner waits until
// the peer is done with the previous turn (begin_turn), fills the turn's
// region, raises `ready` (publish); the peer waits for it (wait_for_peer),
// reads the region and raises its own `done` (release_peer). So the owner
// never overwrites what the peer still reads, and the reader never reads a
// region half written. Waiting spins a bounded number of polls, then
// yields, so that the two ranks also make progress oversubscribed.
//
// Two buffers in turn are what the node channel's rings do (a ring holds
// two rounds): a rank then writes lines the peer read two turns ago, not
// one. Where a turn is nothing but the exchange (no copy of a rank's own
// block between turns), that is much faster on this project's machine (the
// README's ring section has the numbers); where it is not, it changes
// nothing, so bench_copy_floor keeps one buffer.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include <sched.h>

namespace mpix_bench {

class PairSegment {
 public:
  static constexpr std::size_t line = 64;

  // Collective over node, which must hold exactly two ranks.
  PairSegment(MPI_Comm node, std::size_t bytes, int buffers = 1) : stride_(round_up(bytes)), buffers_(buffers) {
    int rank = 0;
    MPI_Comm_rank(node, &rank);
    char* mine = nullptr;
    MPI_Win_allocate_shared(static_cast<MPI_Aint>(sizeof(Flags) + stride_ * static_cast<std::size_t>(buffers)), 1,
                            MPI_INFO_NULL, node, &mine, &window_);
    MPI_Aint size = 0;
    int unit = 0;
    char* theirs = nullptr;
    MPI_Win_shared_query(window_, 1 - rank, &size, &unit, &theirs);
    me_ = new (mine) Flags{};
    peer_ = reinterpret_cast<Flags*>(theirs);
    MPI_Barrier(node);  // the peer's flags are constructed before either rank reads them
  }
  ~PairSegment() { MPI_Win_free(&window_); }
  PairSegment(const PairSegment&) = delete;
  PairSegment& operator=(const PairSegment&) = delete;

  // The regions of a turn: this rank's, and the peer's.
  unsigned char* mine(std::uint64_t turn) { return reinterpret_cast<unsigned char*>(me_ + 1) + offset(turn); }
  const unsigned char* peers(std::uint64_t turn) const {
    return reinterpret_cast<const unsigned char*>(peer_ + 1) + offset(turn);
  }

  // The next turn's number, once the peer has read this rank's region at
  // the last one.
  std::uint64_t begin_turn() {
    const std::uint64_t turn = ++turns_;
    wait(peer_->done, turn - 1);
    return turn;
  }
  void publish(std::uint64_t turn) { me_->ready.store(turn, std::memory_order_release); }
  void wait_for_peer(std::uint64_t turn) const { wait(peer_->ready, turn); }
  void release_peer(std::uint64_t turn) { me_->done.store(turn, std::memory_order_release); }

  static std::size_t round_up(std::size_t n) { return (n + line - 1) / line * line; }

 private:
  struct Flags {
    alignas(line) std::atomic<std::uint64_t> ready{0};
    alignas(line) std::atomic<std::uint64_t> done{0};
  };
  std::size_t offset(std::uint64_t turn) const {
    return static_cast<std::size_t>(turn % static_cast<std::uint64_t>(buffers_)) * stride_;
  }
  static void wait(const std::atomic<std::uint64_t>& flag, std::uint64_t turn) {
    int polls = 0;
    while (flag.load(std::memory_order_acquire) < turn)
      if (++polls > 4096) sched_yield();
  }

  std::size_t stride_;
  int buffers_;
  MPI_Win window_ = MPI_WIN_NULL;
  Flags* me_ = nullptr;
  Flags* peer_ = nullptr;
  std::uint64_t turns_ = 0;
};

}  // namespace mpix_bench
