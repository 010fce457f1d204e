#include "collectives/blocks/fence_epoch.hpp"

namespace mpix::block_rows {
extern const AlltoallvAlgorithm fence{
    "fence", "paper Alg. 1: fence at Start and Wait, MPI_Put to every target (MPI RMA only)", runs_any_arguments,
    make_rma_alltoallv<FenceAlltoallv, RmaAlltoallv::Path::mpi_only>};
}  // namespace mpix::block_rows
