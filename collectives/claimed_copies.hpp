// The on-node blocks of a persistent exchange, copied by whichever of their
// two ranks claims them first, straight from the sender's buffer into the
// receiver's (CMA) or, when small, through the sender's board: everything
// one rank sends another (a transfer: one block, or a pair's edges) under
// one claim, in one system call or one pair of copies. The
// claimed_copy rows of the families run their on-node blocks this way
// (off-node ones by persistent point-to-point,
// collectives/persistent_edges.hpp).
//
// Why: MPI makes a persistent collective's Start local, and a rank's
// completion depend only on the other ranks' Starts: a program may start,
// then send to a peer that receives before its own Start, or complete, then
// send to a peer that receives before its own wait. The node channel's rows
// need the peer inside its own Start..Wait (receivers copy out of the
// rings, senders wait for ring space), and a window's epoch needs every
// rank in it. Here a rank that waits can move every block of its own, both
// ways, once its peers have started, whatever they do next: the drop-in
// serves MPI's persistent collectives with these rows by default (the
// capability mpi_progress).
//
// Protocol, per request, over the ranks of a node:
//  - every rank has a board, a region of the shared segments its node
//    peers map (pooled per communicator, collectives/claimed_boards.hpp,
//    which pass them as descriptors): a header line with the
//    epoch of its last Start and, written before it (release), the
//    addresses of its send and receive buffers for that epoch and whether
//    its small transfers are staged in it; then a line
//    per node rank, with the claimed and done epochs of the transfer that
//    rank sends it; then, for small transfers (staged), where each starts
//    in this board and the copies themselves;
//  - start(e): this rank's small transfers copied into its board (the
//    smallest always, the others if it stages in e: its own choice, from
//    its epochs' times, collectives/staging_choice.hpp), the header, then
//    one pass;
//  - a pass: for each transfer s -> r of this rank not yet seen done, once
//    both s and r have started e, claim it (claimed: e - 1 -> e, compare and
//    swap in r's board); the rank that claims it copies it (s writes into
//    r's buffer, process_vm_writev; r reads s's, process_vm_readv, or
//    copies one staged in e, as its size or s's header shows, out of s's
//    board) and sets done to e (release);
//    the other sees done;
//  - the row's wait: passes until every transfer into and out of this rank
//    is done.
// Who copies: a pass pulls the transfers into this rank first, and pushes
// its own only after a few passes have left them to their receivers, so
// that two ranks in their waits copy side by side instead of the later one
// copying both ways; a receiver that does not come (it sits in another MPI
// call) leaves them to the sender's later passes.
// Invariants: a transfer's claimed and done are e - 1 when either of its
// ranks starts e (each completed e - 1, which waited for them); a peer's
// buffers are copied into or out of only for a transfer claimed in the
// epoch its header shows, and it cannot leave that epoch before the
// transfer is done, so the addresses read from its header are that epoch's
// (and a staged copy is that epoch's: its sender writes the next only
// after its wait saw this one done); after a rank's wait no peer touches
// its buffers, so giving its board back to the pool frees the request
// without any rank (MPI_Request_free is local; the pool reuses the board
// only once no request of the node is active, claimed_boards.hpp).
// Where the kernel refuses CMA between two node ranks, or descriptors
// cannot pass, the request fails at init on every rank alike.
#pragma once

#include <mpi.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/claimed_boards.hpp"
#include "collectives/staging_choice.hpp"
#include "src/comm.hpp"

namespace mpix {

// One block of a transfer, in bytes from the buffers' bases.
struct ClaimedSegment {
  MPI_Aint mine;    // in this rank's send (out) or receive (in) buffer
  MPI_Aint theirs;  // in the peer's receive (out) or send (in) buffer
  std::size_t bytes;
};

// Everything this rank sends to one node peer (out), or receives from one,
// in the order the segments pair up.
struct ClaimedTransfer {
  int peer;  // node rank
  bool out;
  std::vector<ClaimedSegment> segments;
};

class ClaimedCopies {
 public:
  // Collective over the communicator: the boards, and each peer's process;
  // at most one transfer per peer and direction. Fails with the same Error
  // on every rank, in row's name.
  ClaimedCopies(const Comm& comm, const char* row, std::vector<ClaimedTransfer> transfers);
  ~ClaimedCopies();
  ClaimedCopies(const ClaimedCopies&) = delete;
  ClaimedCopies& operator=(const ClaimedCopies&) = delete;

  // Why no rank of comm's node can take part (simulated ranks are threads;
  // a kernel or seccomp policy without memfd or descriptor passing), if so.
  static std::optional<std::string> unavailable(const Comm& comm);

  // Starts an epoch over these buffers (the segments' bases: the peers copy
  // into and out of them until this rank's transfers are done), and makes
  // one pass.
  void start(const char* send_base, char* recv_base);
  // One pass; true once every transfer into and out of this rank is done.
  // Throws where a copy failed, on both of the transfer's ranks.
  bool progress();

 private:
  struct Transfer : ClaimedTransfer {
    pid_t pid;       // the peer's process
    char* staged;    // small transfers: the sender's copy in its board; else nullptr
    bool always_staged;  // staged in every epoch (else as the sender's header says)
    bool done;
    std::vector<iovec> here, there;  // the segments' iovecs, filled at each copy
  };

  const char* row_;
  int node_rank_;
  std::shared_ptr<ClaimedBoards> pool_;  // the communicator's
  ClaimedBoards::Lease boards_;         // this rank's board and its node peers'
  std::vector<Transfer> transfers_;
  const char* send_base_ = nullptr;
  char* recv_base_ = nullptr;
  std::size_t pending_ = 0;
  unsigned passes_ = 0;  // of this epoch
  std::uint64_t epoch_ = 0;
  bool active_ = false;      // counted in pool_'s activity: started, some transfer not yet seen done
  bool chooses_ = false;     // some transfer out of this rank is staged or not as staging_ says
  StagingChoice staging_;
  std::chrono::steady_clock::time_point last_start_;  // of a trial epoch, or the one before
};

}  // namespace mpix
