// What a neighbourhood request costs as the job grows at a fixed degree: a
// periodic 2D 5-point stencil (4 neighbours per rank, 64 doubles per edge)
// on however many ranks run it. Per algorithm asked for: the heap bytes
// MPIX_Neighbor_alltoallv_init leaves allocated on a rank per request
// (glibc's mallinfo2 around --requests live requests, after a first round
// has warmed the communicator up: one malloc chunk more or less is then a
// few bytes, not a tenth; the node channel's shared segments are mappings,
// not heap), the init time per request (max over ranks, median of
// repeats), the same in MPI_Allreduce times of this run (one int, median:
// an O(log P) collective, so a flat ratio is init growing as log P, also
// where oversubscribed ranks make every collective step a scheduler slice)
// and whether every request delivered the right data. Run it at 4, 8, 16
// and 32 ranks: neither must grow with P.
#include <malloc.h>
#include <mpix/mpix.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/algorithm_list.hpp"
#include "tools/command_line.hpp"
#include "tools/timing.hpp"

namespace {

using namespace mpix_timing;

constexpr int edge_doubles = 64;

std::size_t heap_in_use() { return mallinfo2().uordblks; }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::vector<std::string> algorithms;  // default: every registered one
  for (const auto& row : listed_algorithms(Family::neighbor_alltoallv)) algorithms.push_back(row.name);
  int repeats = 5, requests = 8;
  CLI::App app("Per-rank memory and init time of a neighbourhood request on a 2D stencil graph.",
               "bench_neighbor_scaling");
  app.add_option("--algorithms", algorithms, "neighbourhood registry names")->delimiter(',')->capture_default_str();
  app.add_option("--repeats", repeats, "rounds per algorithm")->check(CLI::Range(1, 1000))->capture_default_str();
  app.add_option("--requests", requests, "live requests per round")->check(CLI::Range(1, 64))->capture_default_str();
  parse_or_exit(app, argc, argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int x = rank % dims[0], y = rank / dims[0];
  const auto at = [&](int dx, int dy) { return (x + dx + dims[0]) % dims[0] + ((y + dy + dims[1]) % dims[1]) * dims[0]; };
  std::vector<int> neighbours{at(1, 0), at(-1, 0), at(0, 1), at(0, -1)};
  // My edge k to neighbours[k] is its edge (k ^ 1) back to me, the opposite
  // direction; on a 2-wide dimension both directions join the same pair.
  MPI_Comm graph = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 4, neighbours.data(), MPI_UNWEIGHTED, 4, neighbours.data(),
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  std::vector<int> counts(4, edge_doubles), displs{0, edge_doubles, 2 * edge_doubles, 3 * edge_doubles};
  std::vector<double> send(4 * edge_doubles), recv(4 * edge_doubles), oracle(4 * edge_doubles);
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = rank * 1000.0 + static_cast<double>(i);
  MPI_Neighbor_alltoallv(send.data(), counts.data(), displs.data(), MPI_DOUBLE, oracle.data(), counts.data(),
                         displs.data(), MPI_DOUBLE, graph);
  MPIX_Comm* comm = nullptr;
  MPIX_Comm_init(&comm, graph);
  std::vector<double> allreduce_us;
  for (int r = 0; r < 5 * repeats; ++r) {
    int one = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    allreduce_us.push_back(max_over_ranks(MPI_Wtime() - t0) * 1e6);
  }
  const double allreduce = median(allreduce_us);
  if (rank == 0)
    std::printf("%6s %-18s %10s %10s %12s %14s %s\n", "ranks", "algorithm", "bytes_max", "bytes_min", "init_us",
                "init/allreduce", "valid");
  bool all_valid = true;
  for (const std::string& name : algorithms) {
    MPIX_Info* info = nullptr;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "mpix_neighbor_alltoallv_algorithm", name.c_str());
    std::vector<double> init_us;
    long bytes = 0;
    int valid = 1;
    for (int r = 0; r <= repeats; ++r) {  // the first warms the communicator up (its channel pool, MPI's caches)
      std::vector<MPIX_Request*> live(static_cast<std::size_t>(requests), nullptr);
      MPI_Barrier(MPI_COMM_WORLD);
      const std::size_t before = heap_in_use();
      const double t0 = MPI_Wtime();
      for (MPIX_Request*& request : live)
        if (MPIX_Neighbor_alltoallv_init(send.data(), counts.data(), displs.data(), MPI_DOUBLE, recv.data(),
                                         counts.data(), displs.data(), MPI_DOUBLE, comm, info,
                                         &request) != MPI_SUCCESS)
          fail("bench_neighbor_scaling: init failed for " + name);
      const double t = (MPI_Wtime() - t0) / requests;
      const long held = (static_cast<long>(heap_in_use()) - static_cast<long>(before)) / requests;
      if (r > 0) init_us.push_back(max_over_ranks(t) * 1e6), bytes = held;
      for (MPIX_Request*& request : live) {
        std::fill(recv.begin(), recv.end(), -1.0);
        MPIX_Start(request);
        MPIX_Wait(request, MPI_STATUS_IGNORE);
        valid = valid && recv == oracle;
        MPIX_Request_free(&request);
      }
    }
    MPIX_Info_free(&info);
    long most = bytes, least = bytes;
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &valid, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    all_valid = all_valid && valid;
    if (rank == 0)
      std::printf("%6d %-18s %10ld %10ld %12.1f %14.1f %s\n", size, name.c_str(), most, least, median(init_us),
                  median(init_us) / allreduce, valid ? "ok" : "WRONG DATA");
  }
  MPIX_Comm_free(&comm);
  MPI_Comm_free(&graph);
  MPI_Finalize();
  return all_valid ? 0 : 1;
}
