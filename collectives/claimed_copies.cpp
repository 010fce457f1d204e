// The on-node blocks of a persistent exchange, copied once by whichever of
// their two ranks claims them (collectives/claimed_copies.hpp).
#include "collectives/claimed_copies.hpp"

#include <atomic>
#include <chrono>
#include <cstring>

#include "collectives/block_claims.hpp"
#include "node/direct_copy.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

constexpr std::size_t line = claim_line;
// Transfers of at most this many bytes may be staged: the sender copies
// them into its board at Start, and a receiver that claims one copies it
// out with loads and stores, without the system call (and the pinning of
// the peer's pages) that a CMA copy costs, which small blocks cannot repay.
// A program that has just written its send blocks finds them in its cache
// for the staging copy; one that has not pays a second copy for them, and
// from some size up that costs more than the system call saves, most
// where the node's memory is contended. So each rank stages the larger ones
// only in the epochs its own measured times favour
// (collectives/staging_choice.hpp).
// Boards hold at most this much per node peer and request: 64 KiB, as the
// largest edges the neighbourhood row claims (two of them to one peer
// staged ran faster than by CMA in the application loop here, one 64 KiB
// Alltoallv block slower: the trials tell them apart).
constexpr std::size_t staged_at_most = 65536;
// Transfers up to always_staged_at_most (collectives/block_claims.hpp) are
// staged in every epoch, untried: a trial's unstaged epochs would cost a
// small exchange more than its whole round could win back.

struct Header {
  std::atomic<std::uint64_t> epoch;
  std::atomic<std::uint64_t> send_base;
  std::atomic<std::uint64_t> recv_base;
  std::atomic<std::uint64_t> staged_epoch;  // the last epoch whose small transfers are in the board
};
static_assert(sizeof(Header) <= line, "a header fits a line");

Header& header_of(char* board) { return *reinterpret_cast<Header*>(board); }

std::size_t bytes_of(const ClaimedTransfer& t) {
  std::size_t bytes = 0;
  for (const ClaimedSegment& s : t.segments) bytes += s.bytes;
  return bytes;
}
std::size_t lines_for(std::size_t bytes) { return (bytes + line - 1) / line; }

}  // namespace

std::optional<std::string> ClaimedCopies::unavailable(const Comm& comm) {
  if (comm.node_size() > 1)
    if (std::string why = ClaimedBoards::unavailable(); !why.empty()) return "no boards on the node (" + why + ")";
  return std::nullopt;
}

ClaimedCopies::ClaimedCopies(const Comm& comm, const char* row, std::vector<ClaimedTransfer> transfers)
    : row_(row), node_rank_(comm.node_rank()), pool_(comm.component<ClaimedBoards>()) {
  const int node_size = comm.node_size();
  // This rank's board: the header, a claim line per node rank, where each
  // node rank's staged transfer starts (one word each), and the staged
  // transfers.
  const std::size_t claims_at = line, staged_index_at = claims_at + line * static_cast<std::size_t>(node_size);
  std::size_t board_bytes = staged_index_at + line * lines_for(sizeof(std::uint64_t) * static_cast<std::size_t>(node_size));
  std::vector<std::size_t> staged_at(transfers.size());
  for (std::size_t i = 0; i < transfers.size(); ++i)
    if (transfers[i].out && bytes_of(transfers[i]) <= staged_at_most)
      staged_at[i] = board_bytes, board_bytes += line * lines_for(bytes_of(transfers[i]));
  // The staged index is written before any peer can read this board.
  boards_ = ClaimedBoards::take(pool_, comm, board_bytes, row, [&](char* board) {
    auto* staged_index = reinterpret_cast<std::uint64_t*>(board + staged_index_at);
    for (std::size_t i = 0; i < transfers.size(); ++i)
      if (staged_at[i] != 0) staged_index[transfers[i].peer] = staged_at[i];
  });
  // A sender's staged transfer for this rank is where its board says.
  transfers_.reserve(transfers.size());
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    ClaimedTransfer& t = transfers[i];
    const std::size_t segments = t.segments.size(), bytes = bytes_of(t);
    char* staged = nullptr;
    if (bytes <= staged_at_most) {
      char* sender_board = t.out ? boards_.mine() : boards_.of(t.peer);
      const std::uint64_t sender_board_bytes = t.out ? boards_.mine_bytes() : boards_.bytes_of(t.peer);
      const int receiver = t.out ? t.peer : node_rank_;
      const std::uint64_t at = reinterpret_cast<const std::uint64_t*>(sender_board + staged_index_at)[receiver];
      // A staged copy outside the sender's board is not read: this rank
      // then reads the sender's buffer (CMA), which holds the same bytes.
      if (at >= staged_index_at && at <= sender_board_bytes && bytes <= sender_board_bytes - at)
        staged = sender_board + at;
    }
    chooses_ = chooses_ || (t.out && staged != nullptr && bytes > always_staged_at_most);
    const pid_t pid = boards_.pid_of(t.peer);
    transfers_.push_back({std::move(t), pid, staged, staged != nullptr && bytes <= always_staged_at_most, false,
                          std::vector<iovec>(segments), std::vector<iovec>(segments)});
  }
}

ClaimedCopies::~ClaimedCopies() {
  if (active_) pool_->activity().done();
}

void ClaimedCopies::start(const char* send_base, char* recv_base) {
  ++epoch_;
  send_base_ = send_base;
  recv_base_ = recv_base;
  // A trial's period ends at the next Start.
  if (chooses_ && (staging_.on_trial(epoch_ - 1) || staging_.on_trial(epoch_))) {
    const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
    if (staging_.on_trial(epoch_ - 1))
      staging_.measured(epoch_ - 1, std::chrono::duration<double>(now - last_start_).count());
    last_start_ = now;
  }
  // The staged copies, before the epoch that shows them (release); the last
  // epoch's are done (this rank's wait saw them done).
  const bool staged = chooses_ && staging_.stages(epoch_);
  for (const Transfer& t : transfers_)
    if (t.out && t.staged != nullptr && (t.always_staged || staged)) {
      char* to = t.staged;
      for (const ClaimedSegment& s : t.segments) std::memcpy(to, send_base + s.mine, s.bytes), to += s.bytes;
    }
  if (boards_.mine() != nullptr) {
    Header& mine = header_of(boards_.mine());
    mine.send_base.store(reinterpret_cast<std::uintptr_t>(send_base), std::memory_order_relaxed);
    mine.recv_base.store(reinterpret_cast<std::uintptr_t>(recv_base), std::memory_order_relaxed);
    if (staged) mine.staged_epoch.store(epoch_, std::memory_order_relaxed);
    mine.epoch.store(epoch_, std::memory_order_release);
  }
  for (Transfer& t : transfers_) t.done = false;
  pending_ = transfers_.size();
  passes_ = 0;
  if (pending_ > 0) active_ = true, pool_->activity().start();
  progress();
}

// Copies every transfer whose two ranks have started this epoch and that no
// one has claimed; counts those found done.
bool ClaimedCopies::progress() {
  if (pending_ == 0) return true;
  const bool push = ++passes_ > pushes_after_passes;
  for (Transfer& t : transfers_) {
    if (t.done) continue;
    char* peer_board = boards_.of(t.peer);
    // The transfer's claim lives in its receiver's board, in its sender's line.
    BlockClaim& claim = t.out ? claim_in(peer_board, node_rank_) : claim_in(boards_.mine(), t.peer);
    if (const BlockClaim::Seen seen = claim.seen(epoch_); seen != BlockClaim::Seen::pending) {
      if (seen == BlockClaim::Seen::failed)
        throw Error(MPI_ERR_OTHER, std::string(row_) + ": node rank " + std::to_string(t.peer) +
                                       " failed to copy the blocks " + (t.out ? "to it" : "from it") +
                                       " (its own error names the reason)");
      t.done = true;
      --pending_;
      continue;
    }
    if (t.out && !push) continue;
    const Header& peer = header_of(peer_board);
    if (peer.epoch.load(std::memory_order_acquire) < epoch_) continue;
    if (!claim.claim(epoch_)) continue;
    // The sender's header, read after its epoch (acquire), shows whether
    // this epoch's copy is in its board (where its size leaves a choice);
    // it cannot leave the epoch before this transfer is done.
    if (!t.out && t.staged != nullptr &&
        (t.always_staged || peer.staged_epoch.load(std::memory_order_relaxed) == epoch_)) {
      const char* from = t.staged;
      for (const ClaimedSegment& s : t.segments) std::memcpy(recv_base_ + s.mine, from, s.bytes), from += s.bytes;
    } else {
      const std::uintptr_t there = (t.out ? peer.recv_base : peer.send_base).load(std::memory_order_relaxed);
      char* here = t.out ? const_cast<char*>(send_base_) : recv_base_;
      for (std::size_t i = 0; i < t.segments.size(); ++i) {
        const ClaimedSegment& s = t.segments[i];
        t.here[i] = {here + s.mine, s.bytes};
        t.there[i] = {reinterpret_cast<void*>(there + static_cast<std::uintptr_t>(s.theirs)), s.bytes};
      }
      try {
        cma_copy_vectors(t.pid, t.here.data(), t.there.data(), static_cast<int>(t.segments.size()), t.out);
      } catch (const Error&) {
        claim.fail(epoch_);  // the peer's wait ends too
        throw;
      }
    }
    claim.finish(epoch_);
    t.done = true;
    --pending_;
  }
  if (pending_ == 0 && active_) active_ = false, pool_->activity().done();
  return pending_ == 0;
}

}  // namespace mpix
