#include "rma/ordered_path_choice.hpp"

#include <algorithm>
#include <cstdio>

namespace mpix {

namespace {

template <std::size_t n>
std::uint64_t median_of(std::array<std::uint64_t, n> v) {
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  return v[n / 2];
}

}  // namespace

bool OrderedPathChoice::cma_wins(std::array<std::uint64_t, blocks_per_path> cma,
                                 std::array<std::uint64_t, blocks_per_path> mpi) {
  return median_of(cma) <= median_of(mpi);
}

void OrderedPathChoice::stamp(int block, std::uint64_t now_ns) {
  stamps_[static_cast<std::size_t>(block)] = now_ns;
  // Release: the decider's acquire sees every stamp written before its own.
  if (stamped_.fetch_add(1, std::memory_order_acq_rel) + 1 == blocks + 1) decide();
}

void OrderedPathChoice::decide() {
  std::array<std::uint64_t, blocks_per_path> periods[2];
  for (int block = 0; block < blocks; ++block) {
    const std::size_t b = static_cast<std::size_t>(block);
    const std::uint64_t period = stamps_[b + 1] > stamps_[b] ? stamps_[b + 1] - stamps_[b] : 0;
    periods[block % 2 == 0 ? by_cma : by_mpi][b / 2] = period;
  }
  median_ns_[by_cma] = median_of(periods[by_cma]);
  median_ns_[by_mpi] = median_of(periods[by_mpi]);
  choice_.store(cma_wins(periods[by_cma], periods[by_mpi]) ? by_cma : by_mpi, std::memory_order_release);
}

std::string OrderedPathChoice::describe() const {
  const std::int8_t choice = choice_.load(std::memory_order_acquire);
  if (choice == undecided) return "measuring";
  char text[128];
  std::snprintf(text, sizeof text, "%s (cma %.2f us, mpi %.2f us per transfer)", choice == by_cma ? "cma" : "mpi",
                median_ns_[by_cma] / 1e3 / block_size, median_ns_[by_mpi] / 1e3 / block_size);
  return text;
}

}  // namespace mpix
