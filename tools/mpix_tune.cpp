// mpix_tune: measures the selector's cost-model parameters on this machine
// and writes them as a tuning file for MPIX_TUNING_FILE.
//
//   mpiexec -n 2 mpix_tune --output tuning.json                  # one node
//   MPIX_NODE_SIZE=1 MPIX_TUNING_FILE=tuning.json \
//     mpiexec -n 2 mpix_tune --output tuning.json                # across nodes
//
// The ranks' layout decides what is measured: on one node, the fixed costs
// of one node, the on-node message curves and the curves of the block to
// itself (MPIX_Alloc_mem and heap receive buffers); across nodes (one rank
// per node, or MPIX_NODE_SIZE=1), the fixed costs of several nodes, the
// off-node curve and that of the block to itself there. Everything else
// keeps the values the library uses now (built-in, or MPIX_TUNING_FILE), so
// two runs build a complete file.
//
// Per algorithm and size: a uniform Alltoallv of b bytes per peer, timed like
// Benchmark 1 (warm-up, barrier, max over ranks, median of repeats, data
// validated) in the loop the selector serves, the application loop (send
// blocks written before Start, received blocks read after Wait; --loop
// exchange times Start + Wait alone), with blocks to the other ranks only (as in a halo exchange)
// and with every block: the difference is what the block to itself adds,
// which some algorithms copy directly and MPI may not. sync_us is the time
// at b = 0; a message of b bytes costs (T(b) - T(0) - on-node share) / messages
// (selector/calibration.cpp fits the curves and makes them sane).
//
//   mpix_tune --merge a.json,b.json,c.json --output tuning.json   # no mpiexec
//
// merges several launches' files into one (selector/calibration.hpp says
// how); scripts/tune_defaults.sh builds the built-in parameters that way.
// Either way it ends with what changed against the built-in parameters.
#include <mpix/mpix.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "collectives/alltoallv/family.hpp"
#include "src/mpi_implementation.hpp"
#include "collectives/alltoallv/tuning_parameters.hpp"
#include "selector/calibration.hpp"
#include "selector/tuning_file.hpp"
#include "src/comm.hpp"
#include "src/library.hpp"
#include "tools/algorithm_list.hpp"
#include "tools/alltoallv_timing.hpp"
#include "tools/command_line.hpp"

namespace {

using namespace mpix_timing;

struct Options {
  std::string output = "mpix_tuning.json";
  std::vector<long> sizes = {8, 64, 512, 1024, 4096, 8192, 16384, 32768, 65536, 262144, 1048576, 2097152};
  int repeats = 5;
  long init_bytes = 4096;  // per peer, for the init costs
  std::string source;      // replaces the file's "source" text; empty: appends what was measured
  Loop loop = Loop::application;  // what the selector will serve: the application loop
  std::vector<std::string> merge;  // launches' files to merge instead of measuring
  int messages = 0;                // with --merge: messages per rank (0: calibration ranks - 1)
};

Options parse(int argc, char** argv) {
  Options o;
  std::string loop = "application";
  CLI::App app(
      "Measures the selector's parameters on the ranks it runs on (one node, or several with MPIX_NODE_SIZE=1) "
      "and writes them as a tuning file for MPIX_TUNING_FILE; with --merge, merges several launches' files.",
      "mpix_tune");
  app.add_option("--output", o.output, "the tuning file to write")->capture_default_str();
  app.add_option("--sizes", o.sizes, "bytes per peer, increasing, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(1L, 1L << 40));
  app.add_option("--repeats", o.repeats, "interleaved rounds")->check(CLI::Range(1, 1000000))->capture_default_str();
  app.add_option("--source", o.source, "where the parameters come from, recorded in the file");
  app.add_option("--loop", loop, "the loop timed: application, exchange or barrier")
      ->check(CLI::IsMember({"application", "exchange", "barrier"}))
      ->capture_default_str();
  app.add_option("--merge", o.merge, "launches' tuning files to merge instead of measuring, comma-separated")
      ->delimiter(',')
      ->check(CLI::ExistingFile);
  app.add_option("--messages", o.messages, "with --merge: messages per rank in their setting (0: ranks - 1)")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();
  parse_or_exit(app, argc, argv);
  o.loop = parse_loop(loop);
  for (std::size_t i = 1; i < o.sizes.size(); ++i)
    if (o.sizes[i] <= o.sizes[i - 1]) exit_with_error("mpix_tune", "--sizes must be increasing");
  return o;
}

struct Layout {
  int rank = 0, size = 0;
  int node_messages = 0, net_messages = 0;  // peers of one rank, on its node and off it
  bool multi_node = false;
};

// What is done of the whole measurement, printed by rank 0 after each step
// with the time left at the pace so far: a full run takes minutes, and a
// user should see it move.
class Progress {
 public:
  Progress(bool prints, long runs) : prints_(prints), total_(runs), began_(MPI_Wtime()) {}
  void advance(long runs, const std::string& what) {
    done_ += runs;
    if (!prints_) return;
    const double elapsed = MPI_Wtime() - began_;
    const double left = done_ > 0 ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0;
    std::printf("mpix_tune: [%3ld%%] %s; %s elapsed, about %s left\n", 100 * done_ / total_, what.c_str(),
                duration(elapsed).c_str(), duration(left).c_str());
    std::fflush(stdout);
  }

 private:
  static std::string duration(double seconds) {
    const long s = static_cast<long>(seconds + 0.5);
    return s >= 60 ? std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s" : std::to_string(s) + " s";
  }
  bool prints_;
  long total_, done_ = 0;
  double began_;
};

// The point whose repeats disagreed most (largest over smallest): a busy
// machine, or one that changed speed, gives curves no selector should
// trust, and repeats an idle machine would have kept close.
struct Disagreement {
  double ratio = 1, min_us = 0, max_us = 0;
  std::string algorithm;
  long bytes = 0;
  int points = 0, disagreeing = 0;  // points measured, and those beyond the bound
  static constexpr double bound = 2.0, noise_us = 1.0;
};

class Tuner {
 public:
  Tuner(const Options& options, const Layout& layout, MPIX_Comm* comm, std::vector<std::string> algorithms,
        Progress& progress)
      : options_(options), layout_(layout), comm_(comm), algorithms_(std::move(algorithms)), progress_(progress) {}

  // The runs of one algorithm the whole measurement makes, for Progress.
  static long runs(const Options& options, std::size_t algorithms, bool multi_node) {
    const long per_round = options.repeats * static_cast<long>(algorithms);
    const long curves = multi_node ? 1 : 2;  // MPIX_Alloc_mem memory, and user memory on one node
    return per_round * (2 + 1 + curves * 2 * static_cast<long>(options.sizes.size()));
  }
  const Disagreement& disagreement() const { return disagreement_; }

  // T_iter (us) of every algorithm at b bytes per peer, median over repeats;
  // the algorithms take turns inside each repeat, so that a drift of the
  // machine hits all of them alike, each repeat starting with the next one
  // (as in Benchmark 1: what runs before an algorithm moves its time).
  std::vector<double> iteration_us(long bytes, bool mpix_memory, Blocks blocks = Blocks::peers_only) {
    Point pt(bytes, 0, mpix_memory, layout_.rank, layout_.size, blocks);
    std::vector<std::vector<double>> t(algorithms_.size());
    for (int r = 0; r < options_.repeats; ++r)
      for (std::size_t k = 0; k < algorithms_.size(); ++k) {
        const std::size_t a = (k + static_cast<std::size_t>(r)) % algorithms_.size();
        const Sample s = run_algorithm(pt, algorithms_[a], comm_, options_.loop);
        if (!s.valid)
          fail("mpix_tune: " + algorithms_[a] + " delivered wrong data at " + std::to_string(bytes) + " B per peer (" +
               (mpix_memory ? "MPIX_Alloc_mem" : "heap") + " memory, " +
               (blocks == Blocks::all ? "every block" : "blocks to peers only") + ", repeat " + std::to_string(r) + ")");
        t[a].push_back(s.iteration * 1e6);
      }
    std::vector<double> medians;
    for (std::size_t a = 0; a < algorithms_.size(); ++a) {
      const Spread repeats = spread(t[a]);
      medians.push_back(repeats.median);
      // Below a microsecond apart, repeats agree for any selector's purpose.
      const double ratio = repeats.min > 0 && repeats.max - repeats.min > Disagreement::noise_us
                               ? repeats.max / repeats.min : 1;
      ++disagreement_.points;
      disagreement_.disagreeing += ratio > Disagreement::bound;
      if (ratio > disagreement_.ratio) {
        disagreement_.ratio = ratio;
        disagreement_.min_us = repeats.min;
        disagreement_.max_us = repeats.max;
        disagreement_.algorithm = algorithms_[a];
        disagreement_.bytes = bytes;
      }
    }
    progress_.advance(options_.repeats * static_cast<long>(algorithms_.size()),
                      std::to_string(bytes) + " B per peer, " + (mpix_memory ? "MPIX_Alloc_mem" : "heap") +
                          " memory, " + (blocks == Blocks::all ? "every block" : "blocks to peers only"));
    return medians;
  }

  // Init + free of every algorithm: on a fresh communicator (nothing
  // pooled), and again on one whose pool holds the window.
  std::vector<mpix::FixedCosts> init_costs() {
    Point pt(options_.init_bytes, 30, true, layout_.rank, layout_.size, Blocks::peers_only);
    std::vector<std::vector<double>> first(algorithms_.size()), again(algorithms_.size());
    for (int r = 0; r < options_.repeats; ++r)
      for (std::size_t a = 0; a < algorithms_.size(); ++a) {
        MPIX_Comm* fresh = nullptr;
        MPIX_Comm_init(&fresh, MPI_COMM_WORLD);
        first[a].push_back(run_algorithm(pt, algorithms_[a], fresh, options_.loop).init * 1e6);
        again[a].push_back(run_algorithm(pt, algorithms_[a], fresh, options_.loop).init * 1e6);
        MPIX_Comm_free(&fresh);
      }
    std::vector<mpix::FixedCosts> costs(algorithms_.size());
    for (std::size_t a = 0; a < algorithms_.size(); ++a) {
      costs[a].init_us = median(first[a]);
      costs[a].reinit_us = median(again[a]);
    }
    progress_.advance(2L * options_.repeats * static_cast<long>(algorithms_.size()), "init and re-init costs");
    return costs;
  }

  // Per algorithm, the cost of one message at each size: T_iter net of the
  // synchronization and, across nodes, of the on-node messages (priced by
  // the known curve). blocks: the messages to peers, or the one to itself.
  struct Curves {
    std::vector<mpix::MessageCurve> peer, self;  // per algorithm
  };

  // Per algorithm, the cost of one message to a peer at each size (T_iter
  // with blocks to peers only, net of the synchronization and, across nodes,
  // of the on-node messages priced by the known curve), and what adding the
  // block to itself costs (T_iter with every block minus that with peers
  // only: its copy may overlap the transfers, or not).
  Curves curves(bool mpix_memory, const std::vector<double>& sync_us,
                const std::vector<const mpix::MessageCurve*>& node) {
    const int messages = layout_.multi_node ? layout_.net_messages : layout_.node_messages;
    std::vector<mpix::SettingTimings> timings(algorithms_.size());
    std::vector<double> sizes;
    for (long bytes : options_.sizes) {
      sizes.push_back(static_cast<double>(bytes));
      const std::vector<double> peers_only = iteration_us(bytes, mpix_memory, Blocks::peers_only);
      const std::vector<double> all = iteration_us(bytes, mpix_memory, Blocks::all);
      for (std::size_t a = 0; a < algorithms_.size(); ++a) {
        timings[a].peers_us.push_back(peers_only[a]);
        timings[a].all_us.push_back(all[a]);
      }
    }
    Curves result;
    for (std::size_t a = 0; a < algorithms_.size(); ++a) {
      timings[a].sync_us = sync_us[a];
      const mpix::FittedCurves fitted =
          layout_.multi_node ? mpix::fit_curves(sizes, timings[a], messages, node[a], layout_.node_messages)
                             : mpix::fit_curves(sizes, timings[a], messages);
      result.peer.push_back(fitted.peer);
      result.self.push_back(fitted.self);
    }
    return result;
  }

 private:
  const Options& options_;
  const Layout& layout_;
  MPIX_Comm* comm_;
  std::vector<std::string> algorithms_;
  Progress& progress_;
  Disagreement disagreement_;
};

// Rank 0's warning when repeats disagreed beyond Disagreement::bound.
void warn_if_repeats_disagree(const Disagreement& d, int repeats) {
  if (d.disagreeing == 0) return;
  std::printf("mpix_tune: WARNING: repeats disagree: %d of %d points spread more than %.0fx; the worst, %s at %ld B "
              "per peer, took %.1f..%.1f us (%.1fx) over %d repeats. A busy machine, or one that changes speed, "
              "gives such curves: measure again when it is idle, or with more --repeats.\n",
              d.disagreeing, d.points, Disagreement::bound, d.algorithm.c_str(), d.bytes, d.min_us, d.max_us, d.ratio,
              repeats);
}

Layout layout_of(const mpix::Comm& comm) {
  Layout l;
  l.rank = comm.rank();
  l.size = comm.size();
  l.multi_node = comm.num_nodes() > 1;
  int on_node = 0;  // peers on this rank's node, itself excluded (no block to self)
  for (int r = 0; r < comm.size(); ++r) on_node += r != comm.rank() && comm.same_node(r);
  l.node_messages = on_node;
  l.net_messages = comm.size() - 1 - on_node;
  // The busiest rank sets the pace: the fewest on-node peers, most off-node.
  MPI_Allreduce(MPI_IN_PLACE, &l.node_messages, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &l.net_messages, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return l;
}

std::vector<std::string> registered_algorithms() {
  std::vector<std::string> names;
  for (const auto& row : mpix_timing::listed_algorithms())
    if (!row.has(MPIX_ALGORITHM_SELECTS)) names.push_back(row.name);
  return names;
}

// What the new parameters change against the built-in ones, and anything
// physically impossible left in them: the fit rules that out for what this
// run measured, so such a line names a curve it kept from the parameters in
// use (built-in, or MPIX_TUNING_FILE).
void print_summary(const mpix::TuningParameters& parameters, int ranks, bool multi_node) {
  const std::vector<std::string> changes =
      mpix::describe_changes(mpix::builtin_tuning(), parameters, ranks, multi_node);
  std::printf("mpix_tune: against the built-in parameters (%s, %d ranks): %s\n",
              multi_node ? "across nodes" : "one node", ranks,
              changes.empty() ? "nothing moved by more than 25%, no selection changes" : "");
  for (const std::string& line : changes) std::printf("  %s\n", line.c_str());
  for (const std::string& line : mpix::sanity_problems(parameters)) std::printf("  NOT SANE: %s\n", line.c_str());
}

bool write_tuning(const mpix::TuningParameters& parameters, const std::string& path) {
  std::ofstream out(path);
  out << mpix::tuning_to_json(parameters);
  if (!out) {
    std::fprintf(stderr, "mpix_tune: cannot write %s\n", path.c_str());
    return false;
  }
  std::printf("mpix_tune: wrote %s\n", path.c_str());
  return true;
}

// --merge: rank 0 alone reads, merges and writes (run it without mpiexec).
int merge(const Options& options) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return 0;
  const std::vector<std::string> names = registered_algorithms();
  try {
    std::vector<mpix::TuningParameters> launches;
    for (const std::string& path : options.merge)
      launches.push_back(mpix::read_tuning_file(path, mpix::TuningParameters{}, &names));
    const int messages = options.messages > 0 ? options.messages : launches.front().calibration_ranks - 1;
    mpix::TuningParameters merged = mpix::merge_launches(launches, messages);
    if (!options.source.empty()) merged.source = options.source;
    print_summary(merged, merged.calibration_ranks, false);
    print_summary(merged, merged.calibration_ranks, true);
    return write_tuning(merged, options.output) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpix_tune: --merge: %s\n", e.what());
    return 2;
  }
}

std::string today() {
  char text[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const Options options = parse(argc, argv);
  if (!options.merge.empty()) {
    const int status = merge(options);
    MPI_Finalize();
    return status;
  }
  int status = 0;
  {
    const mpix::Comm topology(MPI_COMM_WORLD, mpix::Library::get().config());
    const Layout layout = layout_of(topology);
    if (layout.size < 2) exit_with_error("mpix_tune", "needs at least 2 ranks");
    // An output it cannot write is found before the measuring, not after.
    int writable = 1;
    if (layout.rank == 0) writable = static_cast<bool>(std::ofstream(options.output, std::ios::app));
    MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!writable) exit_with_error("mpix_tune", "cannot write --output " + options.output);
    const auto progress = [&](const char* what) {
      if (layout.rank == 0) {
        std::printf("mpix_tune: measuring %s\n", what);
        std::fflush(stdout);
      }
    };
    mpix::TuningParameters parameters = mpix::tuning_parameters(mpix::Library::get().config());
    MPIX_Comm* comm = nullptr;
    MPIX_Comm_init(&comm, MPI_COMM_WORLD);
    const std::vector<std::string> names = registered_algorithms();
    Progress done(layout.rank == 0, Tuner::runs(options, names.size(), layout.multi_node));
    Tuner tuner(options, layout, comm, names, done);

    progress("init and re-init costs");
    std::vector<mpix::FixedCosts> fixed = tuner.init_costs();
    progress("synchronization cost");
    const std::vector<double> sync = tuner.iteration_us(0, true);
    std::vector<const mpix::MessageCurve*> node;
    for (std::size_t a = 0; a < names.size(); ++a) {
      fixed[a].sync_us = sync[a];
      mpix::AlgorithmParameters& p = parameters.algorithms[names[a]];
      (layout.multi_node ? p.multi_node : p.one_node) = fixed[a];
      node.push_back(&p.node);
    }
    if (layout.multi_node) {
      progress("per-message curves across nodes");
      const auto measured = tuner.curves(true, sync, node);
      for (std::size_t a = 0; a < names.size(); ++a) {
        parameters.algorithms[names[a]].net = measured.peer[a];
        parameters.algorithms[names[a]].multi_node_self = measured.self[a];
      }
    } else {
      progress("per-message curves into MPIX_Alloc_mem memory");
      const auto shared = tuner.curves(true, sync, node);
      progress("per-message curves into user memory");
      const auto user = tuner.curves(false, sync, node);
      for (std::size_t a = 0; a < names.size(); ++a) {
        mpix::AlgorithmParameters& p = parameters.algorithms[names[a]];
        p.node = shared.peer[a];
        p.node_user = user.peer[a];
        p.self = shared.self[a];
        p.self_user = user.self[a];
      }
    }
    if (layout.rank == 0) {
      std::printf("mpix_tune: %d ranks, %s\n%-20s %10s %10s %10s\n", layout.size,
                  layout.multi_node ? "several nodes" : "one node", "algorithm", "sync[us]", "init[us]", "reinit[us]");
      for (std::size_t a = 0; a < names.size(); ++a)
        std::printf("%-20s %10.3f %10.1f %10.1f\n", names[a].c_str(), fixed[a].sync_us, fixed[a].init_us,
                    fixed[a].reinit_us);
    }
    parameters.calibration_ranks = layout.size;
    parameters.loop = loop_name(options.loop);
    parameters.mpi = mpix::mpi_implementation::name();
    const std::string measured = std::string(layout.multi_node ? "several nodes" : "one node") + " measured by mpix_tune on " +
                                 today() + " with " + std::to_string(layout.size) + " ranks";
    if (!options.source.empty())
      parameters.source = options.source;
    else
      parameters.source = parameters.source.empty() ? measured : parameters.source + "; " + measured;
    if (layout.rank == 0) {
      print_summary(parameters, layout.size, layout.multi_node);
      warn_if_repeats_disagree(tuner.disagreement(), options.repeats);
      status = write_tuning(parameters, options.output) ? 0 : 1;
    }
    MPIX_Comm_free(&comm);
  }
  MPI_Finalize();
  return status;
}
