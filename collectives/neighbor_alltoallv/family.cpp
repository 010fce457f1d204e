#include "collectives/neighbor_alltoallv/family.hpp"

#include <algorithm>

#include "collectives/neighbor_alltoallv/config.hpp"

namespace mpix {

#define MPIX_ROW_TYPE NeighborAlgorithm
#define MPIX_ROW_SPACE neighbor_algorithms
#define MPIX_ROWS neighbor_alltoallv_algorithms
#define MPIX_REGISTRY_DEF "collectives/neighbor_alltoallv/registry.def"
#include "collectives/registered_rows.inc"

const Family<VectorUserArgs, NeighborArgs> neighbor_alltoallv_family{
    "neighbourhood Alltoallv",
    "mpix_neighbor_alltoallv_algorithm",
    "MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM",
    [](const Config& config) -> const std::string& { return config.section<NeighborConfig>().algorithm; },
    neighbor_alltoallv_algorithms,
    make_neighbor_args,
    [](const NeighborArgs& args) {
      return ", degree " + std::to_string(args.indegree()) + " in, " + std::to_string(args.outdegree()) + " out";
    },
    [](const NeighborArgs& args) {
      MPI_Count largest = 0;
      for (int edge = 0; edge < args.outdegree(); ++edge) largest = std::max(largest, args.send_bytes(edge));
      return largest;
    }};

}  // namespace mpix
