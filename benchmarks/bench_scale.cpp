// bench_scale: Benchmark 3's measuring program, one point per line of JSON
// (rank 0), for a simulated cluster (SimGrid SMPI) or any MPI.
//
// For each block size and each algorithm asked for: the exchange
// (Alltoall, Alltoallv with uniform blocks, or the Alltoallv of an FFT
// pencil transpose on row and column sub-communicators) built once, timed
// over --iterations Start/Wait pairs after a warm-up (the slowest rank's
// time, between barriers), its data checked after the last one. "mpi" is
// MPI's own blocking call in the same loop. auto first runs until its
// tournament settles: the iterations and time that took, and its choice,
// are reported (and checked to be the same on every rank).
//
// Reported per point: seconds per iteration; init seconds (slowest rank),
// and its communicator's MPIX_Comm_init;
// auto's settling; off-node messages and bytes the busiest rank sends per
// iteration (counted by the algorithm where it aggregates, else one message
// per off-node peer with data); the algorithm's refusal where it refuses;
// wrong elements where the data is wrong (then no time is reported); the
// heap bytes per rank that a request holds (what freeing it returns) and
// that the communicator holds after its requests are freed.
#include <malloc.h>
#include <mpi.h>
#include <mpix/mpix.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/alltoall/node_aggregated.hpp"
#include "src/mpi_implementation.hpp"
#include "tools/command_line.hpp"

namespace {

struct Options {
  std::string collective = "alltoall";  // alltoall | alltoallv | pencil
  std::vector<long> bytes{8, 1024, 65536};
  std::vector<std::string> algorithms;
  int iterations = 5;
  int settle_limit = 400;
};

int world_rank = 0;

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

std::string error_text(int code) {
  char text[MPIX_MAX_ERROR_STRING] = {};
  int length = 0;
  MPIX_Error_string(code, text, &length);
  return text;
}

double max_over(double v, MPI_Comm comm) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

long long sum_over(long long v, MPI_Comm comm) {
  long long s = 0;
  MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, comm);
  return s;
}

// The heap bytes in use per rank, the mean over MPI_COMM_WORLD, read while
// every rank waits between two barriers: nothing allocates between them.
// Under SMPI the ranks are actors of one process, whose heap (mallinfo2)
// holds every rank's: rank 0 reads it once. Elsewhere each rank reads its
// own. Every rank calls it at the same point of the program (the pencil's
// rows and columns each do the same thing at the same time).
double heap_per_rank() {
  const bool one_process = mpix::mpi_implementation::ranks_are_not_processes() != nullptr;
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  long long mine = 0;
  if (!one_process || world_rank == 0) {
    const struct mallinfo2 heap = mallinfo2();
    mine = static_cast<long long>(heap.uordblks + heap.hblkhd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return static_cast<double>(sum_over(mine, MPI_COMM_WORLD)) / size;
}

unsigned char value(int src, int dst, long k, int it) {
  return static_cast<unsigned char>((src * 131 + dst * 31 + k * 7 + it * 17) & 0xff);
}

// One exchange: its communicator, and per peer the bytes each way (the
// same both ways in every collective here).
struct Exchange {
  MPI_Comm comm = MPI_COMM_NULL;
  MPIX_Comm* xcomm = nullptr;
  double heap_before_comm = 0;  // heap_per_rank() before MPIX_Comm_init
  double comm_init_s = 0;       // MPIX_Comm_init's time (the slowest rank)
  long block = 0;
  int size = 0, rank = 0;
  std::vector<unsigned char> send, recv;
  std::vector<int> counts, displs;
};

// The busiest rank's off-node messages and bytes per iteration when each
// peer with data is one message.
void direct_off_node(const Exchange& x, long long& messages, long long& bytes) {
  int node = 0, node_rank = 0, node_size = 0, nodes = 0;
  MPIX_Comm_get_node(x.xcomm, &node, &node_rank, &node_size, &nodes);
  std::vector<int> node_of(static_cast<std::size_t>(x.size));
  MPI_Allgather(&node, 1, MPI_INT, node_of.data(), 1, MPI_INT, x.comm);
  long long m = 0, b = 0;
  for (int r = 0; r < x.size; ++r)
    if (node_of[r] != node && x.counts[r] > 0) {
      ++m;
      b += x.counts[r];
    }
  long long local[2] = {m, b}, most[2] = {};
  MPI_Allreduce(local, most, 2, MPI_LONG_LONG, MPI_MAX, x.comm);
  messages = most[0];
  bytes = most[1];
}

struct Point {
  std::string algorithm, ran, refused;
  double init_s = 0, iteration_s = 0, settle_s = 0;
  double request_bytes = 0, comm_bytes = 0;  // heap per rank
  double comm_init_s = 0;                     // the communicator's MPIX_Comm_init
  int settle_iterations = 0;
  long long wrong = 0, off_node_messages = 0, off_node_bytes = 0;
  bool agreed = true;
};

void fill(Exchange& x, int it) {
  for (int r = 0; r < x.size; ++r)
    for (long k = 0; k < x.counts[r]; ++k) x.send[x.displs[r] + k] = value(x.rank, r, k, it);
}

long long check(const Exchange& x, int it) {
  long long wrong = 0;
  for (int r = 0; r < x.size; ++r)
    for (long k = 0; k < x.counts[r]; ++k) wrong += x.recv[x.displs[r] + k] != value(r, x.rank, k, it);
  return wrong;
}

// The timed loop: `iterations` calls of one exchange, each followed by a
// read of the clock, as an application's loop that times its steps does
// (and as auto's own timing does inside its Starts). Every competitor runs
// in this one loop. The model needs it: SMPI adds a few nanoseconds of
// simulated time at each MPI_Wtime (smpi/wtime), and on one node the
// window algorithms' periods take one of a few lengths depending on
// offsets between ranks that small (docs/simulation.md), so a loop
// without the reads would time a forced algorithm in a state that auto,
// which reads the clock, cannot reach. Returns seconds per iteration, the
// slowest rank's.
template <typename Call>
double timed_iterations(Call&& exchange, int iterations, MPI_Comm comm) {
  MPI_Barrier(comm);
  const double began = MPI_Wtime();
  double now = began;
  for (int it = 1; it <= iterations; ++it) {
    exchange();
    now = MPI_Wtime();
  }
  return max_over(now - began, comm) / iterations;
}

Point run_mpi(Exchange& x, const Options& o, bool alltoall) {
  Point p;
  p.algorithm = p.ran = "mpi";
  auto call = [&] {
    if (alltoall)
      MPI_Alltoall(x.send.data(), static_cast<int>(x.block), MPI_BYTE, x.recv.data(), static_cast<int>(x.block),
                   MPI_BYTE, x.comm);
    else
      MPI_Alltoallv(x.send.data(), x.counts.data(), x.displs.data(), MPI_BYTE, x.recv.data(), x.counts.data(),
                    x.displs.data(), MPI_BYTE, x.comm);
  };
  fill(x, 0);
  call();
  p.iteration_s = timed_iterations(call, o.iterations, x.comm);
  fill(x, 1);
  call();
  p.wrong = sum_over(check(x, 1), x.comm);
  direct_off_node(x, p.off_node_messages, p.off_node_bytes);
  return p;
}

Point run_library(Exchange& x, const Options& o, const std::string& algorithm, bool alltoall) {
  Point p;
  p.algorithm = algorithm;
  MPIX_Info* info = nullptr;
  MPIX_Info_init(&info);
  MPIX_Info_set(info, alltoall ? "mpix_alltoall_algorithm" : "mpix_alltoallv_algorithm", algorithm.c_str());
  MPIX_Request* request = nullptr;
  MPI_Barrier(x.comm);
  double began = MPI_Wtime();
  const int rc = alltoall ? MPIX_Alltoall_init(x.send.data(), static_cast<int>(x.block), MPI_BYTE, x.recv.data(),
                                               static_cast<int>(x.block), MPI_BYTE, x.xcomm, info, &request)
                          : MPIX_Alltoallv_init(x.send.data(), x.counts.data(), x.displs.data(), MPI_BYTE,
                                                x.recv.data(), x.counts.data(), x.displs.data(), MPI_BYTE, x.xcomm,
                                                info, &request);
  p.init_s = max_over(MPI_Wtime() - began, x.comm);
  MPIX_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    p.refused = error_text(rc);
    return p;
  }
  const std::uint64_t aggregated_before = mpix::node_aggregated_off_node_messages();
  auto exchange = [&] {
    MPIX_Start(request);
    MPIX_Wait(request, MPI_STATUS_IGNORE);
  };
  // Until it runs its choice (at once for a forced algorithm).
  fill(x, 0);
  MPI_Barrier(x.comm);
  began = MPI_Wtime();
  int settled = 0;
  MPIX_Request_is_settled(request, &settled);
  while (!settled && p.settle_iterations < o.settle_limit) {
    exchange();
    ++p.settle_iterations;
    MPIX_Request_is_settled(request, &settled);
  }
  p.settle_s = max_over(MPI_Wtime() - began, x.comm);
  exchange();  // warm-up of what it settled on
  const std::uint64_t aggregated_warm = mpix::node_aggregated_off_node_messages();
  p.iteration_s = timed_iterations(exchange, o.iterations, x.comm);
  const std::uint64_t aggregated = mpix::node_aggregated_off_node_messages() - aggregated_warm;
  fill(x, 1);
  std::fill(x.recv.begin(), x.recv.end(), 0);
  exchange();
  p.wrong = sum_over(check(x, 1), x.comm);
  char ran[MPIX_MAX_OBJECT_NAME] = {};
  int length = 0;
  MPIX_Request_get_algorithm(request, ran, &length);
  p.ran = ran;
  // The same choice everywhere: every rank's name, compared with rank 0's.
  std::vector<char> mine(MPIX_MAX_OBJECT_NAME, 0), first(MPIX_MAX_OBJECT_NAME, 0);
  std::memcpy(mine.data(), ran, static_cast<std::size_t>(length));
  first = mine;
  MPI_Bcast(first.data(), MPIX_MAX_OBJECT_NAME, MPI_CHAR, 0, x.comm);
  int same = first == mine ? 1 : 0, everywhere = 0;
  MPI_Allreduce(&same, &everywhere, 1, MPI_INT, MPI_MIN, x.comm);
  p.agreed = everywhere != 0;
  // Aggregated where any rank's leader sent for its node (a count only
  // leaders keep).
  const bool aggregates = mpix::node_aggregated_off_node_messages() != aggregated_before;
  long long mine_count = aggregates ? static_cast<long long>(aggregated) / o.iterations : -1, most = 0;
  MPI_Allreduce(&mine_count, &most, 1, MPI_LONG_LONG, MPI_MAX, x.comm);
  if (most >= 0) {
    p.off_node_messages = most;
    p.off_node_bytes = -1;  // aggregated: the leaders' messages carry their node's blocks
  } else {
    direct_off_node(x, p.off_node_messages, p.off_node_bytes);
  }
  const double heap_held = heap_per_rank();
  MPIX_Request_free(&request);
  const double heap_after = heap_per_rank();
  p.request_bytes = heap_held - heap_after;
  p.comm_bytes = heap_after - x.heap_before_comm;
  p.comm_init_s = x.comm_init_s;
  return p;
}

void print(const Point& p, const Options& o, const char* part, long block, int ranks, int nodes, int node_size) {
  if (world_rank != 0) return;
  std::ostringstream line;
  line << "{\"collective\":\"" << o.collective << "\",\"part\":\"" << part << "\",\"ranks\":" << ranks
       << ",\"nodes\":" << nodes << ",\"node_size\":" << node_size << ",\"block_bytes\":" << block
       << ",\"algorithm\":\"" << json_escape(p.algorithm) << "\"";
  if (!p.refused.empty()) {
    line << ",\"refused\":\"" << json_escape(p.refused) << "\"}";
  } else {
    line << ",\"ran\":\"" << json_escape(p.ran) << "\",\"agreed\":" << (p.agreed ? "true" : "false")
         << ",\"wrong\":" << p.wrong << ",\"init_s\":" << p.init_s << ",\"settle_iterations\":" << p.settle_iterations
         << ",\"settle_s\":" << p.settle_s << ",\"iteration_s\":" << p.iteration_s
         << ",\"off_node_messages\":" << p.off_node_messages << ",\"off_node_bytes\":" << p.off_node_bytes;
    if (p.algorithm != "mpi")
      line << ",\"request_bytes\":" << p.request_bytes << ",\"comm_bytes\":" << p.comm_bytes
           << ",\"comm_init_s\":" << p.comm_init_s;
    line << "}";
  }
  std::printf("%s\n", line.str().c_str());
  std::fflush(stdout);
}

// The exchanges of one collective on comm: block bytes to every peer.
void measure(MPI_Comm comm, const char* part, const Options& o, long block) {
  Exchange x;
  x.comm = comm;
  x.block = block;
  MPI_Comm_size(comm, &x.size);
  MPI_Comm_rank(comm, &x.rank);
  x.counts.assign(static_cast<std::size_t>(x.size), static_cast<int>(block));
  x.displs.resize(static_cast<std::size_t>(x.size));
  for (int r = 0; r < x.size; ++r) x.displs[r] = static_cast<int>(r * block);
  x.send.resize(static_cast<std::size_t>(x.size * block));
  x.recv.resize(x.send.size());
  x.heap_before_comm = heap_per_rank();
  MPI_Barrier(comm);
  const double began = MPI_Wtime();
  MPIX_Comm_init(&x.xcomm, comm);
  x.comm_init_s = max_over(MPI_Wtime() - began, comm);
  int node = 0, node_rank = 0, node_size = 0, nodes = 0;
  MPIX_Comm_get_node(x.xcomm, &node, &node_rank, &node_size, &nodes);
  const bool alltoall = o.collective == "alltoall";
  for (const std::string& algorithm : o.algorithms) {
    const Point p = algorithm == "mpi" ? run_mpi(x, o, alltoall) : run_library(x, o, algorithm, alltoall);
    print(p, o, part, block, x.size, nodes, node_size);
  }
  MPIX_Comm_free(&x.xcomm);
}

// A communicator and a request made and freed once before any point: what
// the library allocates once per process on first use (its registry, its
// configuration, the cost model's tables) is then not counted as the first
// point's communicator.
void warm_up_library() {
  MPIX_Comm* xcomm = nullptr;
  MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> send(static_cast<std::size_t>(size)), recv(send.size());
  MPIX_Info* info = nullptr;
  MPIX_Info_init(&info);
  MPIX_Info_set(info, "mpix_alltoall_algorithm", "native");  // MPI's call: no window, no tournament
  MPIX_Request* request = nullptr;
  if (MPIX_Alltoall_init(send.data(), 1, MPI_INT, recv.data(), 1, MPI_INT, xcomm, info, &request) == MPI_SUCCESS) {
    MPIX_Start(request);
    MPIX_Wait(request, MPI_STATUS_IGNORE);
    MPIX_Request_free(&request);
  }
  MPIX_Info_free(&info);
  MPIX_Comm_free(&xcomm);
}

std::vector<long> parse_longs(const std::string& text) {
  std::vector<long> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stol(item));
  return out;
}

std::vector<std::string> parse_names(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  Options o;
  std::string bytes = "8,1024,65536", algorithms = "mpi,auto";
  CLI::App app{"bench_scale: Benchmark 3's points, one JSON line each"};
  app.add_option("--collective", o.collective, "alltoall, alltoallv or pencil")
      ->check(CLI::IsMember({"alltoall", "alltoallv", "pencil"}));
  app.add_option("--bytes", bytes, "block bytes per peer, comma-separated");
  app.add_option("--algorithms", algorithms, "mpi (MPI's own call) and registry names, comma-separated");
  app.add_option("--iterations", o.iterations, "timed iterations per point")->check(CLI::PositiveNumber);
  app.add_option("--settle-limit", o.settle_limit, "iterations auto may take to settle")->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (world_rank == 0) app.exit(e);
    MPI_Finalize();
    return e.get_exit_code();
  }
  o.bytes = parse_longs(bytes);
  // "all": every registered algorithm of the family, in registry order.
  for (const std::string& name : parse_names(algorithms)) {
    if (name != "all") {
      o.algorithms.push_back(name);
      continue;
    }
    const bool alltoall = o.collective == "alltoall";
    int count = 0;
    (alltoall ? MPIX_Alltoall_algorithm_count : MPIX_Alltoallv_algorithm_count)(&count);
    for (int i = 0; i < count; ++i) {
      const char* registered = nullptr;
      int capabilities = 0;
      (alltoall ? MPIX_Alltoall_algorithm : MPIX_Alltoallv_algorithm)(i, &registered, nullptr, &capabilities);
      o.algorithms.push_back(registered);
    }
  }
  warm_up_library();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (long block : o.bytes) {
    if (o.collective != "pencil") {
      measure(MPI_COMM_WORLD, "all", o, block);
      continue;
    }
    // A pencil transpose of a 3D FFT on a rows x columns grid of ranks
    // (rows the largest divisor of size up to its square root): the
    // Alltoallv among each row's ranks, then among each column's.
    int rows = 1;
    for (int d = 1; d * d <= size; ++d)
      if (size % d == 0) rows = d;
    const int columns = size / rows;
    MPI_Comm row = MPI_COMM_NULL, column = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank / columns, world_rank, &row);
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % columns, world_rank, &column);
    MPI_Comm_set_errhandler(row, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(column, MPI_ERRORS_RETURN);
    Options alltoallv = o;
    alltoallv.collective = "pencil";
    measure(row, "row", alltoallv, block);
    measure(column, "column", alltoallv, block);
    MPI_Comm_free(&row);
    MPI_Comm_free(&column);
  }
  MPI_Finalize();
  return 0;
}
