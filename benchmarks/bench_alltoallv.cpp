// Benchmark 1 (paper §4), one launch: uniform Alltoallv, a sweep of sizes,
// every competitor in the same run, timed by default as the application loop
// (send blocks written before Start, received blocks read after Wait) over
// heap and MPIX_Alloc_mem buffers; --loop exchange times Start + Wait alone, --loop barrier
// adds an MPI_Barrier between calls (OSU style), --loop first_calls times that from a new
// request's first Start for OSU's calls per size (no warm-up: settled or not). Per point
// and competitor: T_init (init + free; the median over repeats is a re-init over the same buffers, which
// reuses pooled windows; the first repeat, on a fresh communicator, gives a
// first init's), per-iteration time (barrier, MPI_Wtime, max over ranks, median of
// repeats), validation of the received data after timing. Competitors run
// interleaved inside each repeat, so drifts hit all of them alike.
// --family alltoall times the same uniform blocks as MPIX_Alltoall_init
// requests (the Alltoall family's algorithms, MPI_Alltoall as native).
// alltoallv.py runs several launches and reports the medians across them.
#include <mpix/mpix.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tools/algorithm_list.hpp"
#include "tools/command_line.hpp"
#include "tools/alltoallv_timing.hpp"

namespace {

using namespace mpix_timing;

struct Options {
  std::vector<long> sizes = {8, 64, 512, 4096, 32768, 262144, 2097152};
  std::string family = "alltoallv";      // whose algorithms: alltoallv or alltoall
  std::vector<std::string> competitors;  // registry names and "memcpy"
  std::string scaling = "weak";          // weak: size per peer; strong: size per rank in total
  std::vector<std::string> memory = {"heap", "mpix"};  // heap: std::vector; mpix: MPIX_Alloc_mem buffers
  std::vector<Loop> loops = {Loop::application, Loop::exchange, Loop::barrier};
  int repeats = 5;
  int iterations = 0;  // 0: chosen per size
  std::string csv;
};

Options parse(int argc, char** argv) {
  Options o;
  // The family decides the competitors' names: read it first.
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--family") o.family = argv[i + 1];
  std::vector<std::string> accepted;
  for (const auto& a : mpix_timing::listed_algorithms(o.family == "alltoall" ? Family::alltoall : Family::alltoallv))
    accepted.push_back(a.name);
  accepted.emplace_back("memcpy");
  o.competitors = accepted;
  std::vector<std::string> loops = {"application", "exchange", "barrier"};
  CLI::App app("Times uniform Alltoallv exchanges of every competitor, interleaved, on the ranks it runs on.",
               "bench_alltoallv");
  app.add_option("--sizes", o.sizes, "bytes per peer (weak) or per rank (strong), comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1L, 1L << 40))
      ->capture_default_str();
  app.add_option("--family", o.family, "alltoallv (MPIX_Alltoallv_init) or alltoall (MPIX_Alltoall_init)")
      ->check(CLI::IsMember({"alltoallv", "alltoall"}))
      ->capture_default_str();
  app.add_option("--algorithms", o.competitors, "registered algorithms of the family and memcpy, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember(accepted));
  app.add_option("--scaling", o.scaling, "weak: size per peer; strong: size per rank in total")
      ->check(CLI::IsMember({"weak", "strong"}))
      ->capture_default_str();
  app.add_option("--memory", o.memory, "heap (std::vector) and/or mpix (MPIX_Alloc_mem), comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"heap", "mpix"}));
  app.add_option("--loop", loops, "application, exchange, barrier and/or first_calls, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"application", "exchange", "barrier", "first_calls"}));
  app.add_option("--repeats", o.repeats, "interleaved rounds")->check(CLI::Range(1, 1000000))->capture_default_str();
  app.add_option("--iterations", o.iterations, "iterations per round (0: chosen per size)")
      ->check(CLI::Range(0, 100000000))
      ->capture_default_str();
  app.add_option("--csv", o.csv, "where rank 0 writes the samples");
  parse_or_exit(app, argc, argv);
  o.loops.clear();
  for (const std::string& l : loops) o.loops.push_back(parse_loop(l));
  return o;
}

// auto is told the run repeats at least as often as an application does by
// default (MPIX_EXPECTED_ITERATIONS): a sweep times large blocks for a few
// dozen iterations only, and a request told so would leave its tournament
// to the first few candidates. The timed iterations follow its settling.
// In the first_calls loop it is told the truth: it runs only those calls.
long expected_iterations(const Point& pt, Loop loop) {
  if (loop == Loop::first_calls) return pt.iterations();
  return std::max<long>(1000, pt.warmup() + pt.iterations());
}

// The bound: the same loop with a local copy of the same bytes in place of
// the exchange.
Sample run_memcpy(const Point& pt, int size, Loop loop) {
  Sample s;
  const std::size_t bytes = static_cast<std::size_t>(pt.per_peer()) * static_cast<std::size_t>(size);
  const LoopBody body(pt, loop);
  auto iteration = [&] {
    body.produce();
    std::memcpy(pt.recv(), pt.send(), bytes);
    body.consume();
  };
  for (int i = 0; i < warmup_calls(pt, loop); ++i) iteration();
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < pt.iterations(); ++i) iteration();
  s.iteration = max_over_ranks((MPI_Wtime() - t0) / pt.iterations());
  s.valid = std::memcmp(pt.recv(), pt.send(), bytes) == 0;
  return s;
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
                            "ranks,scaling,loop,memory,bytes_per_peer,algorithm,iterations,repeats,t_init_us,"
                            "t_init_first_us,t_iter_us,valid,ran");
  if (rank == 0)
    std::printf("%-6s %-12s %-5s %-12s %-20s %8s %12s %12s %s\n", "ranks", "loop", "mem", "bytes/peer", "algorithm",
                "iters", "T_init[us]", "T_iter[us]", "valid");

  bool all_valid = true;
  for (const Loop loop : options.loops)
    for (const std::string& memory : options.memory)
      for (const long size_arg : options.sizes) {
        const long per_peer = options.scaling == "weak" ? size_arg : std::max<long>(1, size_arg / size);
        const int iterations = loop == Loop::first_calls ? first_calls_iterations(per_peer) : options.iterations;
        Point pt(per_peer, iterations, memory == "mpix", rank, size);
        const auto samples =
            run_interleaved(options.competitors.size(), options.repeats, comm, [&](std::size_t c, MPIX_Comm* on) {
              const std::string& name = options.competitors[c];
              if (name == "memcpy") return run_memcpy(pt, size, loop);
              const long expected = expected_iterations(pt, loop);
              return options.family == "alltoall" ? run_alltoall_algorithm(pt, name, on, loop, expected)
                                                  : run_algorithm(pt, name, on, loop, expected);
            });
        for (std::size_t c = 0; c < options.competitors.size(); ++c) {
          const Summary t = summarize(samples[c], options.competitors[c]);
          all_valid = all_valid && t.valid;
          if (rank != 0) continue;
          const char* name = options.competitors[c].c_str();
          std::printf("%-6d %-12s %-5s %-12ld %-20s %8d %12.2f %12.3f %s %s\n", size, loop_name(loop),
                      memory.c_str(), per_peer, name, pt.iterations(), t.init_us, t.iteration_us,
                      t.valid ? "ok" : "WRONG DATA", t.ran.c_str());
          if (csv)
            std::fprintf(csv, "%d,%s,%s,%s,%ld,%s,%d,%d,%.3f,%.3f,%.4f,%d,%s\n", size, options.scaling.c_str(),
                         loop_name(loop), memory.c_str(), per_peer, name, pt.iterations(), options.repeats,
                         t.init_us, t.init_first_us, t.iteration_us, t.valid ? 1 : 0, t.ran.c_str());
        }
      }
  if (csv) std::fclose(csv);
  MPIX_Comm_free(&comm);
  MPI_Finalize();
  return all_valid ? 0 : 1;
}
