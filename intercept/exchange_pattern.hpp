// One MPI_Alltoallv or MPI_Neighbor_alltoallv call's exchange as the
// drop-in keys it: by contents (counts, displacements, the datatypes'
// element layout, MPI_IN_PLACE), never by the buffers' addresses, which
// move (rotation, reallocation) while the exchange stays the same.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpix::intercept {

// The call's arguments as given, and a hash of them that costs no MPI call
// and no allocation: what a rank remembers of every call, to see repeats.
struct CallArguments {
  const void* sendbuf;
  const void* recvbuf;
  const int* sendcounts;
  const int* sdispls;
  MPI_Datatype sendtype;
  const int* recvcounts;
  const int* rdispls;
  MPI_Datatype recvtype;
  // Entries of the send and receive arrays: the communicator's size for
  // MPI_Alltoallv, its out- and in-degree for MPI_Neighbor_alltoallv.
  int send_entries, recv_entries;

  bool in_place() const { return sendbuf == MPI_IN_PLACE; }
  std::uint64_t hash() const;
};

struct ExchangePattern {
  // False when this call cannot be served from a persistent request: a
  // datatype the drop-in does not move as bytes (not predefined, or derived
  // with holes or a layout of its own), counts or displacements that are
  // negative or overflow an int in bytes, or buffers that some MPI rejects
  // or that only MPI may judge (NULL, MPI_IN_PLACE as the receive buffer,
  // the same buffer to send and receive). The call then goes to PMPI, which
  // fails it exactly as it would without the drop-in.
  bool servable = false;
  bool in_place = false;
  MPI_Aint send_element = 0, recv_element = 0;  // bytes per element
  std::vector<int> sendcounts, sdispls, recvcounts, rdispls;  // as given (send side: recv's if in place)
  std::int64_t largest_block = 0;  // bytes of the largest block sent or received

  // Describes a call, reusing this object's storage (no allocation once it
  // has seen a call as large).
  void describe(const CallArguments& call);
  // The same exchange as another call's (any buffers).
  bool same_as(const ExchangePattern& o) const {
    return servable && o.servable && in_place == o.in_place && send_element == o.send_element &&
           recv_element == o.recv_element && sendcounts == o.sendcounts && sdispls == o.sdispls &&
           recvcounts == o.recvcounts && rdispls == o.rdispls;
  }
  // The bytes of every block where this is an Alltoall's exchange (not in
  // place, every block the same bytes each way, block r at r blocks' bytes);
  // -1 otherwise.
  std::int64_t uniform_block() const;
  // The bytes a buffer needs for one side's blocks (at least 1).
  static std::size_t span_bytes(const std::vector<int>& counts, const std::vector<int>& displs, MPI_Aint element);
  // Counts and displacements in bytes, for a request over MPI_BYTE.
  static std::vector<int> in_bytes(const std::vector<int>& v, MPI_Aint element);
};

}  // namespace mpix::intercept
