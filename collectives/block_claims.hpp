// How a transfer between two node ranks is claimed by one of them, copied
// by it and seen done by the other: the mechanism the claimed copies of a
// persistent request (collectives/claimed_copies.hpp) and the claimed calls
// of nonblocking exchanges (collectives/claimed_calls.hpp) share.
//
// Layout: both lay a board (or a call slot) out alike, a header line, then
// a claim line per node rank, holding the claim of the transfer that rank
// sends the board's owner (claim_in).
// Protocol, per transfer and epoch (or call) n, once both ranks have
// started n: claim(n) moves claimed from below n to n, and only the rank
// whose compare and swap succeeds copies; it then sets done to n (release),
// or to n with the failed bit where its copy failed, so that the other
// rank's wait ends too, with an error, or with the truncated bit where the
// sender's block was larger than its receiver's room (only what fits was
// copied: the receiver's error, as MPI's). Claims and dones only grow: a
// done of at least n says n's transfer is over.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace mpix {

constexpr std::size_t claim_line = 64;

// Passes of an epoch (or call) before a rank pushes its transfers to
// receivers that have not pulled them: a receiver in its own wait copies
// its blocks in, side by side with the sender, instead of the later rank
// copying both ways; a receiver that does not come (it sits in another MPI
// call) leaves them to the sender's later passes.
constexpr unsigned pushes_after_passes = 16;

// Transfers up to this many bytes are staged (copied into the sender's
// board at its start, and out of it by the receiver, with loads and stores)
// in every epoch: their copies cost a fraction of the CMA system call in
// every phase measured here (up to 16 KiB they ran faster staged than the
// MPI's own call also where the node's memory was contended).
constexpr std::size_t always_staged_at_most = 16384;

struct BlockClaim {
  std::atomic<std::uint64_t> claimed;
  std::atomic<std::uint64_t> done;

  enum class Seen { pending, done, truncated, failed };
  Seen seen(std::uint64_t n) const {
    const std::uint64_t d = done.load(std::memory_order_acquire);
    if ((d & ~(failed_bit | truncated_bit)) < n) return Seen::pending;
    if ((d & failed_bit) != 0) return Seen::failed;
    return (d & truncated_bit) != 0 ? Seen::truncated : Seen::done;
  }
  // Whether this rank claimed n's transfer (false: the other rank has).
  bool claim(std::uint64_t n) {
    std::uint64_t c = claimed.load(std::memory_order_relaxed);
    return c < n && claimed.compare_exchange_strong(c, n, std::memory_order_acq_rel);
  }
  void finish(std::uint64_t n) { done.store(n, std::memory_order_release); }
  void fail(std::uint64_t n) { done.store(n | failed_bit, std::memory_order_release); }
  void finish_truncated(std::uint64_t n) { done.store(n | truncated_bit, std::memory_order_release); }

 private:
  static constexpr std::uint64_t failed_bit = std::uint64_t{1} << 63;
  static constexpr std::uint64_t truncated_bit = std::uint64_t{1} << 62;
};
static_assert(sizeof(BlockClaim) <= claim_line, "a claim fits a line");

// The claim of the transfer from source, in its receiver's board.
inline BlockClaim& claim_in(char* board, int source) {
  return *reinterpret_cast<BlockClaim*>(board + claim_line * (1 + static_cast<std::size_t>(source)));
}

}  // namespace mpix
