#include "collectives/blocks/args.hpp"

#include <mpix/mpix.h>

#include <cstdint>
#include <optional>
#include <string>

#include "collectives/argument_checks.hpp"
#include "src/agree.hpp"
#include "src/error.hpp"
#include "src/library.hpp"

namespace mpix {

void AlltoallvArgs::set_receive_side(void* buffer, MPI_Datatype type, std::vector<int> counts,
                                     std::vector<int> displs) {
  if (buffer == MPI_IN_PLACE) throw Error(MPI_ERR_BUFFER, "recvbuf is MPI_IN_PLACE; only sendbuf may be");
  recvbuf = buffer;
  recvtype = type;
  recv_layout = DatatypeLayout::of_communicable(type, "recvtype", comm->self());
  recvcounts = std::move(counts);
  rdispls = std::move(displs);
  check_buffer(recvbuf, recvcounts, recv_layout.size, "recvbuf");
}

void AlltoallvArgs::set_send_blocks(const void* buffer, MPI_Datatype type, std::vector<int> counts,
                                    std::vector<int> displs) {
  sendbuf = buffer;
  sendtype = type;
  send_layout = DatatypeLayout::of_communicable(type, "sendtype", comm->self());
  sendcounts = std::move(counts);
  sdispls = std::move(displs);
  check_buffer(sendbuf, sendcounts, send_layout.size, "sendbuf");
  bool sends = false, receives = false;
  for (std::size_t i = 0; i < sendcounts.size(); ++i) {
    sends = sends || send_bytes(static_cast<int>(i)) > 0;
    receives = receives || recv_bytes(static_cast<int>(i)) > 0;
  }
  if (sends && receives && sendbuf == recvbuf)
    throw Error(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer; pass MPI_IN_PLACE as sendbuf");
}

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

std::vector<PointToPointMessage> off_node_point_to_point(const AlltoallvArgs& args) {
  const Comm& comm = *args.comm;
  const int n = comm.size(), me = comm.rank();
  std::vector<PointToPointMessage> messages;
  for (int k = 1; k < n; ++k) {
    const int target = (me + k) % n, source = (me - k + n) % n;
    if (!comm.same_node(target) && args.send_bytes(target) > 0)
      messages.push_back({target, true, args.sdispls[target] * args.send_layout.extent, args.sendcounts[target]});
    if (!comm.same_node(source) && args.recv_bytes(source) > 0)
      messages.push_back({source, false, args.rdispls[source] * args.recv_layout.extent, args.recvcounts[source]});
  }
  return messages;
}

}  // namespace mpix
