// A communicator's exchanges on one node, call by call, each call's blocks
// copied once by whichever of their two ranks claims them
// (collectives/claimed_calls.hpp).
#include "collectives/claimed_calls.hpp"

#include <sys/uio.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include "collectives/block_claims.hpp"
#include "node/direct_copy.hpp"
#include "node/node_channel.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

constexpr std::size_t line = claim_line;
// Blocks of at most always_staged_at_most bytes (collectives/
// block_claims.hpp) are staged in the sender's slot while it has room, as
// the claimed copies stage them in every epoch.

// Each slot's room for staged copies: a call stages its blocks in order
// while they fit. Small, because a communicator's board is made and mapped
// (every page, by every node rank) when the communicator is: its making
// costs the program about a microsecond per page.
constexpr std::size_t staging_per_slot = 16384;

struct Header {
  std::atomic<std::uint64_t> call;
  std::atomic<std::uint64_t> send_base;
  std::atomic<std::uint64_t> recv_base;
};
// A rank's note for its k-th noted call, in line k % note_lines after its
// slots (invariant in the header).
struct NoteLine {
  std::atomic<std::uint64_t> call;  // written last, release
  std::atomic<std::uint64_t> note;
};
constexpr std::size_t note_lines = 2;
// Written before the header's call (release), read after it (acquire).
struct BlockLine {
  std::int64_t send_offset;
  std::uint64_t send_bytes;
  std::int64_t recv_offset;
  std::uint64_t recv_bytes;
  std::uint64_t staged_at;  // in the slot; 0: not staged
  std::uint64_t send_split, recv_split;  // Block::split
  std::uint64_t note;  // a noted call's: this rank's note, for the receiver that copies the block
};
// A transfer's claim line, in its receiver's slot: the claim, then, in a
// noted call whose sender copied the block, the sender's note (written
// before the claim's done, which is released).
struct ClaimLine {
  BlockClaim claim;
  std::atomic<std::uint64_t> note;
};
static_assert(sizeof(Header) <= line && sizeof(BlockLine) <= line && sizeof(NoteLine) <= line &&
                  sizeof(ClaimLine) <= line,
              "a header, a block line, a claim line or a note line fits a line");

Header& header_of(char* slot) { return *reinterpret_cast<Header*>(slot); }
ClaimLine& claim_line_in(char* slot, int source) {
  return *reinterpret_cast<ClaimLine*>(&claim_in(slot, source));
}
// notes_at: where a board's note lines begin (after its slots).
NoteLine& note_line(char* board, std::size_t notes_at, std::uint64_t index) {
  return *reinterpret_cast<NoteLine*>(board + notes_at + line * static_cast<std::size_t>(index % note_lines));
}
BlockLine& block_line(char* slot, int node_size, int peer) {
  return *reinterpret_cast<BlockLine*>(slot + line * (1 + static_cast<std::size_t>(node_size) +
                                                       static_cast<std::size_t>(peer)));
}

}  // namespace

ClaimedCalls::ClaimedCalls(std::shared_ptr<const Comm> comm)
    : comm_(std::move(comm)),
      node_rank_(comm_->node_rank()),
      node_size_(comm_->node_size()),
      slot_bytes_(line * (1 + 2 * static_cast<std::size_t>(node_size_)) + staging_per_slot),
      staged_at_(line * (1 + 2 * static_cast<std::size_t>(node_size_))),
      pool_(comm_->component<ClaimedBoards>()),
      calls_(slots),
      spin_polls_(ChannelSettings::of(*comm_).spin_polls) {
  if (comm_->num_nodes() != 1) throw Error(MPI_ERR_INTERN, "nonblocking claimed calls: the communicator spans nodes");
  boards_ = ClaimedBoards::take(pool_, *comm_, slot_bytes_ * slots + line * note_lines, "nonblocking claimed calls",
                                [](char*) {});
  for (Call& c : calls_) {
    c.in_done.assign(static_cast<std::size_t>(node_size_), 1);
    c.out_done.assign(static_cast<std::size_t>(node_size_), 1);
    c.staged_out.assign(static_cast<std::size_t>(node_size_), 0);
    c.heard.assign(static_cast<std::size_t>(node_size_), 1);
  }
  node_rank_of_.resize(static_cast<std::size_t>(comm_->size()));
  for (int r = 0; r < comm_->size(); ++r) node_rank_of_[static_cast<std::size_t>(r)] = comm_->node_rank_of(r);
}

// Every rank's communicator goes collectively, and a peer reads this
// rank's staged blocks inside its own call, which waits on nothing of
// this rank's: the board goes once they are read.
ClaimedCalls::~ClaimedCalls() {
  for (Call& c : calls_) drain(c);
}

char* ClaimedCalls::slot_of(char* board, std::uint64_t call) const {
  return board + slot_bytes_ * static_cast<std::size_t>(call % slots);
}

std::uint64_t ClaimedCalls::start(const char* send_base, const Block* send, char* recv_base, const Block* recv,
                                  const std::uint64_t* note) {
  const std::uint64_t n = ++last_;
  Call& c = calls_[static_cast<std::size_t>(n % slots)];
  // The slot's last call, slots calls back, completes first, and its
  // staged blocks have been read (invariant).
  if (c.number != 0) {
    wait(c.number);
    drain(c);
  }
  c.number = n;
  c.send_base = send_base;
  c.recv_base = recv_base;
  c.passes = 0;
  c.pending = 0;
  c.truncated.clear();
  char* slot = slot_of(boards_.mine(), n);
  std::size_t staged_end = staged_at_;
  for (int r = 0; r < comm_->size(); ++r) {
    const int k = node_rank_of_[static_cast<std::size_t>(r)];
    const Block& out = send[r];
    const Block& in = recv[r];
    if (k == node_rank_) {
      std::memcpy(recv_base + in.offset, send_base + out.offset, std::min(out.bytes, in.bytes));
      if (out.bytes > in.bytes)
        c.truncated = "this rank sends itself " + std::to_string(out.bytes) + " bytes and receives " +
                      std::to_string(in.bytes);
      continue;
    }
    BlockLine& b = block_line(slot, node_size_, k);
    b = {out.offset, out.bytes, in.offset, in.bytes, 0, out.split, in.split, note != nullptr ? *note : 0};
    const bool staged =
        out.bytes > 0 && out.bytes <= always_staged_at_most && staged_end + out.bytes <= slot_bytes_;
    if (staged) {
      std::memcpy(slot + staged_end, send_base + out.offset, out.bytes);
      b.staged_at = staged_end;
      staged_end += (out.bytes + line - 1) / line * line;
    }
    const auto i = static_cast<std::size_t>(k);
    c.out_done[i] = out.bytes == 0;
    c.in_done[i] = in.bytes == 0;
    c.staged_out[i] = staged;
    c.unread += staged;
    c.pending += (out.bytes > 0 && !staged) + (in.bytes > 0);
  }
  c.noted = note != nullptr;
  for (int k = 0; k < node_size_; ++k) c.heard[static_cast<std::size_t>(k)] = !c.noted || k == node_rank_;
  if (c.noted) {
    c.note_index = noted_++;
    c.own_note = *note;
    c.most_noted = *note;
    c.pending += static_cast<std::size_t>(node_size_ - 1);
    NoteLine& mine = note_line(boards_.mine(), slot_bytes_ * slots, c.note_index);
    mine.note.store(*note, std::memory_order_relaxed);
    mine.call.store(n, std::memory_order_release);
  }
  Header& mine = header_of(slot);
  mine.send_base.store(reinterpret_cast<std::uintptr_t>(send_base), std::memory_order_relaxed);
  mine.recv_base.store(reinterpret_cast<std::uintptr_t>(recv_base), std::memory_order_relaxed);
  mine.call.store(n, std::memory_order_release);
  progress(n);
  return n;
}

bool ClaimedCalls::progress(std::uint64_t n) {
  Call& c = calls_[static_cast<std::size_t>(n % slots)];
  if (c.number != n) return true;  // complete (its slot has moved on)
  if (c.pending == 0) return completed(c);
  const bool push = ++c.passes > pushes_after_passes;
  char* my_slot = slot_of(boards_.mine(), n);
  for (int k = 0; k < node_size_; ++k) {
    if (k == node_rank_) continue;
    char& heard = c.heard[static_cast<std::size_t>(k)];
    const auto hear = [&](std::uint64_t note) {
      c.most_noted = std::max(c.most_noted, note);
      heard = 1;
      --c.pending;
    };
    // A noted call's peer's note comes with its block to this rank, which
    // this rank reads once it is done (theirs.note where this rank copied
    // it, the claim line's where the peer did); from a peer that sends this
    // rank no block, from its note line, once that shows the call
    // (invariant).
    if (!heard && c.in_done[static_cast<std::size_t>(k)]) {
      const NoteLine& peer = note_line(boards_.of(k), slot_bytes_ * slots, c.note_index);
      if (peer.call.load(std::memory_order_acquire) == n) hear(peer.note.load(std::memory_order_relaxed));
    }
    for (const bool out : {false, true}) {
      char& seen_done = (out ? c.out_done : c.in_done)[static_cast<std::size_t>(k)];
      if (seen_done || (out && c.staged_out[static_cast<std::size_t>(k)])) continue;
      char* peer_slot = slot_of(boards_.of(k), n);
      // The transfer's claim lives in its receiver's slot, in its sender's line.
      ClaimLine& claimed = out ? claim_line_in(peer_slot, node_rank_) : claim_line_in(my_slot, k);
      BlockClaim& claim = claimed.claim;
      if (const BlockClaim::Seen seen = claim.seen(n); seen != BlockClaim::Seen::pending) {
        if (seen == BlockClaim::Seen::failed) {
          abandon(c, n);  // the call ends here, with the error, on both ranks
          throw Error(MPI_ERR_OTHER, "exchange: node rank " + std::to_string(k) +
                                         " failed to copy the block " + (out ? "to it" : "from it") +
                                         " (its own error names the reason)");
        }
        if (seen == BlockClaim::Seen::truncated && !out && c.truncated.empty())
          c.truncated = "node rank " + std::to_string(k) + "'s block to this rank does not fit its receives";
        if (!out && !heard) hear(claimed.note.load(std::memory_order_relaxed));  // the peer copied it
        seen_done = 1;
        --c.pending;
        continue;
      }
      if (out && !push) continue;
      const Header& peer = header_of(peer_slot);
      if (peer.call.load(std::memory_order_acquire) != n) continue;
      if (!claim.claim(n)) continue;
      const BlockLine& theirs = block_line(peer_slot, node_size_, node_rank_);
      const BlockLine& own = block_line(my_slot, node_size_, k);
      const std::uint64_t sent = out ? own.send_bytes : theirs.send_bytes;
      const std::uint64_t room = out ? theirs.recv_bytes : own.recv_bytes;
      const std::uint64_t sent_split = out ? own.send_split : theirs.send_split;
      const std::uint64_t room_split = out ? theirs.recv_split : own.recv_split;
      // As large both ways but split otherwise (Block::split): some
      // message is larger than its receive.
      const bool split_otherwise = sent == room && sent_split != 0 && room_split != 0 && sent_split != room_split;
      // A block larger than its receiver's room: what fits is copied, and
      // the receiver's call ends with MPI_ERR_TRUNCATE, as MPI's would; the
      // sender's call is not in error.
      const std::uint64_t copied = std::min(sent, room);
      try {
        // A staged copy is read only inside the sender's slot (a peer's
        // lines are its own to write).
        if (!out && theirs.staged_at != 0 &&
            (theirs.staged_at < staged_at_ || theirs.staged_at > slot_bytes_ || sent > slot_bytes_ - theirs.staged_at))
          throw Error(MPI_ERR_OTHER, "exchange: node rank " + std::to_string(k) +
                                         "'s staged block lies outside its slot");
        if (!out && theirs.staged_at != 0) {
          std::memcpy(c.recv_base + own.recv_offset, peer_slot + theirs.staged_at, copied);
        } else if (copied > 0) {
          const std::uintptr_t there_base = (out ? peer.recv_base : peer.send_base).load(std::memory_order_relaxed);
          iovec here{out ? const_cast<char*>(c.send_base) + own.send_offset : c.recv_base + own.recv_offset, copied};
          iovec there{reinterpret_cast<void*>(there_base +
                                              static_cast<std::uintptr_t>(out ? theirs.recv_offset : theirs.send_offset)),
                      copied};
          cma_copy_vectors(boards_.pid_of(k), &here, &there, 1, out);
        }
      } catch (const Error&) {
        claim.fail(n);  // the peer's wait ends too
        abandon(c, n);
        throw;
      }
      if (out && c.noted) claimed.note.store(c.own_note, std::memory_order_relaxed);  // released by the finish
      if (!out && !heard) hear(theirs.note);
      if (sent > room || split_otherwise) {
        claim.finish_truncated(n);
        if (!out && c.truncated.empty())
          c.truncated = split_otherwise ? "node rank " + std::to_string(k) +
                                              " splits its block to this rank into messages other than this "
                                              "rank's receives from it (it is listed more than once)"
                                        : "node rank " + std::to_string(k) + " sends " + std::to_string(sent) +
                                              " bytes to this rank, which receives " + std::to_string(room);
      } else {
        claim.finish(n);
      }
      seen_done = 1;
      --c.pending;
    }
  }
  return c.pending == 0 && completed(c);
}

std::uint64_t ClaimedCalls::most_noted(std::uint64_t call) const {
  return calls_[static_cast<std::size_t>(call % slots)].most_noted;
}

void ClaimedCalls::abandon(Call& c, std::uint64_t n) {
  char* my_slot = slot_of(boards_.mine(), n);
  for (int k = 0; k < node_size_; ++k) {
    const auto i = static_cast<std::size_t>(k);
    if (k == node_rank_ || c.in_done[i]) continue;
    // Unless its sender has claimed it (and finishes it), failed here: a
    // sender waits for its staged blocks to be read or failed (drain).
    if (BlockClaim& claim = claim_in(my_slot, k); claim.claim(n)) claim.fail(n);
    c.in_done[i] = 1;
  }
  c.pending = 0;
}

void ClaimedCalls::drain(Call& c) {
  for (unsigned polls = 0; c.unread > 0; spin_then_yield(polls, spin_polls_))
    for (int k = 0; k < node_size_; ++k) {
      const auto i = static_cast<std::size_t>(k);
      if (!c.staged_out[i] || c.out_done[i]) continue;
      // Read or failed, the peer is done with it (its own call raises a failure).
      if (claim_in(slot_of(boards_.of(k), c.number), node_rank_).seen(c.number) != BlockClaim::Seen::pending) {
        c.out_done[i] = 1;
        --c.unread;
      }
    }
}

void ClaimedCalls::wait(std::uint64_t call) {
  for (unsigned polls = 0; !progress(call);) spin_then_yield(polls, spin_polls_);
}

bool ClaimedCalls::completed(Call& c) {
  if (c.truncated.empty()) return true;
  // Raised once, by the progress that finds the call complete.
  const std::string why = std::move(c.truncated);
  c.truncated.clear();
  throw Error(MPI_ERR_TRUNCATE, "exchange: " + why);
}

}  // namespace mpix
