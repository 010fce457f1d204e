#include "collectives/alltoallv/family.hpp"

#include <algorithm>

#include "collectives/alltoallv/config.hpp"
#include "collectives/excluded_algorithms.hpp"
#include "collectives/forced_algorithm.hpp"

namespace mpix {

// Its rows, alltoallv_algorithms(), are generated from registry.def.
const Family<VectorUserArgs, AlltoallvArgs> alltoallv_family{
    "Alltoallv", "mpix_alltoallv_algorithm", "MPIX_ALLTOALLV_ALGORITHM", forced_algorithm<AlltoallvConfig>,
    "MPIX_ALLTOALLV_EXCLUDE", excluded_algorithms<AlltoallvConfig>, alltoallv_algorithms, make_alltoallv_args,
    [](const AlltoallvArgs&) { return std::string(); },
    [](const AlltoallvArgs& args) {
      MPI_Count largest = 0;
      for (int peer = 0; peer < args.comm->size(); ++peer) largest = std::max(largest, args.send_bytes(peer));
      return largest;
    }};

}  // namespace mpix
