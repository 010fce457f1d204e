// Passive target (paper Algorithm 3's lock variant, without its race): one
// lock_all epoch for the request's whole life instead of a lock/unlock pair
// per iteration. Start: a barrier says every rank has started, so every
// receive buffer is free (the published version took an exclusive self-lock
// that a fast peer's next lock_all could overtake). Wait: a flush completes
// this rank's puts, a second barrier says every rank's puts are complete.
#pragma once

#include <atomic>

#include "collectives/blocks/rma_alltoallv.hpp"
#include "src/error.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

class LockAllAlltoallv final : public RmaAlltoallv {
 public:
  LockAllAlltoallv(const AlltoallvArgs& args, Path path) : RmaAlltoallv(args, path) {
    window().lock_all(MPI_MODE_NOCHECK);
  }
  ~LockAllAlltoallv() override {
    try {
      window().unlock_all();
    } catch (const Error&) {
      // Only on a window MPI already failed on; freeing it closes the epoch.
    }
  }

 private:
  void open() override { mpi_check(MPI_Barrier(window().comm()), "MPI_Barrier"); }
  void begin_close() override {
    window().flush_all(settings, false);
    // Direct copies are complete; the barrier must also publish them.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    mpi_check(mpi_implementation::begin_epoch_barrier(window().comm(), &barrier_), "MPI_Ibarrier");
  }
  bool poll_close() override {
    int done = 0;
    mpi_check(MPI_Test(&barrier_, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) window().sync();
    return done != 0;
  }
  void finish_close() override {
    mpi_check(MPI_Wait(&barrier_, MPI_STATUS_IGNORE), "MPI_Wait");
    window().sync();
  }

  MPI_Request barrier_ = MPI_REQUEST_NULL;
};

}  // namespace mpix
