// Windows for the RMA tests: every kind the library creates, with memory the
// test can read back.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "node/direct_copy.hpp"
#include "tests/mpi_test.hpp"

namespace mpix_test {

enum class WinKind { created, allocated, dynamic };

inline const char* kind_name(WinKind k) {
  switch (k) {
    case WinKind::created: return "created";
    case WinKind::allocated: return "allocated";
    case WinKind::dynamic: return "dynamic";
  }
  return "?";
}

// A window of `ints` ints per rank. For dynamic windows the memory is
// attached and its address published, so disp() gives every rank's target
// displacement of element i.
class TestWindow {
 public:
  TestWindow(WinKind kind, int ints, const std::vector<std::pair<std::string, std::string>>& hints = {})
      : kind_(kind), ints_(ints) {
    MPIX_Comm_init(&comm_, MPI_COMM_WORLD);
    MPIX_Info* info = nullptr;
    MPIX_Info_init(&info);
    for (const auto& [k, v] : hints) MPIX_Info_set(info, k.c_str(), v.c_str());
    const MPI_Aint bytes = static_cast<MPI_Aint>(ints) * sizeof(int);
    if (kind == WinKind::allocated) {
      rc_ = MPIX_Win_allocate(bytes, sizeof(int), info, comm_, &base_, &win_);
    } else {
      own_.assign(ints, 0);
      base_ = own_.data();
      if (kind == WinKind::created) {
        rc_ = MPIX_Win_create(base_, bytes, sizeof(int), info, comm_, &win_);
      } else {
        rc_ = MPIX_Win_create_dynamic(info, comm_, &win_);
        if (rc_ == MPI_SUCCESS) rc_ = MPIX_Win_attach(win_, base_, bytes);
      }
    }
    MPIX_Info_free(&info);
    MPI_Aint mine = 0;
    MPI_Get_address(base_, &mine);
    addresses_.resize(world_size());
    MPI_Allgather(&mine, 1, MPI_AINT, addresses_.data(), 1, MPI_AINT, MPI_COMM_WORLD);
  }
  ~TestWindow() {
    if (kind_ == WinKind::dynamic && win_ != nullptr) MPIX_Win_detach(win_, base_);
    MPIX_Win_free(&win_);
    MPIX_Comm_free(&comm_);
  }

  int status() const { return rc_; }
  MPIX_Win* win() const { return win_; }
  MPIX_Comm* comm() const { return comm_; }
  int* memory() const { return static_cast<int*>(base_); }
  int ints() const { return ints_; }
  // Displacement of element i of rank's window in MPIX_Put's terms.
  MPI_Aint disp(int rank, int i) const {
    return kind_ == WinKind::dynamic ? addresses_[rank] + static_cast<MPI_Aint>(i) * sizeof(int) : i;
  }
  // Reads element i of this rank's window as other processes wrote it.
  int load(int i) const { return __atomic_load_n(&memory()[i], __ATOMIC_ACQUIRE); }

 private:
  WinKind kind_;
  int ints_;
  MPIX_Comm* comm_ = nullptr;
  MPIX_Win* win_ = nullptr;
  void* base_ = nullptr;
  std::vector<int> own_;
  std::vector<MPI_Aint> addresses_;
  int rc_ = MPI_SUCCESS;
};

const std::vector<std::pair<std::string, std::string>> ordered = {{"mpi_win_order", "true"}};

// Collective: every rank's window holds `initial`, then each origin opens
// its lock_all epoch.
inline void fill_and_lock_all(const TestWindow& w, int initial) {
  for (int i = 0; i < w.ints(); ++i) w.memory()[i] = initial;
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(MPIX_Win_lock_all(0, w.win()), MPI_SUCCESS);
}

// Collective, w ordered and locked by every rank: `rounds` rounds of `chunk`
// ints of data, then a flag, into the next rank, polling its own memory
// after each round (a rank is both an origin and a target); a flush every
// `flush_every` rounds (0: only at the end). Fails the test where a round's
// flag arrived before its data, or a call failed. Ends after a barrier:
// every flag is in.
inline void put_data_then_flag(const TestWindow& w, int chunk, int rounds, int flush_every) {
  struct {
    int early = 0;
    int failed_calls = 0;
  } out;
  const int target = (world_rank() + 1) % world_size();
  std::vector<std::vector<int>> data(static_cast<std::size_t>(rounds) + 1, std::vector<int>(chunk));
  std::vector<int> flags(static_cast<std::size_t>(rounds) + 1);
  for (int r = 1; r <= rounds; ++r) {
    std::vector<int>& round = data[static_cast<std::size_t>(r)];
    std::fill(round.begin(), round.end(), r);
    flags[static_cast<std::size_t>(r)] = r;
    out.failed_calls +=
        MPIX_Put(round.data(), chunk, MPI_INT, target, w.disp(target, 0), chunk, MPI_INT, w.win()) != MPI_SUCCESS;
    out.failed_calls += MPIX_Put(&flags[static_cast<std::size_t>(r)], 1, MPI_INT, target, w.disp(target, chunk), 1,
                                 MPI_INT, w.win()) != MPI_SUCCESS;
    if (flush_every > 0 && r % flush_every == 0) out.failed_calls += MPIX_Win_flush(target, w.win()) != MPI_SUCCESS;
    const int flag = w.load(chunk);
    if (w.load(0) < flag || w.load(chunk - 1) < flag) ++out.early;
  }
  out.failed_calls += MPIX_Win_flush_all(w.win()) != MPI_SUCCESS;
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(out.failed_calls, 0);
  EXPECT_EQ(out.early, 0) << "the flag overtook the data";
}

// Under MPI_THREAD_MULTIPLE: `threads` threads put at once into the next
// rank, thread t elements [t * puts, (t + 1) * puts), element i the value
// thread_put_value(this rank, i), from `values` (resized here; the caller
// keeps it until a flush). Returns the calls that failed.
inline int thread_put_value(int rank, int i) { return rank * 100000 + i; }
inline int put_from_threads(const TestWindow& w, int threads, int puts, std::vector<int>& values) {
  const int me = world_rank(), target = (me + 1) % world_size();
  values.resize(static_cast<std::size_t>(threads) * static_cast<std::size_t>(puts));
  for (int i = 0; i < threads * puts; ++i) values[static_cast<std::size_t>(i)] = thread_put_value(me, i);
  std::atomic<int> failed{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (int i = t * puts; i < (t + 1) * puts; ++i)
        if (MPIX_Put(&values[static_cast<std::size_t>(i)], 1, MPI_INT, target, w.disp(target, i), 1, MPI_INT,
                     w.win()) != MPI_SUCCESS)
          ++failed;
    });
  for (std::thread& worker : workers) worker.join();
  return failed.load();
}

// The value of info key `key` of w's handle ("" where it has none).
inline std::string win_info(const TestWindow& w, const char* key) {
  MPIX_Info* used = nullptr;
  MPIX_Win_get_info(w.win(), &used);
  char value[1024] = {0};
  int flag = 0;
  MPIX_Info_get(used, key, sizeof(value) - 1, value, &flag);
  MPIX_Info_free(&used);
  return flag ? value : "";
}

// Whether w reaches its node peers by CMA (not under a ptrace policy that
// forbids it), agreed by every rank.
inline bool node_peers_by_cma(const TestWindow& w) {
  int cma = win_info(w, "mpix_paths").find("node:cma") != std::string::npos ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &cma, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return cma == 1;
}

// Whether the kernel lets every rank CMA-read its next rank, agreed: the one
// condition under which an ordered window may reach its node peers otherwise.
inline bool cma_allowed_between_ranks() {
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

}  // namespace mpix_test

// A test body's first check: the window reaches its node peers by CMA, or
// the test is skipped, naming why, only where the kernel refuses CMA.
#define SKIP_UNLESS_CMA(w)                                                                             \
  if (!mpix_test::node_peers_by_cma(w)) {                                                              \
    ASSERT_FALSE(mpix_test::cma_allowed_between_ranks()) << "CMA works between these ranks, but the "  \
                                                            "window reaches its node peers another way"; \
    GTEST_SKIP() << "the kernel refuses CMA between these ranks";                                      \
  }

// A threaded test body's first check: the suite also runs single-threaded.
#define SKIP_UNLESS_THREAD_MULTIPLE()                                              \
  do {                                                                             \
    int level_ = MPI_THREAD_SINGLE;                                                \
    MPI_Query_thread(&level_);                                                     \
    if (level_ != MPI_THREAD_MULTIPLE) GTEST_SKIP() << "one thread at MPI_THREAD_SINGLE"; \
  } while (false)
