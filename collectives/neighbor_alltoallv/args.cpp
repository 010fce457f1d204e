#include "collectives/neighbor_alltoallv/args.hpp"

#include <mpix/mpix.h>

#include <algorithm>
#include <string>

#include "collectives/agreed_args.hpp"
#include "collectives/argument_checks.hpp"
#include "collectives/neighbor_alltoallv/family.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

void check_not_in_place(const void* sendbuf, const void* recvbuf) {
  if (sendbuf == MPI_IN_PLACE)
    throw Error(MPI_ERR_BUFFER, "sendbuf is MPI_IN_PLACE, which MPI does not allow in neighbourhood collectives");
  if (recvbuf == MPI_IN_PLACE)
    throw Error(MPI_ERR_BUFFER, "recvbuf is MPI_IN_PLACE, which MPI does not allow in neighbourhood collectives");
}

}  // namespace

void NeighborArgs::move_buffers(const void* new_sendbuf, void* new_recvbuf) {
  check_not_in_place(new_sendbuf, new_recvbuf);
  check_buffer(new_sendbuf, sendcounts, send_layout.size, "sendbuf");
  check_buffer(new_recvbuf, recvcounts, recv_layout.size, "recvbuf");
  sendbuf = new_sendbuf;
  recvbuf = new_recvbuf;
}

NeighborArgs NeighborArgs::from_user(const VectorUserArgs& user, std::shared_ptr<const Comm> comm) {
  NeighborArgs a;
  a.comm = std::move(comm);
  int indegree = 0, outdegree = 0, weighted = 0;
  mpi_check(MPI_Dist_graph_neighbors_count(a.comm->global(), &indegree, &outdegree, &weighted),
            "MPI_Dist_graph_neighbors_count");
  a.sources.resize(static_cast<std::size_t>(indegree));
  a.destinations.resize(static_cast<std::size_t>(outdegree));
  mpi_check(MPI_Dist_graph_neighbors(a.comm->global(), indegree, a.sources.data(), MPI_UNWEIGHTED, outdegree,
                                     a.destinations.data(), MPI_UNWEIGHTED),
            "MPI_Dist_graph_neighbors");

  check_not_in_place(user.sendbuf, user.recvbuf);
  a.buffers_move = user.buffers_move;
  a.sendbuf = user.sendbuf;
  a.recvbuf = user.recvbuf;
  a.sendtype = user.sendtype;
  a.recvtype = user.recvtype;
  a.send_layout = DatatypeLayout::of_communicable(user.sendtype, "sendtype", a.comm->self());
  a.recv_layout = DatatypeLayout::of_communicable(user.recvtype, "recvtype", a.comm->self());
  a.sendcounts = copy_counts(user.sendcounts, outdegree, "sendcounts");
  a.sdispls = copy_counts(user.sdispls, outdegree, "sdispls");
  a.recvcounts = copy_counts(user.recvcounts, indegree, "recvcounts");
  a.rdispls = copy_counts(user.rdispls, indegree, "rdispls");
  check_buffer(a.sendbuf, a.sendcounts, a.send_layout.size, "sendbuf");
  check_buffer(a.recvbuf, a.recvcounts, a.recv_layout.size, "recvbuf");
  return a;
}

NeighborArgs make_neighbor_args(const VectorUserArgs& user, std::shared_ptr<const Comm> comm_ptr,
                                const Requested<NeighborAlgorithm>& algorithm) {
  const Comm& comm = *comm_ptr;
  int topology = MPI_UNDEFINED;
  mpi_check(MPI_Topo_test(comm.global(), &topology), "MPI_Topo_test");
  if (topology != MPI_DIST_GRAPH)
    throw Error(MPI_ERR_TOPOLOGY, "xcomm has no distributed-graph topology (MPI_Dist_graph_create or "
                                  "MPI_Dist_graph_create_adjacent make one); on rank " +
                                      std::to_string(comm.rank()) + " and every other");

  int indegree = 0, outdegree = 0, weighted = 0;
  mpi_check(MPI_Dist_graph_neighbors_count(comm.global(), &indegree, &outdegree, &weighted),
            "MPI_Dist_graph_neighbors_count");
  // Per edge: the bytes sent on it; -1 marks a rank whose own arguments were
  // already rejected (it still knows its edges: they are the communicator's).
  // MPI_Neighbor_alltoallv, one count per edge: it pairs duplicate edges
  // in order on every MPI, as the user's own call will (MPICH's
  // MPI_Neighbor_alltoall pairs them in reverse). One element more than
  // the degree: MPI refuses NULL buffers even for no data.
  std::vector<MPI_Count> outgoing(static_cast<std::size_t>(outdegree) + 1, -1);
  std::vector<MPI_Count> incoming(static_cast<std::size_t>(indegree) + 1, -1);
  const auto exchange = [&](const NeighborArgs* local) {
    for (int edge = 0; local != nullptr && edge < outdegree; ++edge)
      outgoing[static_cast<std::size_t>(edge)] = local->send_bytes(edge);
    std::vector<int> ones(static_cast<std::size_t>(std::max(indegree, outdegree)) + 1, 1);
    std::vector<int> displs(ones.size());
    for (std::size_t i = 0; i < displs.size(); ++i) displs[i] = static_cast<int>(i);
    mpi_check(MPI_Neighbor_alltoallv(outgoing.data(), ones.data(), displs.data(), MPI_COUNT, incoming.data(),
                                     ones.data(), displs.data(), MPI_COUNT, comm.global()),
              "MPI_Neighbor_alltoallv");
  };
  const auto check = [&](const NeighborArgs& local) {
    for (int edge = 0; edge < indegree; ++edge) {
      const MPI_Count sent = incoming[static_cast<std::size_t>(edge)];
      if (sent < 0 || sent == local.recv_bytes(edge)) continue;
      throw Error(MPI_ERR_TRUNCATE, "rank " + std::to_string(local.sources[static_cast<std::size_t>(edge)]) +
                                        " sends " + std::to_string(sent) + " bytes on its edge to rank " +
                                        std::to_string(comm.rank()) + ", which expects " +
                                        std::to_string(local.recv_bytes(edge)) + " bytes (" + at("recvcounts", edge) +
                                        " = " + std::to_string(local.recvcounts[static_cast<std::size_t>(edge)]) + ")");
    }
  };
  return agree_args(neighbor_alltoallv_family.title, neighbor_alltoallv_family.variable, comm,
                    check_locally(
                        [&] {
                          if (user.request_out == nullptr) throw Error(MPI_ERR_ARG, "request is NULL");
                          return NeighborArgs::from_user(user, comm_ptr);
                        },
                        algorithm),
                    algorithm.name, exchange, check);
}

}  // namespace mpix
