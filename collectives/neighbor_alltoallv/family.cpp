#include "collectives/neighbor_alltoallv/family.hpp"

#include <algorithm>

#include "collectives/excluded_algorithms.hpp"
#include "collectives/forced_algorithm.hpp"
#include "collectives/neighbor_alltoallv/config.hpp"

namespace mpix {

// Its rows, neighbor_alltoallv_algorithms(), are generated from registry.def.
const Family<VectorUserArgs, NeighborArgs> neighbor_alltoallv_family{
    "neighbourhood Alltoallv", "mpix_neighbor_alltoallv_algorithm", "MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM",
    forced_algorithm<NeighborConfig>, "MPIX_NEIGHBOR_ALLTOALLV_EXCLUDE", excluded_algorithms<NeighborConfig>,
    neighbor_alltoallv_algorithms, make_neighbor_args,
    [](const NeighborArgs& args) {
      return ", degree " + std::to_string(args.indegree()) + " in, " + std::to_string(args.outdegree()) + " out";
    },
    [](const NeighborArgs& args) {
      MPI_Count largest = 0;
      for (int edge = 0; edge < args.outdegree(); ++edge) largest = std::max(largest, args.send_bytes(edge));
      return largest;
    }};

}  // namespace mpix
