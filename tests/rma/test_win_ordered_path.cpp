// An ordered window chooses its path to CMA targets by timing its own first
// transfers (OrderedPathChoice, rma/ordered_path_choice.hpp): they keep
// their order while the blocks alternate paths, the window reports what it
// chose, and later transfers take that path. CMake runs the suite in a
// single-threaded program and under MPI_THREAD_MULTIPLE.
#include <cstdint>
#include <string>
#include <vector>

#include "tests/rma/win_fixture.hpp"

using namespace mpix_test;

namespace {

class WinOrderedPath : public MpiTest {
 protected:
  // More transfers than the measurement takes: the trials and after.
  static constexpr int rounds = 600;

  // The choice w reports, after checking its form ("cma (...)" or "mpi (...)").
  static std::string chosen(const TestWindow& w) {
    const std::string path = win_info(w, "mpix_ordered_path");
    EXPECT_TRUE(path.rfind("cma (", 0) == 0 || path.rfind("mpi (", 0) == 0) << "mpix_ordered_path = " << path;
    return path.substr(0, 3);
  }
  // Puts into the next rank, flushes, and checks the puts took the path w
  // chose: CMA calls where it chose CMA, none where it chose MPI.
  static void check_later_puts_take(const TestWindow& w, const std::string& path) {
    const int p = world_size(), me = world_rank(), target = (me + 1) % p;
    int value = 7;
    const std::uint64_t before = mpix::cma_calls();
    for (int i = 0; i < 40; ++i)
      ASSERT_EQ(MPIX_Put(&value, 1, MPI_INT, target, w.disp(target, 0), 1, MPI_INT, w.win()), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Win_flush(target, w.win()), MPI_SUCCESS);
    const std::uint64_t calls = mpix::cma_calls() - before;
    if (path == "cma")
      EXPECT_GE(calls, 1u) << "the window chose CMA, but its puts went another way";
    else
      EXPECT_EQ(calls, 0u) << "the window chose MPI, but its puts went by CMA";
  }
};

}  // namespace

// Data then flag, round after round, through the trials and after: whenever
// the target sees a round's flag it sees that round's data, whichever path
// each block took. Then every rank reports a choice and its puts follow it.
TEST_F(WinOrderedPath, FlagNeverOvertakesDataWhileMeasuring) {
  constexpr int chunk = 64;
  TestWindow w(WinKind::created, chunk + 1, ordered);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  SKIP_UNLESS_CMA(w);
  EXPECT_EQ(win_info(w, "mpix_ordered_path"), "measuring");
  fill_and_lock_all(w, 0);
  put_data_then_flag(w, chunk, rounds, 8);
  EXPECT_EQ(w.load(chunk), rounds);
  EXPECT_EQ(w.load(0), rounds);
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has read its data
  check_later_puts_take(w, chosen(w));
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
}

// Gets through the trials read what the origin's own earlier puts wrote:
// an ordered get after a put (on either path) sees it.
TEST_F(WinOrderedPath, GetsSeeEarlierPutsWhileMeasuring) {
  const int p = world_size(), me = world_rank();
  TestWindow w(WinKind::created, p, ordered);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  SKIP_UNLESS_CMA(w);
  fill_and_lock_all(w, -1);
  const int target = (me + 1) % p;
  int stale = 0;
  for (int i = 0; i < rounds; ++i) {
    int value = me * 100000 + i, read = -1;
    ASSERT_EQ(MPIX_Put(&value, 1, MPI_INT, target, w.disp(target, me), 1, MPI_INT, w.win()), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Get(&read, 1, MPI_INT, target, w.disp(target, me), 1, MPI_INT, w.win()), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Win_flush(target, w.win()), MPI_SUCCESS);
    stale += read != value;
  }
  EXPECT_EQ(stale, 0) << "a get overtook the put before it";
  chosen(w);
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
}

// Under MPI_THREAD_MULTIPLE, threads put at once through the trials, each
// its own elements: all land, and the window decides once for all.
TEST_F(WinOrderedPath, ThreadsShareTheMeasurement) {
  SKIP_UNLESS_THREAD_MULTIPLE();
  constexpr int threads = 3, puts = 200;
  const int p = world_size(), me = world_rank();
  TestWindow w(WinKind::created, threads * puts, ordered);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  SKIP_UNLESS_CMA(w);
  fill_and_lock_all(w, -1);
  const int source = (me + p - 1) % p;
  std::vector<int> values;
  EXPECT_EQ(put_from_threads(w, threads, puts, values), 0);
  ASSERT_EQ(MPIX_Win_flush_all(w.win()), MPI_SUCCESS);
  check_later_puts_take(w, chosen(w));
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < threads * puts; ++i) {
    if (i == 0) continue;  // check_later_puts_take's value
    EXPECT_EQ(w.memory()[i], thread_put_value(source, i)) << "element " << i;
  }
}
