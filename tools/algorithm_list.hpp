// The registered algorithms of each collective family as tools and
// benchmarks see them: through each family's public listing
// (MPIX_<Family>_algorithm_count, MPIX_<Family>_algorithm), like any user's
// tool, never through the registry's internals.
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

// One per row of collectives/families.def, named by its folder.
enum class Family {
#define MPIX_FAMILY(folder, Name, rows_namespace, ...) folder,
#include "collectives/families.def"
#undef MPIX_FAMILY
};

inline std::vector<ListedAlgorithm> listed_algorithms(Family family = Family::alltoallv) {
  using Count = int (*)(int*);
  using Describe = int (*)(int, const char**, const char**, int*);
  Count count_of = nullptr;
  Describe describe = nullptr;
  switch (family) {
#define MPIX_FAMILY(folder, Name, rows_namespace, ...) \
  case Family::folder:                           \
    count_of = MPIX_##Name##_algorithm_count;    \
    describe = MPIX_##Name##_algorithm;          \
    break;
#include "collectives/families.def"
#undef MPIX_FAMILY
  }
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
