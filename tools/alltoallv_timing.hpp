// Timing one uniform Alltoallv per competitor, shared by bench_alltoallv
// (Benchmark 1) and mpix_tune (which fits the selector's parameters to the
// same measurements): buffers, counts, warm-up, barrier, MPI_Wtime, the max
// over ranks, validation after timing.
#pragma once

#include <mpi.h>
#include <mpix/mpix.h>

#include "tools/timing.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace mpix_timing {

inline unsigned char pattern_byte(int src, int dst, long i) { return static_cast<unsigned char>(src * 31 + dst * 7 + i); }

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

struct Sample {
  double init = 0, iteration = 0;
  bool valid = true;
  std::string ran;  // the algorithm the request ran at the end (auto's choice)
};

// One Alltoallv to time: buffers, counts and displacements (in elements of
// type), how often, and how to check what arrived.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual void* send() const = 0;
  virtual void* recv() const = 0;
  virtual const int* sendcounts() const = 0;
  virtual const int* sdispls() const = 0;
  virtual const int* recvcounts() const = 0;
  virtual const int* rdispls() const = 0;
  virtual MPI_Datatype type() const = 0;
  virtual int iterations() const = 0;
  virtual int warmup() const = 0;
  virtual void clear_recv() const = 0;
  virtual bool received_correctly() const = 0;
};

// Which blocks of a uniform exchange carry data.
enum class Blocks { all, peers_only };

// One point of the uniform sweep: b bytes per peer, counts in bytes; every
// block, or only those to other ranks (a halo exchange's shape).
class Point final : public Exchange {
 public:
  Point(long bytes_per_peer, int iterations_override, bool mpix_memory, int rank, int size,
        Blocks blocks = Blocks::all)
      : per_peer_(bytes_per_peer),
        rank_(rank),
        size_(size),
        send_(std::max<long>(per_peer_ * size, 1), mpix_memory),
        recv_(std::max<long>(per_peer_ * size, 1), mpix_memory) {
    const long total = per_peer_ * size;
    // About 64 MiB moved per rank and timed block, within [30, 2000] iterations.
    iterations_ = iterations_override > 0
                      ? iterations_override
                      : static_cast<int>(std::clamp<long>((64L << 20) / std::max<long>(total, 1), 30, 2000));
    warmup_ = std::max(3, iterations_ / 10);
    counts_.assign(size, static_cast<int>(per_peer_));
    if (blocks == Blocks::peers_only) counts_[rank] = 0;
    displs_.resize(size);
    for (int p = 0; p < size; ++p) displs_[p] = static_cast<int>(p * per_peer_);
    for (int p = 0; p < size; ++p)
      for (long i = 0; i < per_peer_; ++i) send_[p * per_peer_ + i] = pattern_byte(rank, p, i);
  }

  long per_peer() const { return per_peer_; }
  void* send() const override { return send_.data(); }
  void* recv() const override { return recv_.data(); }
  const int* sendcounts() const override { return counts_.data(); }
  const int* sdispls() const override { return displs_.data(); }
  const int* recvcounts() const override { return counts_.data(); }
  const int* rdispls() const override { return displs_.data(); }
  MPI_Datatype type() const override { return MPI_BYTE; }
  int iterations() const override { return iterations_; }
  int warmup() const override { return warmup_; }
  void clear_recv() const override { recv_.fill(0xA5); }
  bool received_correctly() const override {
    for (int src = 0; src < size_; ++src)
      for (long i = 0; i < counts_[src]; ++i)
        if (recv_[src * per_peer_ + i] != pattern_byte(src, rank_, i)) return false;
    return true;
  }

 private:
  long per_peer_;
  int rank_, size_;
  int iterations_ = 0, warmup_ = 0;
  std::vector<int> counts_, displs_;
  Buffer send_, recv_;
};

// What one timed iteration includes. application: the loop users run, what
// the library is judged by -- write every cache line of the send blocks
// before Start, read every received cache line after Wait (a block written
// straight into a peer's memory is paid for again when the peer reads it);
// exchange: Start + Wait alone (what the paper reports); barrier: Start +
// Wait and an MPI_Barrier between calls (the style of OSU and most
// microbenchmarks, which re-synchronizes the ranks every call);
// first_calls: the barrier loop timed from a new request's first Start,
// with no warm-up, for as many calls as an OSU size sweep makes per size
// (first_calls_iterations): what a user who runs such a sweep sees,
// settled or not.
enum class Loop { application, exchange, barrier, first_calls };

inline const char* loop_name(Loop loop) {
  return loop == Loop::application ? "application"
         : loop == Loop::exchange  ? "exchange"
         : loop == Loop::barrier   ? "barrier"
                                   : "first_calls";
}

// "application", "exchange", "barrier" or "first_calls"; throws
// std::invalid_argument otherwise.
inline Loop parse_loop(const std::string& text) {
  if (text == "application") return Loop::application;
  if (text == "exchange") return Loop::exchange;
  if (text == "barrier") return Loop::barrier;
  if (text == "first_calls") return Loop::first_calls;
  throw std::invalid_argument("a loop is application, exchange, barrier or first_calls, not '" + text + "'");
}

// OSU's calls per size (50 untimed and 200 timed; 20 and 100 from 1 MiB),
// all of them timed in the first_calls loop.
inline int first_calls_iterations(long bytes_per_peer) { return bytes_per_peer >= (1L << 20) ? 120 : 250; }

// The untimed calls before the timed ones: none in the first_calls loop.
inline int warmup_calls(const Exchange& x, Loop loop) { return loop == Loop::first_calls ? 0 : x.warmup(); }

// The application's side of the loop around one exchange: its send blocks
// and received blocks, as byte spans, touched once per cache line.
class LoopBody {
 public:
  LoopBody(const Exchange& x, Loop loop)
      : application_(loop == Loop::application), barrier_(loop == Loop::barrier || loop == Loop::first_calls) {
    int ranks = 0, type_size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    MPI_Type_size(x.type(), &type_size);
    auto spans = [&](void* base, const int* counts, const int* displs, std::vector<Span>& out) {
      for (int p = 0; p < ranks; ++p)
        if (counts[p] > 0)
          out.push_back({static_cast<unsigned char*>(base) + static_cast<std::size_t>(displs[p]) * type_size,
                         static_cast<std::size_t>(counts[p]) * type_size});
    };
    spans(x.send(), x.sendcounts(), x.sdispls(), send_);
    spans(x.recv(), x.recvcounts(), x.rdispls(), recv_);
    for (const Span& s : send_)
      for (std::size_t i = 0; i < s.bytes; i += line) send_lines_.push_back(s.data[i]);
  }

  // Writes every cache line of the send blocks, as packing them does: a
  // store, with no read of the line first. A read first would cost an extra
  // transfer wherever the exchange left the line shared with the peer (MPI's
  // single copy reads it from this core's cache), which packing never pays.
  // It stores the bytes set up before timing, kept aside, so the data
  // validated after timing is that data (the test suites check that every
  // iteration's new data arrives).
  void produce() const {
    if (!application_) return;
    const unsigned char* value = send_lines_.data();
    for (const Span& s : send_)
      for (std::size_t i = 0; i < s.bytes; i += line) {
        volatile unsigned char* byte = s.data + i;
        *byte = *value++;
      }
  }
  // Reads every received cache line, as using the data does; or, in the
  // barrier loop, synchronizes the ranks.
  void consume() const {
    if (barrier_) MPI_Barrier(MPI_COMM_WORLD);
    if (!application_) return;
    unsigned sum = 0;
    for (const Span& s : recv_)
      for (std::size_t i = 0; i < s.bytes; i += line) sum += s.data[i];
    sink_ = sum;
  }

 private:
  static constexpr std::size_t line = 64;
  struct Span {
    unsigned char* data;
    std::size_t bytes;
  };
  bool application_, barrier_;
  std::vector<Span> send_, recv_;
  std::vector<unsigned char> send_lines_;  // the first byte of every send line, as set up
  static inline volatile unsigned sink_ = 0;
};

// One persistent request timed over x: init(info, &request) sets it up
// (MPIX_Alltoallv_init, MPIX_Neighbor_alltoallv_init over x's buffers),
// with the info key algorithm_key naming the algorithm.
// expected_iterations > 0: passed as the mpix_expected_iterations hint (what
// auto's break-even rule needs to know).
template <class Init>
Sample run_request(const Exchange& x, const std::string& name, const char* algorithm_key, Loop loop,
                   long expected_iterations, Init init) {
  Sample s;
  // auto settles its tournament within MPIX_AUTO_SETTLE (100) iterations:
  // what is timed is what it settled on (except in the first_calls loop).
  const int warmup = loop == Loop::first_calls ? 0 : name == "auto" ? std::max(x.warmup(), 100) : x.warmup();
  MPIX_Info* info = nullptr;
  MPIX_Info_init(&info);
  MPIX_Info_set(info, algorithm_key, name.c_str());
  if (expected_iterations > 0)
    MPIX_Info_set(info, "mpix_expected_iterations",
                  std::to_string(expected_iterations + warmup - warmup_calls(x, loop)).c_str());
  x.clear_recv();
  MPIX_Request* request = nullptr;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (init(info, &request) != MPI_SUCCESS) fail(std::string("request init failed for ") + name);
  const double init_seconds = MPI_Wtime() - t0;

  const LoopBody body(x, loop);
  for (int i = 0; i < warmup; ++i) {
    body.produce();
    MPIX_Start(request);
    MPIX_Wait(request, MPI_STATUS_IGNORE);
    body.consume();
  }
  x.clear_recv();
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (int i = 0; i < x.iterations(); ++i) {
    body.produce();
    MPIX_Start(request);
    MPIX_Wait(request, MPI_STATUS_IGNORE);
    body.consume();
  }
  s.iteration = max_over_ranks((MPI_Wtime() - t0) / x.iterations());
  int valid = x.received_correctly();
  char ran[MPIX_MAX_OBJECT_NAME];
  int length = 0;
  MPIX_Request_get_algorithm(request, ran, &length);
  s.ran.assign(ran, static_cast<std::size_t>(length));

  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  MPIX_Request_free(&request);
  s.init = max_over_ranks(init_seconds + MPI_Wtime() - t0);
  MPIX_Info_free(&info);
  MPI_Allreduce(MPI_IN_PLACE, &valid, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  s.valid = valid != 0;
  return s;
}

// x as an Alltoallv request running the registered algorithm name.
inline Sample run_algorithm(const Exchange& x, const std::string& name, MPIX_Comm* comm, Loop loop,
                            long expected_iterations = 0) {
  return run_request(x, name, "mpix_alltoallv_algorithm", loop, expected_iterations,
                     [&](MPIX_Info* info, MPIX_Request** request) {
                       return MPIX_Alltoallv_init(x.send(), x.sendcounts(), x.sdispls(), x.type(), x.recv(),
                                                  x.recvcounts(), x.rdispls(), x.type(), comm, info, request);
                     });
}

// pt as an Alltoall request (its uniform blocks, in bytes) running the
// registered Alltoall algorithm name.
inline Sample run_alltoall_algorithm(const Point& pt, const std::string& name, MPIX_Comm* comm, Loop loop,
                                     long expected_iterations = 0) {
  const int bytes = static_cast<int>(pt.per_peer());
  return run_request(pt, name, "mpix_alltoall_algorithm", loop, expected_iterations,
                     [&](MPIX_Info* info, MPIX_Request** request) {
                       return MPIX_Alltoall_init(pt.send(), bytes, MPI_BYTE, pt.recv(), bytes, MPI_BYTE, comm, info,
                                                 request);
                     });
}

// Every competitor, interleaved inside each repeat so that a drift of the
// machine hits all of them alike, each repeat starting with the next one so
// that none always runs first: run(competitor index, communicator) -> a
// Sample. The first repeat runs on a fresh communicator, whose pool holds no
// window yet: its T_init is a first init's.
template <class Run>
std::vector<std::vector<Sample>> run_interleaved(std::size_t competitors, int repeats, MPIX_Comm* comm, Run run) {
  std::vector<std::vector<Sample>> samples(competitors);
  for (int r = 0; r < repeats; ++r)
    for (std::size_t k = 0; k < competitors; ++k) {
      const std::size_t c = (k + static_cast<std::size_t>(r)) % competitors;
      MPIX_Comm* fresh = nullptr;
      if (r == 0) MPIX_Comm_init(&fresh, MPI_COMM_WORLD);
      samples[c].push_back(run(c, r == 0 ? fresh : comm));
      if (r == 0) MPIX_Comm_free(&fresh);
    }
  return samples;
}

// One competitor's repeats in microseconds: medians, the first init, and
// what auto ran (every distinct choice, '|'-separated).
struct Summary {
  double init_us = 0, init_first_us = 0, iteration_us = 0;
  bool valid = true;
  std::string ran;
};

inline Summary summarize(const std::vector<Sample>& samples, const std::string& competitor) {
  Summary summary;
  std::vector<double> init, iteration;
  for (const Sample& s : samples) {
    init.push_back(s.init * 1e6);
    iteration.push_back(s.iteration * 1e6);
    summary.valid = summary.valid && s.valid;
    if (!s.ran.empty() && s.ran != competitor && summary.ran.find(s.ran) == std::string::npos)
      summary.ran += (summary.ran.empty() ? "" : "|") + s.ran;
  }
  summary.init_us = median(init);
  summary.init_first_us = init.front();
  summary.iteration_us = median(iteration);
  return summary;
}

}  // namespace mpix_timing
