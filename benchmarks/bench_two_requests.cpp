// Two auto requests in one loop: what FFT codes (two to four transposes an
// iteration) and sparse codes (an Alltoallv beside the neighbourhood
// exchange on their graph) run. Each request's period runs from one Start
// to the next, so it holds the other request's exchange, and, while the
// other races, the other's trials; auto lets one request race at a time
// and takes the other's exchanges out of its periods
// (collectives/auto/trial_turn.hpp). This measures whether that holds:
// request A alone, request B alone, then A and B in one loop, each run
// --seconds long with new requests, in one launch (one machine phase).
//
// Pairs (--pair):
// - alltoallv+neighbor: A an Alltoallv of --bytes-a per peer, B a
//   neighbourhood Alltoallv on a ring (rank +- 1) of --bytes-b per edge;
// - alltoallv+alltoallv: A as above, B an Alltoallv of --bytes-b per peer
//   on the same communicator.
//
// Every iteration writes new send data and checks every received int (the
// application loop, small enough to cost little). All ranks run the same
// number of iterations: every --check-every iterations one MPI_Allreduce
// says whether rank 0's time is up. Prints, per run,
//   two_requests <pair> <run> <iterations> <what A runs> [<what B runs>]
// and then the loop with both as a share of the faster request alone, and
// its time per iteration against the sum of the two alone:
//   two_requests <pair> share <both ÷ max(A alone, B alone)>
//   two_requests <pair> of_sum <both's time ÷ (A's time + B's time)>
// --algorithm-a/-b run a named algorithm instead of auto: the settled
// requests' baseline for of_sum.
// Exit status 1 if any received int is wrong.
#include <mpix/mpix.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/command_line.hpp"

namespace {

struct Options {
  std::vector<std::string> pairs{"alltoallv+neighbor", "alltoallv+alltoallv"};
  long bytes_a = 8;
  long bytes_b = 1024;
  double seconds = 6;
  int check_every = 64;
  std::string algorithm_a = "auto", algorithm_b = "auto";
};

// The int at position i of the block from `from` to `to` in iteration it.
int value(int from, int to, long it, int i) { return from * 1000003 + to * 7919 + static_cast<int>(it % 65536) * 31 + i; }

// One persistent exchange and its buffers: blocks of `ints` to each of
// `targets` (ranks, or the ring's edges), the block to target t carrying
// value(rank, peer t, ...).
class Exchange {
 public:
  // An Alltoallv over xcomm's ranks, by `algorithm`.
  Exchange(MPIX_Comm* xcomm, int rank, int size, long bytes, const std::string& algorithm)
      : rank_(rank), ints_(ints_of(bytes)) {
    for (int r = 0; r < size; ++r) peers_.push_back(r);
    layout();
    MPIX_Info* info = nullptr;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "mpix_alltoallv_algorithm", algorithm.c_str());
    ok_ = MPIX_Alltoallv_init(send_.data(), counts_.data(), displs_.data(), MPI_INT, recv_.data(), counts_.data(),
                              displs_.data(), MPI_INT, xcomm, info, &request_) == MPI_SUCCESS;
    MPIX_Info_free(&info);
  }
  // A neighbourhood Alltoallv on graph_xcomm, whose edges go to `ring`
  // (the same ranks in and out, in this order), by `algorithm`.
  Exchange(MPIX_Comm* graph_xcomm, int rank, const std::vector<int>& ring, long bytes, const std::string& algorithm)
      : rank_(rank), ints_(ints_of(bytes)), peers_(ring) {
    layout();
    MPIX_Info* info = nullptr;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "mpix_neighbor_alltoallv_algorithm", algorithm.c_str());
    ok_ = MPIX_Neighbor_alltoallv_init(send_.data(), counts_.data(), displs_.data(), MPI_INT, recv_.data(),
                                       counts_.data(), displs_.data(), MPI_INT, graph_xcomm, info,
                                       &request_) == MPI_SUCCESS;
    MPIX_Info_free(&info);
  }
  ~Exchange() {
    if (request_ != nullptr) MPIX_Request_free(&request_);
  }
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  bool ok() const { return ok_; }
  // One iteration: write, exchange, check. False if a received int is wrong.
  // On a ring, the block from source edge k is the one that source sent on
  // its edge to this rank: its value names (source, this rank); the ring's
  // two edges at 2 ranks join the same pair, k-th with k-th (the values then
  // match either way).
  bool iterate(long it) {
    for (std::size_t t = 0; t < peers_.size(); ++t)
      for (int i = 0; i < ints_; ++i) send_[t * ints_ + i] = value(rank_, peers_[t], it, i);
    MPIX_Start(request_);
    MPIX_Wait(request_, MPI_STATUS_IGNORE);
    bool right = true;
    for (std::size_t t = 0; t < peers_.size(); ++t)
      for (int i = 0; i < ints_; ++i) right &= recv_[t * ints_ + i] == value(peers_[t], rank_, it, i);
    return right;
  }
  std::string running() const {
    char name[MPIX_MAX_OBJECT_NAME] = "";
    int length = 0;
    MPIX_Request_get_algorithm(request_, name, &length);
    return name;
  }

 private:
  static int ints_of(long bytes) { return static_cast<int>(std::max<long>(1, bytes / static_cast<long>(sizeof(int)))); }
  void layout() {
    counts_.assign(peers_.size(), ints_);
    for (std::size_t t = 0; t < peers_.size(); ++t) displs_.push_back(static_cast<int>(t) * ints_);
    send_.assign(peers_.size() * ints_, 0);
    recv_.assign(peers_.size() * ints_, 0);
  }

  int rank_;
  int ints_;
  std::vector<int> peers_;
  std::vector<int> counts_, displs_, send_, recv_;
  MPIX_Request* request_ = nullptr;
  bool ok_ = false;
};

struct Run {
  long iterations = 0;
  double seconds = 0;  // rank 0's
  bool right = true;
};

// The loop over the given exchanges for `seconds` by rank 0's clock.
Run loop(const std::vector<std::unique_ptr<Exchange>>& exchanges, const Options& o) {
  Run run;
  MPI_Barrier(MPI_COMM_WORLD);
  const double begin = MPI_Wtime();
  for (int done = 0; !done;) {
    for (int i = 0; i < o.check_every; ++i, ++run.iterations)
      for (const auto& x : exchanges) run.right &= x->iterate(run.iterations);
    run.seconds = MPI_Wtime() - begin;
    done = run.seconds >= o.seconds ? 1 : 0;
    MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  int right = run.right ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &right, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  run.right = right != 0;
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Options o;
  CLI::App app{"Two auto requests in one loop, against each alone (iterations in --seconds)", "bench_two_requests"};
  app.add_option("--pair", o.pairs, "alltoallv+neighbor and/or alltoallv+alltoallv")
      ->check(CLI::IsMember({"alltoallv+neighbor", "alltoallv+alltoallv"}))
      ->delimiter(',');
  app.add_option("--bytes-a", o.bytes_a, "bytes per peer of A, the Alltoallv")->check(CLI::Range(4L, 1L << 24));
  app.add_option("--bytes-b", o.bytes_b, "bytes per peer (or edge) of B")->check(CLI::Range(4L, 1L << 24));
  app.add_option("--seconds", o.seconds, "length of each run")->check(CLI::Range(0.001, 3600.0));
  app.add_option("--check-every", o.check_every, "iterations between checks of the time")->check(CLI::Range(1, 1 << 20));
  app.add_option("--algorithm-a", o.algorithm_a, "A's algorithm (a registry name: the settled baseline)")
      ->capture_default_str();
  app.add_option("--algorithm-b", o.algorithm_b, "B's algorithm")->capture_default_str();
  mpix_timing::parse_or_exit(app, argc, argv);

  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::vector<int> ring{(rank + 1) % size, (rank + size - 1) % size};
  MPI_Comm graph = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, ring.data(), MPI_UNWEIGHTED, 2, ring.data(), MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &graph);
  MPIX_Comm *xcomm = nullptr, *graph_xcomm = nullptr;
  MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
  MPIX_Comm_init(&graph_xcomm, graph);

  bool right = true;
  for (const std::string& pair : o.pairs) {
    const bool neighbor = pair == "alltoallv+neighbor";
    const auto make_a = [&] { return std::make_unique<Exchange>(xcomm, rank, size, o.bytes_a, o.algorithm_a); };
    const auto make_b = [&] {
      return neighbor ? std::make_unique<Exchange>(graph_xcomm, rank, ring, o.bytes_b, o.algorithm_b)
                      : std::make_unique<Exchange>(xcomm, rank, size, o.bytes_b, o.algorithm_b);
    };
    double alone_seconds[2] = {0, 0};  // per iteration
    long alone[2] = {0, 0};
    for (int which = 0; which < 3; ++which) {
      std::vector<std::unique_ptr<Exchange>> exchanges;
      if (which != 1) exchanges.push_back(make_a());
      if (which != 0) exchanges.push_back(make_b());
      bool made = true;
      for (const auto& x : exchanges) made &= x->ok();
      if (!made) {  // on every rank alike: the library agrees on init errors
        exchanges.clear();
        MPIX_Comm_free(&graph_xcomm);
        MPIX_Comm_free(&xcomm);
        MPI_Comm_free(&graph);
        mpix_timing::exit_with_error("bench_two_requests", "a request could not be made");
      }
      const Run run = loop(exchanges, o);
      right &= run.right;
      if (which < 2) {
        alone[which] = run.iterations;
        alone_seconds[which] = run.seconds / static_cast<double>(run.iterations);
      }
      if (rank == 0) {
        std::printf("two_requests %s %s %ld", pair.c_str(), which == 0 ? "a_alone" : which == 1 ? "b_alone" : "both",
                    run.iterations);
        for (const auto& x : exchanges) std::printf(" %s", x->running().c_str());
        std::printf("%s\n", run.right ? "" : " WRONG DATA");
        if (which == 2) {
          std::printf("two_requests %s share %.3f\n", pair.c_str(),
                      static_cast<double>(run.iterations) / static_cast<double>(std::max(alone[0], alone[1])));
          std::printf("two_requests %s of_sum %.3f\n", pair.c_str(),
                      run.seconds / static_cast<double>(run.iterations) / (alone_seconds[0] + alone_seconds[1]));
        }
        std::fflush(stdout);
      }
    }
  }
  MPIX_Comm_free(&graph_xcomm);
  MPIX_Comm_free(&xcomm);
  MPI_Comm_free(&graph);
  MPI_Finalize();
  return right ? 0 : 1;
}
