// The registered algorithms of each collective family as tools and
// benchmarks see them: through the public listing (MPIX_Alltoallv_algorithm,
// MPIX_Neighbor_alltoallv_algorithm), like any user's tool, never through
// the registry's internals.
#pragma once

#include <mpix/mpix.h>

#include <string>
#include <vector>

namespace mpix_timing {

struct ListedAlgorithm {
  std::string name;
  int capabilities;  // MPIX_ALGORITHM_* bits
  bool has(int bits) const { return (capabilities & bits) == bits; }
};

enum class Family { alltoallv, neighbor_alltoallv };

inline std::vector<ListedAlgorithm> listed_algorithms(Family family = Family::alltoallv) {
  const bool neighbor = family == Family::neighbor_alltoallv;
  int count = 0;
  neighbor ? MPIX_Neighbor_alltoallv_algorithm_count(&count) : MPIX_Alltoallv_algorithm_count(&count);
  std::vector<ListedAlgorithm> rows;
  for (int i = 0; i < count; ++i) {
    const char* name = nullptr;
    int capabilities = 0;
    const int rc = neighbor ? MPIX_Neighbor_alltoallv_algorithm(i, &name, nullptr, &capabilities)
                            : MPIX_Alltoallv_algorithm(i, &name, nullptr, &capabilities);
    if (rc == MPI_SUCCESS) rows.push_back({name, capabilities});
  }
  return rows;
}

inline bool is_registered(const std::string& name) {
  for (const ListedAlgorithm& row : listed_algorithms())
    if (row.name == name) return true;
  return false;
}

// Comma-separated names, for usage messages.
inline std::string registered_names() {
  std::string names;
  for (const ListedAlgorithm& row : listed_algorithms()) names += (names.empty() ? "" : ", ") + row.name;
  return names;
}

}  // namespace mpix_timing
