// RMA-MT benchmark (rma-mt-benchmarks §III) on MPIX windows, 2 ranks: rank 0
// is the origin, rank 1 the target (halo: both). Cases:
//  - latency: one op + its completion, sync = fence | pscw | lock | lock_all,
//    op = put | get, threads 1-4 (lock_all; each thread its own loop);
//  - bandwidth and message rate: 32 ops then one flush, 8 B ... 1 MiB;
//  - halo: both ranks put to each other, closed by fence | pscw | lock_all;
//  - scope: 4 threads, 8 B put + flush: thread-scope MPIX window vs a plain
//    MPI window (and a process-scope MPIX window);
//  - order: data put then flag put: ordered MPIX window (no flush) vs
//    put + flush + flag on a plain MPI window and on an unordered MPIX window,
//    and vs put + flush + flag + flush on a plain MPI window: what a program
//    writes for the ordered window's guarantee (the flag lands before the
//    next round's data), which MPI RMA offers no cheaper way to get;
//  - ifence: the call time of MPIX_Win_ifence when the peer is 50 ms late.
// Each timed case is followed by a check of the target's bytes. order and
// ifence issue from one thread; run alone, they run as a single-threaded
// program would (MPI_THREAD_SINGLE: under MPI_THREAD_MULTIPLE, MPICH takes a
// lock in every call); every other case needs MPI_THREAD_MULTIPLE.
#include <chrono>
#include <cstring>

#include "benchmarks/rma_bench.hpp"
#include "tools/command_line.hpp"

namespace {

constexpr long max_bytes = 1 << 20;
constexpr int max_threads = 4;
constexpr int batch = 32;  // operations per flush in bandwidth / rate

int me = 0;
int repeats = 11;

char pattern(long bytes, int thread) { return static_cast<char>((bytes + 13 * thread) & 0x7f); }

// An MPIX window over user memory (created) or library memory (allocated:
// shared memory on the node); `memory` is what the target reads.
struct MpixWindow {
  MPIX_Win* win = nullptr;
  std::vector<char> own;
  char* memory = nullptr;
  MpixWindow(MPIX_Comm* comm, long bytes, std::vector<std::pair<const char*, const char*>> hints,
             bool allocated = false) {
    MPIX_Info* info = nullptr;
    MPIX_Info_init(&info);
    for (auto [k, v] : hints) MPIX_Info_set(info, k, v);
    if (allocated) {
      bench::check(MPIX_Win_allocate(bytes, 1, info, comm, &memory, &win), "MPIX_Win_allocate");
    } else {
      own.resize(bytes);
      memory = own.data();
      bench::check(MPIX_Win_create(memory, bytes, 1, info, comm, &win), "MPIX_Win_create");
    }
    MPIX_Info_free(&info);
  }
  ~MpixWindow() { MPIX_Win_free(&win); }
  // Rank 1's region of thread k holds its pattern for `bytes`.
  bool holds(long bytes, int threads, long stride) const {
    if (me != 1) return true;
    for (int k = 0; k < threads; ++k)
      for (long i = 0; i < bytes; ++i)
        if (memory[k * stride + i] != pattern(bytes, k)) return false;
    return true;
  }
};

struct Origin {
  std::vector<std::vector<char>> buffers;
  explicit Origin(long bytes) : buffers(max_threads, std::vector<char>(bytes)) {}
  char* fill(long bytes, int k) {
    std::memset(buffers[k].data(), pattern(bytes, k), bytes);
    return buffers[k].data();
  }
};

void op(const std::string& kind, char* buf, long bytes, MPI_Aint disp, MPIX_Win* win) {
  if (kind == "put")
    bench::check(MPIX_Put(buf, bytes, MPI_BYTE, 1, disp, bytes, MPI_BYTE, win), "MPIX_Put");
  else
    bench::check(MPIX_Get(buf, bytes, MPI_BYTE, 1, disp, bytes, MPI_BYTE, win), "MPIX_Get");
}

void latency(bench::Csv& csv, MPIX_Comm* comm, Origin& origin) {
  MPI_Group world, peer;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int other = 1 - me;
  MPI_Group_incl(world, 1, &other, &peer);
  MpixWindow w(comm, max_threads * 65536, {{"mpi_win_scope", "thread"}});
  for (const std::string kind : {"put", "get"})
    for (const std::string sync : {"fence", "pscw", "lock", "lock_all"})
      for (int threads = 1; threads <= (sync == "lock_all" ? max_threads : 1); ++threads)
        for (long bytes : {8L, 4096L, 65536L}) {
          for (int k = 0; k < threads; ++k) origin.fill(bytes, k);
          if (me == 1 && kind == "get")
            for (int k = 0; k < threads; ++k) std::memset(&w.memory[k * 65536], pattern(bytes, k), bytes);
          if (sync == "lock_all" && me == 0) bench::check(MPIX_Win_lock_all(0, w.win), "lock_all");
          if (sync == "fence") bench::check(MPIX_Win_fence(MPI_MODE_NOPRECEDE, w.win), "fence");
          const bench::Timing t = bench::measure(repeats, bench::iterations_for(sync == "fence" ? 20 : 3), [&](int n) {
            if (sync == "fence") {
              for (int i = 0; i < n; ++i) {
                if (me == 0) op(kind, origin.buffers[0].data(), bytes, 0, w.win);
                bench::check(MPIX_Win_fence(0, w.win), "fence");
              }
            } else if (sync == "pscw") {
              for (int i = 0; i < n; ++i) {
                if (me == 1) {
                  bench::check(MPIX_Win_post(peer, 0, w.win), "post");
                  bench::check(MPIX_Win_wait(w.win), "wait");
                } else {
                  bench::check(MPIX_Win_start(peer, 0, w.win), "start");
                  op(kind, origin.buffers[0].data(), bytes, 0, w.win);
                  bench::check(MPIX_Win_complete(w.win), "complete");
                }
              }
            } else if (me == 0) {
              bench::on_threads(threads, [&](int k) {
                for (int i = 0; i < n; ++i) {
                  if (sync == "lock") bench::check(MPIX_Win_lock(MPI_LOCK_SHARED, 1, 0, w.win), "lock");
                  op(kind, origin.buffers[k].data(), bytes, k * 65536, w.win);
                  if (sync == "lock")
                    bench::check(MPIX_Win_unlock(1, w.win), "unlock");
                  else
                    bench::check(MPIX_Win_flush(1, w.win), "flush");
                }
              });
            }
          });
          if (sync == "fence") bench::check(MPIX_Win_fence(MPI_MODE_NOSUCCEED, w.win), "fence");
          if (sync == "lock_all" && me == 0) bench::check(MPIX_Win_unlock_all(w.win), "unlock_all");
          MPI_Barrier(MPI_COMM_WORLD);
          bool ok = kind == "put" ? w.holds(bytes, threads, 65536) : true;
          if (kind == "get" && me == 0)
            for (int k = 0; k < threads; ++k) ok &= origin.buffers[k][bytes - 1] == pattern(bytes, k);
          csv.row("rma_mt", "latency", "mpix_created", sync, kind, threads, bytes, "us", t, bench::all_valid(ok));
          MPI_Barrier(MPI_COMM_WORLD);
        }
  MPI_Group_free(&peer);
  MPI_Group_free(&world);
}

void bandwidth(bench::Csv& csv, MPIX_Comm* comm, Origin& origin) {
  MpixWindow w(comm, max_threads * max_bytes, {{"mpi_win_scope", "thread"}});
  for (const std::string kind : {"put", "get"})
    for (int threads : {1, max_threads})
      for (long bytes : {8L, 512L, 4096L, 65536L, 1048576L}) {
        for (int k = 0; k < threads; ++k) origin.fill(bytes, k);
        if (me == 1)
          for (int k = 0; k < threads; ++k) std::memset(&w.memory[k * max_bytes], pattern(bytes, k), bytes);
        if (me == 0) bench::check(MPIX_Win_lock_all(0, w.win), "lock_all");
        const bench::Timing t = bench::measure(repeats, bench::iterations_for(batch * (0.5 + bytes / 3000.0)), [&](int n) {
          if (me != 0) return;
          bench::on_threads(threads, [&](int k) {
            for (int i = 0; i < n; ++i) {
              for (int b = 0; b < batch; ++b) op(kind, origin.buffers[k].data(), bytes, k * max_bytes, w.win);
              bench::check(MPIX_Win_flush(1, w.win), "flush");
            }
          });
        });
        if (me == 0) bench::check(MPIX_Win_unlock_all(w.win), "unlock_all");
        MPI_Barrier(MPI_COMM_WORLD);
        const bool ok = bench::all_valid(w.holds(bytes, threads, max_bytes));
        // t is per batch of `batch` ops on each thread.
        const double ops = static_cast<double>(batch) * threads;
        auto scaled = [&](double f) { return bench::Timing{f / t.median, f / t.max, f / t.min}; };
        csv.row("rma_mt", "bandwidth", "mpix_created", "lock_all", kind, threads, bytes, "MB/s", scaled(ops * bytes), ok);
        csv.row("rma_mt", "message_rate", "mpix_created", "lock_all", kind, threads, bytes, "Mmsg/s", scaled(ops), ok);
      }
}

void halo(bench::Csv& csv, MPIX_Comm* comm, Origin& origin) {
  MPI_Group world, peer;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int other = 1 - me;
  MPI_Group_incl(world, 1, &other, &peer);
  MpixWindow w(comm, 65536, {});
  for (const std::string sync : {"fence", "pscw", "lock_all"})
    for (long bytes : {8L, 4096L, 65536L}) {
      char* buf = origin.fill(bytes, 0);
      if (sync == "fence") bench::check(MPIX_Win_fence(MPI_MODE_NOPRECEDE, w.win), "fence");
      const bench::Timing t = bench::measure(repeats, bench::iterations_for(20), [&](int n) {
        for (int i = 0; i < n; ++i) {
          if (sync == "fence") {
            bench::check(MPIX_Put(buf, bytes, MPI_BYTE, other, 0, bytes, MPI_BYTE, w.win), "put");
            bench::check(MPIX_Win_fence(0, w.win), "fence");
          } else if (sync == "pscw") {
            bench::check(MPIX_Win_post(peer, 0, w.win), "post");
            bench::check(MPIX_Win_start(peer, 0, w.win), "start");
            bench::check(MPIX_Put(buf, bytes, MPI_BYTE, other, 0, bytes, MPI_BYTE, w.win), "put");
            bench::check(MPIX_Win_complete(w.win), "complete");
            bench::check(MPIX_Win_wait(w.win), "wait");
          } else {
            bench::check(MPIX_Win_lock_all(0, w.win), "lock_all");
            bench::check(MPIX_Put(buf, bytes, MPI_BYTE, other, 0, bytes, MPI_BYTE, w.win), "put");
            bench::check(MPIX_Win_unlock_all(w.win), "unlock_all");
            MPI_Barrier(MPI_COMM_WORLD);
          }
        }
      });
      if (sync == "fence") bench::check(MPIX_Win_fence(MPI_MODE_NOSUCCEED, w.win), "fence");
      MPI_Barrier(MPI_COMM_WORLD);
      bool ok = true;
      for (long i = 0; i < bytes; ++i) ok &= w.memory[i] == pattern(bytes, 0);
      csv.row("rma_mt", "halo", "mpix_created", sync, "put", 1, bytes, "us", t, bench::all_valid(ok));
    }
  MPI_Group_free(&peer);
  MPI_Group_free(&world);
}

// A plain MPI window, created over user memory or allocated by MPI.
struct PlainWindow {
  MPI_Win win = MPI_WIN_NULL;
  std::vector<char> own;
  char* memory = nullptr;
  PlainWindow(long bytes, bool allocated) {
    if (allocated) {
      MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &memory, &win);
    } else {
      own.resize(bytes);
      memory = own.data();
      MPI_Win_create(memory, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
  }
  ~PlainWindow() { MPI_Win_free(&win); }
};

// 4 threads, each: 8 B put + flush, on the given window; the three windows
// interleaved.
void scope(bench::Csv& csv, MPIX_Comm* comm, Origin& origin) {
  constexpr long bytes = 8, stride = 64;
  for (int k = 0; k < max_threads; ++k) origin.fill(bytes, k);
  for (bool allocated : {false, true}) {
    const std::string kind = allocated ? "allocated" : "created";
    PlainWindow plain(max_threads * stride, allocated);
    MpixWindow thread_scope(comm, max_threads * stride, {{"mpi_win_scope", "thread"}}, allocated);
    MpixWindow process_scope(comm, max_threads * stride, {{"mpi_win_scope", "process"}}, allocated);
    struct Competitor {
      std::string name;
      MPI_Win mpi;
      MPIX_Win* mpix;
      const char* memory;
    };
    const std::vector<Competitor> competitors = {
        {"mpi_window", plain.win, nullptr, plain.memory},
        {"mpix_thread_scope", MPI_WIN_NULL, thread_scope.win, thread_scope.memory},
        {"mpix_process_scope", MPI_WIN_NULL, process_scope.win, process_scope.memory}};
    std::vector<std::function<void(int)>> bodies;
    for (const Competitor& c : competitors) {
      if (me == 0) c.mpix ? bench::check(MPIX_Win_lock_all(0, c.mpix), "lock_all") : (void)MPI_Win_lock_all(0, c.mpi);
      bodies.push_back([&, c](int n) {
        if (me != 0) return;
        bench::on_threads(max_threads, [&](int k) {
          for (int i = 0; i < n; ++i) {
            if (c.mpix) {
              bench::check(MPIX_Put(origin.buffers[k].data(), bytes, MPI_BYTE, 1, k * stride, bytes, MPI_BYTE, c.mpix),
                           "put");
              bench::check(MPIX_Win_flush(1, c.mpix), "flush");
            } else {
              MPI_Put(origin.buffers[k].data(), bytes, MPI_BYTE, 1, k * stride, bytes, MPI_BYTE, c.mpi);
              MPI_Win_flush(1, c.mpi);
            }
          }
        });
      });
    }
    const std::vector<bench::Timing> timings = bench::measure_interleaved(repeats, bench::iterations_for(4), bodies);
    for (const Competitor& c : competitors)
      if (me == 0) c.mpix ? bench::check(MPIX_Win_unlock_all(c.mpix), "unlock_all") : (void)MPI_Win_unlock_all(c.mpi);
    MPI_Barrier(MPI_COMM_WORLD);
    for (std::size_t i = 0; i < competitors.size(); ++i) {
      bool ok = true;
      if (me == 1)
        for (int k = 0; k < max_threads; ++k) ok &= competitors[i].memory[k * stride + bytes - 1] == pattern(bytes, k);
      csv.row("rma_mt", "scope", competitors[i].name + "_" + kind, "lock_all", "put", max_threads, bytes, "us",
              timings[i], bench::all_valid(ok));
    }
  }
}

// Per round: data put, then a flag put that announces it; the four ways of
// doing it interleaved.
void order(bench::Csv& csv, MPIX_Comm* comm, Origin& origin) {
  // Window sizes stay page multiples: this MPICH (4.0.2, ch4:ucx) loses puts
  // into MPI_Win_allocate memory of 65544 bytes, while 65536 works.
  const long flag_at = 65536, window_bytes = flag_at + 4096;
  const char flag = 1;
  for (bool allocated : {false, true})
    for (long bytes : {8L, 4096L, 65536L}) {
      const std::string kind = allocated ? "allocated" : "created";
      PlainWindow plain(window_bytes, allocated);
      MpixWindow ordered(comm, window_bytes, {{"mpi_win_order", "true"}}, allocated);
      MpixWindow unordered(comm, window_bytes, {}, allocated);
      char* data = origin.fill(bytes, 0);
      // user_flush: a flush between data and flag; flag_flush: another after
      // the flag (plain MPI windows only).
      struct Competitor {
        std::string name;
        MPI_Win mpi;
        MPIX_Win* mpix;
        bool user_flush;
        const char* memory;
        bool flag_flush;
      };
      const std::vector<Competitor> competitors = {
          {"mpi_put_flush_signal", plain.win, nullptr, true, plain.memory, false},
          {"mpi_put_flush_signal_flush", plain.win, nullptr, true, plain.memory, true},
          {"mpix_put_flush_signal", MPI_WIN_NULL, unordered.win, true, unordered.memory, false},
          {"mpix_ordered_put_signal", MPI_WIN_NULL, ordered.win, false, ordered.memory, false}};
      if (me == 0) {
        MPI_Win_lock_all(0, plain.win);
        bench::check(MPIX_Win_lock_all(0, unordered.win), "lock_all");
        bench::check(MPIX_Win_lock_all(0, ordered.win), "lock_all");
      }
      std::vector<std::function<void(int)>> bodies;
      for (const Competitor& c : competitors)
        bodies.push_back([&, c](int n) {
          if (me != 0) return;
          for (int i = 0; i < n; ++i) {
            if (c.mpix) {
              bench::check(MPIX_Put(data, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, c.mpix), "put");
              if (c.user_flush) bench::check(MPIX_Win_flush(1, c.mpix), "flush");
              bench::check(MPIX_Put(&flag, 1, MPI_BYTE, 1, flag_at, 1, MPI_BYTE, c.mpix), "put");
            } else {
              MPI_Put(data, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, c.mpi);
              MPI_Win_flush(1, c.mpi);
              MPI_Put(&flag, 1, MPI_BYTE, 1, flag_at, 1, MPI_BYTE, c.mpi);
              if (c.flag_flush) MPI_Win_flush(1, c.mpi);
            }
          }
          c.mpix ? bench::check(MPIX_Win_flush(1, c.mpix), "flush") : (void)MPI_Win_flush(1, c.mpi);
        });
      const std::vector<bench::Timing> timings =
          bench::measure_interleaved(repeats, bench::iterations_for(3 + bytes / 3000.0), bodies);
      if (me == 0) {
        // Which path the ordered window measured faster (empty where it
        // measures nothing: shared memory, a forced path).
        MPIX_Info* used = nullptr;
        bench::check(MPIX_Win_get_info(ordered.win, &used), "MPIX_Win_get_info");
        char chosen[1024] = {0};
        int found = 0;
        MPIX_Info_get(used, "mpix_ordered_path", sizeof chosen - 1, chosen, &found);
        MPIX_Info_free(&used);
        if (found && chosen[0] != '\0') std::printf("order %s %ld B: %s\n", kind.c_str(), bytes, chosen);
        MPI_Win_unlock_all(plain.win);
        bench::check(MPIX_Win_unlock_all(unordered.win), "unlock_all");
        bench::check(MPIX_Win_unlock_all(ordered.win), "unlock_all");
      }
      MPI_Barrier(MPI_COMM_WORLD);
      for (std::size_t i = 0; i < competitors.size(); ++i) {
        const Competitor& c = competitors[i];
        bool ok = true;
        if (me == 1) ok = c.memory[bytes - 1] == pattern(bytes, 0) && c.memory[flag_at] == flag;
        csv.row("rma_mt", "order", c.name + "_" + kind, "lock_all", "put", 1, bytes, "us", timings[i],
                bench::all_valid(ok));
      }
    }
}

// ifence with a late peer: rank 1 enters its fence 50 ms after rank 0, which
// times its ifence call (must not wait) and the request's completion (must).
void ifence(bench::Csv& csv, MPIX_Comm* comm) {
  constexpr double late_us = 50000;
  MpixWindow w(comm, 4096, {});
  std::vector<double> calls, completions;
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(late_us)));
    MPIX_Request* request = nullptr;
    const double t0 = MPI_Wtime();
    bench::check(MPIX_Win_ifence(0, w.win, &request), "MPIX_Win_ifence");
    const double t1 = MPI_Wtime();
    bench::check(MPIX_Wait(request, MPI_STATUS_IGNORE), "MPIX_Wait");
    calls.push_back((t1 - t0) * 1e6);
    completions.push_back((MPI_Wtime() - t0) * 1e6);
    bench::check(MPIX_Request_free(&request), "MPIX_Request_free");
  }
  bench::check(MPIX_Win_fence(MPI_MODE_NOSUCCEED, w.win), "fence");
  // Only the punctual rank's times say anything: the CSV is rank 0's.
  const bench::Timing call = bench::summarize(calls), completion = bench::summarize(completions);
  const bool waited = bench::all_valid(me != 0 || completion.min >= 0.9 * late_us);
  csv.row("rma_mt", "ifence_late_peer", "mpix_created", "fence", "call", 1, 0, "us", call, waited);
  csv.row("rma_mt", "ifence_late_peer", "mpix_created", "fence", "completion", 1, 0, "us", completion, waited);
}

}  // namespace

// The thread level of the cases asked for (the case is the second
// positional argument; it is parsed, and checked, once MPI runs).
int required_thread_level(int argc, char** argv) {
  const std::string only = argc > 2 ? argv[2] : "all";
  return only == "order" || only == "ifence" ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE;
}

int main(int argc, char** argv) {
  const int required = required_thread_level(argc, argv);
  int provided = 0;
  MPI_Init_thread(&argc, &argv, required, &provided);
  int p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (p != 2 || provided < required) {
    if (me == 0)
      std::fprintf(stderr, "bench_rma_mt runs on exactly 2 ranks, its threaded cases with MPI_THREAD_MULTIPLE\n");
    MPI_Finalize();
    return 2;
  }
  std::string csv_path = "rma_mt.csv", only = "all";
  CLI::App app("RMA-MT cases on MPIX windows (2 ranks): latency, bandwidth, halo, scope, order, ifence.",
               "bench_rma_mt");
  app.add_option("csv", csv_path, "where rank 0 writes the rows")->capture_default_str();
  app.add_option("case", only, "one case, or all")
      ->check(CLI::IsMember({"all", "latency", "bandwidth", "halo", "scope", "order", "ifence"}))
      ->capture_default_str();
  app.add_option("repeats", repeats, "rounds")->check(CLI::Range(1, 1000000))->capture_default_str();
  mpix_timing::parse_or_exit(app, argc, argv);
  {
    MPIX_Comm* comm = nullptr;
    bench::check(MPIX_Comm_init(&comm, MPI_COMM_WORLD), "MPIX_Comm_init");
    bench::Csv csv(csv_path);
    Origin origin(max_bytes);
    if (only == "all" || only == "latency") latency(csv, comm, origin);
    if (only == "all" || only == "bandwidth") bandwidth(csv, comm, origin);
    if (only == "all" || only == "halo") halo(csv, comm, origin);
    if (only == "all" || only == "scope") scope(csv, comm, origin);
    if (only == "all" || only == "order") order(csv, comm, origin);
    if (only == "all" || only == "ifence") ifence(csv, comm);
    MPIX_Comm_free(&comm);
  }
  MPI_Finalize();
  return 0;
}
