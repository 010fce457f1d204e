// Two or three auto requests in one loop: what FFT codes (two to four
// transposes an iteration) and sparse codes (an Alltoallv beside the
// neighbourhood exchange on their graph) run. Each request's period runs
// from one Start to the next, so it holds the other requests' exchanges,
// and, while another races, its trials; auto lets one request race at a
// time and takes the others' exchanges out of its periods
// (collectives/auto/trial_turn.hpp). This measures whether that holds:
// each request alone, then all in one loop, each run --seconds long with
// new requests, in one launch (one machine phase).
//
// Sets (--pair):
// - alltoallv+neighbor: A an Alltoallv of --bytes-a per peer, B a
//   neighbourhood Alltoallv on a ring (rank +- 1) of --bytes-b per edge;
// - alltoallv+alltoallv: A as above, B an Alltoallv of --bytes-b per peer
//   on the same communicator;
// - alltoallv+neighbor+alltoallv: A and B as in the first, C an Alltoallv
//   of --bytes-b per peer.
//
// Every iteration writes new send data and checks every received int (the
// application loop, small enough to cost little). All ranks run the same
// number of iterations: every --check-every iterations one MPI_Allreduce
// says whether rank 0's time is up. Prints, per run (a_alone, b_alone,
// c_alone, then both or all),
//   two_requests <set> <run> <iterations> <what each request runs>
// and then the loop with all as a share of the fastest request alone, and
// its time per iteration against the sum of each alone's:
//   two_requests <set> share <all ÷ max(each alone)>
//   two_requests <set> of_sum <all's time ÷ (A's time + B's time [+ C's])>
// --algorithm-a/-b run named algorithms instead of auto (-b for B and C):
// the settled requests' baseline for of_sum.
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
  std::vector<std::string> sets{"alltoallv+neighbor", "alltoallv+alltoallv"};
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
  app.add_option("--pair", o.sets, "alltoallv+neighbor, alltoallv+alltoallv and/or alltoallv+neighbor+alltoallv")
      ->check(CLI::IsMember({"alltoallv+neighbor", "alltoallv+alltoallv", "alltoallv+neighbor+alltoallv"}))
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
  for (const std::string& set : o.sets) {
    // The set's requests in order: the first is A (--bytes-a,
    // --algorithm-a), the others B and C (--bytes-b, --algorithm-b).
    std::vector<std::string> kinds;
    for (std::size_t from = 0, plus = 0; plus != std::string::npos; from = plus + 1) {
      plus = set.find('+', from);
      kinds.push_back(set.substr(from, plus == std::string::npos ? std::string::npos : plus - from));
    }
    const auto make = [&](std::size_t i) {
      const long bytes = i == 0 ? o.bytes_a : o.bytes_b;
      const std::string& algorithm = i == 0 ? o.algorithm_a : o.algorithm_b;
      return kinds[i] == "neighbor" ? std::make_unique<Exchange>(graph_xcomm, rank, ring, bytes, algorithm)
                                    : std::make_unique<Exchange>(xcomm, rank, size, bytes, algorithm);
    };
    const std::size_t n = kinds.size();
    double alone_seconds = 0;  // the sum of each alone's time per iteration
    long most_alone = 0;
    for (std::size_t which = 0; which <= n; ++which) {  // each alone, then all in one loop
      std::vector<std::unique_ptr<Exchange>> exchanges;
      for (std::size_t i = 0; i < n; ++i)
        if (which == n || which == i) exchanges.push_back(make(i));
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
      if (which < n) {
        most_alone = std::max(most_alone, run.iterations);
        alone_seconds += run.seconds / static_cast<double>(run.iterations);
      }
      if (rank == 0) {
        const std::string label =
            which < n ? std::string(1, static_cast<char>('a' + which)) + "_alone" : n == 2 ? "both" : "all";
        std::printf("two_requests %s %s %ld", set.c_str(), label.c_str(), run.iterations);
        for (const auto& x : exchanges) std::printf(" %s", x->running().c_str());
        std::printf("%s\n", run.right ? "" : " WRONG DATA");
        if (which == n) {
          std::printf("two_requests %s share %.3f\n", set.c_str(),
                      static_cast<double>(run.iterations) / static_cast<double>(most_alone));
          std::printf("two_requests %s of_sum %.3f\n", set.c_str(),
                      run.seconds / static_cast<double>(run.iterations) / alone_seconds);
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
