#include "collectives/registry.hpp"

namespace mpix {

namespace algorithms {
#define MPIX_ALLTOALLV_ALGORITHM(id, capabilities) extern const AlltoallvAlgorithm id;
#include "collectives/alltoallv/registry.def"
#undef MPIX_ALLTOALLV_ALGORITHM
}  // namespace algorithms

namespace neighbor_algorithms {
#define MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM(id, capabilities) extern const NeighborAlgorithm id;
#include "collectives/neighbor_alltoallv/registry.def"
#undef MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM
}  // namespace neighbor_algorithms

namespace {

// A row as its file defines it, with the capabilities of its registry.def
// line.
template <class Row>
Row registered(const Row& row, unsigned capabilities) {
  Row copy = row;
  copy.capabilities = capabilities;
  return copy;
}

template <class Row>
std::vector<const Row*> pointers_to(const std::vector<Row>& rows) {
  std::vector<const Row*> out;
  for (const Row& row : rows) out.push_back(&row);
  return out;
}

}  // namespace

const std::vector<const AlltoallvAlgorithm*>& alltoallv_algorithms() {
  static const std::vector<AlltoallvAlgorithm> rows = [] {
    using namespace capability;
    return std::vector<AlltoallvAlgorithm>{
#define MPIX_ALLTOALLV_ALGORITHM(id, capabilities) registered(algorithms::id, capabilities),
#include "collectives/alltoallv/registry.def"
#undef MPIX_ALLTOALLV_ALGORITHM
    };
  }();
  static const std::vector<const AlltoallvAlgorithm*> pointers = pointers_to(rows);
  return pointers;
}

const std::vector<const NeighborAlgorithm*>& neighbor_alltoallv_algorithms() {
  static const std::vector<NeighborAlgorithm> rows = [] {
    using namespace capability;
    return std::vector<NeighborAlgorithm>{
#define MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM(id, capabilities) registered(neighbor_algorithms::id, capabilities),
#include "collectives/neighbor_alltoallv/registry.def"
#undef MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM
    };
  }();
  static const std::vector<const NeighborAlgorithm*> pointers = pointers_to(rows);
  return pointers;
}

std::string capability_list(unsigned capabilities) {
  std::string names;
  for (const CapabilityName& c : capability_names) {
    if ((capabilities & c.bit) == 0) continue;
    if (!names.empty()) names += ",";
    names += c.name;
  }
  return names;
}

}  // namespace mpix
