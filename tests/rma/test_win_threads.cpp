// Thread-scope flushes and ordered windows, checked at the target while the
// origins run: a signal must never arrive before the data it announces.
#include <atomic>
#include <thread>

#include "tests/rma/win_fixture.hpp"

using namespace mpix_test;

namespace {

class WinThreads : public MpiTest, public ::testing::WithParamInterface<WinKind> {};

// Lets MPI progress while a thread polls memory (MPI-path puts may need the
// target's progress on this MPICH).
void progress() {
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

int value(int origin, int thread, int round, int i) { return origin * 1000000 + thread * 100000 + round * 1000 + i; }

}  // namespace

TEST_P(WinThreads, EachThreadsFlushCompletesItsOwnDataBeforeItsSignal) {
  constexpr int threads = 4, rounds = 6, chunk = 512;  // 2 KiB puts: CMA on the node, MPI off it
  const int p = world_size(), me = world_rank();
  const int flags = threads * rounds * chunk;
  TestWindow w(GetParam(), flags + threads, {{"mpi_win_scope", "thread"}});
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  for (int i = 0; i < w.ints(); ++i) w.memory()[i] = -1;
  const int target = (me + 1) % p, source = (me + p - 1) % p;
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(MPIX_Win_lock_all(0, w.win()), MPI_SUCCESS);
  std::atomic<int> failed_calls{0};
  std::vector<std::thread> workers;
  for (int k = 0; k < threads; ++k) {
    workers.emplace_back([&, k] {
      std::vector<int> data(chunk);
      for (int r = 0; r < rounds; ++r) {
        for (int i = 0; i < chunk; ++i) data[i] = value(me, k, r, i);
        const int signal = r + 1;
        const MPI_Aint at = (k * rounds + r) * chunk;
        failed_calls += MPIX_Put(data.data(), chunk, MPI_INT, target, w.disp(target, at), chunk, MPI_INT, w.win()) != 0;
        failed_calls += MPIX_Win_flush(target, w.win()) != 0;
        failed_calls += MPIX_Put(&signal, 1, MPI_INT, target, w.disp(target, flags + k), 1, MPI_INT, w.win()) != 0;
        failed_calls += MPIX_Win_flush(target, w.win()) != 0;
      }
    });
  }
  // The target side: whenever thread k's signal says r rounds, all r are there.
  int early = 0;
  std::vector<int> seen(threads, 0);
  for (int done = 0; done < threads;) {
    done = 0;
    for (int k = 0; k < threads; ++k) {
      const int signal = w.load(flags + k);
      for (; seen[k] < signal; ++seen[k])
        for (int i = 0; i < chunk; ++i)
          early += w.load((k * rounds + seen[k]) * chunk + i) != value(source, k, seen[k], i);
      done += signal == rounds;
    }
    progress();
  }
  for (std::thread& t : workers) t.join();
  EXPECT_EQ(failed_calls.load(), 0);
  EXPECT_EQ(early, 0) << "signals arrived before their data";
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_P(WinThreads, OrderedWindowDeliversDataBeforeFlagWithoutFlushes) {
  // 10^4 rounds on 2 ranks; oversubscribed runs (3-4 ranks on 2 cores) pay
  // a scheduler quantum per MPI-path flush, so they check fewer.
  constexpr int chunk = 256;
  const int p = world_size(), me = world_rank();
  const int rounds = p <= 2 ? 10000 : 500;
  TestWindow w(GetParam(), chunk + 1, {{"mpi_win_order", "true"}});
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  for (int i = 0; i <= chunk; ++i) w.memory()[i] = 0;
  const int target = (me + 1) % p;
  MPI_Barrier(MPI_COMM_WORLD);
  std::atomic<int> early{0};
  std::thread watcher([&] {
    for (int flag = 0, polls = 0; flag < rounds; ++polls) {
      const int before = flag;
      flag = w.load(chunk);
      if (w.load(0) < flag || w.load(chunk - 1) < flag) ++early;
      // The source's flushes need this rank's progress once its own main
      // thread is done; oversubscribed runs (4 ranks on 2 cores) need the
      // core for the origins.
      if (flag == before || polls % 64 == 0) {
        progress();
        std::this_thread::yield();
      }
    }
  });
  ASSERT_EQ(MPIX_Win_lock_all(0, w.win()), MPI_SUCCESS);
  // Every round's origin buffers stay untouched until the flush, as MPI
  // requires of a put's origin (an ordered window may queue its puts).
  std::vector<std::vector<int>> data(rounds + 1);
  std::vector<int> flags(rounds + 1);
  int failed_calls = 0;
  for (int r = 1; r <= rounds; ++r) {
    data[r].assign(chunk, r);
    flags[r] = r;
    failed_calls +=
        MPIX_Put(data[r].data(), chunk, MPI_INT, target, w.disp(target, 0), chunk, MPI_INT, w.win()) != 0;
    failed_calls += MPIX_Put(&flags[r], 1, MPI_INT, target, w.disp(target, chunk), 1, MPI_INT, w.win()) != 0;
  }
  ASSERT_EQ(MPIX_Win_flush_all(w.win()), MPI_SUCCESS);
  watcher.join();
  EXPECT_EQ(failed_calls, 0);
  EXPECT_EQ(early.load(), 0) << "the flag overtook the data";
  ASSERT_EQ(MPIX_Win_unlock_all(w.win()), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
}

INSTANTIATE_TEST_SUITE_P(Kinds, WinThreads, ::testing::Values(WinKind::created, WinKind::allocated, WinKind::dynamic),
                         [](const ::testing::TestParamInfo<WinKind>& info) { return kind_name(info.param); });
