// Benchmark 1 (paper §4), one launch: uniform Alltoallv, a sweep of sizes,
// every competitor in the same run, timed by default as the application loop
// (send blocks written before Start, received blocks read after Wait) over
// heap and MPIX_Alloc_mem buffers; --loop exchange times Start + Wait alone, --loop barrier
// adds an MPI_Barrier between calls (OSU style). Per point and competitor: T_init (init +
// free; the median over repeats is a re-init over the same buffers, which
// reuses pooled windows; the first repeat, on a fresh communicator, gives a
// first init's), per-iteration time (barrier, MPI_Wtime, max over ranks, median of
// repeats), validation of the received data after timing. Competitors run
// interleaved inside each repeat, so drifts hit all of them alike.
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
#include "tools/alltoallv_timing.hpp"

namespace {

using namespace mpix_timing;

struct Options {
  std::vector<long> sizes = {8, 64, 512, 4096, 32768, 262144, 2097152};
  std::vector<std::string> competitors;  // registry names and "memcpy"
  std::string scaling = "weak";          // weak: size per peer; strong: size per rank in total
  std::vector<std::string> memory = {"heap", "mpix"};  // heap: std::vector; mpix: MPIX_Alloc_mem buffers
  std::vector<Loop> loops = {Loop::application, Loop::exchange, Loop::barrier};
  int repeats = 5;
  int iterations = 0;  // 0: chosen per size
  std::string csv;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "bench_alltoallv: %s\n"
               "usage: bench_alltoallv [--sizes B,B,...] [--algorithms a,b,memcpy] [--scaling weak|strong]\n"
               "                       [--memory heap,mpix] [--loop application,exchange,barrier] [--repeats R]\n"
               "                       [--iterations N] [--csv FILE]\n",
               why);
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (const auto& a : mpix_timing::listed_algorithms()) o.competitors.push_back(a.name);
  o.competitors.emplace_back("memcpy");
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
    const std::string value = argv[++i];
    if (arg == "--sizes") {
      o.sizes.clear();
      for (const auto& s : split_list(value)) o.sizes.push_back(std::stol(s));
    } else if (arg == "--algorithms") {
      o.competitors = split_list(value);
    } else if (arg == "--scaling") {
      o.scaling = value;
      if (value != "weak" && value != "strong") usage("--scaling takes weak or strong");
    } else if (arg == "--memory") {
      o.memory = split_list(value);
      for (const auto& m : o.memory)
        if (m != "mpix" && m != "heap") usage("--memory takes heap, mpix or both");
    } else if (arg == "--loop") {
      o.loops.clear();
      try {
        for (const auto& l : split_list(value)) o.loops.push_back(parse_loop(l));
      } catch (const std::invalid_argument& e) {
        usage(e.what());
      }
    } else if (arg == "--repeats") {
      o.repeats = std::stoi(value);
    } else if (arg == "--iterations") {
      o.iterations = std::stoi(value);
    } else if (arg == "--csv") {
      o.csv = value;
    } else {
      usage(("unknown option " + arg).c_str());
    }
  }
  for (const auto& c : o.competitors) {
    if (c != "memcpy" && !mpix_timing::is_registered(c))
      usage(("unknown algorithm " + c + "; registered: " + mpix_timing::registered_names()).c_str());
  }
  if (o.repeats < 1) usage("--repeats must be at least 1");
  return o;
}

// auto is told the run repeats at least as often as an application does by
// default (MPIX_EXPECTED_ITERATIONS): a sweep times large blocks for a few
// dozen iterations only, and a request told so would leave its tournament
// to the first few candidates. The timed iterations follow its settling.
long expected_iterations(const Point& pt) { return std::max<long>(1000, pt.warmup() + pt.iterations()); }

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
  for (int i = 0; i < pt.warmup(); ++i) iteration();
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
        Point pt(per_peer, options.iterations, memory == "mpix", rank, size);
        const auto samples =
            run_interleaved(options.competitors.size(), options.repeats, comm, [&](std::size_t c, MPIX_Comm* on) {
              const std::string& name = options.competitors[c];
              return name == "memcpy" ? run_memcpy(pt, size, loop)
                                      : run_algorithm(pt, name, on, loop, expected_iterations(pt));
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
