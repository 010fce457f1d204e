// claimed_copy's pooled boards (collectives/claimed_boards.hpp): requests
// made and freed in turn reuse them, live ones keep theirs, and a region
// is not reused while a peer's request may still read it.
#include <mpi.h>

#include <memory>
#include <vector>

#include "tests/alltoallv/forced_algorithm.hpp"

using namespace mpix_test;

namespace {

constexpr const char* row = "claimed_copy";

// An Alltoallv of blocks of `ints` ints between every pair, its data
// changing with each iteration.
class Exchange {
 public:
  Exchange(const ForcedAlgorithm& forced, int ints)
      : p_(world_size()), rank_(world_rank()), ints_(ints), counts_(p_, ints), displs_(p_),
        send_(static_cast<std::size_t>(p_ * ints)), recv_(send_.size()) {
    for (int k = 0; k < p_; ++k) displs_[k] = k * ints;
    EXPECT_EQ(MPIX_Alltoallv_init(send_.data(), counts_.data(), displs_.data(), MPI_INT, recv_.data(),
                                  counts_.data(), displs_.data(), MPI_INT, forced.comm(), forced.info(), &request_),
              MPI_SUCCESS);
    if (request_ != nullptr) expect_runs(request_, row);
  }
  ~Exchange() { free(); }
  void free() {
    if (request_ != nullptr) EXPECT_EQ(MPIX_Request_free(&request_), MPI_SUCCESS);
  }
  void start(int it) {
    for (int k = 0; k < p_; ++k)
      for (int i = 0; i < ints_; ++i) send_[static_cast<std::size_t>(k * ints_ + i)] = value(it, rank_, k, i);
    recv_.assign(recv_.size(), -1);
    ASSERT_EQ(MPIX_Start(request_), MPI_SUCCESS);
  }
  // Completes the exchange (false: not within seconds, a hang) and checks
  // its blocks.
  bool wait_and_check(int it, double seconds = 5) {
    const double give_up = MPI_Wtime() + seconds;
    for (int done = 0; !done;) {
      if (MPIX_Test(request_, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
      if (!done && MPI_Wtime() > give_up) {
        ADD_FAILURE() << "iteration " << it << " of " << ints_ << " ints per block did not complete within "
                      << seconds << " s on rank " << rank_;
        return false;
      }
    }
    for (int k = 0; k < p_; ++k)
      for (int i = 0; i < ints_; ++i)
        if (recv_[static_cast<std::size_t>(k * ints_ + i)] != value(it, k, rank_, i)) {
          ADD_FAILURE() << "iteration " << it << ": block from rank " << k << ", element " << i << " is wrong";
          return true;
        }
    return true;
  }
  bool run(int it) {
    start(it);
    return wait_and_check(it);
  }

 private:
  // Distinct per iteration, pair and element (unsigned: it wraps, defined).
  static int value(int it, int from, int to, int i) {
    const unsigned v = static_cast<unsigned>((it * 64 + from) * 64 + to) * 100003u + static_cast<unsigned>(i);
    return static_cast<int>(v & 0x7fffffffu);
  }
  int p_, rank_, ints_;
  std::vector<int> counts_, displs_, send_, recv_;
  MPIX_Request* request_ = nullptr;
};

}  // namespace

TEST(ClaimedBoards, RequestsMadeInTurnOfGrowingAndShrinkingSizes) {
  ForcedAlgorithm forced(row);
  // Blocks from 1 int to 12 Ki ints (48 KiB: staged or not, as trials
  // choose), and back: each request's board a region of the pooled ones.
  const int sizes[] = {1, 64, 1024, 4096, 12288, 2048, 16, 12288, 1};
  for (int round = 0; round < (world_size() <= 2 ? 3 : 1); ++round)
    for (int ints : sizes) {
      Exchange x(forced, ints);
      for (int it = 0; it < (world_size() <= 2 ? 24 : 3); ++it)
        if (!x.run(it)) return;
    }
}

TEST(ClaimedBoards, LiveRequestsKeepTheirBoards) {
  ForcedAlgorithm forced(row);
  Exchange a(forced, 100), b(forced, 3000);
  for (int it = 0; it < 10; ++it) {
    {
      Exchange c(forced, 7);  // made and freed between the others' runs
      if (!c.run(it)) return;
    }
    if (!a.run(it) || !b.run(it)) return;
  }
}

TEST(ClaimedBoards, ARequestMadeWhileAPeerStillRunsOneReusesNoBoardOfIt) {
  // Rank 0 completes and frees the first exchange; the others complete it
  // only after the second is made: its boards must not take the first's
  // place in rank 0's pool, where their waits still read the claims. The
  // others start first, so their Start finds rank 0 not started and leaves
  // every copy to rank 0's wait: they have seen none of them done.
  ForcedAlgorithm forced(row);
  auto first = std::make_unique<Exchange>(forced, 256);
  const bool rank0 = world_rank() == 0;
  if (!rank0) first->start(0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank0) {
    first->start(0);
    first->wait_and_check(0);  // a failure is recorded; every rank goes on to the collective init
    first->free();
  }
  Exchange second(forced, 256);
  if (!rank0 && !first->wait_and_check(0)) return;
  first.reset();
  // Data of its own: a copy of the first's landing in it shows.
  for (int it = 100; it < 103; ++it)
    if (!second.run(it)) return;
}
