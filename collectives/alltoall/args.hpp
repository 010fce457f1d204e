// The Alltoall family's arguments: a count and a type per side, every block
// the same, checked and expanded into AlltoallvArgs
// (collectives/blocks/args.hpp: block r at r * count elements, uniform), so
// that the algorithms over per-peer blocks run them.
#pragma once

#include <mpi.h>

#include <memory>

#include "collectives/blocks/args.hpp"
#include "collectives/family.hpp"
#include "src/comm.hpp"

namespace mpix {

// MPIX_Alltoall_init's arguments as the user passes them.
struct AlltoallUserArgs {
  const void* sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  int recvcount;
  MPI_Datatype recvtype;
  const void* request_out;  // where the request will be stored: must not be NULL
  // Info mpix_buffers_move=true: starts may name other buffers of the same
  // layout (MPIX_Start_with_buffers).
  bool buffers_move = false;
};

// Collective, one MPI_Allreduce (never O(P) data): checks the arguments on
// every rank, that every rank's send and receive blocks are of one size,
// that MPI_IN_PLACE is used on all ranks or none, and that every rank asks
// for the same algorithm; any violation becomes the same Error on every
// rank. Also agrees whether the algorithm can run on every rank.
AlltoallvArgs make_alltoall_args(const AlltoallUserArgs& user, std::shared_ptr<const Comm> comm,
                                 const Requested<AlltoallvAlgorithm>& algorithm);

}  // namespace mpix
