// What an on-node exchange in the application loop costs on this machine
// in its current phase when it moves the data through memory with two
// copies, or with one, and no library code: timed beside MPI's own
// MPI_Alltoallv in the same launch, so the ratio to MPI says roughly how
// low any such algorithm can go now.
//
// Two ranks on one node, uniform blocks, Benchmark 1's application loop:
// every send line written before the exchange, every received line read
// after it. Per iteration each rank copies its own block to itself and moves
// one block to its peer:
//  - staged: the sender copies the block into a shared segment and raises a
//    flag; the receiver waits for it and copies the block out (two copies:
//    MPI's eager path and the node channel's copy-in/copy-out);
//  - single copy: the send buffer itself lies in the shared segment, and the
//    receiver copies straight from it (one copy and no system call: the best
//    any single-copy mechanism can do; CMA adds a system call per block).
// Then the receiver raises a "done" flag, which the sender waits for before
// it writes that memory again, at its next turn. These are the simplest
// protocols, not the only ones: at small blocks the node channel beats the
// staged one (its flag shares the data's cache line, and its ring needs no
// "done" round trip), so read them as what two copies, or one, through
// memory cost on this machine now. Neither runs library code.
//
// Beside them runs mpix-rma's own `auto` (MPIX_Alltoallv_init over the
// same heap buffers, the same loop), settled before the first round, so
// that how far the library sits above the floor is read in one launch,
// whatever the machine's phase.
//
// Competitors are interleaved in rounds; a round's time per iteration is
// the slowest rank's; per size the median over rounds, min..max, and the
// ratio to MPI_Alltoallv. The received data is checked every iteration.
#include <mpi.h>
#include <mpix/mpix.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "benchmarks/pair_segment.hpp"
#include "tools/command_line.hpp"
#include "tools/timing.hpp"

namespace {

using mpix_bench::PairSegment;
using namespace mpix_timing;

constexpr std::size_t line = PairSegment::line;

// The byte at offset `at` of the block from rank `from` to rank `to`.
unsigned char value(int from, int to, std::uint64_t seq, std::size_t at) {
  return static_cast<unsigned char>(from * 29 + to * 13 + seq * 7 + at / line);
}

class ThroughMemory {
 public:
  // Each rank's region of the segment: its staging block, then its shared
  // send buffer (self block, peer block).
  ThroughMemory(MPI_Comm node, std::size_t bytes) : bytes_(bytes), segment_(node, 3 * PairSegment::round_up(bytes)) {
    MPI_Comm_rank(node, &rank_);
    heap_send_.assign(2 * bytes, 0);
    heap_recv_.assign(2 * bytes, 0);
    counts_[0] = counts_[1] = displs_[1] = static_cast<int>(bytes);
    displs_[0] = 0;
  }

  // One iteration, single copy or staged; false if the data was wrong.
  bool exchange(bool single_copy) {
    const std::uint64_t seq = ++seq_;
    const std::size_t mine = static_cast<std::size_t>(rank_) * bytes_, theirs = bytes_ - mine;
    // The peer has read what this turn overwrites (at the last turn).
    const std::uint64_t turn = segment_.begin_turn();
    unsigned char* send = single_copy ? shared_send(segment_.mine(turn)) : heap_send_.data();
    produce(send, seq);
    std::memcpy(heap_recv_.data() + mine, send + mine, bytes_);  // the self block
    if (!single_copy) std::memcpy(segment_.mine(turn), send + theirs, bytes_);
    segment_.publish(turn);
    segment_.wait_for_peer(turn);
    const unsigned char* peer = segment_.peers(turn);
    std::memcpy(heap_recv_.data() + theirs, single_copy ? shared_send(peer) + mine : peer, bytes_);
    segment_.release_peer(turn);
    return consume(seq);
  }

  // MPI_Alltoallv over heap buffers, the same loop around it.
  bool alltoallv(MPI_Comm comm) {
    const std::uint64_t seq = ++seq_;
    produce(heap_send_.data(), seq);
    MPI_Alltoallv(heap_send_.data(), counts_, displs_, MPI_BYTE, heap_recv_.data(), counts_, displs_, MPI_BYTE,
                  comm);
    return consume(seq);
  }

  // The same exchange as an MPIX request running auto over the heap
  // buffers; the caller owns it.
  MPIX_Request* auto_request(MPIX_Comm* comm, long expected_iterations) {
    MPIX_Info* info = nullptr;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "mpix_alltoallv_algorithm", "auto");
    MPIX_Info_set(info, "mpix_expected_iterations", std::to_string(expected_iterations).c_str());
    MPIX_Request* request = nullptr;
    const int err = MPIX_Alltoallv_init(heap_send_.data(), counts_, displs_, MPI_BYTE, heap_recv_.data(), counts_,
                                        displs_, MPI_BYTE, comm, info, &request);
    MPIX_Info_free(&info);
    if (err != MPI_SUCCESS) exit_with_error("bench_copy_floor", "MPIX_Alltoallv_init failed");
    return request;
  }

  bool start_wait(MPIX_Request* request) {
    const std::uint64_t seq = ++seq_;
    produce(heap_send_.data(), seq);
    MPIX_Start(request);
    MPIX_Wait(request, MPI_STATUS_IGNORE);
    return consume(seq);
  }

 private:
  template <class Byte>
  Byte* shared_send(Byte* region) const {
    return region + PairSegment::round_up(bytes_);
  }
  // Block k of this rank's send buffer goes to rank k (2 ranks): write
  // every line of both.
  void produce(unsigned char* send, std::uint64_t seq) const {
    for (std::size_t block = 0; block < 2; ++block)
      for (std::size_t at = 0; at < bytes_; at += line)
        send[block * bytes_ + at] = value(rank_, static_cast<int>(block), seq, at);
  }
  // Read every received line; block k came from rank k.
  bool consume(std::uint64_t seq) const {
    bool ok = true;
    for (std::size_t block = 0; block < 2; ++block)
      for (std::size_t at = 0; at < bytes_; at += line)
        ok &= heap_recv_[block * bytes_ + at] == value(static_cast<int>(block), rank_, seq, at);
    return ok;
  }

  std::size_t bytes_;
  PairSegment segment_;
  int counts_[2], displs_[2];
  int rank_ = 0;
  std::vector<unsigned char> heap_send_, heap_recv_;
  std::uint64_t seq_ = 0;  // iterations of every competitor: the data's version
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::vector<long> sizes{8, 512, 4096, 32768, 65536, 262144, 2097152};
  int repeats = 7;
  CLI::App app("The floor of an on-node exchange in the application loop (2 ranks, one node): staged and "
               "single-copy exchanges through shared memory, beside MPI_Alltoallv, interleaved.",
               "bench_copy_floor");
  app.add_option("--sizes", sizes, "bytes per peer")->delimiter(',')->check(CLI::Range(1L, 1L << 30))
      ->capture_default_str();
  app.add_option("--repeats", repeats, "interleaved rounds")->check(CLI::Range(1, 1000))->capture_default_str();
  parse_or_exit(app, argc, argv);
  int ranks = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  if (ranks != 2 || node_size != 2) exit_with_error("bench_copy_floor", "runs on exactly 2 ranks of one node");

  MPIX_Comm* library = nullptr;
  MPIX_Comm_init(&library, node);

  if (rank == 0)
    std::printf("%-10s %-12s %12s %12s %12s %8s %8s %s\n", "bytes", "competitor", "median[us]", "min[us]", "max[us]",
                "÷mpi", "÷staged", "ran");
  bool all_ok = true;
  for (long bytes : sizes) {
    ThroughMemory exchanges(node, static_cast<std::size_t>(bytes));
    const int iterations = static_cast<int>(std::clamp(200000L / (bytes / 64 + 50), 20L, 2000L));
    // auto, settled on what it keeps before the first round: a tournament
    // ends within MPIX_AUTO_SETTLE (100) Starts, told how long the run is.
    constexpr int settle_within = 1000;
    MPIX_Request* request =
        exchanges.auto_request(library, settle_within + repeats * (iterations + iterations / 10));
    for (int i = 0, settled = 0; i < settle_within && !settled; ++i) {
      all_ok &= exchanges.start_wait(request);
      MPIX_Request_is_settled(request, &settled);
    }
    enum { mpi, staged, single_copy, auto_choice, competitors };
    const char* names[competitors] = {"mpi", "staged", "single_copy", "auto"};
    std::vector<double> times[competitors];
    for (int r = 0; r < repeats; ++r)
      for (int k = 0; k < competitors; ++k) {
        const int c = (k + r) % competitors;  // none always runs first
        bool ok = true;
        const auto one = [&] {
          switch (c) {
            case mpi: return exchanges.alltoallv(node);
            case auto_choice: return exchanges.start_wait(request);
            default: return exchanges.exchange(c == single_copy);
          }
        };
        for (int i = 0; i < iterations / 10; ++i) ok &= one();
        MPI_Barrier(node);
        const double begin = MPI_Wtime();
        for (int i = 0; i < iterations; ++i) ok &= one();
        times[c].push_back(max_over_ranks((MPI_Wtime() - begin) / iterations * 1e6));
        all_ok &= ok;
      }
    char ran[MPIX_MAX_OBJECT_NAME] = "";
    int length = 0;
    MPIX_Request_get_algorithm(request, ran, &length);
    MPIX_Request_free(&request);
    const double mpi_median = median(times[mpi]), staged_median = median(times[staged]);
    for (int c = 0; c < competitors; ++c) {
      const Spread s = spread(times[c]);
      if (rank == 0)
        std::printf("%-10ld %-12s %12.3f %12.3f %12.3f %8.3f %8.3f %s\n", bytes, names[c], s.median, s.min, s.max,
                    s.median / mpi_median, s.median / staged_median, c == auto_choice ? ran : "");
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) std::printf("bench_copy_floor: %s\n", all_ok ? "data ok" : "WRONG data");
  MPIX_Comm_free(&library);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
