#include "collectives/alltoallv_args.hpp"

#include <mpix/mpix.h>

#include <cstdint>
#include <optional>
#include <string>

#include "collectives/argument_checks.hpp"
#include "src/agree.hpp"
#include "src/error.hpp"
#include "src/library.hpp"

namespace mpix {

void AlltoallvArgs::move_buffers(const void* new_sendbuf, void* new_recvbuf) {
  if ((new_sendbuf == MPI_IN_PLACE) != in_place)
    throw Error(MPI_ERR_BUFFER, in_place ? "sendbuf must be MPI_IN_PLACE, as it was at init"
                                         : "sendbuf is MPI_IN_PLACE, which it was not at init");
  if (new_recvbuf == MPI_IN_PLACE) throw Error(MPI_ERR_BUFFER, "recvbuf is MPI_IN_PLACE; only sendbuf may be");
  check_buffer(new_recvbuf, recvcounts, recv_layout.size, "recvbuf");
  if (!in_place) {
    check_buffer(new_sendbuf, sendcounts, send_layout.size, "sendbuf");
    sendbuf = new_sendbuf;
  } else {
    sendbuf = new_recvbuf;
  }
  recvbuf = new_recvbuf;
}

AlltoallvArgs AlltoallvArgs::from_user(const AlltoallvUserArgs& user, std::shared_ptr<const Comm> comm) {
  const int n = comm->size();
  AlltoallvArgs a;
  a.comm = std::move(comm);
  a.recvbuf = user.recvbuf;
  a.buffers_move = user.buffers_move;
  if (user.recvbuf == MPI_IN_PLACE) throw Error(MPI_ERR_BUFFER, "recvbuf is MPI_IN_PLACE; only sendbuf may be");
  a.recvtype = user.recvtype;
  a.recv_layout = DatatypeLayout::of(user.recvtype, "recvtype", a.comm->self());
  a.recvcounts = copy_counts(user.recvcounts, n, "recvcounts");
  a.rdispls = copy_counts(user.rdispls, n, "rdispls");
  check_buffer(a.recvbuf, a.recvcounts, a.recv_layout.size, "recvbuf");

  a.in_place = user.sendbuf == MPI_IN_PLACE;
  if (a.in_place) {
    // MPI ignores the send arguments: every block goes out from recvbuf.
    a.sendbuf = a.recvbuf;
    a.sendcounts = a.recvcounts;
    a.sdispls = a.rdispls;
    a.sendtype = a.recvtype;
    a.send_layout = a.recv_layout;
    return a;
  }
  a.sendbuf = user.sendbuf;
  a.sendtype = user.sendtype;
  a.send_layout = DatatypeLayout::of(user.sendtype, "sendtype", a.comm->self());
  a.sendcounts = copy_counts(user.sendcounts, n, "sendcounts");
  a.sdispls = copy_counts(user.sdispls, n, "sdispls");
  check_buffer(a.sendbuf, a.sendcounts, a.send_layout.size, "sendbuf");
  bool sends = false, receives = false;
  for (int i = 0; i < n; ++i) {
    sends = sends || a.send_bytes(i) > 0;
    receives = receives || a.recv_bytes(i) > 0;
  }
  if (sends && receives && a.sendbuf == a.recvbuf)
    throw Error(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer; pass MPI_IN_PLACE as sendbuf");
  return a;
}

AlltoallvArgs make_alltoallv_args(const AlltoallvUserArgs& user, std::shared_ptr<const Comm> comm_ptr,
                                  const RequestedAlgorithm& algorithm) {
  const Comm& comm = *comm_ptr;
  std::optional<AlltoallvArgs> args;
  std::optional<Error> local_error;
  try {
    if (user.request_out == nullptr) throw Error(MPI_ERR_ARG, "request is NULL");
    args = AlltoallvArgs::from_user(user, comm_ptr);
  } catch (const Error& e) {
    local_error = e;
  }
  const AlltoallvArgs* local = args ? &*args : nullptr;
  const std::optional<std::string> refused =
      local != nullptr && algorithm.row != nullptr ? refusal(*algorithm.row, *local) : std::nullopt;

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
