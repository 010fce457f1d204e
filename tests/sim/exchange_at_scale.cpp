// exchange_at_scale FAMILY NODE_SIZE [--blocks LIST] [--windows none] [--algorithm NAME]
//                   [--pattern uniform|varied]:
// the correctness suite of one family (alltoall or alltoallv) on a
// simulated cluster (SimGrid SMPI, platforms/), at as many ranks as the job
// has, with blocks of each size in LIST (ints, comma-separated; 1,64
// unless given: one block within every algorithm's eager size, one above
// several). --windows none runs all but the algorithms over MPI windows,
// --algorithm just the registered algorithm of that name: at 256 ranks
// the simulator takes about 30 s for one request of a window algorithm,
// and pscw more than fifteen minutes (every put is an event of its own),
// so CMake registers all the others in one job and each window algorithm
// in a job of its own (tests/sim/CMakeLists.txt). --pattern runs just one
// of Alltoallv's two patterns (uniform blocks, or blocks that differ per
// pair, some empty; Alltoall has only the first).
//
// Checked, each failure a line with WRONG:
//  - every rank has its own copy of the library (SMPI privatization): the
//    library instances of all ranks are distinct, and so are the statics
//    of its inline functions;
//  - the node layout is the platform's: NODE_SIZE ranks on each simulated
//    host;
//  - every registered algorithm, forced by its info key with
//    MPIX_FALLBACK=error, and auto: either it delivers every block of each
//    pattern in two Starts with new data in between, or it refuses with
//    MPIX_ERR_ALGORITHM, which only an algorithm that needs ranks to be
//    processes (node channel) or MPI-4's persistent collectives may do;
//  - auto's choice is the same on every rank.
#include <mpi.h>
#include <mpix/mpix.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "collectives/auto/trial_turn.hpp"
#include "src/library.hpp"

namespace {

int rank = 0, size = 1;
int wrong = 0;

void report_wrong(const std::string& what) {
  std::printf("WRONG [rank %d]: %s\n", rank, what.c_str());
  std::fflush(stdout);
  ++wrong;
}

std::string error_text(int code) {
  char text[MPIX_MAX_ERROR_STRING] = {};
  int length = 0;
  MPIX_Error_string(code, text, &length);
  return text;
}

// The value of element k of the block from src to dst in iteration it.
int value(int src, int dst, int k, int it) { return (src * 7919 + dst * 104729 + k * 31 + it * 1000003) & 0x7fffffff; }

// The counts of a pattern: a uniform block, or blocks of 0 to 3 times the
// block that differ per pair (some pairs exchange nothing).
int count_of(const std::string& pattern, int src, int dst, int block) {
  if (pattern == "uniform") return block;
  return ((src + 2 * dst) % 4) * block;
}

struct Family {
  std::string name;
  int (*algorithm_count)(int*);
  int (*algorithm)(int, const char**, const char**, int*);
  const char* info_key;
};

// One request of the family on pattern, by algorithm; returns the
// algorithm name the request ran last (auto's choice), or "" if refused.
std::string run_one(const Family& family, MPIX_Comm* xcomm, const std::string& algorithm, int capabilities,
                    const std::string& pattern, int block) {
  std::vector<int> sendcounts(size), sdispls(size), recvcounts(size), rdispls(size);
  int send_total = 0, recv_total = 0;
  for (int r = 0; r < size; ++r) {
    sendcounts[r] = count_of(pattern, rank, r, block);
    recvcounts[r] = count_of(pattern, r, rank, block);
    sdispls[r] = send_total;
    rdispls[r] = recv_total;
    send_total += sendcounts[r];
    recv_total += recvcounts[r];
  }
  std::vector<int> sendbuf(static_cast<std::size_t>(send_total) + 1), recvbuf(static_cast<std::size_t>(recv_total) + 1);
  MPIX_Info* info = nullptr;
  MPIX_Info_init(&info);
  MPIX_Info_set(info, family.info_key, algorithm.c_str());
  MPIX_Request* request = nullptr;
  int rc = family.name == "alltoall"
               ? MPIX_Alltoall_init(sendbuf.data(), block, MPI_INT, recvbuf.data(), block, MPI_INT, xcomm, info, &request)
               : MPIX_Alltoallv_init(sendbuf.data(), sendcounts.data(), sdispls.data(), MPI_INT, recvbuf.data(),
                                     recvcounts.data(), rdispls.data(), MPI_INT, xcomm, info, &request);
  MPIX_Info_free(&info);
  const std::string where = family.name + " " + algorithm + " (" + pattern + ", " + std::to_string(block) + " ints)";
  if (rc != MPI_SUCCESS) {
    int error_class = 0;
    MPI_Error_class(rc, &error_class);
    // The node channel's rows need processes, MPI's persistent collective
    // an MPI-4 MPI, and the rows that keep MPI's progress rule one or the
    // other (processes that copy into each other, or MPI's own request).
    const bool may_refuse = (capabilities & (MPIX_ALGORITHM_NODE_CHANNEL | MPIX_ALGORITHM_MPI_PERSISTENT |
                                             MPIX_ALGORITHM_MPI_PROGRESS)) != 0;
    if (error_class != MPIX_ERR_ALGORITHM || !may_refuse)
      report_wrong(where + ": init failed: " + error_text(rc));
    else if (rank == 0)
      std::printf("%s: refused: %s\n", where.c_str(), error_text(rc).c_str());
    return "";
  }
  for (int it = 0; it < 2; ++it) {
    for (int r = 0; r < size; ++r)
      for (int k = 0; k < sendcounts[r]; ++k) sendbuf[sdispls[r] + k] = value(rank, r, k, it);
    std::fill(recvbuf.begin(), recvbuf.end(), -1);
    rc = MPIX_Start(request);
    if (rc == MPI_SUCCESS) rc = MPIX_Wait(request, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      report_wrong(where + ": Start/Wait failed: " + error_text(rc));
      break;
    }
    int bad = 0, first_bad = -1, got = 0, expected = 0;
    for (int r = 0; r < size; ++r)
      for (int k = 0; k < recvcounts[r]; ++k)
        if (recvbuf[rdispls[r] + k] != value(r, rank, k, it) && bad++ == 0) {
          first_bad = r;
          got = recvbuf[rdispls[r] + k];
          expected = value(r, rank, k, it);
        }
    if (recvbuf[recv_total] != -1) ++bad;
    if (bad > 0)
      report_wrong(where + ": iteration " + std::to_string(it) + ": " + std::to_string(bad) +
                   " wrong elements, the first from rank " + std::to_string(first_bad) + " (" + std::to_string(got) +
                   " where " + std::to_string(expected) + " belongs)");
  }
  char ran[MPIX_MAX_OBJECT_NAME] = {};
  int length = 0;
  MPIX_Request_get_algorithm(request, ran, &length);
  MPIX_Request_free(&request);
  return ran;
}

// Whether every rank holds the same name (a hash, reduced by min and max).
bool agreed_everywhere(const std::string& name) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : name) hash = (hash ^ c) * 1099511628211ULL;
  unsigned long long mine[2] = {hash, ~hash}, all[2] = {};
  MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return all[0] == hash && all[1] == ~hash;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // The library raises its errors on the user's communicator: returned
  // here, so that a refusal is a code to check.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char* usage =
      "usage: exchange_at_scale alltoall|alltoallv NODE_SIZE [--blocks LIST] [--windows none] "
      "[--algorithm NAME] [--pattern uniform|varied]\n";
  std::string block_list = "1,64", windows = "all", only_algorithm, only_pattern;
  bool usage_error = argc < 3 || argc % 2 == 0;
  for (int a = 3; a + 1 < argc && !usage_error; a += 2) {
    const std::string option = argv[a], value = argv[a + 1];
    if (option == "--blocks")
      block_list = value;
    else if (option == "--windows" && value == "none")
      windows = value;
    else if (option == "--algorithm")
      only_algorithm = value;
    else if (option == "--pattern" && (value == "uniform" || value == "varied"))
      only_pattern = value;
    else
      usage_error = true;
  }
  if (usage_error) {
    if (rank == 0) std::fputs(usage, stderr);
    MPI_Finalize();
    return 2;
  }
  const std::string family_name = argv[1];
  const int node_size_expected = std::atoi(argv[2]);
  std::vector<int> blocks;
  std::istringstream block_stream(block_list);
  for (std::string block; std::getline(block_stream, block, ',');) blocks.push_back(std::atoi(block.c_str()));
  const Family families[] = {
      {"alltoall", MPIX_Alltoall_algorithm_count, MPIX_Alltoall_algorithm, "mpix_alltoall_algorithm"},
      {"alltoallv", MPIX_Alltoallv_algorithm_count, MPIX_Alltoallv_algorithm, "mpix_alltoallv_algorithm"},
  };
  const Family* family = nullptr;
  for (const Family& f : families)
    if (f.name == family_name) family = &f;
  if (family == nullptr) {
    if (rank == 0) std::fprintf(stderr, "exchange_at_scale: unknown family '%s'\n", argv[1]);
    MPI_Finalize();
    return 2;
  }

  MPIX_Comm* xcomm = nullptr;
  int rc = MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    report_wrong("MPIX_Comm_init: " + error_text(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  // Each rank's own library: were the ranks sharing one copy, the ranks
  // after the first would find the first one's instance. The statics of
  // inline functions are checked apart: GCC's unique binding would make
  // them one object for all copies of the program.
  const std::pair<const char*, const void*> per_rank_state[] = {
      {"copy of the library", mpix::Library::alive()},
      {"auto's turn between requests (a static of an inline function)", &mpix::TrialTurn::process()},
  };
  for (const auto& [what, address] : per_rank_state) {
    const auto mine = static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(address));
    std::vector<unsigned long long> all(static_cast<std::size_t>(size));
    MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r)
      if (r != rank && (all[r] == mine || mine == 0)) {
        report_wrong("rank " + std::to_string(r) + " uses this rank's " + what + " (no privatization)");
        break;
      }
  }

  int node = 0, node_rank = 0, node_size = 0, num_nodes = 0;
  MPIX_Comm_get_node(xcomm, &node, &node_rank, &node_size, &num_nodes);
  if (node_size != node_size_expected || num_nodes != size / node_size_expected || node != rank / node_size_expected)
    report_wrong("node layout: node " + std::to_string(node) + " of " + std::to_string(num_nodes) + ", " +
                 std::to_string(node_size) + " ranks each; the platform has " + std::to_string(node_size_expected) +
                 " ranks on each host");

  int count = 0;
  family->algorithm_count(&count);
  int ran = 0, refused = 0;
  std::vector<std::string> patterns =
      family->name == "alltoall" ? std::vector<std::string>{"uniform"} : std::vector<std::string>{"uniform", "varied"};
  if (!only_pattern.empty()) {
    if (std::find(patterns.begin(), patterns.end(), only_pattern) == patterns.end()) {
      if (rank == 0) std::fprintf(stderr, "exchange_at_scale: %s has no pattern '%s'\n", argv[1], only_pattern.c_str());
      MPI_Finalize();
      return 2;
    }
    patterns.assign(1, only_pattern);
  }
  for (int i = 0; i < count; ++i) {
    const char* name = nullptr;
    const char* description = nullptr;
    int capabilities = 0;
    family->algorithm(i, &name, &description, &capabilities);
    const bool over_windows = (capabilities & MPIX_ALGORITHM_WINDOW) != 0;
    if (windows == "none" && over_windows) continue;
    if (!only_algorithm.empty() && only_algorithm != name) continue;
    for (const std::string& pattern : patterns)
      for (int block : blocks) {
        const std::string chosen = run_one(*family, xcomm, name, capabilities, pattern, block);
        if (chosen.empty()) {
          ++refused;
          continue;
        }
        ++ran;
        if (!agreed_everywhere(chosen)) report_wrong(family->name + " " + name + ": ranks disagree on what ran");
        if (rank == 0 && (capabilities & MPIX_ALGORITHM_SELECTS))
          std::printf("%s %s (%s, %d ints): ran %s\n", family->name.c_str(), name, pattern.c_str(), block,
                      chosen.c_str());
      }
  }
  if (ran == 0) report_wrong("no request ran: every algorithm asked for was refused or left out");
  MPIX_Comm_free(&xcomm);
  int wrong_anywhere = 0;
  MPI_Allreduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && wrong_anywhere == 0)
    std::printf("exchange_at_scale: %s on %d ranks, %d nodes of %d: %d requests ran and delivered every block, "
                "%d refused\n",
                family->name.c_str(), size, num_nodes, node_size, ran, refused);
  MPI_Finalize();
  return wrong_anywhere == 0 ? 0 : 1;
}
