// Benchmark 2 (paper §5.1), one launch: the SpMV halo exchange of each
// SuiteSparse matrix given, row-partitioned over the ranks, as a persistent
// Alltoallv, and as a persistent neighbourhood Alltoallv on the halo's
// distributed graph (competitors "neighbor:<row>" of that family;
// "neighbor:native" is MPI_Neighbor_alltoallv, as "native" is
// MPI_Alltoallv). Every competitor in the same run, interleaved inside each
// repeat; per matrix and competitor: T_init (the median is a re-init over the
// same buffers, the first repeat a first init on a fresh communicator),
// per-iteration time (barrier, max over ranks, median of repeats), the data
// validated after timing, and what auto ran. spmv_halo.py runs several
// launches and reports the medians, tables and plots.
#include <mpix/mpix.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "benchmarks/halo_exchange.hpp"
#include "benchmarks/sparse_pattern.hpp"
#include "tools/algorithm_list.hpp"
#include "tools/command_line.hpp"
#include "tools/alltoallv_timing.hpp"

namespace {

using namespace mpix_timing;

struct Options {
  std::vector<std::string> matrices;
  std::vector<std::string> competitors;
  int repeats = 9;  // halo exchanges take about a microsecond: medians of many repeats
  int iterations = 2000;
  std::string csv;
  std::string counts_dir;  // per matrix: the bytes each rank sends each rank
  std::string memory = "heap";  // heap: std::vector; mpix: MPIX_Alloc_mem buffers
  Loop loop = Loop::application;
};

const std::string neighbor_prefix = "neighbor:";

bool is_neighbor(const std::string& competitor) { return competitor.rfind(neighbor_prefix, 0) == 0; }

Options parse(int argc, char** argv) {
  Options o;
  for (const auto& a : mpix_timing::listed_algorithms()) o.competitors.push_back(a.name);
  std::vector<std::string> registered = o.competitors;
  for (const auto& a : mpix_timing::listed_algorithms(Family::neighbor_alltoallv))
    registered.push_back(neighbor_prefix + a.name);
  // By default MPI's own neighbourhood call and the family's auto beside
  // every Alltoallv row; the family's other rows when asked for.
  o.competitors.push_back(neighbor_prefix + "native");
  o.competitors.push_back(neighbor_prefix + "auto");
  std::string loop = "application";
  CLI::App app("Times the SpMV halo Alltoallv of Matrix Market matrices, every competitor interleaved.",
               "bench_spmv_halo");
  app.add_option("matrices", o.matrices, "Matrix Market files")->required()->check(CLI::ExistingFile);
  app.add_option("--algorithms", o.competitors,
                 "registered algorithms, and neighbourhood ones as neighbor:<name>, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(registered));
  app.add_option("--repeats", o.repeats, "interleaved rounds")->check(CLI::Range(1, 1000000))->capture_default_str();
  app.add_option("--iterations", o.iterations, "iterations per round")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app.add_option("--csv", o.csv, "where rank 0 writes the samples");
  app.add_option("--memory", o.memory, "heap (std::vector) or mpix (MPIX_Alloc_mem)")
      ->check(CLI::IsMember({"heap", "mpix"}))
      ->capture_default_str();
  app.add_option("--loop", loop, "application, exchange or barrier")
      ->check(CLI::IsMember({"application", "exchange", "barrier"}))
      ->capture_default_str();
  app.add_option("--counts-dir", o.counts_dir, "where rank 0 writes each matrix's send counts");
  parse_or_exit(app, argc, argv);
  o.loop = parse_loop(loop);
  return o;
}

std::string stem(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.rfind(".mtx");
  return dot == std::string::npos ? name : name.substr(0, dot);
}

long max_long_over_ranks(long v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

// Rank 0 writes the matrix of bytes sent from each rank (row) to each rank.
void write_counts(const HaloExchange& halo, int size, const std::string& path) {
  std::vector<int> all(static_cast<std::size_t>(size) * size);
  MPI_Gather(halo.sendcounts(), size, MPI_INT, all.data(), size, MPI_INT, 0, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) fail("bench_spmv_halo: cannot write " + path);
  for (int src = 0; src < size; ++src)
    for (int dst = 0; dst < size; ++dst)
      std::fprintf(f, "%ld%c", static_cast<long>(all[src * size + dst]) * 8, dst + 1 < size ? ',' : '\n');
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Options options = parse(argc, argv);
  MPIX_Comm* comm = nullptr;
  MPIX_Comm_init(&comm, MPI_COMM_WORLD);

  std::FILE* csv = open_csv(rank, options.csv,
                            "matrix,ranks,loop,memory,rows,cols,nonzeros,bytes_max,bytes_total,targets_max,"
                            "sources_max,algorithm,iterations,repeats,t_init_us,t_init_first_us,t_iter_us,valid,ran");
  if (rank == 0)
    std::printf("%-16s %10s %8s %-18s %12s %12s %s\n", "matrix", "bytes_max", "targets", "algorithm", "T_init[us]",
                "T_iter[us]", "valid (ran)");

  bool all_valid = true;
  for (const std::string& path : options.matrices) {
    SparsePattern matrix;
    try {
      matrix = SparsePattern::read(path);
    } catch (const std::runtime_error& e) {
      fail(std::string("bench_spmv_halo: ") + e.what());
    }
    const HaloExchange halo(matrix, options.iterations, options.memory == "mpix");
    const HaloGraph graph(halo);
    MPIX_Comm* graph_comm = nullptr;
    MPIX_Comm_init(&graph_comm, graph.comm());
    const std::string name = stem(path);
    if (!options.counts_dir.empty()) write_counts(halo, size, options.counts_dir + "/counts_" + name + ".csv");
    const long bytes_max = max_long_over_ranks(std::max(halo.bytes_sent(), halo.bytes_received()));
    long bytes_total = halo.bytes_sent();
    MPI_Allreduce(MPI_IN_PLACE, &bytes_total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    const long targets = max_long_over_ranks(halo.targets()), sources = max_long_over_ranks(halo.sources());

    const auto samples = run_interleaved(options.competitors.size(), options.repeats, comm,
                                         [&](std::size_t c, MPIX_Comm* on) {
                                           const std::string& competitor = options.competitors[c];
                                           if (!is_neighbor(competitor))
                                             return run_algorithm(halo, competitor, on, options.loop,
                                                                  halo.warmup() + halo.iterations());
                                           // A first init (on a fresh world communicator) gets a
                                           // fresh graph one too.
                                           MPIX_Comm* fresh = nullptr;
                                           if (on != comm) MPIX_Comm_init(&fresh, graph.comm());
                                           MPIX_Comm* use = fresh ? fresh : graph_comm;
                                           Sample s = run_request(
                                               halo, competitor.substr(neighbor_prefix.size()),
                                               "mpix_neighbor_alltoallv_algorithm", options.loop,
                                               halo.warmup() + halo.iterations(),
                                               [&](MPIX_Info* info, MPIX_Request** request) {
                                                 return graph.init(halo, use, info, request);
                                               });
                                           if (fresh) MPIX_Comm_free(&fresh);
                                           s.ran = neighbor_prefix + s.ran;
                                           return s;
                                         });
    for (std::size_t c = 0; c < options.competitors.size(); ++c) {
      const Summary t = summarize(samples[c], options.competitors[c]);
      all_valid = all_valid && t.valid;
      if (rank != 0) continue;
      const char* algorithm = options.competitors[c].c_str();
      std::printf("%-16s %10ld %8ld %-18s %12.2f %12.3f %s %s\n", name.c_str(), bytes_max, targets, algorithm,
                  t.init_us, t.iteration_us, t.valid ? "ok" : "WRONG DATA", t.ran.c_str());
      if (csv)
        std::fprintf(csv, "%s,%d,%s,%s,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%s,%d,%d,%.3f,%.3f,%.4f,%d,%s\n", name.c_str(),
                     size, loop_name(options.loop), options.memory.c_str(), matrix.rows, matrix.cols, matrix.nonzeros(), bytes_max, bytes_total, targets, sources,
                     algorithm, halo.iterations(), options.repeats, t.init_us, t.init_first_us, t.iteration_us,
                     t.valid ? 1 : 0, t.ran.c_str());
    }
    MPIX_Comm_free(&graph_comm);  // before graph frees its communicator
  }
  if (csv) std::fclose(csv);
  MPIX_Comm_free(&comm);
  MPI_Finalize();
  return all_valid ? 0 : 1;
}
