// A communicator's nonblocking exchanges (MPI_Ialltoallv, MPI_Ialltoall,
// MPI_Ineighbor_alltoallv through the drop-in), and the blocking ones the
// drop-in's agreed path passes on, where all its ranks share a
// node: each call's blocks copied by whichever of their two ranks claims
// them first, as the claimed copies of a persistent request are
// (collectives/claimed_copies.hpp), but described afresh at every call.
//
// Why: MPI makes a nonblocking collective's call local, and a rank's
// completion depend only on the other ranks' calls. So the call can agree
// on nothing with the other ranks, and nothing can be set up per pattern:
// whatever a peer needs to copy this rank's blocks is written into this
// rank's board at the call. The boards are set up once, collectively, when
// the communicator is made (the drop-in does that in the MPI's
// constructors, which are blocking collectives).
//
// Protocol, per communicator, over its ranks (one node; node ranks):
//  - every rank has a board (collectives/claimed_boards.hpp) of `slots`
//    call slots; call n (this rank's n-th on this object, counted from 1:
//    the same exchange on every rank, as MPI orders a communicator's
//    collectives) uses slot n % slots;
//  - a slot: a header line (the call it describes, written last, release;
//    the bases of its send and receive buffers), a claim line per node rank
//    (claimed and done: call numbers, for the transfer that rank sends
//    this one), a block line per node rank (where this rank's block to it
//    is in its send buffer and its bytes, where its block from it goes in
//    its receive buffer and its bytes, and where a staged copy of its
//    block to it is in this slot, 0 for none), then the staged copies;
//  - start(n): the block to itself copied, the small blocks to others
//    staged, the block lines, the header; one pass;
//  - a pass: for each transfer into or out of this rank not yet seen done,
//    once the peer's slot shows call n, claim it (claimed: below n -> n,
//    compare and swap in the receiver's slot); the rank that claims it
//    copies it (the receiver reads the staged copy, or either rank copies
//    between the two buffers, CMA) and sets done to n (release); the other
//    sees done >= n. Receivers pull first; a sender pushes what is left
//    after a few passes (as the claimed copies do), except a staged block,
//    which only its receiver reads;
//  - a call is complete once every transfer into this rank is done and
//    every one out of it is done or staged: a staged block's bytes are in
//    the slot, the send buffer is free, and the sender need not wait a
//    round trip more for its receiver to have read it.
// Invariants: a rank writes slot n % slots for call n only once its call
// n - slots is complete and its staged blocks are read (done), and frees
// its board only once every slot's are, so a peer that saw call n in the
// slot reads that call's lines for as long as its transfer with this rank
// is not done; claims and dones only grow, so
// a value of at least n says call n's transfer is done; after a rank's
// call is complete no peer touches its buffers. A rank with more than
// `slots` calls in flight waits, at its next call, for the oldest to
// complete (the one wait a call makes: documented in docs/guide.md).
// A noted call (a blocking one that asks, start's note) also carries one
// number per rank: the call completes only once every node rank's note
// for it is read, so every rank ends the call knowing the same maximum
// (most_noted). That is a collective answer at no cost where the call's
// blocks reach every peer anyway, which the drop-in uses to learn, with no
// agreement, that a call's blocks grew (served_exchanges.cpp). A note
// travels with the rank's block to each peer, in lines that peer reads for
// the block anyway: in the block line, where the receiver copies it (or
// reads it staged), or in the receiver's claim line, written before the
// done, where the sender copies it. A peer that is sent no block reads the
// rank's note line instead: its k-th noted call writes line k % 2 (the
// call's number, then its note, release), after the slots. Invariant: a
// rank writes line k % 2 again only at its noted call k + 2, which it
// starts after its noted call k + 1 is complete, which needs every peer to
// have started that call (its block or its note line showed it), which,
// noted calls being blocking on every rank, each does only once its noted
// call k has read this rank's note k. A block's note is read before the
// transfer is done, and its lines are rewritten only after that. So a
// note is never overwritten unread, and no call waits for more than every
// rank's start of itself (a nonblocking call, however far ahead, waits
// for no note).
// Where the kernel refuses CMA between two ranks, or descriptors cannot
// pass, construction fails on every rank alike.
#pragma once

#include <mpi.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collectives/claimed_boards.hpp"
#include "src/comm.hpp"

namespace mpix {

class ClaimedCalls {
 public:
  static constexpr int slots = 16;  // calls in flight per rank before a call waits

  // One block of a call, in bytes from its buffer's base. split: where
  // the block is several of the program's messages (a graph that lists a
  // neighbour more than once), a digest of their sizes in order; 0 where
  // it is one. MPI matches the k-th message between two ranks with the
  // k-th receive, so a receiver whose block is as large as the sender's,
  // split otherwise, has some receive smaller than its message: that
  // rank's call ends with MPI_ERR_TRUNCATE, as MPI's does.
  struct Block {
    MPI_Aint offset = 0;
    std::size_t bytes = 0;
    std::uint64_t split = 0;
  };

  // Collective over comm, every rank of which shares one node: the boards.
  // Throws the same Error on every rank where a rank cannot have them.
  explicit ClaimedCalls(std::shared_ptr<const Comm> comm);
  ~ClaimedCalls();
  ClaimedCalls(const ClaimedCalls&) = delete;
  ClaimedCalls& operator=(const ClaimedCalls&) = delete;

  // Local: the next call, over these buffers and blocks (by rank of the
  // communicator: send[r] goes to rank r, recv[r] comes from it); the
  // blocks stay untouched by this rank until the call is complete. Returns
  // the call's number, for progress().
  // note: where set, a noted call, which every rank makes noted (it is
  // one call of the program's, blocking on every rank: no call starts on
  // this rank before it is complete), with this rank's number.
  std::uint64_t start(const char* send_base, const Block* send, char* recv_base, const Block* recv,
                      const std::uint64_t* note = nullptr);
  // After a noted call is complete, before the next starts: the largest
  // note of any rank's, the same on every rank.
  std::uint64_t most_noted(std::uint64_t call) const;
  // One pass over call's transfers; true once every one into this rank is
  // done and every one out of it done or staged. Throws where a copy
  // failed, on both of the transfer's ranks (a staged block's sender, whose
  // call may be complete, only drains it); and, once the call is complete,
  // MPI_ERR_TRUNCATE on a rank that was sent a block larger than its room
  // (what fits was copied; its sender's call is not in error, as in MPI).
  bool progress(std::uint64_t call);
  // progress() until call is complete: spinning, then yielding the core,
  // the MPI progressing between polls (spin_then_yield).
  void wait(std::uint64_t call);

 private:
  struct Call {  // this rank's record of the call in a slot
    std::uint64_t number = 0;
    const char* send_base = nullptr;
    char* recv_base = nullptr;
    std::size_t pending = 0;  // transfers its completion waits for
    unsigned passes = 0;
    std::vector<char> in_done, out_done;  // per node rank
    // Blocks sent staged (their bytes copied into the slot at the start):
    // the call completes without waiting for them, as the send buffer is
    // free; the slot's next call waits until they are read (drain).
    std::vector<char> staged_out;  // per node rank
    std::size_t unread = 0;
    std::string truncated;  // this rank received a block larger than its room: from whom (raised at completion)
    // A noted call's: its note line's index (noted calls before it), the
    // node ranks whose note is read, and the largest.
    bool noted = false;
    std::uint64_t note_index = 0;
    std::vector<char> heard;  // per node rank
    std::uint64_t own_note = 0;
    std::uint64_t most_noted = 0;
  };
  char* slot_of(char* board, std::uint64_t call) const;
  // Until c's staged blocks have been read (or failed) by their receivers.
  void drain(Call& c);
  // Call n failed on this rank: its transfers into this rank not yet done
  // are failed (those no sender claimed), so that no sender drains for ever.
  void abandon(Call& c, std::uint64_t n);
  // True for a complete call; throws its truncation, once.
  static bool completed(Call& c);

  std::shared_ptr<const Comm> comm_;
  int node_rank_;
  int node_size_;
  std::size_t slot_bytes_;
  std::size_t staged_at_;  // where a slot's staged copies begin
  std::shared_ptr<ClaimedBoards> pool_;
  ClaimedBoards::Lease boards_;
  std::vector<Call> calls_;  // by slot
  std::vector<int> node_rank_of_;  // by communicator rank
  std::uint64_t last_ = 0;          // the last call started
  std::uint64_t noted_ = 0;         // noted calls started
  int spin_polls_;
};

}  // namespace mpix
