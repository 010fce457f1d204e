// The registered algorithms of each collective family as tools and
// benchmarks see them: through the public listing (MPIX_Alltoallv_algorithm,
// MPIX_Neighbor_alltoallv_algorithm, MPIX_Alltoall_algorithm), like any
// user's tool, never through the registry's internals.
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

enum class Family { alltoallv, neighbor_alltoallv, alltoall };

inline std::vector<ListedAlgorithm> listed_algorithms(Family family = Family::alltoallv) {
  using Count = int (*)(int*);
  using Describe = int (*)(int, const char**, const char**, int*);
  const Count count_of = family == Family::alltoallv            ? MPIX_Alltoallv_algorithm_count
                         : family == Family::neighbor_alltoallv ? MPIX_Neighbor_alltoallv_algorithm_count
                                                                : MPIX_Alltoall_algorithm_count;
  const Describe describe = family == Family::alltoallv            ? MPIX_Alltoallv_algorithm
                            : family == Family::neighbor_alltoallv ? MPIX_Neighbor_alltoallv_algorithm
                                                                   : MPIX_Alltoall_algorithm;
  int count = 0;
  count_of(&count);
  std::vector<ListedAlgorithm> rows;
  for (int i = 0; i < count; ++i) {
    const char* name = nullptr;
    int capabilities = 0;
    if (describe(i, &name, nullptr, &capabilities) == MPI_SUCCESS) rows.push_back({name, capabilities});
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
