#include "collectives/blocks/fence_epoch.hpp"

namespace mpix::block_rows {
extern const AlltoallvAlgorithm fence_hier{
    "fence_hier", "paper Alg. 2: fence epoch; off-node targets through MPI RMA first, on-node targets by direct copy",
    runs_any_arguments, make_rma_alltoallv<FenceAlltoallv, RmaAlltoallv::Path::direct_on_node>};
}  // namespace mpix::block_rows
