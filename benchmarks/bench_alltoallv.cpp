// Benchmark 1 (paper §4), one launch: uniform Alltoallv, a sweep of sizes,
// every competitor in the same run. Per point and competitor: T_init (init +
// free; the median over repeats is a re-init over the same buffers, which
// reuses pooled windows; the first repeat, on a fresh communicator, gives a
// first init's), per-iteration time (barrier, MPI_Wtime, max over ranks, median of
// repeats), validation of the received data after timing. Competitors run
// interleaved inside each repeat, so drifts hit all of them alike.
// benchmark1.py runs several launches and reports the medians across them.
#include <mpix/mpix.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "collectives/registry.hpp"

namespace {

struct Options {
  std::vector<long> sizes = {8, 64, 512, 4096, 32768, 262144, 2097152};
  std::vector<std::string> competitors;  // registry names and "memcpy"
  std::string scaling = "weak";          // weak: size per peer; strong: size per rank in total
  std::string memory = "mpix";           // mpix: MPIX_Alloc_mem buffers; heap: std::vector
  int repeats = 5;
  int iterations = 0;  // 0: chosen per size
  std::string csv;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "bench_alltoallv: %s\n"
               "usage: bench_alltoallv [--sizes B,B,...] [--algorithms a,b,memcpy] [--scaling weak|strong]\n"
               "                       [--memory mpix|heap] [--repeats R] [--iterations N] [--csv FILE]\n",
               why);
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "bench_alltoallv: %s\n", why.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

Options parse(int argc, char** argv) {
  Options o;
  for (const auto* a : mpix::alltoallv_algorithms()) o.competitors.emplace_back(a->name);
  o.competitors.emplace_back("memcpy");
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
    const std::string value = argv[++i];
    if (arg == "--sizes") {
      o.sizes.clear();
      for (const auto& s : split(value)) o.sizes.push_back(std::stol(s));
    } else if (arg == "--algorithms") {
      o.competitors = split(value);
    } else if (arg == "--scaling") {
      o.scaling = value;
      if (value != "weak" && value != "strong") usage("--scaling takes weak or strong");
    } else if (arg == "--memory") {
      o.memory = value;
      if (value != "mpix" && value != "heap") usage("--memory takes mpix or heap");
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
    if (c != "memcpy" && mpix::find_alltoallv_algorithm(c) == nullptr)
      usage(("unknown algorithm " + c + "; registered: " + mpix::alltoallv_algorithm_names()).c_str());
  }
  if (o.repeats < 1) usage("--repeats must be at least 1");
  return o;
}

double max_over_ranks(double t) {
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

unsigned char pattern_byte(int src, int dst, long i) { return static_cast<unsigned char>(src * 31 + dst * 7 + i); }

// A send or receive buffer: from MPIX_Alloc_mem (node peers can map it, so
// on-node copies go straight into it) or from the C++ heap (CMA or MPI).
class Buffer {
 public:
  Buffer(std::size_t bytes, bool mpix_memory) : bytes_(bytes) {
    if (mpix_memory) {
      if (MPIX_Alloc_mem(static_cast<MPI_Aint>(bytes), nullptr, &data_) != MPI_SUCCESS)
        fail("MPIX_Alloc_mem of " + std::to_string(bytes) + " bytes failed");
    } else {
      heap_.resize(bytes);
      data_ = heap_.data();
    }
  }
  ~Buffer() {
    if (heap_.empty()) MPIX_Free_mem(data_);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  unsigned char* data() const { return data_; }
  unsigned char& operator[](std::size_t i) const { return data_[i]; }
  void fill(unsigned char value) const { std::memset(data_, value, bytes_); }

 private:
  std::size_t bytes_;
  std::vector<unsigned char> heap_;
  unsigned char* data_ = nullptr;
};

// One point of the sweep: buffers, counts and displacements in bytes.
struct Point {
  long per_peer = 0;
  int iterations = 0;
  int warmup = 0;
  std::vector<int> counts, displs;
  Buffer send, recv;

  Point(long bytes_per_peer, int iterations_override, bool mpix_memory, int rank, int size)
      : per_peer(bytes_per_peer),
        send(std::max<long>(per_peer * size, 1), mpix_memory),
        recv(std::max<long>(per_peer * size, 1), mpix_memory) {
    const long total = per_peer * size;
    // About 64 MiB moved per rank and timed block, within [30, 2000] iterations.
    iterations = iterations_override > 0
                     ? iterations_override
                     : static_cast<int>(std::clamp<long>((64L << 20) / std::max<long>(total, 1), 30, 2000));
    warmup = std::max(3, iterations / 10);
    counts.assign(size, static_cast<int>(per_peer));
    displs.resize(size);
    for (int p = 0; p < size; ++p) displs[p] = static_cast<int>(p * per_peer);
    for (int p = 0; p < size; ++p)
      for (long i = 0; i < per_peer; ++i) send[p * per_peer + i] = pattern_byte(rank, p, i);
  }

  bool received_correctly(int rank, int size) const {
    for (int src = 0; src < size; ++src)
      for (long i = 0; i < per_peer; ++i)
        if (recv[src * per_peer + i] != pattern_byte(src, rank, i)) return false;
    return true;
  }
};

struct Sample {
  double init = 0, iteration = 0;
  bool valid = true;
};

Sample run_memcpy(Point& pt) {
  Sample s;
  const std::size_t bytes = static_cast<std::size_t>(pt.per_peer) * pt.counts.size();
  for (int i = 0; i < pt.warmup; ++i) std::memcpy(pt.recv.data(), pt.send.data(), bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < pt.iterations; ++i) std::memcpy(pt.recv.data(), pt.send.data(), bytes);
  s.iteration = max_over_ranks((MPI_Wtime() - t0) / pt.iterations);
  s.valid = std::memcmp(pt.recv.data(), pt.send.data(), bytes) == 0;
  return s;
}

Sample run_algorithm(Point& pt, const std::string& name, MPIX_Comm* comm, int rank, int size) {
  Sample s;
  MPIX_Info* info = nullptr;
  MPIX_Info_init(&info);
  MPIX_Info_set(info, "mpix_alltoallv_algorithm", name.c_str());
  pt.recv.fill(0xA5);
  MPIX_Request* request = nullptr;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPIX_Alltoallv_init(pt.send.data(), pt.counts.data(), pt.displs.data(), MPI_BYTE, pt.recv.data(),
                      pt.counts.data(), pt.displs.data(), MPI_BYTE, comm, info, &request);
  const double init = MPI_Wtime() - t0;

  for (int i = 0; i < pt.warmup; ++i) {
    MPIX_Start(request);
    MPIX_Wait(request, MPI_STATUS_IGNORE);
  }
  pt.recv.fill(0xA5);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (int i = 0; i < pt.iterations; ++i) {
    MPIX_Start(request);
    MPIX_Wait(request, MPI_STATUS_IGNORE);
  }
  s.iteration = max_over_ranks((MPI_Wtime() - t0) / pt.iterations);
  int valid = pt.received_correctly(rank, size);

  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  MPIX_Request_free(&request);
  s.init = max_over_ranks(init + MPI_Wtime() - t0);
  MPIX_Info_free(&info);
  MPI_Allreduce(MPI_IN_PLACE, &valid, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  s.valid = valid != 0;
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

  std::FILE* csv = nullptr;
  if (rank == 0 && !options.csv.empty()) {
    csv = std::fopen(options.csv.c_str(), "w");
    if (csv == nullptr) usage(("cannot write " + options.csv).c_str());
    std::fprintf(csv, "ranks,scaling,memory,bytes_per_peer,algorithm,iterations,repeats,t_init_us,t_init_first_us,t_iter_us,"
                 "valid\n");
  }
  if (rank == 0)
    std::printf("%-8s %-12s %-20s %8s %12s %12s %s\n", "ranks", "bytes/peer", "algorithm", "iters", "T_init[us]",
                "T_iter[us]", "valid");

  bool all_valid = true;
  for (const long size_arg : options.sizes) {
    const long per_peer = options.scaling == "weak" ? size_arg : std::max<long>(1, size_arg / size);
    Point pt(per_peer, options.iterations, options.memory == "mpix", rank, size);
    std::vector<std::vector<Sample>> samples(options.competitors.size());
    for (int r = 0; r < options.repeats; ++r) {
      for (std::size_t c = 0; c < options.competitors.size(); ++c) {
        const std::string& name = options.competitors[c];
        if (name == "memcpy") {
          samples[c].push_back(run_memcpy(pt));
          continue;
        }
        // The first repeat runs on a fresh communicator, whose pool holds no
        // window yet: its T_init is a first init's.
        MPIX_Comm* fresh = nullptr;
        if (r == 0) MPIX_Comm_init(&fresh, MPI_COMM_WORLD);
        samples[c].push_back(run_algorithm(pt, name, r == 0 ? fresh : comm, rank, size));
        if (r == 0) MPIX_Comm_free(&fresh);
      }
    }
    for (std::size_t c = 0; c < options.competitors.size(); ++c) {
      std::vector<double> init, iter;
      bool valid = true;
      for (const Sample& s : samples[c]) {
        init.push_back(s.init * 1e6);
        iter.push_back(s.iteration * 1e6);
        valid = valid && s.valid;
      }
      all_valid = all_valid && valid;
      if (rank != 0) continue;
      const char* name = options.competitors[c].c_str();
      std::printf("%-8d %-12ld %-20s %8d %12.2f %12.3f %s\n", size, per_peer, name, pt.iterations, median(init),
                  median(iter), valid ? "ok" : "WRONG DATA");
      if (csv)
        std::fprintf(csv, "%d,%s,%s,%ld,%s,%d,%d,%.3f,%.3f,%.4f,%d\n", size, options.scaling.c_str(),
                     options.memory.c_str(), per_peer, name,
                     pt.iterations, options.repeats, median(init), init.front(), median(iter), valid ? 1 : 0);
    }
  }
  if (csv) std::fclose(csv);
  MPIX_Comm_free(&comm);
  MPI_Finalize();
  return all_valid ? 0 : 1;
}
