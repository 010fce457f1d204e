// The Alltoallv family's section of the configuration (MPIX_ALLTOALLV_*,
// MPIX_FALLBACK, MPIX_TUNING_FILE, MPIX_EXPECTED_ITERATIONS, MPIX_AUTO_*):
// its rows are in alltoallv_config.cpp and join the typed table through
// src/components.def.
#pragma once

#include <string>
#include <vector>

#include "src/config.hpp"

namespace mpix {

// What a request does when its forced algorithm is unknown or refuses.
enum class FallbackPolicy { error, warn, silent };

struct AlltoallvConfig {
  std::string algorithm;  // forced for every request; empty: the library's default
  FallbackPolicy fallback = FallbackPolicy::warn;
  std::vector<std::string> exclude;  // registry names the selector never chooses
  std::string tuning_file;           // empty: the built-in parameters
  long expected_iterations = 1000;
  int auto_periods = 8;      // auto's tournament: timed periods per candidate; 0: no tournament
  double auto_within = 2.0;  // auto's tournament: a mechanism's second entrants, predicted within this factor of the best
  int auto_settle = 100;     // auto's tournament: iterations it may take in all
};

}  // namespace mpix
