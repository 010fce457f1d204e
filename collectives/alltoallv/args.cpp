#include "collectives/alltoallv/args.hpp"

#include <mpix/mpix.h>

#include <cstdint>
#include <optional>
#include <string>

#include "collectives/argument_checks.hpp"
#include "src/agree.hpp"
#include "src/error.hpp"
#include "src/library.hpp"

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
  LocalArgs<AlltoallvArgs> checked = check_locally(
      [&] {
        if (user.request_out == nullptr) throw Error(MPI_ERR_ARG, "request is NULL");
        return from_user(user, comm_ptr);
      },
      algorithm);
  std::optional<AlltoallvArgs>& args = checked.args;
  const std::optional<Error>& local_error = checked.error;
  const std::optional<std::string>& refused = checked.refused;
  const AlltoallvArgs* local = args ? &*args : nullptr;

  // Per peer: the bytes I send it, whether I use MPI_IN_PLACE, where its
  // block starts in my receive buffer (what an RMA origin needs), the hash
  // of the algorithm I ask for and whether it refuses my arguments; -1 bytes
  // marks a rank whose own arguments were already rejected. One
  // MPI_Alltoall carries all of it.
  const int n = comm.size();
  constexpr int fields = 5;
  const MPI_Count my_algorithm = name_hash(algorithm.name);
  std::vector<MPI_Count> outgoing(fields * static_cast<std::size_t>(n), -1), incoming(outgoing.size());
  for (int peer = 0; peer < n; ++peer) {
    outgoing[fields * peer + 3] = my_algorithm;
    outgoing[fields * peer + 4] = refused ? 1 : 0;
    if (local == nullptr) continue;
    outgoing[fields * peer] = local->send_bytes(peer);
    outgoing[fields * peer + 1] = local->in_place ? 1 : 0;
    outgoing[fields * peer + 2] = static_cast<MPI_Count>(local->rdispls[peer]) * local->recv_layout.extent;
  }
  mpi_check(MPI_Alltoall(outgoing.data(), fields, MPI_COUNT, incoming.data(), fields, MPI_COUNT, comm.global()),
            "MPI_Alltoall");
  agreed(comm.global(), [&] {
    for (int src = 0; src < n; ++src)
      if (incoming[fields * src + 3] != my_algorithm)
        throw Error(error_code(MPIX_ERRKIND_ALGORITHM),
                    "ranks ask for different Alltoallv algorithms (this rank: '" + algorithm.name + "', rank " +
                        std::to_string(src) + ": another); the info key and MPIX_ALLTOALLV_ALGORITHM must agree "
                        "on all ranks");
    if (local_error) throw *local_error;
    for (int src = 0; src < n; ++src) {
      const MPI_Count sent = incoming[fields * src];
      if (sent < 0) continue;
      if (incoming[fields * src + 1] != (local->in_place ? 1 : 0))
        throw Error(MPI_ERR_BUFFER, "MPI_IN_PLACE is used on rank " +
                                        std::to_string(local->in_place ? comm.rank() : src) +
                                        " but not on rank " + std::to_string(local->in_place ? src : comm.rank()) +
                                        "; it must be used on all ranks or none");
      if (sent != local->recv_bytes(src))
        throw Error(MPI_ERR_TRUNCATE, "rank " + std::to_string(src) + " sends " + std::to_string(sent) +
                                          " bytes to rank " + std::to_string(comm.rank()) + ", which expects " +
                                          std::to_string(local->recv_bytes(src)) + " bytes (" +
                                          at("recvcounts", src) + " = " + std::to_string(local->recvcounts[src]) +
                                          ")");
    }
  });
  args->block_at_target.resize(n);
  for (int target = 0; target < n; ++target)
    args->block_at_target[target] = static_cast<MPI_Aint>(incoming[fields * target + 2]);
  // Every rank sees the same flags: only a refusal pays for its text.
  for (int src = 0; src < n && !args->algorithm_refused; ++src)
    if (incoming[fields * src + 4] == 1)
      args->algorithm_refused = "on rank " + std::to_string(src) + ": " + broadcast_text(refused, src, comm.global());
  return std::move(*args);
}

}  // namespace mpix
