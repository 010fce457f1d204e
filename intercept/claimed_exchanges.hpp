// The exchanges the drop-in serves by claimed calls
// (collectives/claimed_calls.hpp), which need no agreement at the call, on
// a communicator whose ranks share one node:
//  - every nonblocking exchange (MPI_Ialltoallv, MPI_Ialltoall,
//    MPI_Ineighbor_alltoallv on a distributed graph);
//  - with MPIX_INTERCEPT_BLOCKING=claimed, every blocking exchange
//    (MPI_Alltoallv, MPI_Alltoall, MPI_Neighbor_alltoallv) that the agreed
//    path (served_exchanges.hpp) does not serve from one of its persistent
//    requests: those it passes on between its agreements, small ones, and
//    patterns whose search found the MPI's own call fastest. That path's
//    choices are every rank's, so the blocking calls it passes on are the
//    same calls on every rank, and they cost no agreement of their own.
//
// Why every nonblocking call, and why set up at the communicator's making:
// MPI makes the call local, so each rank must decide alike whether a call
// is served from what it knows without asking the others. A choice agreed
// at some later call would hang a program that is legal: a rank may make
// any number of calls, then send to a peer that receives before its own
// first call; whatever that rank waited for from the peer at call k, it
// would wait for ever. So the decision is made once, collectively, where
// MPI already blocks every rank of the communicator: its constructor
// (MPI_Comm_dup, MPI_Comm_dup_with_info, MPI_Comm_split,
// MPI_Comm_split_type, MPI_Comm_create, MPI_Comm_create_group,
// MPI_Intercomm_merge, MPI_Cart_create, MPI_Cart_sub, MPI_Graph_create,
// MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create), or MPI_Init and
// MPI_Init_thread for
// MPI_COMM_WORLD. There every rank votes (the drop-in on, the same
// settings, MPIX_INTERCEPT_NONBLOCKING on, room for one more); the library
// communicator and the boards are made; and every rank learns the same
// outcome. A communicator made otherwise (MPI_Comm_idup, which blocks
// no rank, an intercommunicator, one spanning nodes) keeps the MPI's own
// calls.
//
// Protocol of a served call: the blocks described in bytes, one per peer
// each way (a datatype that is not plain bytes packed into the call's own
// buffer, and its received blocks unpacked at completion; on a graph that
// lists a neighbour twice, its segments end to end, in the order listed,
// as MPI matches them), and
// the claimed call started. A nonblocking call gives the program a handle
// of the MPI's own (a proxy, served_requests.hpp) that every completion
// call polls; the completion that reports it leaves MPI_REQUEST_NULL, as
// MPI's own nonblocking request does. A blocking call polls its own until
// it is complete, the MPI progressing between polls (as inside its own
// call: a peer may sit in a receive that needs this rank's progress).
// MPI_IN_PLACE, which MPI asks of every rank or none, goes to the MPI's
// own call, as does a call whose arguments MPI rejects (it raises the
// error). A block larger than its receiver's room ends the receiver's call
// with MPI_ERR_TRUNCATE, and only the receiver's, as in MPI.
// Invariants: a shot (a proxy, its entry and the call's buffers) is reused
// only once its completion was reported; calls and shots are this
// communicator's, made and reported on one thread at a time (MPI orders a
// communicator's collectives).
#pragma once

#include <mpi.h>
#include <mpix/mpix.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collectives/claimed_calls.hpp"
#include "intercept/served_requests.hpp"
#include "src/datatype_layout.hpp"

namespace mpix::intercept {

// A blocking exchange the agreed path (served_exchanges.hpp) does not
// serve, as it runs now: on a communicator set up for the claimed calls
// whose ranks have MPIX_INTERCEPT_BLOCKING=claimed, a claimed call, which
// needs no agreement (every rank's agreed path passes the same calls on,
// and the set-up is every rank's); otherwise the MPI's own call.
#if MPI_VERSION >= 4
int unserved_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm);
int unserved_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm);
int unserved_neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm);
#else
inline int unserved_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                              void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm) {
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}
inline int unserved_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm) {
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
inline int unserved_neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                 comm);
}
#endif

// After one of the MPI's constructors made *newcomm (or MPI_COMM_NULL
// there) and returned rc: sets it up (ClaimedExchanges::set_up) unless the
// call failed or the drop-in made it. Returns rc.
int set_up_after(int rc, const MPI_Comm* newcomm, const char* made_by);

class ClaimedExchanges {
 public:
  // Collective over comm, in the MPI call made_by that blocks every rank of
  // it (a constructor, MPI_Init): comm's state where every rank can serve
  // its nonblocking exchanges (then hung on it as an attribute, freed with
  // it), or none, alike on every rank.
  static void set_up(MPI_Comm comm, const char* made_by);
  // comm's state, or nullptr: its calls go to the MPI.
  static ClaimedExchanges* of(MPI_Comm comm);
  // At MPI_Finalize: every state goes (reporting under MPIX_VERBOSE).
  static void free_all();

  ~ClaimedExchanges();

  // The served calls: nonblocking, the program getting *request, or, with
  // request nullptr, blocking (complete at return). Their MPI error code,
  // raised on the communicator's error handler as MPI's call would.
  int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                MPI_Request* request);
  int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, MPI_Request* request);
  // On a distributed graph only (graph()).
  int neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Request* request);
  // Whether this state serves the blocking calls too (MPIX_INTERCEPT_BLOCKING,
  // the same on every rank).
  bool serves_blocking() const { return serves_blocking_; }
  // Whether a call with these arguments is served: the rest go to the MPI,
  // which raises its error (counts it rejects, a NULL buffer with a count
  // over it, a receive buffer that is the send buffer) or runs MPI_IN_PLACE,
  // which MPI asks of every rank or none.
  bool servable(const void* sendbuf, const int sendcounts[], const int sdispls[], const void* recvbuf,
                const int recvcounts[], const int rdispls[]) const;
  bool servable(const void* sendbuf, int sendcount, const void* recvbuf, int recvcount) const;
  bool servable_on_graph(const void* sendbuf, const int sendcounts[], const int sdispls[], const void* recvbuf,
                         const int recvcounts[], const int rdispls[]) const;
  // Whether the communicator has a distributed-graph topology (its
  // neighbourhood exchanges are served), and its in- and out-degree.
  bool graph() const { return graph_.served; }
  int indegree() const { return static_cast<int>(graph_.sources.size()); }
  int outdegree() const { return static_cast<int>(graph_.destinations.size()); }
  // The blocking MPI_Alltoallv calls run here, each a noted claimed call
  // (claimed_calls.hpp) whose note is the largest block its rank moves: at
  // its end every rank knows the largest block any rank moved, alike. The
  // agreed path (served_exchanges.cpp) learns from it, at no cost, that
  // an exchange it passes on grew to the size it serves. The calls of the
  // other collectives are not noted: a neighbourhood call's ranks may
  // share blocks with few peers, and a note would have each wait for
  // every rank of the node; an MPI_Alltoall's blocks are one size on
  // every rank already.
  const LargestBlocks& alltoallv_largest_blocks() const { return alltoallv_.largest; }

 private:
  // One direction of a call, as its arguments say (MPI keeps them
  // untouched until completion): block k is count(k) elements of type at
  // displ(k) elements into buffer, exchanged with rank(k).
  struct Direction {
    char* buffer = nullptr;
    const int* counts = nullptr;  // nullptr: every block uniform_count elements, at k * uniform_count
    const int* displs = nullptr;
    int uniform_count = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    const int* ranks = nullptr;  // nullptr: block k is rank k's; a rank may be listed more than once
    int blocks = 0;
    MPI_Count count(int k) const;
    MPI_Aint displ(int k) const;
    int rank(int k) const { return ranks != nullptr ? ranks[k] : k; }
  };
  // One call in flight: its proxy and entry, and, where its blocks are
  // packed, the packed copies.
  struct Shot : OnceCall {
    ClaimedExchanges* owner = nullptr;
    MPI_Request proxy = MPI_REQUEST_NULL;
    ServedRequest* entry = nullptr;  // in the request table while the state lives
    std::uint64_t number = 0;        // the claimed call's
    std::vector<char> send_packed, recv_packed;
    std::vector<MPI_Count> recv_packed_at;  // where each received block is in recv_packed
    Direction recv;                         // where the received blocks are unpacked
    bool unpacked = true;
    bool progress() override;
  };

  // A distributed graph's neighbours, in the order of its calls' blocks.
  struct Graph {
    bool served = false;  // a distributed graph whose neighbourhood calls are served
    std::vector<int> sources, destinations;
    static Graph of(MPI_Comm comm);  // local; served where comm has a distributed graph
  };
  ClaimedExchanges(MPI_Comm comm, MPI_Comm library_comm, MPIX_Comm* xcomm, std::unique_ptr<ClaimedCalls> calls,
                   Graph graph, bool serves_blocking);
  // A shot whose last completion was reported: the first, or a new one
  // (its proxy made and entered in the table).
  Shot& free_shot();
  bool add_shot();
  // Describes one direction of a call in bytes, one block per rank
  // (blocks), packing its blocks into packed where its type is not plain
  // bytes or a rank's segments do not lie end to end (where each is:
  // packed_at); returns the base the blocks are counted from.
  char* describe(const Direction& d, const char* argument, bool send, std::vector<char>& packed,
                 std::vector<MPI_Count>& packed_at, std::vector<ClaimedCalls::Block>& blocks);
  // Where d lists a rank more than once, its block's split
  // (ClaimedCalls::Block): the sizes of its segments, in order.
  void note_splits(const Direction& d, const DatatypeLayout& layout, std::vector<ClaimedCalls::Block>& blocks);
  // One collective's names, nonblocking and blocking, and its calls served
  // in each form (the report's).
  struct Served {
    Served(const char* nonblocking_name, const char* blocking_name, bool notes = false)
        : nonblocking(nonblocking_name), blocking(blocking_name), notes_largest_block(notes) {}
    const char* nonblocking;
    const char* blocking;
    bool notes_largest_block;  // its blocking calls are noted (LargestBlocks)
    long nonblocking_calls = 0, blocking_calls = 0;
    LargestBlocks largest;
  };
  // A call of that collective: issue() where the program gets a request,
  // run() where request is nullptr; counted in served.
  int exchange(Served& served, const Direction& send, const Direction& recv, MPI_Request* request);
  // A nonblocking call: started, its proxy the program's.
  int issue(const char* function, const Direction& send, const Direction& recv, MPI_Request* request);
  // A blocking call: started, then progressed to its completion.
  int run(Served& served, const Direction& send, const Direction& recv);
  // The received blocks of a call whose receive type is not plain bytes,
  // from where they were packed (describe).
  void unpack(const Direction& recv, const std::vector<char>& packed, const std::vector<MPI_Count>& packed_at) const;

  MPI_Comm comm_;          // the program's
  MPI_Comm library_comm_;  // a duplicate that returns errors, under xcomm_
  MPIX_Comm* xcomm_;
  std::unique_ptr<ClaimedCalls> calls_;
  int size_ = 0;
  bool serves_blocking_ = false;
  std::vector<std::unique_ptr<Shot>> shots_;
  Graph graph_;
  // The current call's (issue()).
  std::vector<ClaimedCalls::Block> send_blocks_, recv_blocks_;
  std::vector<MPI_Count> packed_at_;
  std::vector<MPI_Count> packing_at_;  // per rank, where describe() packs its next segment
  std::vector<int> listed_;            // per rank, how often note_splits() found it listed
  // A blocking call's packed blocks (issue() keeps a shot's in the shot).
  std::vector<char> send_packed_, recv_packed_;
  std::vector<MPI_Count> recv_packed_at_;
  Served alltoallv_{"MPI_Ialltoallv", "MPI_Alltoallv", true}, alltoall_{"MPI_Ialltoall", "MPI_Alltoall"},
      neighbor_alltoallv_{"MPI_Ineighbor_alltoallv", "MPI_Neighbor_alltoallv"};
  double setup_seconds_ = 0;
};

}  // namespace mpix::intercept
