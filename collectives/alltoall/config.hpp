// The Alltoall family's section of the configuration (MPIX_ALLTOALL_*): its
// rows are in config.cpp and join the typed table through
// src/components.def. What every family shares (MPIX_FALLBACK,
// MPIX_EXPECTED_ITERATIONS, MPIX_AUTO_*) is auto's
// (collectives/auto/settings.hpp).
#pragma once

#include <string>
#include <vector>

#include "src/config.hpp"

namespace mpix {

struct AlltoallConfig {
  std::string algorithm;  // forced for every request; empty: the library's default
  std::vector<std::string> exclude;  // registry names auto never races
};

}  // namespace mpix
