// Ordered windows queue their CMA puts and issue them with one system call
// (CmaWriteQueue, rma/window.hpp), in a single-threaded program and under
// MPI_THREAD_MULTIPLE, where the threads share the queue (CMake runs the
// suite at both levels). Every check reads the target's memory, written by a
// node peer over CMA.
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "node/direct_copy.hpp"
#include "tests/rma/win_fixture.hpp"

using namespace mpix_test;

namespace {

class WinQueuedPuts : public MpiTest, public ::testing::WithParamInterface<WinKind> {
 protected:
  // Whether w reaches its node peers by CMA (not under a ptrace policy that
  // forbids it), agreed by every rank.
  static bool node_peers_by_cma(const TestWindow& w) {
    MPIX_Info* used = nullptr;
    MPIX_Win_get_info(w.win(), &used);
    char paths[256] = {0};
    int flag = 0;
    MPIX_Info_get(used, "mpix_paths", sizeof(paths) - 1, paths, &flag);
    MPIX_Info_free(&used);
    int cma = std::strstr(paths, "node:cma") != nullptr ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &cma, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return cma == 1;
  }
  // Collective: every rank's window holds `initial`, then each origin opens
  // its lock_all epoch.
  static void fill_and_lock_all(const TestWindow& w, int initial) {
    for (int i = 0; i < w.ints(); ++i) w.memory()[i] = initial;
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(MPIX_Win_lock_all(0, w.win()), MPI_SUCCESS);
  }
};

const std::vector<std::pair<std::string, std::string>> ordered = {{"mpi_win_order", "true"}};

// Whether the kernel lets every rank CMA-read its next rank, agreed: the one
// condition under which an ordered window may reach its node peers otherwise.
bool cma_allowed_between_ranks() {
  const int p = world_size(), me = world_rank();
  long mine[2] = {static_cast<long>(getpid()), static_cast<long>(mpix::cma_probe_address())};
  std::vector<long> all(2 * static_cast<std::size_t>(p));
  MPI_Allgather(mine, 2, MPI_LONG, all.data(), 2, MPI_LONG, MPI_COMM_WORLD);
  const int next = (me + 1) % p;
  std::string why;
  int allowed = mpix::cma_reachable(static_cast<pid_t>(all[2 * next]), static_cast<std::uintptr_t>(all[2 * next + 1]),
                                    why)
                    ? 1
                    : 0;
  MPI_Allreduce(MPI_IN_PLACE, &allowed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return allowed == 1;
}

}  // namespace

// A test body's first check: the window reaches its node peers by CMA, or
// the test is skipped, naming why, only where the kernel refuses CMA.
#define SKIP_UNLESS_CMA(w)                                                                             \
  if (!node_peers_by_cma(w)) {                                                                         \
    ASSERT_FALSE(cma_allowed_between_ranks()) << "CMA works between these ranks, but the ordered "    \
                                                 "window reaches its node peers another way";          \
    GTEST_SKIP() << "the kernel refuses CMA between these ranks";                                      \
  }

namespace {

constexpr int put_count = 40;  // more than one queue's worth (CmaWriteQueue::capacity)

}  // namespace

// Later puts to one element overwrite earlier ones in issue order, and a get
// after them reads the last (it issues the queue first).
TEST_P(WinQueuedPuts, LandInIssueOrder) {
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), 1 + put_count, ordered);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  SKIP_UNLESS_CMA(w);
  fill_and_lock_all(w, -1);
  const int target = (me + 1) % p, source = (me + p - 1) % p;
  int values[put_count];
  for (int i = 0; i < put_count; ++i) {
    values[i] = me * 1000 + i;
    ASSERT_EQ(MPIX_Put(&values[i], 1, MPI_INT, target, w.disp(target, 0), 1, MPI_INT, w.win()), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Put(&values[i], 1, MPI_INT, target, w.disp(target, 1 + i), 1, MPI_INT, w.win()), MPI_SUCCESS);
  }
  int last = -1;
  const std::uint64_t cma_before = mpix::cma_calls();
  ASSERT_EQ(MPIX_Get(&last, 1, MPI_INT, target, w.disp(target, 0), 1, MPI_INT, w.win()), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Win_flush(target, w.win()), MPI_SUCCESS);
  EXPECT_EQ(last, values[put_count - 1]);
  // The 2 * put_count puts went out queued: some CMA calls (the get's among
  // them), far fewer than one per put.
  const std::uint64_t calls = mpix::cma_calls() - cma_before;
  if (target != me) EXPECT_TRUE(calls >= 1 && calls < static_cast<std::uint64_t>(put_count)) << calls << " CMA calls";
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(w.memory()[0], source * 1000 + put_count - 1);
  for (int i = 0; i < put_count; ++i) EXPECT_EQ(w.memory()[1 + i], source * 1000 + i) << "element " << 1 + i;
}

// A queued put waits for the next synchronization call: a barrier alone
// does not make it land, the origin's flush does. (MPI allows either; this
// shows the queue is in use.)
TEST_P(WinQueuedPuts, WaitForTheNextSynchronizationCall) {
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), 1, ordered);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  SKIP_UNLESS_CMA(w);
  fill_and_lock_all(w, -1);
  const int target = (me + 1) % p, mine = 100 + me;
  ASSERT_EQ(MPIX_Put(&mine, 1, MPI_INT, target, w.disp(target, 0), 1, MPI_INT, w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(w.load(0), -1) << "the put was not queued";
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(MPIX_Win_flush(target, w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(w.load(0), 100 + (me + p - 1) % p);
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
}

// Under MPI_THREAD_MULTIPLE, threads put into one ordered window at once,
// each its own elements; a flush on the main thread issues every thread's
// queued puts, which went out in fewer CMA calls than puts.
TEST_P(WinQueuedPuts, ThreadsShareTheQueue) {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level != MPI_THREAD_MULTIPLE) GTEST_SKIP() << "one thread at MPI_THREAD_SINGLE";
  constexpr int threads = 3;
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), threads * put_count, ordered);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  SKIP_UNLESS_CMA(w);
  fill_and_lock_all(w, -1);
  const int target = (me + 1) % p, source = (me + p - 1) % p;
  std::vector<int> values(threads * put_count);
  for (int i = 0; i < threads * put_count; ++i) values[static_cast<std::size_t>(i)] = me * 1000 + i;
  const std::uint64_t cma_before = mpix::cma_calls();
  std::vector<std::thread> workers;
  std::atomic<int> failed{0};
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (int i = t * put_count; i < (t + 1) * put_count; ++i)
        if (MPIX_Put(&values[static_cast<std::size_t>(i)], 1, MPI_INT, target, w.disp(target, i), 1, MPI_INT,
                     w.win()) != MPI_SUCCESS)
          ++failed;
    });
  for (std::thread& worker : workers) worker.join();
  EXPECT_EQ(failed.load(), 0);
  ASSERT_EQ(MPIX_Win_flush(target, w.win()), MPI_SUCCESS);
  const std::uint64_t calls = mpix::cma_calls() - cma_before;
  if (target != me)
    EXPECT_TRUE(calls >= 1 && calls < static_cast<std::uint64_t>(threads * put_count)) << calls << " CMA calls";
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < threads * put_count; ++i) EXPECT_EQ(w.memory()[i], source * 1000 + i) << "element " << i;
}

// MPIX_Rput's request means the origin buffer is free again: never queued.
TEST_P(WinQueuedPuts, RputIsNotQueued) {
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), 1, ordered);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  SKIP_UNLESS_CMA(w);
  fill_and_lock_all(w, -1);
  const int target = (me + 1) % p;
  int buffer = 5;
  MPIX_Request* request = nullptr;
  ASSERT_EQ(MPIX_Rput(&buffer, 1, MPI_INT, target, w.disp(target, 0), 1, MPI_INT, w.win(), &request), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Wait(request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Request_free(&request), MPI_SUCCESS);
  buffer = 6;
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(w.load(0), 5);
}

// Data then flag, many rounds, no flush until the end: whenever the target
// sees a round's flag it sees that round's data, across queue boundaries.
TEST_P(WinQueuedPuts, FlagNeverOvertakesData) {
  constexpr int chunk = 256, rounds = 2000;
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), chunk + 1, ordered);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  SKIP_UNLESS_CMA(w);
  fill_and_lock_all(w, 0);
  const int target = (me + 1) % p;
  std::vector<std::vector<int>> data(rounds + 1, std::vector<int>(chunk));
  std::vector<int> flags(rounds + 1);
  int early = 0, failed_calls = 0;
  // Puts interleave with polling: a rank is both an origin and a target.
  for (int r = 1; r <= rounds; ++r) {
    std::fill(data[r].begin(), data[r].end(), r);
    flags[r] = r;
    failed_calls += MPIX_Put(data[r].data(), chunk, MPI_INT, target, w.disp(target, 0), chunk, MPI_INT, w.win()) != 0;
    failed_calls += MPIX_Put(&flags[r], 1, MPI_INT, target, w.disp(target, chunk), 1, MPI_INT, w.win()) != 0;
    const int flag = w.load(chunk);
    if (w.load(0) < flag || w.load(chunk - 1) < flag) ++early;
  }
  failed_calls += MPIX_Win_flush_all(w.win()) != 0;
  MPI_Barrier(MPI_COMM_WORLD);  // every origin has flushed: all flags are in
  EXPECT_EQ(failed_calls, 0);
  EXPECT_EQ(early, 0) << "the flag overtook the data";
  EXPECT_EQ(w.load(chunk), rounds);
  EXPECT_EQ(w.load(0), rounds);
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
}

// Created windows: allocated ones reach node peers through shared memory
// (stores, nothing to queue), dynamic ones through MPI RMA.
INSTANTIATE_TEST_SUITE_P(Kinds, WinQueuedPuts, ::testing::Values(WinKind::created),
                         [](const ::testing::TestParamInfo<WinKind>& info) { return kind_name(info.param); });
