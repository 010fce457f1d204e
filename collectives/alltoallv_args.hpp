// The arguments of one persistent Alltoallv, copied and checked once at init.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/algorithm.hpp"
#include "collectives/datatype_layout.hpp"
#include "src/comm.hpp"

namespace mpix {

struct AlltoallvUserArgs {
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

struct AlltoallvArgs {
  std::shared_ptr<const Comm> comm;
  bool in_place = false;
  // Starts may point the operation at other buffers of this layout
  // (PersistentOperation::rebind): no path may depend on their addresses.
  bool buffers_move = false;
  const void* sendbuf = nullptr;
  std::vector<int> sendcounts, sdispls;  // with MPI_IN_PLACE: the receive side's
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  DatatypeLayout send_layout;
  void* recvbuf = nullptr;
  std::vector<int> recvcounts, rdispls;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  DatatypeLayout recv_layout;
  // Agreed at init: where my block starts in each target's receive buffer,
  // and why the requested algorithm cannot run (on the lowest rank that
  // says so, the same text on every rank), if it cannot.
  std::vector<MPI_Aint> block_at_target;
  std::optional<std::string> algorithm_refused;
  // The request's info value of mpix_expected_iterations, unparsed: only the
  // selector reads it, and agrees on any error it finds.
  std::optional<std::string> expected_iterations_hint;
  std::optional<std::string> auto_settle_hint;  // mpix_auto_settle, likewise
  std::optional<std::string> auto_mpi_credit_hint;  // mpix_auto_mpi_credit_ns, likewise

  // Local checks and copies; throws an Error naming the bad argument.
  static AlltoallvArgs from_user(const AlltoallvUserArgs& user, std::shared_ptr<const Comm> comm);

  // Points the arguments at other buffers of the same layout (buffers_move):
  // MPI_ERR_BUFFER for NULL buffers with data or an MPI_IN_PLACE that
  // differs from init's.
  void move_buffers(const void* new_sendbuf, void* new_recvbuf);

  // What MPI_Alltoallv takes for the send side, MPI_IN_PLACE included.
  const void* mpi_sendbuf() const { return in_place ? MPI_IN_PLACE : sendbuf; }
  MPI_Count send_bytes(int peer) const { return sendcounts[peer] * send_layout.size; }
  MPI_Count recv_bytes(int peer) const { return recvcounts[peer] * recv_layout.size; }
};

// The Alltoallv family's rows (collectives/alltoallv/registry.def).
using AlltoallvAlgorithm = CollectiveAlgorithm<AlltoallvArgs>;

// The algorithm a rank asks for, and its registry row (nullptr: an unknown
// name, which every rank sees alike).
struct RequestedAlgorithm {
  std::string name;
  const AlltoallvAlgorithm* row;
};

// Collective, one MPI_Alltoall: checks the arguments on every rank, what each
// source sends against what its target expects, and that every rank asks
// for the same algorithm (a hint set on some ranks only would run different
// algorithms against each other); any violation becomes the same Error on
// every rank. Also agrees whether the algorithm can run on every rank.
AlltoallvArgs make_alltoallv_args(const AlltoallvUserArgs& user, std::shared_ptr<const Comm> comm,
                                  const RequestedAlgorithm& algorithm);

}  // namespace mpix
