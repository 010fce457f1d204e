// The Alltoallv family's section of the configuration (MPIX_ALLTOALLV_*,
// MPIX_TUNING_FILE: its cost model's parameters): its rows are in
// config.cpp and join the typed table through src/components.def. What
// every family shares (MPIX_FALLBACK, MPIX_EXPECTED_ITERATIONS,
// MPIX_AUTO_*) is auto's (collectives/auto/settings.hpp).
#pragma once

#include <string>
#include <vector>

#include "src/config.hpp"

namespace mpix {

struct AlltoallvConfig {
  std::string algorithm;  // forced for every request; empty: the library's default
  std::vector<std::string> exclude;  // registry names the selector never chooses
  std::string tuning_file;           // empty: the built-in parameters
};

}  // namespace mpix
