// Ordered windows queue their CMA puts and issue them with one system call
// (CmaWriteQueue, rma/window.hpp), in a single-threaded program and under
// MPI_THREAD_MULTIPLE, where the threads share the queue (CMake runs the
// suite at both levels, with MPIX_NODE_PATH=cma: the path is forced, not
// measured). Every check reads the target's memory, written by a node peer
// over CMA.
#include <cstdint>
#include <string>
#include <vector>

#include "tests/rma/win_fixture.hpp"

using namespace mpix_test;

namespace {

class WinQueuedPuts : public MpiTest, public ::testing::WithParamInterface<WinKind> {};

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
  SKIP_UNLESS_THREAD_MULTIPLE();
  constexpr int threads = 3;
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), threads * put_count, ordered);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  SKIP_UNLESS_CMA(w);
  fill_and_lock_all(w, -1);
  const int target = (me + 1) % p, source = (me + p - 1) % p;
  std::vector<int> values;
  const std::uint64_t cma_before = mpix::cma_calls();
  EXPECT_EQ(put_from_threads(w, threads, put_count, values), 0);
  ASSERT_EQ(MPIX_Win_flush(target, w.win()), MPI_SUCCESS);
  const std::uint64_t calls = mpix::cma_calls() - cma_before;
  if (target != me)
    EXPECT_TRUE(calls >= 1 && calls < static_cast<std::uint64_t>(threads * put_count)) << calls << " CMA calls";
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < threads * put_count; ++i)
    EXPECT_EQ(w.memory()[i], thread_put_value(source, i)) << "element " << i;
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
  TestWindow w(GetParam(), chunk + 1, ordered);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  SKIP_UNLESS_CMA(w);
  fill_and_lock_all(w, 0);
  put_data_then_flag(w, chunk, rounds, 0);
  EXPECT_EQ(w.load(chunk), rounds);
  EXPECT_EQ(w.load(0), rounds);
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
}

// Created windows: allocated ones reach node peers through shared memory
// (stores, nothing to queue), dynamic ones through MPI RMA.
INSTANTIATE_TEST_SUITE_P(Kinds, WinQueuedPuts, ::testing::Values(WinKind::created),
                         [](const ::testing::TestParamInfo<WinKind>& info) { return kind_name(info.param); });
