// What the RMA benchmarks share, on top of the timing harness: a measured
// loop (warm-up, barrier, max over ranks, median of repeats), their CSV
// rows, and the checks.
#pragma once

#include <mpi.h>
#include <mpix/mpix.h>

#include "tools/timing.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace bench {

using Timing = mpix_timing::Spread;  // microseconds per iteration, max over ranks

// Competitors compared in one run: after one warm-up each, every repeat
// runs each body(iterations) once, in turn, between barriers, so that a
// change of machine phase touches them all alike. body does `iterations`
// iterations of the measured loop; one Timing per body.
inline std::vector<Timing> measure_interleaved(int repeats, int iterations,
                                               const std::vector<std::function<void(int)>>& bodies) {
  for (const auto& body : bodies) body(std::max(1, iterations / 10));
  std::vector<std::vector<double>> per_iteration(bodies.size());
  for (int r = 0; r < repeats; ++r)
    for (std::size_t c = 0; c < bodies.size(); ++c) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      bodies[c](iterations);
      per_iteration[c].push_back(mpix_timing::max_over_ranks((MPI_Wtime() - t0) / iterations * 1e6));
    }
  std::vector<Timing> timings;
  for (const std::vector<double>& samples : per_iteration) timings.push_back(mpix_timing::spread(samples));
  return timings;
}

// One loop alone: measure_interleaved with a single body.
inline Timing measure(int repeats, int iterations, const std::function<void(int)>& body) {
  return measure_interleaved(repeats, iterations, {body}).front();
}

// The spread of samples taken one measure() at a time (competitors
// interleaved by the caller).
inline Timing summarize(const std::vector<double>& samples) { return mpix_timing::spread(samples); }

// Runs work(k) on `threads` threads (k = 0..threads-1) and returns when all end.
inline void on_threads(int threads, const std::function<void(int)>& work) {
  if (threads == 1) return work(0);
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k) pool.emplace_back(work, k);
  for (std::thread& t : pool) t.join();
}

// Rows as rank 0 sees them (every timing is already the max over ranks);
// the other ranks write nothing.
class Csv {
 public:
  explicit Csv(const std::string& path) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    file_ = mpix_timing::open_csv(rank, path,
                                  "suite,case,window,sync,op,threads,bytes,metric,median,min,max,valid");
  }
  ~Csv() {
    if (file_ != nullptr) std::fclose(file_);
  }
  Csv(const Csv&) = delete;
  Csv& operator=(const Csv&) = delete;
  void row(const std::string& suite, const std::string& name, const std::string& window, const std::string& sync,
           const std::string& op, int threads, long bytes, const std::string& metric, const Timing& t, bool valid) {
    if (file_ == nullptr) return;
    std::fprintf(file_, "%s,%s,%s,%s,%s,%d,%ld,%s,%.4f,%.4f,%.4f,%d\n", suite.c_str(), name.c_str(), window.c_str(),
                 sync.c_str(), op.c_str(), threads, bytes, metric.c_str(), t.median, t.min, t.max, valid ? 1 : 0);
    std::fflush(file_);
  }

 private:
  std::FILE* file_ = nullptr;
};

// Every rank agrees whether the data checks passed on all of them.
inline bool all_valid(bool mine) {
  int ok = mine ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

inline void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char message[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPIX_Error_string(rc, message, &length);
  std::fprintf(stderr, "%s failed: %s\n", what, message);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

// Picks a loop length that keeps one repeat near 20 ms.
inline int iterations_for(double estimated_us) {
  return std::clamp(static_cast<int>(20000.0 / std::max(estimated_us, 0.05)), 20, 20000);
}

}  // namespace bench
