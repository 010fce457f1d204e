// auto: the selector's algorithm, settled by a tournament in the request's
// first iterations.
//
// At init it agrees on the pattern summary and predicts every candidate's
// T_init and T_iter from the measured parameters (selector/): the cheapest
// T_init + N * T_iter is the prior, and it runs first. Then the tournament
// (rules in selector/tournament.hpp) runs each entrant in turn -- the prior,
// MPI's own call, the others predicted close -- and times it by its
// iteration period, from one Start to the next: what the application does
// with the data between Wait and the next Start counts, as it should (a
// block pushed into the receiver's memory is read from another core's cache;
// a block the receiver copied itself is already in its own).
//
// Protocol: every decision is taken at a Start, from values agreed by one
// MPI_Allreduce (MPI_MAX) at that Start. MPI requires every rank to start a
// persistent request the same number of times, in the same order as its
// other requests, so counting Starts gives every rank the same clock: every
// rank agrees, switches and settles at the same Start, whatever it measured
// itself. A trial is `untimed` periods of warm-up, then `timed` periods;
// after `scout` of them a clearly slower entrant is cut. The median period
// (max over ranks) decides; the incumbent keeps its place unless beaten by
// more than the spread. A request that completes by MPIX_Test polling is
// timed the same way (Start to Start); one started only rarely simply keeps
// the prior until its tournament completes.
//
// A loser that measured far above its prediction (MPI's first calls in a
// process are tens of times slower than later ones) is tried once more at
// the first check 50 ms after the verdict. Afterwards the period is watched: a window of periods
// before each check, checks at a doubling interval. A period that drifted (a machine phase, a
// change in how the application uses the data) re-runs a bounded
// tournament among the close ones. Once the re-runs are spent, the request
// forwards straight to the winner (settled_on) and costs nothing per call.
#include <mpix/mpix.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "collectives/alltoallv_init.hpp"
#include "collectives/alltoallv_config.hpp"
#include "collectives/registry.hpp"
#include "collectives/selection_inputs.hpp"
#include "collectives/tuning_parameters.hpp"
#include "selector/tournament.hpp"
#include "src/agree.hpp"
#include "src/library.hpp"

namespace mpix {

namespace {

constexpr int watch_window = 16;          // periods timed before each drift check
constexpr long first_watch_interval = 64;  // Starts between the settling and the first check
constexpr long last_watch_interval = 1024;
// MPI's first calls after MPI_Init run tens of times slower for some
// milliseconds (connections, registration caches): suspects are re-tried
// only after this much time, agreed as the slowest rank's clock.
constexpr double suspects_after_seconds = 0.05;

std::vector<const AlltoallvAlgorithm*> candidate_rows() {
  std::vector<const AlltoallvAlgorithm*> rows;
  for (const AlltoallvAlgorithm* row : alltoallv_algorithms())
    if (std::string_view(row->name) != default_alltoallv_algorithm) rows.push_back(row);
  return rows;
}

TournamentRule rule_of(const Config& config) {
  TournamentRule rule;
  rule.timed = config.section<AlltoallvConfig>().auto_periods;
  rule.scout = std::min(rule.scout, rule.timed);
  rule.within = config.section<AlltoallvConfig>().auto_within;
  return rule;
}

class AutoAlltoallv final : public PersistentOperation {
 public:
  explicit AutoAlltoallv(const AlltoallvArgs& args)
      : args_(args),
        rows_(candidate_rows()),
        rule_(rule_of(args.comm->config())),
        verbose_(args.comm->rank() == 0 && args.comm->config().verbose >= 1) {
    const Config& config = args_.comm->config();
    inputs_ = agree_selection_inputs(args_, config, rows_);
    try {
      selection_ = select_algorithm(inputs_, tuning_parameters(config));
    } catch (const std::invalid_argument& e) {
      throw Error(error_code(MPIX_ERRKIND_CONFIG), std::string("auto: ") + e.what() + "; see MPIX_ALLTOALLV_EXCLUDE");
    }
    rule_.settle_within = static_cast<int>(inputs_.settle_within);
    periods_.reserve(static_cast<std::size_t>(std::max(rule_.timed, watch_window + 1)));  // no allocation in Start
    for (const AlltoallvAlgorithm* row : rows_) names_.emplace_back(row->name);
    for (std::size_t i = 0; i < rows_.size(); ++i)
      if (rows_[i]->has(capability::mpi_baseline) && selection_.predictions[i].eligible) baseline_ = static_cast<int>(i);
    if (verbose_) {
      const TuningParameters& tuning = tuning_parameters(config);
      const std::string& tuning_file = config.section<AlltoallvConfig>().tuning_file;
      std::fprintf(stderr,
                   "mpix-rma: auto selection (parameters timed as the %s loop, receive buffers in %s memory "
                   "priced by its own curves; %s)\n%s\n",
                   tuning.loop.c_str(), inputs_.pattern.library_memory ? "MPIX_Alloc_mem" : "user (heap)",
                   tuning_file.empty() ? "built-in" : tuning_file.c_str(),
                   describe_selection(inputs_, selection_).c_str());
    }
    measured_.assign(rows_.size(), PeriodMeasure{});
    run_prior();
    begin_tournament(tournament_entrants(selection_, baseline_, inputs_.expected_iterations, rule_), "the prior");
  }

  void start() override {
    if (phase_ != Phase::settled) at_start();
    operation_->start();
  }
  bool test() override { return operation_->test(); }
  void wait() override { operation_->wait(); }

  // Forwarded, and kept for an operation the tournament switches to.
  void rebind(const void* sendbuf, void* recvbuf) override {
    args_.move_buffers(sendbuf, recvbuf);
    operation_->rebind(sendbuf, recvbuf);
  }

  const char* running_algorithm() const override { return rows_[static_cast<std::size_t>(running_)]->name; }
  bool settled() const override { return phase_ != Phase::trial; }
  bool forwards() const override { return true; }
  PersistentOperation* settled_on() override { return phase_ == Phase::settled ? operation_.get() : nullptr; }

 private:
  enum class Phase { trial, watch, settled };

  // Every Start while not settled: the period that just ended, and the
  // decisions due at this Start (the same Start on every rank).
  void at_start() {
    const long now_start = started_++;
    const bool timing = phase_ == Phase::trial || now_start >= next_check_ - watch_window - 1;
    if (!timing) return;
    const double now = MPI_Wtime();
    const double period_us = last_start_ > 0 ? (now - last_start_) * 1e6 : -1;
    if (phase_ == Phase::trial) {
      if (period_us > 0) trial_period(period_us);
    } else if (now_start >= next_check_ - watch_window && period_us > 0) {
      periods_.push_back(period_us);
      if (now_start >= next_check_) check_drift();
    }
    last_start_ = phase_ == Phase::settled ? 0 : MPI_Wtime();
  }

  void trial_period(double period_us) {
    if (untimed_left_ > 0) {
      --untimed_left_;
      return;
    }
    periods_.push_back(period_us);
    const std::size_t timed = periods_.size();
    if (entrant_ > 0 && running_ != baseline_ && timed == static_cast<std::size_t>(rule_.scout) &&
        rule_.scout < rule_.timed) {
      const PeriodMeasure scout = agreed_measure();
      if (cut_short(scout, best_so_far(), rule_)) {
        measured_[static_cast<std::size_t>(running_)] = scout;
        log("  %s: cut after %zu periods, fastest %.2f us", name(running_), timed, scout.fastest_us);
        next_entrant();
      }
      return;
    }
    if (timed < static_cast<std::size_t>(rule_.timed)) return;
    const PeriodMeasure m = agreed_measure();
    measured_[static_cast<std::size_t>(running_)] = m;
    log("  %s: median period %.2f us, spread %.2f us over %zu periods", name(running_), m.median_us, m.spread_us,
        timed);
    next_entrant();
  }

  // Collective: this rank's periods summarised, the maximum over ranks
  // (and of the seconds since the last verdict, when asked).
  PeriodMeasure agreed_measure(double* since_verdict = nullptr) {
    // In place: the order of the periods does not matter to what follows.
    const PeriodMeasure m = measure_periods(periods_);
    double all[4] = {m.median_us, m.spread_us, m.fastest_us, MPI_Wtime() - verdict_time_};
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, all, 4, MPI_DOUBLE, MPI_MAX, args_.comm->global()), "MPI_Allreduce");
    if (since_verdict) *since_verdict = all[3];
    return {all[0], all[1], all[2]};
  }

  double best_so_far() const {
    double best = 0;
    for (int i : entrants_)
      if (measured_[static_cast<std::size_t>(i)].measured() &&
          (best == 0 || measured_[static_cast<std::size_t>(i)].median_us < best))
        best = measured_[static_cast<std::size_t>(i)].median_us;
    return best;
  }

  void begin_tournament(std::vector<int> entrants, const char* incumbent_role) {
    entrants_ = std::move(entrants);
    incumbent_ = running_;
    if (entrants_.empty()) {
      phase_ = Phase::settled;
      return;
    }
    std::string list;
    for (int i : entrants_) list += std::string(list.empty() ? "" : ", ") + name(i);
    log("mpix-rma: auto tournament at Start %ld (%s: %s; %d+%d periods each): %s", started_, incumbent_role,
        name(incumbent_), rule_.untimed, rule_.timed, list.c_str());
    for (int i : entrants_) measured_[static_cast<std::size_t>(i)] = PeriodMeasure{};
    phase_ = Phase::trial;
    entrant_ = 0;
    periods_.clear();
    untimed_left_ = started_ == 0 ? rule_.untimed : 0;  // the running one is warm at a re-run
  }

  void next_entrant() {
    periods_.clear();
    while (++entrant_ < entrants_.size()) {
      if (switch_to(entrants_[entrant_])) {
        untimed_left_ = rule_.untimed;
        return;
      }
    }
    std::vector<PeriodMeasure> entered(measured_.size());  // this tournament's measurements only
    for (int i : entrants_) entered[static_cast<std::size_t>(i)] = measured_[static_cast<std::size_t>(i)];
    if (!in_playoff_ && started_ + rule_.playoff_periods() <= rule_.settle_within) {
      const auto [leader, runner_up] = playoff_pair(entered, baseline_, rule_);
      if (leader >= 0) {
        begin_playoff(leader, runner_up);
        return;
      }
    }
    if (in_playoff_) {
      // Both rounds count alike: the mean of the two medians.
      for (int i : entrants_) {
        PeriodMeasure& m = entered[static_cast<std::size_t>(i)];
        const PeriodMeasure& first = first_round_[static_cast<std::size_t>(i)];
        if (m.measured() && first.measured()) {
          m.median_us = 0.5 * (m.median_us + first.median_us);
          m.spread_us = 0.5 * std::max(m.spread_us, first.spread_us);
        }
      }
      if (incumbent_ < 0)
        incumbent_ = *std::min_element(entrants_.begin(), entrants_.end(), [&](int a, int b) {
          return entered[static_cast<std::size_t>(a)].median_us < entered[static_cast<std::size_t>(b)].median_us;
        });
    }
    in_playoff_ = false;
    if (incumbent_ < 0) incumbent_ = running_;
    const Verdict v = prefer_mpi_in_close_calls(tournament_verdict(names_, entered, incumbent_), names_, measured_,
                                                baseline_, rule_);
    verdict_time_ = MPI_Wtime();
    log("  verdict after %ld iterations: %s", started_, v.reason.c_str());
    if (suspects_checked_) {
      suspects_checked_ = false;
    } else {
      suspects_ = suspect_losers(selection_, entered, v.winner, rule_);
    }
    if (v.winner != running_ && !switch_to(v.winner)) switch_to(incumbent_);
    reference_us_ = measured_[static_cast<std::size_t>(running_)].median_us;
    watch_interval_ = first_watch_interval;
    next_check_ = started_ + watch_interval_;
    phase_ = reruns_ < rule_.reruns || !suspects_.empty() ? Phase::watch : Phase::settled;
  }

  // The two close leaders run again, the runner-up first, so that the
  // leader ends running; the incumbent keeps its place if it is one of them.
  void begin_playoff(int leader, int runner_up) {
    log("  playoff: %s and %s within %.0f%%, measured again", name(leader), name(runner_up),
        100 * rule_.playoff_margin);
    first_round_ = measured_;
    if (incumbent_ != leader && incumbent_ != runner_up) incumbent_ = -1;  // neither: the faster of the two rounds
    entrants_ = {runner_up, leader};
    for (int i : entrants_) measured_[static_cast<std::size_t>(i)] = PeriodMeasure{};
    in_playoff_ = true;
    entrant_ = 0;
    periods_.clear();
    untimed_left_ = rule_.untimed;
    if (!switch_to(runner_up)) next_entrant();  // the runner-up cannot run again: the leader alone decides
  }

  void check_drift() {
    double since_verdict = 0;
    const PeriodMeasure watched = agreed_measure(&since_verdict);
    periods_.clear();
    const bool drifted = period_drifted(reference_us_, watched.median_us, rule_);
    if (!drifted && !suspects_.empty() && since_verdict >= suspects_after_seconds) {
      // Once: losers that may only have been warming up.
      std::vector<int> entrants{running_};
      for (int i : suspects_)
        if (i != running_) entrants.push_back(i);
      suspects_.clear();
      suspects_checked_ = true;
      measured_[static_cast<std::size_t>(running_)] = watched;
      begin_tournament(std::move(entrants), "running; again: losers measured far above their prediction");
      if (phase_ == Phase::trial) return;
    }
    if (!drifted) {
      watch_interval_ = std::min(2 * watch_interval_, last_watch_interval);
      next_check_ = started_ + watch_interval_;
      return;
    }
    ++reruns_;
    log("mpix-rma: auto: the period of %s drifted from %.2f to %.2f us (re-run %d of %d)", name(running_),
        reference_us_, watched.median_us, reruns_, rule_.reruns);
    measured_[static_cast<std::size_t>(running_)] = watched;
    std::vector<int> entrants = rerun_entrants(measured_, running_, baseline_, rule_);
    for (int i : suspects_)  // a re-run re-tries them as well
      if (std::find(entrants.begin(), entrants.end(), i) == entrants.end()) entrants.push_back(i);
    suspects_.clear();
    begin_tournament(std::move(entrants), "running");
    if (phase_ == Phase::settled && reruns_ < rule_.reruns) {  // nothing to race: watch on from here
      reference_us_ = watched.median_us;
      phase_ = Phase::watch;
      watch_interval_ = first_watch_interval;
      next_check_ = started_ + watch_interval_;
    }
  }

  // The prior, or, where the MPI or the machine refuses its set-up (a window
  // this MPI cannot create here), the cheapest prediction that can be set
  // up; the refused ones leave the candidates, with why. Only when none can
  // does init fail, with the prior's error, agreed.
  void run_prior() {
    std::vector<int> order;
    for (std::size_t i = 0; i < rows_.size(); ++i)
      if (selection_.predictions[i].eligible) order.push_back(static_cast<int>(i));
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return selection_.predictions[static_cast<std::size_t>(a)].total_us <
             selection_.predictions[static_cast<std::size_t>(b)].total_us;
    });
    std::iter_swap(order.begin(), std::find(order.begin(), order.end(), selection_.chosen));
    std::optional<Error> prior_error;
    for (int index : order) {
      try {
        run(index);
      } catch (const Error& e) {
        if (!prior_error) prior_error = e;
        CandidatePrediction& refused = selection_.predictions[static_cast<std::size_t>(index)];
        refused.eligible = false;
        refused.why_not = std::string("its set-up failed: ") + e.what();
        log("  %s cannot run (%s)", name(index), e.what());
        continue;
      }
      if (index != selection_.chosen) {
        log("  prior instead: %s, the cheapest predicted that can be set up", name(index));
        selection_.chosen = index;
      }
      return;
    }
    throw *prior_error;
  }

  // Collective: the previous operation is gone before the next one takes
  // the pooled window (a second live window over a buffer slows MPICH).
  // False (on every rank alike) if the algorithm could not be set up; then
  // nothing runs until the caller picks another.
  bool switch_to(int index) {
    try {
      run(index);
      return true;
    } catch (const Error& e) {
      log("  %s cannot run (%s)", name(index), e.what());
      return false;
    }
  }

  void run(int index) {
    operation_.reset();
    agreed(args_.comm->global(), [&] { operation_ = rows_[static_cast<std::size_t>(index)]->create(args_); });
    running_ = index;
  }

  const char* name(int index) const { return names_[static_cast<std::size_t>(index)].c_str(); }

  template <class... Values>
  void log(const char* format, Values... values) const {
    if (!verbose_) return;
    std::fprintf(stderr, format, values...);
    std::fputc('\n', stderr);
  }

  AlltoallvArgs args_;
  std::vector<const AlltoallvAlgorithm*> rows_;
  std::vector<std::string> names_;
  TournamentRule rule_;
  bool verbose_;
  SelectionInputs inputs_;
  Selection selection_;
  // (rule_.settle_within comes from the agreed inputs: MPIX_AUTO_SETTLE or
  // the request's mpix_auto_settle.)
  int baseline_ = -1;  // MPI's own call, when eligible
  std::unique_ptr<PersistentOperation> operation_;
  int running_ = 0;

  Phase phase_ = Phase::settled;
  long started_ = 0;         // Starts so far: the clock every rank shares
  double last_start_ = 0;    // MPI_Wtime of the previous Start while timing; 0: none
  std::vector<double> periods_;  // of the running algorithm, us
  std::vector<PeriodMeasure> measured_;  // agreed, per row; unmeasured: not run in this tournament
  std::vector<int> entrants_;
  std::size_t entrant_ = 0;  // index into entrants_ of the running trial
  int incumbent_ = 0;        // keeps its place unless clearly beaten
  int untimed_left_ = 0;
  double reference_us_ = 0;  // the winner's median period
  long watch_interval_ = first_watch_interval;
  long next_check_ = 0;
  int reruns_ = 0;
  std::vector<int> suspects_;     // losers to try once more at a check after suspects_after_seconds
  double verdict_time_ = 0;       // MPI_Wtime of the last verdict
  bool suspects_checked_ = false;  // the running tournament is that second try
  bool in_playoff_ = false;
  std::vector<PeriodMeasure> first_round_;  // the playoff's pair as first measured
};

}  // namespace

namespace algorithms {
extern const AlltoallvAlgorithm auto_{
    "auto",
    "the selector: lowest predicted T_init + N*T_iter as the prior, then a tournament timing the application's "
    "own iterations",
    runs_any_arguments, make_operation<AutoAlltoallv>};
}  // namespace algorithms

}  // namespace mpix
