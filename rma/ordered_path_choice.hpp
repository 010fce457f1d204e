// Which path an ordered window's transfers to CMA targets take, chosen by
// timing the program's own first transfers on each.
//
// An ordered window completes every operation before the next one starts.
// On the CMA path its puts queue and go out several to one system call at
// the next synchronization (CmaWriteQueue); on the MPI path each operation
// is flushed before the next. Which costs less depends on the MPI, its
// thread level, the machine's phase and how often the program
// synchronizes: one MPI with shared-memory RMA beats a system call in one
// machine phase and loses to it in another. No rule fits them all, so each
// window measures, the way `auto` times a collective: the program's own
// transfers are the probe, and nothing extra moves.
//
// Protocol:
//  - Every ordered transfer to a CMA target takes a ticket. The first
//    2 * blocks_per_path * block_size tickets form blocks of block_size
//    consecutive transfers; even blocks go by CMA, odd ones by MPI.
//  - The transfer that opens a block (and the one after the last block)
//    first completes the transfers in flight (issues the queued CMA puts,
//    flushes MPI's), so that each block pays for its own, then stamps the
//    time. A block's period runs from its stamp to the next one: its
//    transfers, the synchronization calls among them, and whatever the
//    program does in between, as it will do it on the chosen path.
//  - The last stamp decides: the path whose median block period is shorter,
//    CMA on a tie. From then on a transfer reads one atomic.
//
// Why switching paths keeps the order: an ordered window issues the queued
// CMA puts before an operation that does not queue, and flushes an MPI
// operation in flight before the next one (Window::before_operation), so the
// first transfer on the new path starts after the old path's are complete.
//
// Threads: tickets and stamps are atomics; a stamp is written by its ticket's
// holder, and the holder that completes the set of stamps decides (after an
// acquire that sees them all). Under MPI_THREAD_MULTIPLE, transfers of
// several threads share blocks, as they share the path.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace mpix {

class OrderedPathChoice {
 public:
  static constexpr int block_size = 16;  // transfers: one full CMA queue (CmaWriteQueue::capacity)
  static constexpr int blocks_per_path = 4;

  // The path of the next ordered transfer to a CMA target, and the block it
  // opens: the caller completes the transfers in flight, then stamps it.
  struct Pick {
    bool direct;
    int opens_block;  // -1: none
  };
  Pick pick() {
    const std::int8_t choice = choice_.load(std::memory_order_acquire);
    if (choice != undecided) return {choice == by_cma, -1};
    if (tickets_.load(std::memory_order_relaxed) > trial_tickets) return {true, -1};  // stamps still being written
    const std::uint32_t ticket = tickets_.fetch_add(1, std::memory_order_relaxed);
    if (ticket > trial_tickets) return {true, -1};
    const int block = static_cast<int>(ticket / block_size);
    return {block % 2 == 0, ticket % block_size == 0 ? block : -1};
  }
  // Stamps block's start (block == 2 * blocks_per_path: the last one's end)
  // at steady-clock time now_ns, once the transfers before it are complete.
  void stamp(int block, std::uint64_t now_ns);
  static std::uint64_t now_ns() {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }

  // "measuring", or the choice with each path's median time per transfer:
  // "mpi (cma 0.80 us, mpi 0.31 us per transfer)".
  std::string describe() const;

  // The pure rule over block periods (nanoseconds): CMA unless MPI's median
  // is shorter.
  static bool cma_wins(std::array<std::uint64_t, blocks_per_path> cma, std::array<std::uint64_t, blocks_per_path> mpi);

 private:
  static constexpr std::int8_t undecided = -1, by_mpi = 0, by_cma = 1;
  static constexpr int blocks = 2 * blocks_per_path;
  static constexpr std::uint32_t trial_tickets = blocks * block_size;  // this ticket stamps the end

  void decide();

  std::atomic<std::uint32_t> tickets_{0};
  std::atomic<int> stamped_{0};
  std::atomic<std::int8_t> choice_{undecided};
  std::array<std::uint64_t, blocks + 1> stamps_{};  // steady-clock nanoseconds
  std::uint64_t median_ns_[2] = {0, 0};  // per block, written before choice_ is published
};

}  // namespace mpix
