// auto: the selector's algorithm. At init it agrees on the pattern summary,
// predicts every candidate's T_init and T_iter from the measured parameters
// and runs the one with the lowest T_init + N * T_iter. Online refinement:
// it times its first iterations (time inside Start/Test/Wait, not the
// application's work between them) and agrees on the measurement; when it
// contradicts the prediction enough that the remaining iterations repay a
// re-init, it tries the algorithm predicted cheapest, times that too and
// keeps it only if clearly faster: every rank switches at the same Start.
#include <mpix/mpix.h>

#include <algorithm>
#include <cstdio>

#include "collectives/alltoallv_init.hpp"
#include "collectives/registry.hpp"
#include "collectives/selection_inputs.hpp"
#include "collectives/tuning_parameters.hpp"
#include "src/agree.hpp"
#include "src/library.hpp"

namespace mpix {

namespace {

constexpr int untimed_iterations = 2;  // first touch, window and connection warm-up

std::vector<const AlltoallvAlgorithm*> candidate_rows() {
  std::vector<const AlltoallvAlgorithm*> rows;
  for (const AlltoallvAlgorithm* row : alltoallv_algorithms())
    if (std::string_view(row->name) != default_alltoallv_algorithm) rows.push_back(row);
  return rows;
}

class AdaptiveAlltoallv final : public PersistentOperation {
 public:
  explicit AdaptiveAlltoallv(const AlltoallvArgs& args)
      : args_(args),
        rows_(candidate_rows()),
        verbose_(args.comm->rank() == 0 && args.comm->config().verbose >= 1) {
    const Config& config = args_.comm->config();
    inputs_ = agree_selection_inputs(args_, config, rows_);
    try {
      selection_ = select_algorithm(inputs_, tuning_parameters());
    } catch (const std::invalid_argument& e) {
      throw Error(error_class(MPIX_ERRKIND_CONFIG), std::string("auto: ") + e.what() + "; see MPIX_ALLTOALLV_EXCLUDE");
    }
    if (verbose_) {
      const TuningParameters& tuning = tuning_parameters();
      std::fprintf(stderr,
                   "mpix-rma: auto selection (parameters timed as the %s loop, receive buffers in %s memory "
                   "priced by its own curves; %s)\n%s\n",
                   tuning.loop.c_str(), inputs_.pattern.library_memory ? "MPIX_Alloc_mem" : "user (heap)",
                   config.tuning_file.empty() ? "built-in" : config.tuning_file.c_str(),
                   describe_selection(inputs_, selection_).c_str());
    }
    probe_ = inputs_.expected_iterations > untimed_iterations + config.alltoallv_probe ? config.alltoallv_probe : 0;
    samples_.reserve(static_cast<std::size_t>(probe_));
    measured_.assign(rows_.size(), 0);
    run(selection_.chosen);
  }

  void start() override {
    if (probing() && static_cast<int>(samples_.size()) == probe_) refine();
    const double t0 = probing() ? MPI_Wtime() : 0;
    operation_->start();
    ++started_;
    if (probing()) in_calls_ += MPI_Wtime() - t0;
  }

  bool test() override {
    const double t0 = probing() ? MPI_Wtime() : 0;
    const bool done = operation_->test();
    if (probing()) {
      in_calls_ += MPI_Wtime() - t0;
      if (done) completed();
    }
    return done;
  }

  void wait() override {
    const double t0 = probing() ? MPI_Wtime() : 0;
    operation_->wait();
    if (probing()) {
      in_calls_ += MPI_Wtime() - t0;
      completed();
    }
  }

  // Forwarded, and kept for an operation the refinement switches to.
  void rebind(const void* sendbuf, void* recvbuf) override {
    args_.move_buffers(sendbuf, recvbuf);
    operation_->rebind(sendbuf, recvbuf);
  }

  const char* running_algorithm() const override { return rows_[running_]->name; }
  bool forwards() const override { return true; }
  PersistentOperation* settled_on() override { return probing() ? nullptr : operation_.get(); }

 private:
  bool probing() const { return probe_ > 0; }

  void completed() {
    if (++completed_of_running_ > untimed_iterations) samples_.push_back(in_calls_);
    in_calls_ = 0;
  }

  // Collective: the previous operation is gone before the next one takes
  // the pooled window (a second live window over a buffer slows MPICH).
  void run(int index) {
    operation_.reset();
    agreed(args_.comm->global(), [&] { operation_ = rows_[index]->create(args_); });
    running_ = index;
    completed_of_running_ = 0;
    samples_.clear();
  }

  // Collective, at the Start after the probe filled: every rank calls it at
  // the same iteration of this persistent request.
  void refine() {
    std::nth_element(samples_.begin(), samples_.begin() + samples_.size() / 2, samples_.end());
    // The least-loaded rank's median: imbalance of the application's own
    // work between iterations must not look like a slow algorithm.
    double measured = samples_[samples_.size() / 2] * 1e6;
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, &measured, 1, MPI_DOUBLE, MPI_MIN, args_.comm->global()),
              "MPI_Allreduce");
    measured_[running_] = measured;
    const long remaining = inputs_.expected_iterations - started_;
    const Refinement r =
        refine_selection(selection_, running_, previous_, measured_, remaining);
    if (verbose_) std::fprintf(stderr, "mpix-rma: auto online check after %ld iterations: %s\n", started_,
                               r.reason.c_str());
    // At most one trial: settled after this check unless a trial starts.
    const bool trial = previous_ < 0 && r.switch_to >= 0;
    if (!trial) probe_ = 0;
    if (r.switch_to < 0) return;
    const int from = running_;
    try {
      run(r.switch_to);
      previous_ = from;
    } catch (const Error& e) {
      // Every rank failed alike (agreed): stay with what ran, settled.
      if (verbose_) std::fprintf(stderr, "mpix-rma: auto cannot switch (%s); staying\n", e.what());
      probe_ = 0;
      run(from);
    }
  }

  AlltoallvArgs args_;
  std::vector<const AlltoallvAlgorithm*> rows_;
  bool verbose_;
  SelectionInputs inputs_;
  Selection selection_;
  std::unique_ptr<PersistentOperation> operation_;
  int running_ = 0;
  // Online refinement: probe_ timed iterations per algorithm, 0 once settled.
  int probe_ = 0;
  long started_ = 0;
  int completed_of_running_ = 0;
  double in_calls_ = 0;
  std::vector<double> samples_;
  std::vector<double> measured_;  // agreed us/iteration of each algorithm run so far, 0: not run
  int previous_ = -1;             // during a trial: the algorithm it may return to
};

}  // namespace

namespace algorithms {
extern const AlltoallvAlgorithm auto_select{
    "auto", "the selector: lowest predicted T_init + N*T_iter from measured parameters, refined online",
    runs_any_arguments, make_operation<AdaptiveAlltoallv>};
}  // namespace algorithms

}  // namespace mpix
