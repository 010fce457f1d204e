// The arguments of an all-to-all exchange as MPI_Alltoallv takes them: a
// block per peer, each a count and displacement of one send type and one
// receive type, copied and checked once at init. The Alltoallv family makes
// them from its user's arrays; the Alltoall family from its uniform count,
// every block the same size (uniform below). The algorithms of this folder
// run either family's requests, each family listing them in its
// registry.def.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/algorithm.hpp"
#include "collectives/auto/settings.hpp"
#include "collectives/persistent_edges.hpp"
#include "src/datatype_layout.hpp"
#include "src/comm.hpp"

namespace mpix {

struct AlltoallvArgs {
  std::shared_ptr<const Comm> comm;
  bool in_place = false;
  // Starts may point the operation at other buffers of this layout
  // (PersistentOperation::rebind): no path may depend on their addresses.
  bool buffers_move = false;
  const void* sendbuf = nullptr;
  std::vector<int> sendcounts, sdispls;  // with MPI_IN_PLACE: the receive side's
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  DatatypeLayout send_layout{};
  void* recvbuf = nullptr;
  std::vector<int> recvcounts, rdispls;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  DatatypeLayout recv_layout{};
  // Agreed at init: where my block starts in each target's receive buffer,
  // and why the requested algorithm cannot run (on the lowest rank that
  // says so, the same text on every rank), if it cannot.
  std::vector<MPI_Aint> block_at_target;
  std::optional<std::string> algorithm_refused;
  AutoHints auto_hints;  // the request's info for auto, unparsed
  // Every block the same count (MPIX_Alltoall_init): MPI's own Alltoall
  // call runs it.
  bool uniform = false;

  // The user's two sides, checked locally; each Error names the bad
  // argument. The receive side first: recvbuf must not be MPI_IN_PLACE and
  // must hold the counted blocks.
  void set_receive_side(void* buffer, MPI_Datatype type, std::vector<int> counts, std::vector<int> displs);
  // Then the send side: MPI_IN_PLACE takes the receive side's blocks (MPI
  // ignores the send arguments, so blocks is not called); otherwise
  // blocks(counts, displs) gives them, the buffer must hold them and must
  // not be recvbuf.
  template <class Blocks>
  void set_send_side(const void* buffer, MPI_Datatype type, Blocks&& blocks) {
    in_place = buffer == MPI_IN_PLACE;
    if (in_place) {
      sendbuf = recvbuf;
      sendtype = recvtype;
      send_layout = recv_layout;
      sendcounts = recvcounts;
      sdispls = rdispls;
      return;
    }
    std::vector<int> counts, displs;
    blocks(counts, displs);
    set_send_blocks(buffer, type, std::move(counts), std::move(displs));
  }

  // Points the arguments at other buffers of the same layout (buffers_move):
  // MPI_ERR_BUFFER for NULL buffers with data or an MPI_IN_PLACE that
  // differs from init's.
  void move_buffers(const void* new_sendbuf, void* new_recvbuf);

  // What MPI_Alltoallv takes for the send side, MPI_IN_PLACE included.
  const void* mpi_sendbuf() const { return in_place ? MPI_IN_PLACE : sendbuf; }
  MPI_Count send_bytes(int peer) const { return sendcounts[peer] * send_layout.size; }
  MPI_Count recv_bytes(int peer) const { return recvcounts[peer] * recv_layout.size; }

 private:
  void set_send_blocks(const void* buffer, MPI_Datatype type, std::vector<int> counts, std::vector<int> displs);
};

// A row of a family whose requests are AlltoallvArgs (Alltoallv,
// Alltoall): the algorithms of this folder, and each family's own.
using AlltoallvAlgorithm = CollectiveAlgorithm<AlltoallvArgs>;

// The blocks to and from other nodes as point-to-point messages, each
// peer's send then its receive, peers k = 1 .. n-1 ranks away (the rows
// that move on-node blocks their own way and these by PersistentEdges).
std::vector<PointToPointMessage> off_node_point_to_point(const AlltoallvArgs& args);

}  // namespace mpix
