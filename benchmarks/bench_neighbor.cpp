// The neighbourhood Alltoallv on a ring (each rank's neighbours are rank
// +- 1; at 2 ranks, two edges to the same peer), in the application loop:
// every send line written before Start, every received line read after Wait,
// heap buffers. MPI's own MPI_Neighbor_alltoallv ("mpi") and
// MPIX_Neighbor_alltoallv_init with each algorithm asked for, interleaved
// inside each repeat; per size and competitor: the median per-iteration time
// (max over ranks) over repeats, its min..max, and what auto ran. The data
// is checked after each timed block.
//
// At 2 ranks of one node, `staged` is the same loop with no library code:
// each rank copies its two blocks into a shared segment (two buffers used
// in turn, as the node channel's rings are) and raises a flag, the peer
// copies them out (benchmarks/pair_segment.hpp). It is what two copies
// through memory cost on this machine now, the floor of MPI's eager path
// and of the node channel, in the same launch as the others.
#include <mpix/mpix.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "benchmarks/pair_segment.hpp"
#include "tools/command_line.hpp"
#include "tools/timing.hpp"

namespace {

using namespace mpix_timing;

struct Options {
  std::vector<long> bytes{8, 32768, 262144};
  std::vector<std::string> competitors{"mpi", "auto"};
  int repeats = 7;
};

// One rank's ring: destinations and sources rank+1, rank-1, b bytes each.
struct Ring {
  int rank, size;
  long bytes;
  std::vector<int> neighbours, counts, displs;
  std::vector<unsigned char> send, recv;
  MPI_Comm graph = MPI_COMM_NULL;

  Ring(long b) : bytes(b) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    neighbours = {(rank + 1) % size, (rank - 1 + size) % size};
    counts.assign(2, static_cast<int>(bytes));
    displs = {0, static_cast<int>(bytes)};
    send.resize(2 * bytes);
    recv.resize(2 * bytes);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, neighbours.data(), MPI_UNWEIGHTED, 2, neighbours.data(),
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  }
  ~Ring() { MPI_Comm_free(&graph); }

  // What the application writes at line `line` of its block to edge k in
  // iteration it.
  static unsigned char value(int from, int k, int it, std::size_t line) {
    return static_cast<unsigned char>(from * 7 + k * 101 + it + line);
  }
  // The application's side: write every send line, read every received line.
  void produce(int it) {
    for (int k = 0; k < 2; ++k)
      for (std::size_t i = 0; i < static_cast<std::size_t>(bytes); i += 64)
        send[k * bytes + i] = value(rank, k, it, i / 64);
  }
  unsigned consume() const {
    unsigned sum = 0;
    for (std::size_t i = 0; i < recv.size(); i += 64) sum += recv[i];
    return sum;
  }
  // After iteration `it`: my source edge k is the sender's destination edge
  // j: at 2 ranks both edges join the same pair, k-th with k-th; on a larger
  // ring my +1 neighbour reaches me by its -1 edge and vice versa.
  bool received(int it) const {
    for (int k = 0; k < 2; ++k) {
      const int j = size == 2 ? k : 1 - k;
      for (std::size_t i = 0; i < static_cast<std::size_t>(bytes); i += 64)
        if (recv[k * bytes + i] != value(neighbours[k], j, it, i / 64)) return false;
    }
    return true;
  }
  // Sets every checked byte to what iteration `it` does not deliver, so
  // that what the competitor before left cannot pass for this one's data.
  void spoil(int it) {
    for (int k = 0; k < 2; ++k) {
      const int j = size == 2 ? k : 1 - k;
      for (std::size_t i = 0; i < static_cast<std::size_t>(bytes); i += 64)
        recv[k * bytes + i] = static_cast<unsigned char>(~value(neighbours[k], j, it, i / 64));
    }
  }
};

int iterations_for(long bytes) { return static_cast<int>(std::clamp<long>((32L << 20) / (2 * bytes), 200, 5000)); }

volatile unsigned sink = 0;

struct Sample {
  double iteration_us = 0;
  bool valid = false;
  std::string ran;
};

// staged: segment is the pair's, regions of both blocks (null: not asked for).
Sample run(Ring& ring, const std::string& competitor, int iterations, mpix_bench::PairSegment* segment) {
  Sample s;
  MPIX_Comm* comm = nullptr;
  MPIX_Request* request = nullptr;
  const bool mpi = competitor == "mpi", staged = competitor == "staged";
  if (!mpi && !staged) {
    MPIX_Comm_init(&comm, ring.graph);
    MPIX_Info* info = nullptr;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "mpix_neighbor_alltoallv_algorithm", competitor.c_str());
    if (MPIX_Neighbor_alltoallv_init(ring.send.data(), ring.counts.data(), ring.displs.data(), MPI_BYTE,
                                     ring.recv.data(), ring.counts.data(), ring.displs.data(), MPI_BYTE, comm, info,
                                     &request) != MPI_SUCCESS)
      fail("bench_neighbor: MPIX_Neighbor_alltoallv_init failed for " + competitor);
    MPIX_Info_free(&info);
  }
  auto iteration = [&](int it) {
    ring.produce(it);
    if (mpi) {
      MPI_Neighbor_alltoallv(ring.send.data(), ring.counts.data(), ring.displs.data(), MPI_BYTE, ring.recv.data(),
                             ring.counts.data(), ring.displs.data(), MPI_BYTE, ring.graph);
    } else if (staged) {
      // At 2 ranks the peer's k-th block is my k-th: both blocks go as one.
      const std::uint64_t turn = segment->begin_turn();
      std::memcpy(segment->mine(turn), ring.send.data(), ring.send.size());
      segment->publish(turn);
      segment->wait_for_peer(turn);
      std::memcpy(ring.recv.data(), segment->peers(turn), ring.recv.size());
      segment->release_peer(turn);
    } else {
      MPIX_Start(request);
      MPIX_Wait(request, MPI_STATUS_IGNORE);
    }
    sink = sink + ring.consume();
  };
  // auto settles its tournament within MPIX_AUTO_SETTLE (100) iterations.
  for (int it = 0; it < 150; ++it) iteration(it);
  ring.spoil(iterations - 1);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) iteration(it);
  s.iteration_us = max_over_ranks((MPI_Wtime() - t0) / iterations * 1e6);
  int valid = ring.received(iterations - 1) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &valid, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  s.valid = valid != 0;
  s.ran = competitor;
  if (!mpi && !staged) {
    char ran[MPIX_MAX_OBJECT_NAME];
    int length = 0;
    MPIX_Request_get_algorithm(request, ran, &length);
    s.ran.assign(ran, static_cast<std::size_t>(length));
    MPIX_Request_free(&request);
    MPIX_Comm_free(&comm);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Options o;
  CLI::App app("Times the neighbourhood Alltoallv of a ring graph, MPI's own call and MPIX's interleaved.",
               "bench_neighbor");
  app.add_option("--bytes", o.bytes, "bytes per edge, comma-separated")->delimiter(',')->capture_default_str();
  app.add_option("--algorithms", o.competitors,
                 "mpi (MPI_Neighbor_alltoallv), staged (no library code; 2 ranks of one node) or neighbourhood "
                 "registry names")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--repeats", o.repeats, "interleaved rounds")->check(CLI::Range(1, 1000))->capture_default_str();
  parse_or_exit(app, argc, argv);
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  const bool with_staged = std::find(o.competitors.begin(), o.competitors.end(), "staged") != o.competitors.end();
  if (with_staged && (ranks != 2 || node_size != 2))
    exit_with_error("bench_neighbor", "staged runs on exactly 2 ranks of one node");
  if (rank == 0)
    std::printf("%-10s %-18s %12s %12s %12s %8s %s\n", "bytes", "competitor", "median[us]", "min[us]", "max[us]",
                "÷mpi", "ran (valid)");
  bool all_valid = true;
  for (long bytes : o.bytes) {
    Ring ring(bytes);
    std::optional<mpix_bench::PairSegment> segment;
    if (with_staged) segment.emplace(node, ring.send.size(), 2);
    const int iterations = iterations_for(bytes);
    std::vector<std::vector<double>> times(o.competitors.size());
    std::vector<Sample> last(o.competitors.size());
    for (int r = 0; r < o.repeats; ++r)
      for (std::size_t c = 0; c < o.competitors.size(); ++c) {
        last[c] = run(ring, o.competitors[c], iterations, segment ? &*segment : nullptr);
        times[c].push_back(last[c].iteration_us);
        all_valid = all_valid && last[c].valid;
      }
    const double mpi_median = median(times[0]);
    for (std::size_t c = 0; c < o.competitors.size() && rank == 0; ++c) {
      const double m = median(times[c]);
      std::printf("%-10ld %-18s %12.3f %12.3f %12.3f %8.3f %s (%s)\n", bytes, o.competitors[c].c_str(), m,
                  *std::min_element(times[c].begin(), times[c].end()),
                  *std::max_element(times[c].begin(), times[c].end()), m / mpi_median, last[c].ran.c_str(),
                  last[c].valid ? "ok" : "WRONG DATA");
    }
  }
  MPI_Comm_free(&node);
  MPI_Finalize();
  return all_valid ? 0 : 1;
}
