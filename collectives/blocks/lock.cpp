#include "collectives/blocks/lock_epoch.hpp"

namespace mpix::block_rows {
extern const AlltoallvAlgorithm lock{
    "lock", "paper Alg. 3 (race-free): one lock_all epoch, barrier at Start, flush + barrier at Wait (MPI RMA only)",
    runs_any_arguments, make_rma_alltoallv<LockAllAlltoallv, RmaAlltoallv::Path::mpi_only>};
}  // namespace mpix::block_rows
