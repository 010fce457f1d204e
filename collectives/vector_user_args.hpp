// The arguments of a vector exchange (MPIX_Alltoallv_init,
// MPIX_Neighbor_alltoallv_init) as the user passes them: a count and a
// displacement per peer or per edge, each family checking them as its MPI
// call would.
#pragma once

#include <mpi.h>

namespace mpix {

struct VectorUserArgs {
  const void* sendbuf;
  const int* sendcounts;
  const int* sdispls;
  MPI_Datatype sendtype;
  void* recvbuf;
  const int* recvcounts;
  const int* rdispls;
  MPI_Datatype recvtype;
  const void* request_out;  // where the request will be stored: must not be NULL
  // Info mpix_buffers_move=true: starts may name other buffers of the same
  // layout (MPIX_Start_with_buffers).
  bool buffers_move = false;
};

}  // namespace mpix
