#include "collectives/alltoallv/family.hpp"

#include <algorithm>

#include "collectives/alltoallv/config.hpp"

namespace mpix {

#define MPIX_ROW_TYPE AlltoallvAlgorithm
#define MPIX_ROW_SPACE algorithms
#define MPIX_ROWS alltoallv_algorithms
#define MPIX_REGISTRY_DEF "collectives/alltoallv/registry.def"
#include "collectives/registered_rows.inc"

const Family<VectorUserArgs, AlltoallvArgs> alltoallv_family{
    "Alltoallv",
    "mpix_alltoallv_algorithm",
    "MPIX_ALLTOALLV_ALGORITHM",
    [](const Config& config) -> const std::string& { return config.section<AlltoallvConfig>().algorithm; },
    alltoallv_algorithms,
    make_alltoallv_args,
    [](const AlltoallvArgs&) { return std::string(); },
    [](const AlltoallvArgs& args) {
      MPI_Count largest = 0;
      for (int peer = 0; peer < args.comm->size(); ++peer) largest = std::max(largest, args.send_bytes(peer));
      return largest;
    }};

}  // namespace mpix
