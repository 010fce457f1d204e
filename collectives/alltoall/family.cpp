#include "collectives/alltoall/family.hpp"

#include "collectives/alltoall/config.hpp"

namespace mpix {

#define MPIX_ROW_TYPE AlltoallvAlgorithm
#define MPIX_ROW_SPACE algorithms
#define MPIX_ROWS alltoall_algorithms
#define MPIX_REGISTRY_DEF "collectives/alltoall/registry.def"
#include "collectives/registered_rows.inc"

const Family<AlltoallUserArgs, AlltoallvArgs> alltoall_family{
    "Alltoall",
    "mpix_alltoall_algorithm",
    "MPIX_ALLTOALL_ALGORITHM",
    [](const Config& config) -> const std::string& { return config.section<AlltoallConfig>().algorithm; },
    alltoall_algorithms,
    make_alltoall_args,
    [](const AlltoallvArgs& args) { return ", blocks of " + std::to_string(args.send_bytes(0)) + " bytes"; },
    [](const AlltoallvArgs& args) { return args.send_bytes(0); }};

}  // namespace mpix
