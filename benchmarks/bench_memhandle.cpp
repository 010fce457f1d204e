// Memory-handle benchmark (quo-vadis Fig. 12, osu_put_latency style): rank 0
// puts to rank 1 and flushes, on allocated, created, dynamic and
// memory-handle MPIX windows and on plain MPI windows, 8 B ... 1 MiB, the
// windows interleaved round by round (a phase change of the machine then
// moves every window alike); plus the cost of creating and freeing a
// memory-handle window. Validation after timing: the target checks the
// bytes of each window's last put.
#include <algorithm>
#include <array>
#include <cstring>

#include "benchmarks/rma_bench.hpp"
#include "tools/command_line.hpp"

namespace {

constexpr long max_bytes = 1 << 20;
const std::vector<long> sizes = {8, 64, 512, 4096, 65536, 262144, 1048576};

struct Subject {
  std::string name;
  const void* epoch;                         // the window whose epoch open and close manage (shared by some)
  std::function<void()> open, close;         // the passive epoch around the loop
  std::function<void(const char*, long)> put;  // put + flush to rank 1
  char* target_memory;                       // on rank 1
};

char pattern(long bytes, long i) { return static_cast<char>((bytes * 7 + i) & 0x7f); }

bool target_holds(const Subject& s, long bytes, int me) {
  if (me != 1) return true;
  for (long i = 0; i < bytes; ++i)
    if (s.target_memory[i] != pattern(bytes, i)) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int me = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (p != 2) {
    if (me == 0) std::fprintf(stderr, "bench_memhandle runs on exactly 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  std::string csv_path = "memhandle.csv";
  int repeats = 11;
  CLI::App app("Put + flush latency through memory-handle windows against plain MPI (2 ranks).", "bench_memhandle");
  app.add_option("csv", csv_path, "where rank 0 writes the rows")->capture_default_str();
  app.add_option("repeats", repeats, "rounds")->check(CLI::Range(1, 1000000))->capture_default_str();
  mpix_timing::parse_or_exit(app, argc, argv);
  {
    MPIX_Comm* comm = nullptr;
    bench::check(MPIX_Comm_init(&comm, MPI_COMM_WORLD), "MPIX_Comm_init");
    std::vector<char> origin(max_bytes), created_mem(max_bytes), dynamic_mem(max_bytes), user_mem(max_bytes),
        mpi_dyn_mem(max_bytes);
    MPIX_Win *allocated = nullptr, *created = nullptr, *dynamic = nullptr, *parent = nullptr, *handle_win = nullptr,
             *user_handle_win = nullptr;
    char* allocated_mem = nullptr;
    char* shared_mem = nullptr;
    bench::check(MPIX_Win_allocate(max_bytes, 1, nullptr, comm, &allocated_mem, &allocated), "MPIX_Win_allocate");
    bench::check(MPIX_Win_create(created_mem.data(), max_bytes, 1, nullptr, comm, &created), "MPIX_Win_create");
    bench::check(MPIX_Win_create_dynamic(nullptr, comm, &dynamic), "MPIX_Win_create_dynamic");
    bench::check(MPIX_Win_attach(dynamic, dynamic_mem.data(), max_bytes), "MPIX_Win_attach");
    bench::check(MPIX_Win_create_dynamic(nullptr, comm, &parent), "MPIX_Win_create_dynamic");
    bench::check(MPIX_Alloc_mem(max_bytes, nullptr, &shared_mem), "MPIX_Alloc_mem");
    std::array<char, MPIX_MAX_MEMHANDLE_SIZE> shared_handle{}, user_handle{};
    int handle_size = 0;
    bench::check(MPIX_Memhandle_create(shared_mem, max_bytes, nullptr, parent, shared_handle.data(), &handle_size),
                 "MPIX_Memhandle_create");
    bench::check(MPIX_Memhandle_create(user_mem.data(), max_bytes, nullptr, parent, user_handle.data(), &handle_size),
                 "MPIX_Memhandle_create");
    // Rank 1's handles and dynamic addresses travel to rank 0, as an application would send them.
    std::array<char, MPIX_MAX_MEMHANDLE_SIZE> peer_shared = shared_handle, peer_user = user_handle;
    MPI_Bcast(peer_shared.data(), MPIX_MAX_MEMHANDLE_SIZE, MPI_BYTE, 1, MPI_COMM_WORLD);
    MPI_Bcast(peer_user.data(), MPIX_MAX_MEMHANDLE_SIZE, MPI_BYTE, 1, MPI_COMM_WORLD);
    MPI_Aint dynamic_address = 0, mpi_dynamic_address = 0;
    MPI_Get_address(dynamic_mem.data(), &dynamic_address);
    MPI_Get_address(mpi_dyn_mem.data(), &mpi_dynamic_address);
    MPI_Bcast(&dynamic_address, 1, MPI_AINT, 1, MPI_COMM_WORLD);
    MPI_Bcast(&mpi_dynamic_address, 1, MPI_AINT, 1, MPI_COMM_WORLD);
    if (me == 0) {
      bench::check(MPIX_Win_from_memhandle(peer_shared.data(), max_bytes, 1, nullptr, 1, parent, &handle_win),
                   "MPIX_Win_from_memhandle");
      bench::check(MPIX_Win_from_memhandle(peer_user.data(), max_bytes, 1, nullptr, 1, parent, &user_handle_win),
                   "MPIX_Win_from_memhandle");
    }
    MPI_Win mpi_allocated = MPI_WIN_NULL, mpi_dynamic = MPI_WIN_NULL;
    char* mpi_allocated_mem = nullptr;
    MPI_Win_allocate(max_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mpi_allocated_mem, &mpi_allocated);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &mpi_dynamic);
    MPI_Win_attach(mpi_dynamic, mpi_dyn_mem.data(), max_bytes);

    auto mpix_subject = [&](const char* name, MPIX_Win* data, MPIX_Win* sync, MPI_Aint disp, char* memory) {
      return Subject{name, sync, [=] { bench::check(MPIX_Win_lock_all(0, sync), "lock_all"); },
                     [=] { bench::check(MPIX_Win_unlock_all(sync), "unlock_all"); },
                     [=](const char* buf, long bytes) {
                       bench::check(MPIX_Put(buf, bytes, MPI_BYTE, 1, disp, bytes, MPI_BYTE, data), "MPIX_Put");
                       bench::check(MPIX_Win_flush(1, data), "MPIX_Win_flush");
                     },
                     memory};
    };
    auto mpi_subject = [&](const char* name, MPI_Win win, MPI_Aint disp, char* memory) {
      return Subject{name, reinterpret_cast<const void*>(win), [=] { MPI_Win_lock_all(0, win); },
                     [=] { MPI_Win_unlock_all(win); },
                     [=](const char* buf, long bytes) {
                       MPI_Put(buf, bytes, MPI_BYTE, 1, disp, bytes, MPI_BYTE, win);
                       MPI_Win_flush(1, win);
                     },
                     memory};
    };
    std::vector<Subject> subjects = {
        mpix_subject("allocated", allocated, allocated, 0, allocated_mem),
        mpix_subject("created", created, created, 0, created_mem.data()),
        mpix_subject("dynamic", dynamic, dynamic, dynamic_address, dynamic_mem.data()),
        mpix_subject("memhandle", handle_win, parent, 0, shared_mem),
        mpix_subject("memhandle_user_memory", user_handle_win, parent, 0, user_mem.data()),
        mpi_subject("mpi_allocate", mpi_allocated, 0, mpi_allocated_mem),
        mpi_subject("mpi_dynamic", mpi_dynamic, mpi_dynamic_address, mpi_dyn_mem.data()),
    };

    bench::Csv csv(csv_path);
    for (long bytes : sizes) {
      for (long i = 0; i < bytes; ++i) origin[i] = pattern(bytes, i);
      // Each epoch opens once, however many subjects share its window.
      auto each_epoch = [&](void (*what)(const Subject&)) {
        std::vector<const void*> done;
        for (const Subject& s : subjects)
          if (std::find(done.begin(), done.end(), s.epoch) == done.end()) {
            done.push_back(s.epoch);
            if (me == 0) what(s);
          }
      };
      each_epoch([](const Subject& s) { s.open(); });
      std::vector<std::function<void(int)>> bodies;
      for (const Subject& s : subjects)
        bodies.push_back([&](int n) {
          if (me == 0)
            for (int i = 0; i < n; ++i) s.put(origin.data(), bytes);
        });
      const std::vector<bench::Timing> timings =
          bench::measure_interleaved(repeats, bench::iterations_for(1.0 + bytes / 4000.0), bodies);
      each_epoch([](const Subject& s) { s.close(); });
      MPI_Barrier(MPI_COMM_WORLD);
      for (std::size_t k = 0; k < subjects.size(); ++k) {
        const bool valid = bench::all_valid(target_holds(subjects[k], bytes, me));
        csv.row("memhandle", "put_latency", subjects[k].name, "lock_all", "put", 1, bytes, "us", timings[k], valid);
      }
      // A fresh memory-handle window for every put: creation and free included.
      if (me == 0) bench::check(MPIX_Win_lock_all(0, parent), "lock_all");
      const bench::Timing t = bench::measure(repeats, bench::iterations_for(3.0 + bytes / 4000.0), [&](int n) {
        if (me != 0) return;
        for (int i = 0; i < n; ++i) {
          MPIX_Win* w = nullptr;
          bench::check(MPIX_Win_from_memhandle(peer_shared.data(), max_bytes, 1, nullptr, 1, parent, &w), "from");
          bench::check(MPIX_Put(origin.data(), bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, w), "MPIX_Put");
          bench::check(MPIX_Win_flush(1, w), "flush");
          bench::check(MPIX_Win_free(&w), "free");
        }
      });
      if (me == 0) bench::check(MPIX_Win_unlock_all(parent), "unlock_all");
      MPI_Barrier(MPI_COMM_WORLD);
      const bool valid = bench::all_valid(target_holds(subjects[3], bytes, me));
      csv.row("memhandle", "put_latency", "memhandle_create_put_free", "lock_all", "put", 1, bytes, "us", t, valid);
    }
    const bench::Timing create = bench::measure(repeats, 2000, [&](int n) {
      if (me != 0) return;
      for (int i = 0; i < n; ++i) {
        MPIX_Win* w = nullptr;
        bench::check(MPIX_Win_from_memhandle(peer_shared.data(), max_bytes, 1, nullptr, 1, parent, &w), "from");
        bench::check(MPIX_Win_free(&w), "free");
      }
    });
    csv.row("memhandle", "create_free", "memhandle", "none", "none", 1, 0, "us", create, true);

    MPI_Win_detach(mpi_dynamic, mpi_dyn_mem.data());
    MPI_Win_free(&mpi_dynamic);
    MPI_Win_free(&mpi_allocated);
    MPIX_Win_free(&handle_win);
    MPIX_Win_free(&user_handle_win);
    MPI_Barrier(MPI_COMM_WORLD);
    bench::check(MPIX_Memhandle_release(shared_handle.data(), parent), "MPIX_Memhandle_release");
    bench::check(MPIX_Memhandle_release(user_handle.data(), parent), "MPIX_Memhandle_release");
    MPIX_Win_free(&parent);
    MPIX_Free_mem(shared_mem);
    MPIX_Win_detach(dynamic, dynamic_mem.data());
    MPIX_Win_free(&dynamic);
    MPIX_Win_free(&created);
    MPIX_Win_free(&allocated);
    MPIX_Comm_free(&comm);
  }
  MPI_Finalize();
  return 0;
}
