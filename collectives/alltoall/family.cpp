#include "collectives/alltoall/family.hpp"

#include "collectives/alltoall/config.hpp"
#include "collectives/excluded_algorithms.hpp"
#include "collectives/forced_algorithm.hpp"

namespace mpix {

// Its rows, alltoall_algorithms(), are generated from registry.def.
const Family<AlltoallUserArgs, AlltoallvArgs> alltoall_family{
    "Alltoall", "mpix_alltoall_algorithm", "MPIX_ALLTOALL_ALGORITHM", forced_algorithm<AlltoallConfig>,
    "MPIX_ALLTOALL_EXCLUDE", excluded_algorithms<AlltoallConfig>, alltoall_algorithms, make_alltoall_args,
    [](const AlltoallvArgs& args) { return ", blocks of " + std::to_string(args.send_bytes(0)) + " bytes"; },
    [](const AlltoallvArgs& args) { return args.send_bytes(0); }};

}  // namespace mpix
