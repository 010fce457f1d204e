// Handle benchmark: what one MPIX_Rput + MPIX_Wait + MPIX_Request_free costs
// while other requests are alive, and what checking a live handle costs
// (MPIX_Test on a completed request). Every call on a handle checks that the
// library handed it out and has not freed it; that check must cost the same
// whether 0 or 10^4 other handles are alive. Competitors (numbers alive) run
// interleaved, order rotating per repeat. Validation after timing: every
// target slot holds the value of the last put into it.
#include <string>
#include <vector>

#include "benchmarks/rma_bench.hpp"
#include "tools/command_line.hpp"

namespace {

constexpr int slots = 64;  // target slots the timed puts cycle through

struct Setup {
  MPIX_Win* win;
  int target;
  std::vector<long> origin;  // one value per put in flight, stable until completion
};

// `count` completed, unfreed requests: handles the library keeps alive.
std::vector<MPIX_Request*> make_alive(Setup& s, int count) {
  std::vector<MPIX_Request*> alive(static_cast<std::size_t>(count), nullptr);
  for (MPIX_Request*& r : alive) {
    bench::check(MPIX_Rput(s.origin.data(), 1, MPI_LONG, s.target, slots, 1, MPI_LONG, s.win, &r), "MPIX_Rput");
    bench::check(MPIX_Wait(r, MPI_STATUS_IGNORE), "MPIX_Wait");
  }
  return alive;
}

void free_all(std::vector<MPIX_Request*>& alive) {
  for (MPIX_Request*& r : alive) bench::check(MPIX_Request_free(&r), "MPIX_Request_free");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  std::string csv_path = "handles.csv";
  int repeats = 11, iterations = 100000;
  CLI::App app("Per-call cost of MPIX_Rput + MPIX_Wait + MPIX_Request_free and of MPIX_Test, with many live "
               "requests (2 ranks).",
               "bench_handles");
  app.add_option("csv", csv_path, "where rank 0 writes the rows")->capture_default_str();
  app.add_option("repeats", repeats, "rounds")->check(CLI::Range(1, 1000000))->capture_default_str();
  app.add_option("iterations", iterations, "calls per round")->check(CLI::Range(1, 100000000))->capture_default_str();
  mpix_timing::parse_or_exit(app, argc, argv);
  const std::vector<int> alive_counts = {0, 1000, 10000};
  bool valid = true;
  {
    MPIX_Comm* comm = nullptr;
    bench::check(MPIX_Comm_init(&comm, MPI_COMM_WORLD), "MPIX_Comm_init");
    // An allocated window: on the node a put is a direct copy, so what is
    // timed is mostly the library's own cost per call, handles included.
    long* target_memory = nullptr;
    Setup s{nullptr, (me + 1) % p, std::vector<long>(slots + 1, 0)};
    bench::check(MPIX_Win_allocate(static_cast<MPI_Aint>((slots + 1) * sizeof(long)), sizeof(long), nullptr, comm,
                                   &target_memory, &s.win),
                 "MPIX_Win_allocate");
    bench::check(MPIX_Win_lock_all(0, s.win), "MPIX_Win_lock_all");

    long next_value = 0;
    auto rput_wait_free = [&](int n) {
      for (int k = 0; k < n; ++k) {
        const int slot = k % slots;
        s.origin[slot] = next_value++;
        MPIX_Request* r = nullptr;
        bench::check(MPIX_Rput(&s.origin[slot], 1, MPI_LONG, s.target, slot, 1, MPI_LONG, s.win, &r), "MPIX_Rput");
        bench::check(MPIX_Wait(r, MPI_STATUS_IGNORE), "MPIX_Wait");
        bench::check(MPIX_Request_free(&r), "MPIX_Request_free");
      }
    };
    std::vector<std::vector<double>> put_samples(alive_counts.size()), test_samples(alive_counts.size());
    for (int rep = 0; rep < repeats; ++rep) {
      for (std::size_t c = 0; c < alive_counts.size(); ++c) {
        const std::size_t which = (c + static_cast<std::size_t>(rep)) % alive_counts.size();
        std::vector<MPIX_Request*> alive = make_alive(s, alive_counts[which]);
        put_samples[which].push_back(bench::measure(1, iterations, rput_wait_free).median);
        MPIX_Request* probe = nullptr;
        bench::check(MPIX_Rput(s.origin.data(), 1, MPI_LONG, s.target, slots, 1, MPI_LONG, s.win, &probe), "MPIX_Rput");
        bench::check(MPIX_Wait(probe, MPI_STATUS_IGNORE), "MPIX_Wait");
        test_samples[which].push_back(bench::measure(1, iterations, [&](int n) {
          int flag = 0;
          for (int k = 0; k < n; ++k) bench::check(MPIX_Test(probe, &flag, MPI_STATUS_IGNORE), "MPIX_Test");
        }).median);
        bench::check(MPIX_Request_free(&probe), "MPIX_Request_free");
        free_all(alive);
      }
    }

    // Validation: the last `slots` puts into each target hold their values.
    bench::check(MPIX_Win_unlock_all(s.win), "MPIX_Win_unlock_all");
    MPI_Barrier(MPI_COMM_WORLD);
    const long last = next_value;  // every rank made the same number of puts
    for (int slot = 0; slot < slots; ++slot) {
      // Put k went to slot k % slots within each timed loop of `iterations`
      // puts; the values count across loops.
      const long loop_start = last - iterations;
      const long final_k = ((iterations - 1 - slot) / slots) * slots + slot;
      if (iterations > slot && target_memory[slot] != loop_start + final_k) valid = false;
    }
    valid = bench::all_valid(valid);
    bench::check(MPIX_Win_free(&s.win), "MPIX_Win_free");
    bench::check(MPIX_Comm_free(&comm), "MPIX_Comm_free");

    bench::Csv csv(csv_path);
    if (me == 0) std::printf("%-10s %22s %22s\n", "alive", "Rput+Wait+free (ns)", "Test on a handle (ns)");
    for (std::size_t c = 0; c < alive_counts.size(); ++c) {
      const bench::Timing put = bench::summarize(put_samples[c]), test = bench::summarize(test_samples[c]);
      const std::string name = "alive_" + std::to_string(alive_counts[c]);
      csv.row("handles", name, "allocated", "lock_all", "rput_wait_free", 1, 8, "us_per_call", put, valid);
      csv.row("handles", name, "allocated", "lock_all", "test", 1, 8, "us_per_call", test, valid);
      if (me == 0) std::printf("%-10d %22.1f %22.1f\n", alive_counts[c], put.median * 1e3, test.median * 1e3);
    }
    if (me == 0) std::printf("validation: %s\n", valid ? "passed" : "FAILED");
  }
  MPI_Finalize();
  return valid ? 0 : 1;
}
