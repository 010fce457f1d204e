#include "collectives/auto/tournament.hpp"

#include "collectives/auto/settings.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "src/agree.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

constexpr int watch_window = 16;          // periods timed before each drift check
// Starts between the settling and the first check, doubling up to the
// last; and at least this long in time, at the winner's period: a check
// (an MPI_Allreduce and a window of timed periods) every few microseconds
// would cost a short exchange several percent.
constexpr long first_watch_interval = 64;
constexpr long last_watch_interval = 1024;
constexpr double first_watch_seconds = 0.001;
constexpr double last_watch_seconds = 0.01;
// MPI's first calls after MPI_Init run tens of times slower for some
// milliseconds (connections, registration caches): suspects are re-tried
// only after this much time, agreed as the slowest rank's clock.
constexpr double suspects_after_seconds = 0.05;
// A request waiting for its turn asks again every this many Starts (each
// asking is an MPI_Allreduce), and stops waiting after max_wait_starts: a
// holder the application no longer starts must not keep the others from
// ever racing.
constexpr long turn_check_interval = 16;
constexpr long max_wait_starts = 1024;

}  // namespace

TournamentRule tournament_rule(const Config& config, long settle_within, long long largest_block,
                               long mpi_credit_ns, long mpi_period_ns) {
  const AutoConfig& settings = config.section<AutoConfig>();
  TournamentRule rule;
  rule.timed = settings.auto_periods;
  rule.scout = std::min(rule.scout, rule.timed);
  rule.within = settings.auto_within;
  rule.settle_within = static_cast<int>(settle_within);
  rule.mpi_credit_us = static_cast<double>(mpi_credit_ns) * 1e-3;
  rule.mpi_period_us = static_cast<double>(mpi_period_ns) * 1e-3;
  return with_mpi_warm_up(rule, largest_block);
}

AutoTournament::AutoTournament(std::vector<std::string> names, Selection selection, int baseline,
                               long expected_iterations, TournamentRule rule, MPI_Comm comm, bool verbose,
                               Create create)
    : names_(std::move(names)),
      rule_(rule),
      verbose_(verbose),
      selection_(std::move(selection)),
      baseline_(baseline),
      comm_(comm),
      create_(std::move(create)),
      expected_iterations_(expected_iterations),
      mpi_untimed_(rule.mpi_untimed) {
  periods_.reserve(static_cast<std::size_t>(std::max(rule_.timed, watch_window + 1)));  // no allocation in Start
  measured_.assign(names_.size(), PeriodMeasure{});
  take_mpi_period();
  run_prior();
  begin_tournament(tournament_entrants(selection_, baseline_, expected_iterations, rule_), "the prior");
}

AutoTournament::~AutoTournament() {
  if (holds_turn_) turn_.release(this);
}

// Every Start while not settled: the period that just ended, and the
// decisions due at this Start (the same Start on every rank).
void AutoTournament::at_start() {
  if (phase_ == Phase::settled) return;
  exchange_began_ = MPI_Wtime();
  if (phase_ == Phase::trial && !holds_turn_ && !take_turn()) return;
  if (first_start_ == 0) first_start_ = MPI_Wtime();
  const long now_start = started_++;
  const bool timing = phase_ == Phase::trial || now_start >= next_check_ - watch_window - 1;
  if (!timing) return;
  if (phase_ == Phase::watch && turn_.held_by_other(this)) disturbed_ = true;
  const double now = MPI_Wtime();
  // Other requests' exchanges in the period are theirs, not this one's.
  const std::uint64_t clock = turn_.exchange_ns();
  const double others_us =
      static_cast<double>((clock - clock_at_last_start_) - (own_exchange_ns_ - own_at_last_start_)) * 1e-3;
  const double whole_us = (now - last_start_) * 1e6;
  const double period_us = last_start_ > 0 ? std::max(whole_us - others_us, 1e-3) : -1;
  if (phase_ == Phase::trial) {
    if (period_us > 0) {
      others_taken_us_ += whole_us - period_us;
      trial_period(period_us);
    }
  } else if (now_start >= next_check_ - watch_window && period_us > 0) {
    periods_.push_back(period_us);
    if (now_start >= next_check_) check_drift();
  }
  last_start_ = phase_ == Phase::settled ? 0 : MPI_Wtime();
  clock_at_last_start_ = turn_.exchange_ns();
  own_at_last_start_ = own_exchange_ns_;
  if (phase_ != Phase::trial && holds_turn_) {
    turn_.release(this);
    holds_turn_ = false;
  }
}

void AutoTournament::exchange_done() {
  if (exchange_began_ <= 0) return;
  const auto ns = static_cast<std::uint64_t>(std::max(0.0, MPI_Wtime() - exchange_began_) * 1e9);
  exchange_began_ = 0;
  own_exchange_ns_ += ns;
  turn_.add_exchange(ns);
}

bool AutoTournament::take_turn() {
  const long waited = waiting_starts_++;
  if (waited % turn_check_interval != 0) return false;
  int held = turn_.held_by_other(this) && waited < max_wait_starts ? 1 : 0;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &held, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce");
  if (held) {
    if (waited == 0) log("mpix-rma: auto: another request is racing; %s runs until its turn",
                         name(running_));
    return false;
  }
  if (waited > 0) log("mpix-rma: auto: its turn after %ld Starts of waiting", waited);
  turn_.take(this);
  holds_turn_ = true;
  waiting_starts_ = 0;
  last_start_ = 0;  // the periods waited through are not this tournament's
  return true;
}

bool AutoTournament::affordable(const std::vector<int>& entrants, int mpi_untimed, const Agreed& watched) {
  const double cost_us =
      recheck_cost_us(entrants, measured_, baseline_, mpi_untimed, watched.periods.median_us, rule_);
  if (recheck_affordable(cost_us, watched.running * 1e6, rule_)) {
    deferral_logged_ = false;
    log("  a re-check of %zu entrants costs %.0f us more than running %s, within %.0f%% of the %.3f s run so far: "
        "now",
        entrants.size(), cost_us, name(running_), 100 * rule_.recheck_share, watched.running);
    return true;
  }
  if (deferral_logged_) return false;
  deferral_logged_ = true;
  log("  a re-check of %zu entrants would cost %.0f us more than running %s, over %.0f%% of the %.3f s run so "
      "far: later, once paid for",
      entrants.size(), cost_us, name(running_), 100 * rule_.recheck_share, watched.running);
  return false;
}


PeriodMeasure AutoTournament::credited(int index, PeriodMeasure m) const {
  if (index != baseline_ || rule_.mpi_credit_us <= 0 || !m.measured()) return m;
  // Kept positive: a measured median stays a measurement.
  const double floor_us = 1e-3;
  m.median_us = std::max(m.median_us - rule_.mpi_credit_us, floor_us);
  m.fastest_us = std::max(m.fastest_us - rule_.mpi_credit_us, floor_us);
  return m;
}

long AutoTournament::interval(long starts, double seconds) const {
  if (reference_us_ <= 0) return starts;
  return std::max(starts, static_cast<long>(std::ceil(seconds * 1e6 / reference_us_)));
}

long AutoTournament::quiet_starts() const {
  if (phase_ != Phase::watch) return 0;
  return std::max(0L, next_check_ - watch_window - 1 - started_);
}

void AutoTournament::skipped(long starts) {
  started_ += starts;
  last_start_ = 0;  // no period spans the quiet Starts
}

void AutoTournament::trial_period(double period_us) {
  if (untimed_left_ > 0) {
    --untimed_left_;
    if (warm_up_to_scout_ > 0 && hopeless_while_warming_up(period_us)) next_entrant();
    return;
  }
  periods_.push_back(period_us);
  const std::size_t timed = periods_.size();
  if (entrant_ > 0 && !mpi_call(running_) && timed == static_cast<std::size_t>(rule_.scout) &&
      rule_.scout < rule_.timed) {
    const PeriodMeasure scout = agreed_measure().periods;
    if (cut_short(scout, best_so_far(), rule_)) {
      measured_[static_cast<std::size_t>(running_)] = scout;
      log("  %s: cut after %zu periods, fastest %.2f us", name(running_), timed, scout.fastest_us);
      next_entrant();
    }
    return;
  }
  if (timed < static_cast<std::size_t>(rule_.timed)) return;
  const PeriodMeasure m = credited(running_, agreed_measure().periods);
  measured_[static_cast<std::size_t>(running_)] = m;
  log("  %s: median period %.2f us, spread %.2f us over %zu periods", name(running_), m.median_us, m.spread_us,
      timed);
  next_entrant();
}

void AutoTournament::begin_warm_up(int index, int untimed) {
  untimed_left_ = untimed;
  // Only a warm-up long enough to hold the scout's periods is scouted, so
  // that the scout always ends by clearing them: none is counted as timed.
  warm_up_to_scout_ = mpi_call(index) && untimed >= rule_.warmup_scout ? rule_.warmup_scout : 0;
}

bool AutoTournament::hopeless_while_warming_up(double period_us) {
  periods_.push_back(period_us);
  if (--warm_up_to_scout_ > 0) return false;
  const PeriodMeasure warm_up = agreed_measure().periods;
  periods_.clear();
  if (!hopeless_while_warming(warm_up, best_so_far(), rule_)) return false;
  // Recorded without spread: a warm-up period's scatter must not turn a
  // call that lasts a time slice into a close call against the winner.
  measured_[static_cast<std::size_t>(running_)] = PeriodMeasure{warm_up.median_us, 0, warm_up.fastest_us};
  log("  %s: cut while warming up, median of %d periods %.2f us", name(running_), rule_.warmup_scout,
      warm_up.median_us);
  return true;
}

AutoTournament::Agreed AutoTournament::agreed_measure() {
  // In place: the order of the periods does not matter to what follows.
  const PeriodMeasure m = measure_periods(periods_);
  const double now = MPI_Wtime();
  double all[7] = {m.median_us,          m.spread_us,           m.fastest_us,      now - verdict_time_,
                   now - first_start_, disturbed_ ? 1.0 : 0.0, last_agreement_us_};
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, all, 7, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  last_agreement_us_ = (MPI_Wtime() - now) * 1e6;
  disturbed_ = false;
  return {{all[0], all[1], all[2]}, all[3], all[4], all[5] > 0, all[6]};
}


double AutoTournament::best_so_far() const {
  // MPI's call measured by the caller is the best so far until beaten.
  double best = rule_.mpi_period_us > 0 ? measured_[static_cast<std::size_t>(baseline_)].median_us : 0;
  for (int i : entrants_)
    if (measured_[static_cast<std::size_t>(i)].measured() &&
        (best == 0 || measured_[static_cast<std::size_t>(i)].median_us < best))
      best = measured_[static_cast<std::size_t>(i)].median_us;
  return best;
}


void AutoTournament::begin_tournament(std::vector<int> entrants, const char* incumbent_role) {
  entrants_ = std::move(entrants);
  incumbent_ = running_;
  if (entrants_.empty()) {
    phase_ = Phase::settled;
    return;
  }
  std::string list;
  for (int i : entrants_) list += std::string(list.empty() ? "" : ", ") + name(i);
  log("mpix-rma: auto tournament at Start %ld (%s: %s; %d+%d periods each, %d+%d for MPI's own call): %s",
      started_, incumbent_role, name(incumbent_), rule_.untimed, rule_.timed, mpi_untimed_, rule_.timed,
      list.c_str());
  for (int i : entrants_) measured_[static_cast<std::size_t>(i)] = PeriodMeasure{};
  phase_ = Phase::trial;
  entrant_ = 0;
  periods_.clear();
  begin_warm_up(running_, started_ == 0 ? untimed_after(-1, running_) : 0);  // the running one is warm at a re-run
}


void AutoTournament::next_entrant() {
  periods_.clear();
  const int previous = running_;
  while (++entrant_ < entrants_.size()) {
    if (switch_to(entrants_[entrant_])) {
      begin_warm_up(entrants_[entrant_], untimed_after(previous, entrants_[entrant_]));
      return;
    }
  }
  std::vector<PeriodMeasure> entered(measured_.size());  // this tournament's measurements only
  for (int i : entrants_) entered[static_cast<std::size_t>(i)] = measured_[static_cast<std::size_t>(i)];
  if (!in_playoff_) {
    const auto [leader, runner_up] = playoff_pair(entered, baseline_, rule_);
    const long playoff = leader < 0 ? 0
                                    : rule_.trial_periods(leader == baseline_) +
                                          rule_.trial_periods(runner_up == baseline_);
    if (leader >= 0 && started_ + playoff <= rule_.settle_within) {
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
  // Against MPI's call: this tournament's measurements (a re-run's
  // non-entrants were measured long ago), with MPI's call as last measured.
  std::vector<PeriodMeasure> judged = entered;
  if (baseline_ >= 0 && !judged[static_cast<std::size_t>(baseline_)].measured())
    judged[static_cast<std::size_t>(baseline_)] = measured_[static_cast<std::size_t>(baseline_)];
  std::vector<bool> mpi_calls(judged.size());
  for (std::size_t i = 0; i < judged.size(); ++i) mpi_calls[i] = mpi_call(static_cast<int>(i));
  const Verdict v = prefer_mpi_in_close_calls(tournament_verdict(names_, entered, incumbent_), names_, judged,
                                              fastest_mpi_call(judged, mpi_calls, baseline_), rule_);
  verdict_time_ = MPI_Wtime();
  log("  verdict after %ld iterations: %s", started_, v.reason.c_str());
  if (others_taken_us_ > 0)
    log("  (%.1f us of other requests' exchanges taken out of its periods)", others_taken_us_);
  others_taken_us_ = 0;
  if (suspects_checked_) {
    suspects_checked_ = false;
  } else {
    suspects_ = suspect_losers(selection_, entered, v.winner, rule_);
  }
  verdict_start_ = started_;
  mpi_untimed_ = rule_.mpi_untimed;
  recheck_mpi_ = !mpi_rechecked_ && mpi_recheck_due(measured_, v.winner, baseline_, expected_iterations_, rule_);
  if (v.winner != running_ && !switch_to(v.winner)) switch_to(incumbent_);
  reference_us_ = measured_[static_cast<std::size_t>(running_)].median_us;
  watch_interval_ = interval(first_watch_interval, first_watch_seconds);
  // The re-check of MPI's call is due at once: it is the one decision left.
  next_check_ = started_ + (recheck_mpi_ ? std::min(watch_interval_, rule_.recheck_after) : watch_interval_);
  phase_ = reruns_ < rule_.reruns || !suspects_.empty() || recheck_mpi_ ? Phase::watch : Phase::settled;
}

// The two close leaders run again, the runner-up first, so that the
// leader ends running; the incumbent keeps its place if it is one of them.
void AutoTournament::begin_playoff(int leader, int runner_up) {
  log("  playoff: %s and %s within %.0f%%, measured again", name(leader), name(runner_up),
      100 * rule_.playoff_margin);
  first_round_ = measured_;
  if (incumbent_ != leader && incumbent_ != runner_up) incumbent_ = -1;  // neither: the faster of the two rounds
  entrants_ = {runner_up, leader};
  for (int i : entrants_) measured_[static_cast<std::size_t>(i)] = PeriodMeasure{};
  in_playoff_ = true;
  entrant_ = 0;
  periods_.clear();
  begin_warm_up(runner_up, untimed_after(running_, runner_up));
  if (!switch_to(runner_up)) next_entrant();  // the runner-up cannot run again: the leader alone decides
}


void AutoTournament::check_drift() {
  const Agreed agreed = agreed_measure();
  const PeriodMeasure watched = credited(running_, agreed.periods);
  periods_.clear();
  if (agreed.disturbed) {
    // Another request raced during the window: its trials, not this
    // request's algorithm, moved the periods. Watch again soon.
    next_check_ = started_ + std::max<long>(watch_window + 1,
                                            paid_for_check_interval(agreed.agreement_us, reference_us_, rule_));
    return;
  }
  // Checking itself is paid for: its agreement, at the period just
  // watched, takes at most rule.recheck_share of the Starts until the next.
  const double period_us = watched.measured() ? watched.median_us : reference_us_;
  const long paid_for = paid_for_check_interval(agreed.agreement_us, period_us, rule_);
  const bool drifted = period_drifted(reference_us_, watched.median_us, rule_);
  std::vector<int> entrants;  // of a re-check, once one is due
  if (!drifted && !suspects_.empty() && agreed.since_verdict >= suspects_after_seconds) {
    entrants = {running_};
    for (int i : suspects_)
      if (i != running_) entrants.push_back(i);
  }
  if (!entrants.empty() && affordable(entrants, mpi_untimed_, agreed)) {
    // Once: losers that may only have been warming up.
    suspects_.clear();
    suspects_checked_ = true;
    measured_[static_cast<std::size_t>(running_)] = watched;
    begin_tournament(std::move(entrants), "running; again: losers measured far above their prediction");
    if (phase_ == Phase::trial) return;
  }
  if (!drifted && recheck_mpi_ && started_ - verdict_start_ >= rule_.recheck_after &&
      affordable({running_, baseline_}, rule_.recheck_untimed, agreed)) {
    // Once: MPI's own call, which lost narrowly, warmed up as long as it
    // needs, against the winner measured warm.
    recheck_mpi_ = false;
    mpi_rechecked_ = true;
    mpi_untimed_ = rule_.recheck_untimed;
    measured_[static_cast<std::size_t>(running_)] = watched;
    begin_tournament({running_, baseline_}, "running; again: MPI's own call, which lost narrowly, warmed up longer");
    if (phase_ == Phase::trial) return;
  }
  // The others' periods are from the verdict's tournament: so is the
  // running one's that they are compared with.
  if (drifted) entrants = rerun_entrants(measured_, running_, baseline_, rule_);
  if (drifted && !affordable(entrants, mpi_untimed_, agreed)) {
    // Looked at again once the request's time pays for it.
    const double cost_us =
        recheck_cost_us(entrants, measured_, baseline_, mpi_untimed_, agreed.periods.median_us, rule_);
    const long until = starts_until_affordable(cost_us, agreed.running * 1e6, period_us, rule_);
    next_check_ = started_ + std::max({static_cast<long>(watch_window) + 1, paid_for, until});
    return;
  }
  if (!drifted) {
    watch_interval_ = std::min(2 * watch_interval_, interval(last_watch_interval, last_watch_seconds));
    next_check_ = started_ + std::max(watch_interval_, paid_for);
    return;
  }
  ++reruns_;
  log("mpix-rma: auto: the period of %s drifted from %.2f to %.2f us (re-run %d of %d)", name(running_),
      reference_us_, watched.median_us, reruns_, rule_.reruns);
  measured_[static_cast<std::size_t>(running_)] = watched;
  for (int i : suspects_)  // a re-run re-tries them as well
    if (std::find(entrants.begin(), entrants.end(), i) == entrants.end()) entrants.push_back(i);
  suspects_.clear();
  begin_tournament(std::move(entrants), "running");
  if (phase_ == Phase::settled && reruns_ < rule_.reruns) {  // nothing to race: watch on from here
    reference_us_ = watched.median_us;
    phase_ = Phase::watch;
    watch_interval_ = interval(first_watch_interval, first_watch_seconds);
    next_check_ = started_ + watch_interval_;
  }
}

void AutoTournament::take_mpi_period() {
  if (rule_.mpi_period_us <= 0) return;
  if (!rule_.mpi_warms_up_longer()) {  // not eager-sized: raced
    rule_.mpi_period_us = 0;
    return;
  }
  int other = -1;
  for (int i = 0; i < static_cast<int>(names_.size()); ++i) {
    const CandidatePrediction& c = selection_.predictions[static_cast<std::size_t>(i)];
    if (c.eligible && !mpi_call(i) &&
        (other < 0 || c.total_us < selection_.predictions[static_cast<std::size_t>(other)].total_us))
      other = i;
  }
  if (baseline_ < 0 || other < 0) {
    rule_.mpi_period_us = 0;
    return;
  }
  measured_[static_cast<std::size_t>(baseline_)] = {rule_.mpi_period_us, 0, rule_.mpi_period_us};
  log("  %s: period %.2f us, measured by the caller: not raced", name(baseline_), rule_.mpi_period_us);
  if (mpi_call(selection_.chosen)) selection_.chosen = other;
}

// The prior, or, where the MPI or the machine refuses its set-up (a window
// this MPI cannot create here), the cheapest prediction that can be set
// up; the refused ones leave the candidates, with why. Only when none can
// does init fail, with the prior's error, agreed.
void AutoTournament::run_prior() {
  std::vector<int> order;
  for (std::size_t i = 0; i < names_.size(); ++i)
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
bool AutoTournament::switch_to(int index) {
  try {
    run(index);
    return true;
  } catch (const Error& e) {
    log("  %s cannot run (%s)", name(index), e.what());
    return false;
  }
}


void AutoTournament::run(int index) {
  operation_.reset();
  // Nothing runs until the next one is made: where it cannot be, a verdict
  // for the entrant that ran before must make that one again, not keep a
  // destroyed operation.
  running_ = -1;
  agreed(comm_, [&] { operation_ = create_(index); });
  running_ = index;
}



}  // namespace mpix
