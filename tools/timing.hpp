// The one timing harness's basics, shared by the Alltoallv timing
// (Benchmark 1, Benchmark 2, mpix_tune) and the RMA benchmarks: medians and
// spreads of repeats, the max over ranks, CSV files on rank 0, and failing
// the whole job loudly.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace mpix_timing {

[[noreturn]] inline void fail(const std::string& why) {
  std::fprintf(stderr, "%s\n", why.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

inline double max_over_ranks(double t) {
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t;
}

// A command line's comma-separated list ("8,64,512"), empty parts dropped.
inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Repeats of one measurement: the median and the extremes.
struct Spread {
  double median = 0, min = 0, max = 0;
};

inline Spread spread(const std::vector<double>& repeats) {
  if (repeats.empty()) return {};
  const auto [low, high] = std::minmax_element(repeats.begin(), repeats.end());
  return {median(repeats), *low, *high};
}

// The CSV a benchmark writes on rank 0 (nullptr elsewhere, or without a
// path), with its header line.
inline std::FILE* open_csv(int rank, const std::string& path, const char* header) {
  if (rank != 0 || path.empty()) return nullptr;
  std::FILE* csv = std::fopen(path.c_str(), "w");
  if (csv == nullptr) fail("cannot write " + path);
  std::fprintf(csv, "%s\n", header);
  return csv;
}

}  // namespace mpix_timing
