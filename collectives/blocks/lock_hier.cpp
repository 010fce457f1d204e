#include "collectives/blocks/lock_epoch.hpp"

namespace mpix::block_rows {
extern const AlltoallvAlgorithm lock_hier{
    "lock_hier", "lock's epoch; off-node targets through MPI RMA first, on-node targets by direct copy",
    runs_any_arguments, make_rma_alltoallv<LockAllAlltoallv, RmaAlltoallv::Path::direct_on_node>};
}  // namespace mpix::block_rows
