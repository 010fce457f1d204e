#include "collectives/alltoallv/args.hpp"

#include <mpix/mpix.h>

#include <string>
#include <vector>

#include "collectives/agreed_args.hpp"
#include "collectives/alltoallv/family.hpp"
#include "collectives/argument_checks.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

// Local checks and copies; throws an Error naming the bad argument.
AlltoallvArgs from_user(const VectorUserArgs& user, std::shared_ptr<const Comm> comm) {
  const int n = comm->size();
  AlltoallvArgs a;
  a.comm = std::move(comm);
  a.buffers_move = user.buffers_move;
  if (user.recvbuf == MPI_IN_PLACE) throw Error(MPI_ERR_BUFFER, "recvbuf is MPI_IN_PLACE; only sendbuf may be");
  a.set_receive_side(user.recvbuf, user.recvtype, copy_counts(user.recvcounts, n, "recvcounts"),
                     copy_counts(user.rdispls, n, "rdispls"));
  a.set_send_side(user.sendbuf, user.sendtype, [&](std::vector<int>& counts, std::vector<int>& displs) {
    counts = copy_counts(user.sendcounts, n, "sendcounts");
    displs = copy_counts(user.sdispls, n, "sdispls");
  });
  return a;
}

}  // namespace

AlltoallvArgs make_alltoallv_args(const VectorUserArgs& user, std::shared_ptr<const Comm> comm_ptr,
                                  const Requested<AlltoallvAlgorithm>& algorithm) {
  const Comm& comm = *comm_ptr;
  const int n = comm.size();
  // Per peer: the bytes I send it, whether I use MPI_IN_PLACE, and where
  // its block starts in my receive buffer (what an RMA origin needs); -1
  // bytes marks a rank whose own arguments were already rejected. One
  // MPI_Alltoall carries all of it.
  constexpr int fields = 3;
  std::vector<MPI_Count> outgoing(fields * static_cast<std::size_t>(n), -1), incoming(outgoing.size());
  const auto exchange = [&](const AlltoallvArgs* local) {
    for (int peer = 0; local != nullptr && peer < n; ++peer) {
      outgoing[fields * peer] = local->send_bytes(peer);
      outgoing[fields * peer + 1] = local->in_place ? 1 : 0;
      outgoing[fields * peer + 2] = static_cast<MPI_Count>(local->rdispls[peer]) * local->recv_layout.extent;
    }
    mpi_check(MPI_Alltoall(outgoing.data(), fields, MPI_COUNT, incoming.data(), fields, MPI_COUNT, comm.global()),
              "MPI_Alltoall");
  };
  const auto check = [&](const AlltoallvArgs& local) {
    for (int src = 0; src < n; ++src) {
      const MPI_Count sent = incoming[fields * src];
      if (sent < 0) continue;
      if (incoming[fields * src + 1] != (local.in_place ? 1 : 0))
        throw Error(MPI_ERR_BUFFER, "MPI_IN_PLACE is used on rank " +
                                        std::to_string(local.in_place ? comm.rank() : src) + " but not on rank " +
                                        std::to_string(local.in_place ? src : comm.rank()) +
                                        "; it must be used on all ranks or none");
      if (sent != local.recv_bytes(src))
        throw Error(MPI_ERR_TRUNCATE, "rank " + std::to_string(src) + " sends " + std::to_string(sent) +
                                          " bytes to rank " + std::to_string(comm.rank()) + ", which expects " +
                                          std::to_string(local.recv_bytes(src)) + " bytes (" +
                                          at("recvcounts", src) + " = " + std::to_string(local.recvcounts[src]) +
                                          ")");
    }
  };
  AlltoallvArgs args = agree_args(
      alltoallv_family.title, alltoallv_family.variable, comm,
      check_locally(
          [&] {
            if (user.request_out == nullptr) throw Error(MPI_ERR_ARG, "request is NULL");
            return from_user(user, comm_ptr);
          },
          algorithm),
      algorithm.name, exchange, check);
  args.block_at_target.resize(n);
  for (int target = 0; target < n; ++target)
    args.block_at_target[target] = static_cast<MPI_Aint>(incoming[fields * target + 2]);
  return args;
}

}  // namespace mpix
