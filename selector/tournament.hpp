// The tournament's rules as pure functions: which candidates auto tries in a
// request's first iterations, when a trial is cut short, which measured
// candidate wins, and when the watched period has drifted enough to try
// again. No MPI: auto (collectives/alltoallv/auto.cpp) runs the schedule and agrees on
// every measurement before it calls these, so every rank gets the same
// answer; the unit tests call them directly.
//
// Why a tournament: the cost model's parameters were measured on some
// machine, in some phase of it, in some loop; the user's machine, phase and
// loop decide what is fastest (how the application reads the received data
// decides whether a block written into its cache, or one it copies itself,
// is cheaper). ADCL and STAR-MPI choose implementations the same way: by
// timing the application's own iterations. The prediction stays the prior:
// it orders the entrants and wins every close call.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "selector/selector.hpp"

namespace mpix {

struct TournamentRule {
  double within = 2.0;        // second entrants of a mechanism: predicted total within this factor of the best's
  int settle_within = 100;    // periods the whole tournament may take
  int untimed = 3;            // periods after a switch that are not timed (first touch, connections)
  int mpi_untimed = 3;        // ... for MPI's own call (see with_mpi_warm_up)
  int timed = 8;              // timed periods per entrant; 0: no tournament
  int scout = 3;              // timed periods after which a clearly slower entrant is cut
  double cut = 1.5;           // ... when its median is this factor above the best so far (and a re-run
                              // leaves out what the winner beat by this factor)
  double init_share = 0.05;   // an entrant's init may cost this share of N * the prior's T_iter
  double drift = 0.3;         // relative change of the watched period that re-runs it
  int reruns = 3;             // re-runs per request
  double suspect = 4.0;       // a loser measured this far above its prediction is tried again once
  double playoff_margin = 0.10;  // the two best this close run again, warm
  double mpi_margin = 0.03;      // a winner must beat MPI's own call by this much (and the spread)
  // What running MPI's own call saves per period beyond what is measured
  // (the drop-in's per-call agreement): taken off its measured periods.
  double mpi_credit_us = 0;
  // MPI's own call's period, as the caller timed it (0: not): it does
  // not enter the tournament, and every entrant is judged against it.
  double mpi_period_us = 0;
  // MPI's own call lost by less than this with eager-sized blocks: raced
  // once more, recheck_after Starts after the verdict, warmed up for
  // recheck_untimed periods (see mpi_recheck_due).
  double mpi_recheck = 0.3;
  long recheck_after = 64;
  int recheck_untimed = 200;
  // A re-check after the verdict (a drift re-run, losers tried again, MPI's
  // own call raced again) may cost at most this share of the time the
  // request has run so far (see recheck_affordable).
  double recheck_share = 0.01;
  // MPI's own call is measured fully (see cut_short), unless hopeless while
  // warming up: after warmup_scout of its untimed periods, their median
  // above both hopeless times the best so far and hopeless_us. Where
  // ranks outnumber cores its waits hold the core and each call lasts a
  // scheduler time slice, which no warm-up shortens (one call that the
  // scheduler happens to serve at once does not make it less hopeless,
  // hence the median); a first call over new memory costs tens of times a
  // warm one, not a hundred, and not a millisecond at eager sizes. A cut
  // call measured far above its prediction is a suspect: raced again once
  // that is paid for.
  int warmup_scout = 4;
  double hopeless = 100;
  double hopeless_us = 1000;
  // Untimed periods of a trial: MPI's own calls warm up longer, except
  // right after another of MPI's calls, whose trial left its path warm.
  int untimed_after(bool previous_mpi_call, bool mpi_own_call) const {
    return mpi_own_call && !previous_mpi_call ? mpi_untimed : untimed;
  }
  // MPI's own call warms up longer than the others (eager-sized blocks,
  // see with_mpi_warm_up).
  bool mpi_warms_up_longer() const { return mpi_untimed > untimed; }
  int trial_periods(bool mpi_own_call = false, bool after_mpi_call = false) const {
    return untimed_after(after_mpi_call, mpi_own_call) + timed;
  }
  // What a playoff may take: MPI's own call is the challenger whenever close.
  int playoff_periods() const { return trial_periods(false) + trial_periods(true); }
};

// The rule for blocks of at most largest_block bytes. After other traffic,
// MPI's eager path (MPICH: 512 B and 4 KiB blocks) runs two to four times
// slower for about twenty calls, and still some 10-20% slower after them,
// for about fifty; hardly so from 32 KiB up. Timed earlier, MPI's own call
// would lose to what is only faster than its warm-up, so its trials leave
// those periods untimed where its blocks are eager-sized.
TournamentRule with_mpi_warm_up(TournamentRule rule, long long largest_block);

// One candidate's agreed measurement: the median of its timed periods and
// how far that median can be trusted (the interquartile range over the
// square root of the number of periods: about the median's standard
// error), each the maximum over ranks.
struct PeriodMeasure {
  double median_us = 0;
  double spread_us = 0;
  double fastest_us = 0;  // the shortest period: what the algorithm can do once warm
  bool measured() const { return median_us > 0; }
};

// Local: the median and its spread of one rank's periods (microseconds);
// reorders them.
PeriodMeasure measure_periods(std::vector<double>& periods_us);

// The candidates to try, in order: the prior (selection.chosen) first, the
// MPI's own call (`baseline`, if eligible) second, so that "never slower
// than MPI" is always measured, then the others: first the best predicted
// of each mechanism not yet entered, then the rest, each by predicted
// total (predictions made elsewhere compare worst across mechanisms: a
// channel and a window put can swap places on another machine or MPI,
// their own variants seldom, and a prediction made for one loop can be
// several times off in another, as a channel priced for the application
// loop is in an exchange-only one). Others enter only if
// their init is repaid and, after the best of their mechanism, only if
// predicted within rule.within of the best; the list is cut so
// that every trial (MPI's own calls' with their longer warm-up, unless one
// follows another: the baseline and every prediction marked mpi_call) fits
// in rule.settle_within and in a quarter of the expected iterations (trials
// of candidates that lose cost only their excess, which the scout cut
// bounds), keeping room for a playoff when at least four entrants fit
// beside it. Fewer than two: no tournament. Where MPI's own call was
// measured already (rule.mpi_period_us) and is not the prior, it does not
// enter, and the prior alone is a tournament against it.
std::vector<int> tournament_entrants(const Selection& selection, int baseline, long expected_iterations,
                                     const TournamentRule& rule);

// After `scout` timed periods: whether this trial ends early, being clearly
// slower than the best measured so far even in its fastest period (a warm-up
// that outlasts the untimed periods -- MPI's first calls over new memory --
// does not cut an entrant that is fast once warm). The caller never cuts
// MPI's own call by it: "never slower than MPI" rests on measuring it fully,
// unless it is hopeless while warming up (hopeless_while_warming).
bool cut_short(const PeriodMeasure& scout, double best_median_us, const TournamentRule& rule);
// After rule.warmup_scout untimed periods of MPI's own call: whether it is
// hopeless (see TournamentRule::hopeless) and its trial ends.
bool hopeless_while_warming(const PeriodMeasure& warm_up, double best_median_us, const TournamentRule& rule);

struct Verdict {
  int winner = -1;
  std::string reason;
};

// The winner among the measured candidates (measured[i].measured()). The
// incumbent (the prior, or what ran before a re-run) keeps its place unless
// another beat it by more than the larger of their spreads: where the
// application's own work dominates the period, the candidates' differences
// drown in its noise, and noise must not flip the choice.
Verdict tournament_verdict(const std::vector<std::string>& names, const std::vector<PeriodMeasure>& measured,
                           int incumbent);

// The leader and its closest challenger (leader first) when their medians
// are within rule.playoff_margin of each other, else {-1, -1}. The
// challenger is MPI's own call (`baseline`) whenever it is that close, the
// runner-up otherwise. A first trial runs right after another algorithm (its
// window just made, its peers' caches cold); two close ones are measured
// again, back to back, before one is kept.
std::pair<int, int> playoff_pair(const std::vector<PeriodMeasure>& measured, int baseline,
                                 const TournamentRule& rule);

// Whether the watched period (agreed median of recent periods) has moved
// away from the winner's measured one by more than rule.drift.
bool period_drifted(double reference_us, double watched_us, const TournamentRule& rule);

// What "never slower than MPI" is judged against: the fastest of MPI's own
// calls measured (mpi_calls[i]: candidate i is one), the plain call
// (`baseline`) or its persistent form where it raced too, which is what a
// program that made a persistent collective compares against; the
// baseline when none was measured.
int fastest_mpi_call(const std::vector<PeriodMeasure>& measured, const std::vector<bool>& mpi_calls, int baseline);

// "Never slower than MPI": the winner stands only if it beat MPI's own call
// (`baseline`, as measured) by more than rule.mpi_margin plus the larger
// spread. Otherwise the fastest other candidate that did so wins (the
// winner may be an incumbent kept within its own wide spread), and where
// none did, MPI's call, whose cost the user knows. `measured`: this
// tournament's measurements, MPI's call's as last measured.
Verdict prefer_mpi_in_close_calls(const Verdict& verdict, const std::vector<std::string>& names,
                                  const std::vector<PeriodMeasure>& measured, int baseline,
                                  const TournamentRule& rule);

// Losers that measured far above their prediction (rule.suspect times) and
// were predicted faster than the winner measured: more likely warming up
// than slow (MPI's first calls of a process are tens of times slower than
// later ones), so they are tried once more, after a while, at a watch check.
// A candidate with no prediction (t_iter 0) is never suspected.
std::vector<int> suspect_losers(const Selection& selection, const std::vector<PeriodMeasure>& measured, int winner,
                                const TournamentRule& rule);

// Whether MPI's own call (`baseline`), beaten by `winner`, is raced once
// more. After other traffic MPI's eager path can take a hundred calls to
// warm up, more than a tournament's trial may take, so where its blocks are
// eager-sized (rule.mpi_untimed > rule.untimed) a narrow loss (by less than
// rule.mpi_recheck) is re-checked later with a long warm-up -- when the
// expected iterations repay it: at worst the re-check costs its periods
// times the measured loss, which must stay within rule.init_share of them.
bool mpi_recheck_due(const std::vector<PeriodMeasure>& measured, int winner, int baseline,
                     long expected_iterations, const TournamentRule& rule);

// The entrants of a re-run: the running algorithm first, the baseline, then
// those not clearly slower than it (within rule.cut, as a trial cuts).
// measured[running] must be its period from the same tournament as the
// others', not the drifted one: a slowdown of everything would otherwise
// let in algorithms that had lost by nearly twice.
std::vector<int> rerun_entrants(const std::vector<PeriodMeasure>& measured, int running, int baseline,
                                const TournamentRule& rule);

// What a re-check among entrants costs beyond running the current choice,
// whose period is now current_us: each entrant's trial periods (MPI's own
// call's untimed ones are mpi_untimed) times what its last measured median
// (never measured: the slowest entrant's) exceeds current_us by. Rent or
// buy: a re-check is affordable once the request has run 1 /
// rule.recheck_share times as long (running_us, agreed), so that re-checks
// cost at most that share of a request's time however long it runs: a slow
// MPI call (milliseconds when ranks outnumber cores) is raced again late or
// never, while a choice that drifted above the others is re-raced at once.
double recheck_cost_us(const std::vector<int>& entrants, const std::vector<PeriodMeasure>& measured, int baseline,
                       int mpi_untimed, double current_us, const TournamentRule& rule);
bool recheck_affordable(double cost_us, double running_us, const TournamentRule& rule);
// The fewest Starts between two drift checks of a request whose period is
// period_us, when a check's agreement (its MPI_Allreduce) costs
// agreement_us: enough that checking costs at most rule.recheck_share of the
// time between checks. An allreduce costs microseconds on a quiet node and
// milliseconds when ranks outnumber cores and MPI's waits hold the core,
// where checking at the usual interval would take half of a small
// exchange's time. 0 where either is unknown.
long paid_for_check_interval(double agreement_us, double period_us, const TournamentRule& rule);
// The Starts, at period_us each, until a re-check that costs cost_us is
// affordable (recheck_affordable) for a request that has run running_us:
// 0 if it is already. A drift seen but not yet paid for is checked again
// then, not at the backed-off watch interval, whose Starts were priced at
// the period before the drift.
long starts_until_affordable(double cost_us, double running_us, double period_us, const TournamentRule& rule);

}  // namespace mpix
