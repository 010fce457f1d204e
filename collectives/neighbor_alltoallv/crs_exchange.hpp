// MPIX_Alltoallv_crs on one communicator: the sparse exchange with data
// (collectives/sparse_exchange.hpp), and, where the caller says its
// pattern repeats (info mpix_crs_reuse = "true"), the same exchange as a
// persistent neighbourhood request over the graph the first call
// discovered.
//
// Protocol, per call (collective over the communicator):
//   1. the arguments are checked and agreed as for every call
//      (checked_crs_messages);
//   2. one MPI_Allreduce (MIN of three ints) agrees that every rank asked
//      for re-use or none did (else MPI_ERR_INFO_VALUE on every rank), and
//      whether every rank's pattern (destinations, counts, displacements,
//      types) is the one it kept;
//   3. if so, the kept request runs over this call's send buffer and a new
//      receive buffer, and the sources, counts and displacements are the
//      kept ones: no discovery, no barrier;
//   4. if not, NBX finds the sources and delivers the data; with re-use
//      asked for, each rank then keeps its pattern, a distributed graph
//      communicator of its edges (its in-edges in the order NBX reported
//      them, so that duplicate edges between a pair match in order, as
//      NBX's non-overtaking messages did) and a neighbourhood request on it
//      (MPIX_Neighbor_alltoallv_init's choice, buffers that move) for the
//      next call.
// Every call makes the same collective calls on every rank whatever its
// info says, so a mismatch is an error, never a hang. No step is O(P).
// Invariant: every rank keeps a request or none, and the kept requests are
// one graph's: they are made and dropped in the same agreed step.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "collectives/sparse_exchange.hpp"
#include "src/comm.hpp"
#include "src/info.hpp"
#include "src/mpi_handle.hpp"
#include "src/request.hpp"

namespace mpix {

// "true": MPIX_Alltoallv_crs may keep the pattern for the next call.
inline constexpr const char* info_key_crs_reuse = "mpix_crs_reuse";

// A component of the communicator MPIX_Alltoallv_crs is called on
// (alltoallv_crs, collectives/sparse_exchange.hpp): made at its first call,
// closed, with what it keeps, when the communicator is freed.
class CrsExchange : public Component {
 public:
  CrsExchange() = default;
  CrsExchange(const CrsExchange&) = delete;
  CrsExchange& operator=(const CrsExchange&) = delete;
  ~CrsExchange() override;
  void close() override { kept_.reset(); }

  // One MPIX_Alltoallv_crs call on comm (the communicator this exchange
  // belongs to, the same at every call). Collective.
  SparseReceived exchange(const Comm& comm, int send_nnz, const int dest[], const int sendcounts[],
                          const int sdispls[], MPI_Datatype sendtype, const void* sendvals, MPI_Datatype recvtype,
                          const Info* info);

 private:
  struct Pattern {
    std::vector<int> dest, sendcounts, sdispls;
    MPI_Datatype sendtype = MPI_DATATYPE_NULL, recvtype = MPI_DATATYPE_NULL;
    bool operator==(const Pattern& other) const;
  };
  struct Kept {
    Pattern pattern;
    std::vector<int> sources, recvcounts, rdispls;  // what the discovery found
    std::size_t recv_bytes = 0;
    UniqueComm graph;
    std::shared_ptr<const Comm> graph_comm;
    std::unique_ptr<Request> request;
    ~Kept();
  };
  void keep(const Comm& comm, Pattern pattern, SparseReceived& found, const void* sendvals);

  std::unique_ptr<Kept> kept_;
};

// Calls served by a kept request, in this process (tests read it).
std::uint64_t crs_exchanges_reused();

}  // namespace mpix
