// The tournament's rules, without MPI: made-up predictions and measurements
// with known answers.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "selector/tournament.hpp"

namespace {

using mpix::PeriodMeasure;

// Candidates with these predicted (t_init, t_iter) at N iterations; the
// cheapest total is the prior.
mpix::Selection predicted(const std::vector<std::pair<double, double>>& costs, long n) {
  mpix::Selection s;
  for (std::size_t i = 0; i < costs.size(); ++i) {
    mpix::CandidatePrediction p;
    p.name = "c" + std::to_string(i);
    p.eligible = true;
    p.cost.t_init_us = costs[i].first;
    p.cost.t_iter_us = costs[i].second;
    p.total_us = p.cost.t_init_us + static_cast<double>(n) * p.cost.t_iter_us;
    s.predictions.push_back(p);
    if (s.chosen < 0 || p.total_us < s.predictions[static_cast<std::size_t>(s.chosen)].total_us)
      s.chosen = static_cast<int>(i);
  }
  return s;
}

const std::vector<std::string> names = {"c0", "c1", "c2", "c3"};

}  // namespace

TEST(Tournament, MeasuresTheMedianAndItsSpread) {
  std::vector<double> periods = {5, 1, 4, 2, 3, 100, 6, 7};
  const PeriodMeasure m = mpix::measure_periods(periods);
  EXPECT_DOUBLE_EQ(m.median_us, 4.5);
  EXPECT_DOUBLE_EQ(m.spread_us, (6 - 3) / std::sqrt(8.0));  // one outlier moves neither
  std::vector<double> four = {90, 400, 88, 200};  // few periods, one far out
  EXPECT_DOUBLE_EQ(mpix::measure_periods(four).spread_us, (200 - 90) / 2.0);
  std::vector<double> none;
  EXPECT_FALSE(mpix::measure_periods(none).measured());
}

TEST(Tournament, ThePriorRunsFirstAndTheMpiCallAlwaysEnters) {
  // c1 is the prior; c0 (the baseline) is predicted 5x slower, c2 close,
  // c3 far off.
  const auto s = predicted({{0, 5.0}, {10, 1.0}, {10, 1.2}, {10, 9.0}}, 1000);
  const auto entrants = mpix::tournament_entrants(s, 0, 1000, {});
  EXPECT_EQ(entrants, (std::vector<int>{1, 0, 2}));
}

TEST(Tournament, AnInitTheIterationsCannotRepayDoesNotEnter) {
  // c2 runs as fast as the prior but costs 1000 us more to set up: 5% of
  // 1000 iterations of 1 us is 50 us.
  const auto s = predicted({{0, 1.5}, {0, 1.0}, {1000, 0.1}}, 1000);
  EXPECT_EQ(mpix::tournament_entrants(s, 0, 1000, {}), (std::vector<int>{1, 0}));
}

TEST(Tournament, FitsInTheSettleBoundAndAQuarterOfTheIterations) {
  const auto s = predicted({{0, 1.0}, {0, 1.0}, {0, 1.0}, {0, 1.0}}, 100000);
  mpix::TournamentRule rule = mpix::with_mpi_warm_up({}, 4096);
  rule.settle_within = 69;  // the prior's trial (3+8) and MPI's own call's (50+8)
  EXPECT_EQ(mpix::tournament_entrants(s, 1, 100000, rule).size(), 2u);
  rule.settle_within = 68;  // MPI's own call's longer warm-up does not fit: no tournament
  EXPECT_TRUE(mpix::tournament_entrants(s, 1, 100000, rule).empty());
  rule.settle_within = 45;  // without MPI's own call, four trials of 11
  EXPECT_EQ(mpix::tournament_entrants(s, -1, 100000, rule).size(), 4u);
  // 60 expected iterations: 15 periods, one trial: no tournament.
  EXPECT_TRUE(mpix::tournament_entrants(s, 1, 60, {}).empty());
  rule.timed = 0;  // turned off
  EXPECT_TRUE(mpix::tournament_entrants(s, 1, 100000, rule).empty());
}

TEST(Tournament, MpisCallMeasuredByTheCallerDoesNotEnter) {
  const auto s = predicted({{0, 1.0}, {0, 1.0}, {0, 1.0}, {0, 1.0}}, 100000);
  mpix::TournamentRule rule = mpix::with_mpi_warm_up({}, 4096);
  rule.settle_within = 50;  // too short for MPI's own call's warm-up
  ASSERT_TRUE(mpix::tournament_entrants(s, 1, 100000, rule).empty());
  rule.mpi_period_us = 2.5;  // the prior (c0) and the others, never c1
  EXPECT_EQ(mpix::tournament_entrants(s, 1, 100000, rule), (std::vector<int>{0, 2, 3}));
  rule.settle_within = 11;  // the prior alone: a tournament against MPI's measured call
  EXPECT_EQ(mpix::tournament_entrants(s, 1, 100000, rule), (std::vector<int>{0}));
}

TEST(Tournament, RoomForAPlayoffWhenFourEntrantsFitBesideIt) {
  const auto s = predicted(std::vector<std::pair<double, double>>(9, {0, 1.0}), 100000);
  EXPECT_EQ(mpix::tournament_entrants(s, -1, 100000, {}).size(), 7u);  // 7 x 11 + a playoff of 22 <= 100
  mpix::TournamentRule rule;
  rule.settle_within = 50;  // 4 x 11 fit, not beside a playoff: no room kept
  EXPECT_EQ(mpix::tournament_entrants(s, -1, 100000, rule).size(), 4u);
  // With MPI's own call warming up (50+8) no playoff fits beside four:
  // 11 + 58 + 2 x 11 fill the 100.
  EXPECT_EQ(mpix::tournament_entrants(s, 1, 100000, mpix::with_mpi_warm_up({}, 512)).size(), 4u);
  EXPECT_EQ(mpix::tournament_entrants(s, 1, 100000, mpix::with_mpi_warm_up({}, 1 << 20)).size(), 7u);
}

// Predictions made elsewhere compare worst across mechanisms: where only
// two others fit beside the prior and MPI's call, the best predicted of
// another mechanism (c4) enters before the prior's own variants (c2, c3),
// though they were predicted cheaper.
TEST(Tournament, EachMechanismIsTriedBeforeASecondOfAny) {
  auto s = predicted({{0, 1.2}, {0, 1.0}, {0, 1.01}, {0, 1.02}, {0, 1.1}, {0, 1.15}}, 100000);
  const unsigned channel = 1, window = 2, mpi = 4;
  const unsigned mechanisms[] = {mpi, channel, channel, channel, window, window};
  for (std::size_t i = 0; i < s.predictions.size(); ++i) s.predictions[i].mechanism = mechanisms[i];
  mpix::TournamentRule rule;
  rule.settle_within = 4 * 11;
  EXPECT_EQ(mpix::tournament_entrants(s, 0, 100000, rule), (std::vector<int>{1, 0, 4, 2}));
  rule.settle_within = 8 * 11;  // all six beside a playoff: then the rest, by prediction
  EXPECT_EQ(mpix::tournament_entrants(s, 0, 100000, rule), (std::vector<int>{1, 0, 4, 2, 3, 5}));
}

// A prediction made for another loop can be several times off, and most
// across mechanisms: the best predicted of each mechanism enters however far
// from the prior it is predicted (c2, 6x); a second of a mechanism enters
// only within rule.within (c4 and c3 do not).
TEST(Tournament, TheBestOfEachMechanismEntersHoweverFarOffItsPrediction) {
  auto s = predicted({{0, 5.0}, {0, 1.0}, {0, 6.0}, {0, 6.5}, {0, 3.0}}, 100000);
  const unsigned channel = 1, window = 2, mpi = 4;
  const unsigned mechanisms[] = {mpi, window, channel, channel, window};
  for (std::size_t i = 0; i < s.predictions.size(); ++i) s.predictions[i].mechanism = mechanisms[i];
  EXPECT_EQ(mpix::tournament_entrants(s, 0, 100000, {}), (std::vector<int>{1, 0, 2}));
  mpix::TournamentRule rule;
  rule.within = 4;  // the window's second now close enough
  EXPECT_EQ(mpix::tournament_entrants(s, 0, 100000, rule), (std::vector<int>{1, 0, 2, 4}));
}

// MPI's persistent call warms up as its own call does, unless its trial
// comes right after the other's, which left MPI's path warm.
TEST(Tournament, MpisPersistentCallWarmsUpAsItsOwnCallDoes) {
  auto s = predicted({{0, 1.0}, {0, 0.9}, {0, 1.0}}, 100000);  // c1 the prior, c0 MPI's call, c2 its persistent one
  s.predictions[2].mpi_call = true;
  mpix::TournamentRule rule = mpix::with_mpi_warm_up({}, 4096);
  rule.settle_within = 11 + 58 + 10;  // the prior's, MPI's call's, and not the persistent call's 3+8 after it
  EXPECT_EQ(mpix::tournament_entrants(s, 0, 100000, rule), (std::vector<int>{1, 0}));
  rule.settle_within = 11 + 58 + 11;
  EXPECT_EQ(mpix::tournament_entrants(s, 0, 100000, rule), (std::vector<int>{1, 0, 2}));
  // The persistent call the prior: its trial first, cold (50+8); MPI's call
  // right after it, warm (3+8), then the other.
  s = predicted({{0, 1.0}, {0, 1.1}, {0, 0.9}}, 100000);
  s.predictions[2].mpi_call = true;
  rule.settle_within = 58 + 11 + 11;
  EXPECT_EQ(mpix::tournament_entrants(s, 0, 100000, rule), (std::vector<int>{2, 0, 1}));
  rule.settle_within = 58 + 11 + 10;
  EXPECT_EQ(mpix::tournament_entrants(s, 0, 100000, rule), (std::vector<int>{2, 0}));
}

TEST(Tournament, ANarrowLossOfMpisOwnCallIsRecheckedWhenRepaid) {
  const std::vector<PeriodMeasure> m = {{1.8, 0.05}, {2.1, 0.05}, {2.5, 0.05}};  // winner 0, MPI's call 1
  const mpix::TournamentRule eager = mpix::with_mpi_warm_up({}, 4096);
  EXPECT_TRUE(mpix::mpi_recheck_due(m, 0, 1, 100000, eager));
  EXPECT_FALSE(mpix::mpi_recheck_due(m, 0, 1, 100000, mpix::with_mpi_warm_up({}, 1 << 20)));  // not eager-sized
  EXPECT_FALSE(mpix::mpi_recheck_due(m, 0, 2, 100000, eager));  // lost by 39%: clearly
  EXPECT_FALSE(mpix::mpi_recheck_due(m, 1, 1, 100000, eager));  // it won
  EXPECT_FALSE(mpix::mpi_recheck_due(m, 0, -1, 100000, eager));  // no MPI call among them
  // 16.7% of 208 periods: 35 periods, repaid by 5% of 700 iterations, not of 600.
  EXPECT_TRUE(mpix::mpi_recheck_due(m, 0, 1, 700, eager));
  EXPECT_FALSE(mpix::mpi_recheck_due(m, 0, 1, 600, eager));
}

TEST(Tournament, MpiOwnCallWarmsUpLongerOnlyForEagerSizedBlocks) {
  const mpix::TournamentRule rule;
  EXPECT_EQ(mpix::with_mpi_warm_up(rule, 8).mpi_untimed, 50);
  EXPECT_EQ(mpix::with_mpi_warm_up(rule, 4096).mpi_untimed, 50);
  EXPECT_EQ(mpix::with_mpi_warm_up(rule, 32768).mpi_untimed, rule.untimed);
  EXPECT_EQ(mpix::with_mpi_warm_up(rule, 1 << 21).trial_periods(true), rule.trial_periods(false));
}

TEST(Tournament, TheTwoBestGoToAPlayoffWhenClose) {
  std::vector<PeriodMeasure> m = {{5.0, 0.1}, {5.4, 0.1}, {}, {9, 0.1}, {5.45, 0.1}};
  EXPECT_EQ(mpix::playoff_pair(m, -1, {}), std::make_pair(0, 1));
  EXPECT_EQ(mpix::playoff_pair(m, 4, {}), std::make_pair(0, 4));  // MPI's call, close too, is the challenger
  EXPECT_EQ(mpix::playoff_pair(m, 3, {}), std::make_pair(0, 1));  // MPI's call far behind
  m[1].median_us = 5.6;  // 12% behind
  m[4].median_us = 5.7;
  EXPECT_EQ(mpix::playoff_pair(m, -1, {}), std::make_pair(-1, -1));
}

TEST(Tournament, AClearlySlowerScoutIsCut) {
  EXPECT_TRUE(mpix::cut_short({20, 1, 16}, 10, {}));
  EXPECT_FALSE(mpix::cut_short({20, 1, 14}, 10, {}));  // its fastest period is close: still warming up
  EXPECT_FALSE(mpix::cut_short({20, 1, 16}, 0, {}));  // nothing to compare with
}

// MPI's own call is measured fully unless hopeless while warming up: a call
// that lasts a time slice (ranks outnumbering cores), not one over new
// memory, tens of times a warm one.
TEST(Tournament, MpisCallWarmingUpIsCutOnlyWhenHopeless) {
  const mpix::TournamentRule rule;  // hopeless: 100 times the best, and 1 ms
  EXPECT_TRUE(mpix::hopeless_while_warming({6000, 2800, 3950}, 2, rule)) << "a 4 ms time slice against 2 us";
  EXPECT_TRUE(mpix::hopeless_while_warming({4000, 2800, 300}, 2, rule))
      << "one call the scheduler served at once does not save it";
  EXPECT_FALSE(mpix::hopeless_while_warming({90, 20, 60}, 2, rule)) << "a first call over new memory: 30 times";
  EXPECT_FALSE(mpix::hopeless_while_warming({900, 20, 600}, 2, rule)) << "300 times the best, but under 1 ms";
  EXPECT_FALSE(mpix::hopeless_while_warming({3000, 100, 2500}, 200, rule)) << "large blocks: 12 times";
  EXPECT_FALSE(mpix::hopeless_while_warming({6000, 2800, 3950}, 0, rule)) << "nothing to compare with";
}

// A drift check's agreement costs at most recheck_share of the Starts until
// the next one.
TEST(Tournament, DriftChecksArePaidFor) {
  const mpix::TournamentRule rule;  // recheck_share 1%
  EXPECT_EQ(mpix::paid_for_check_interval(4000, 2, rule), 200000) << "a 4 ms allreduce, a 2 us period";
  EXPECT_EQ(mpix::paid_for_check_interval(20, 2, rule), 1000) << "a quiet node's allreduce";
  EXPECT_EQ(mpix::paid_for_check_interval(0, 2, rule), 0) << "no agreement measured yet";
  EXPECT_EQ(mpix::paid_for_check_interval(4000, 0, rule), 0) << "no period yet";
}

// A drift that is not yet paid for is looked at again when it will be, at
// the period the request runs now.
TEST(Tournament, ADeferredReRunIsCheckedWhenItIsPaidFor) {
  const mpix::TournamentRule rule;  // recheck_share 1%
  EXPECT_EQ(mpix::starts_until_affordable(5000, 100000, 2000, rule), 200)
      << "5 ms of re-check needs 0.5 s of run; 0.4 s to go at 2 ms a Start";
  EXPECT_EQ(mpix::starts_until_affordable(5000, 500000, 2000, rule), 0) << "paid for already";
  EXPECT_EQ(mpix::starts_until_affordable(0, 0, 2000, rule), 0) << "a re-check that costs nothing";
  EXPECT_EQ(mpix::starts_until_affordable(5000, 100000, 0, rule), 0) << "no period yet";
}

TEST(Tournament, TheFastestWinsWhenItsLeadExceedsTheSpread) {
  const std::vector<PeriodMeasure> m = {{10, 0.5}, {8, 0.4}, {}, {9, 0.1}};
  const auto v = mpix::tournament_verdict(names, m, 0);
  EXPECT_EQ(v.winner, 1);
  EXPECT_NE(v.reason.find("c1 beat c0"), std::string::npos) << v.reason;
}

TEST(Tournament, NoiseDoesNotFlipTheChoice) {
  // A CG-like loop: 40 us of the application's own work, 1 us exchange;
  // c1 is 0.3 us faster, its periods vary by 2 us.
  const std::vector<PeriodMeasure> m = {{41.0, 2.0}, {40.7, 1.8}};
  const auto v = mpix::tournament_verdict(names, m, 0);
  EXPECT_EQ(v.winner, 0);
  EXPECT_NE(v.reason.find("within the spread"), std::string::npos) << v.reason;
}

TEST(Tournament, TheIncumbentKeepsItsPlaceWhenFastest) {
  const std::vector<PeriodMeasure> m = {{5, 0.5}, {8, 0.4}};
  EXPECT_EQ(mpix::tournament_verdict(names, m, 0).winner, 0);
}

TEST(Tournament, MpisOwnCallWinsCloseCalls) {
  const mpix::Verdict won{1, "c1 won"};
  std::vector<PeriodMeasure> m = {{10.0, 0.1}, {9.8, 0.1}};  // 2% faster than MPI's call (c0)
  const auto v = mpix::prefer_mpi_in_close_calls(won, names, m, 0, {});
  EXPECT_EQ(v.winner, 0);
  EXPECT_NE(v.reason.find("not clearly faster than c0"), std::string::npos) << v.reason;
  m[1].median_us = 9.0;  // 10% faster: stands
  EXPECT_EQ(mpix::prefer_mpi_in_close_calls(won, names, m, 0, {}).winner, 1);
  EXPECT_EQ(mpix::prefer_mpi_in_close_calls(won, names, m, -1, {}).winner, 1);  // no baseline
}

// A persistent collective's program compares against MPI's persistent
// form (c2), faster here than MPI's plain call (c1, the baseline): a
// winner (c0) must beat the faster of the two.
TEST(Tournament, TheFastestOfMpisOwnCallsIsWhatAWinnerMustBeat) {
  const std::vector<PeriodMeasure> m = {{4.08, 0.05}, {13.37, 0.41}, {3.48, 0.80}, {}};
  const std::vector<bool> mpi_calls = {false, true, true, false};
  EXPECT_EQ(mpix::fastest_mpi_call(m, mpi_calls, 1), 2);
  const mpix::Verdict kept = mpix::tournament_verdict(names, m, 0);
  ASSERT_EQ(kept.winner, 0) << kept.reason;  // c2 is faster, within the spread
  const auto v = mpix::prefer_mpi_in_close_calls(kept, names, m, mpix::fastest_mpi_call(m, mpi_calls, 1), {});
  EXPECT_EQ(v.winner, 2) << v.reason;
  EXPECT_NE(v.reason.find("not clearly faster than c2"), std::string::npos) << v.reason;
  // Unmeasured MPI calls do not count; with none measured, the baseline.
  EXPECT_EQ(mpix::fastest_mpi_call({{4.0, 0.1}, {}, {}, {}}, mpi_calls, 1), 1);
  EXPECT_EQ(mpix::fastest_mpi_call({{4.0, 0.1}, {5.0, 0.1}, {}, {}}, mpi_calls, 1), 1);
  EXPECT_EQ(mpix::fastest_mpi_call(m, mpi_calls, -1), 2);
}

// A re-run keeps the incumbent (c1) within its own wide spread though c2
// measured faster; c1 is not clearly faster than MPI's call (c0), but c2
// is: c2 wins, not MPI's call.
TEST(Tournament, ACandidateClearlyFasterThanMpiWinsWhereTheKeptOneIsNot) {
  const std::vector<PeriodMeasure> m = {{1.96, 0.05}, {1.60, 0.35}, {1.52, 0.08}};
  const mpix::Verdict kept = mpix::tournament_verdict(names, m, 1);
  ASSERT_EQ(kept.winner, 1) << kept.reason;
  const auto v = mpix::prefer_mpi_in_close_calls(kept, names, m, 0, {});
  EXPECT_EQ(v.winner, 2) << v.reason;
  EXPECT_NE(v.reason.find("not clearly faster than c0"), std::string::npos) << v.reason;
  const std::vector<PeriodMeasure> none_clearly = {{1.96, 0.05}, {1.60, 0.35}, {1.85, 0.08}};
  EXPECT_EQ(mpix::prefer_mpi_in_close_calls(kept, names, none_clearly, 0, {}).winner, 0);
}

TEST(Tournament, DriftBothWaysReRuns) {
  EXPECT_FALSE(mpix::period_drifted(10, 12, {}));
  EXPECT_TRUE(mpix::period_drifted(10, 14, {}));
  EXPECT_TRUE(mpix::period_drifted(10, 7, {}));
  EXPECT_FALSE(mpix::period_drifted(0, 7, {}));
}

TEST(Tournament, ALoserFarAbovePredictionIsASuspect) {
  const auto s = predicted({{0, 2.0}, {0, 2.5}, {0, 3.0}, {0, 20.0}}, 1000);
  // c0 measured 45 us against 2 predicted (MPI warming up); c2 as predicted;
  // c3 far above its prediction too, but predicted slower than the winner.
  const std::vector<PeriodMeasure> m = {{45, 1}, {2.4, 0.1}, {3.1, 0.1}, {200, 1}};
  EXPECT_EQ(mpix::suspect_losers(s, m, 1, {}), (std::vector<int>{0}));
  // The winner is no suspect; against a winner measured at 45 us, c3 is.
  EXPECT_EQ(mpix::suspect_losers(s, m, 0, {}), (std::vector<int>{3}));
}

TEST(Tournament, AReRunTriesTheRunningTheBaselineAndTheCloseOnes) {
  const std::vector<PeriodMeasure> m = {{20, 1}, {10, 1}, {15, 1}, {50, 1}};
  EXPECT_EQ(mpix::rerun_entrants(m, 1, 0, {}), (std::vector<int>{1, 0, 2}));
  EXPECT_EQ(mpix::rerun_entrants(m, 0, 0, {}), (std::vector<int>{0, 1, 2}));
  // Clearly slower (beyond rule.cut, 1.5) is out, however close to twice;
  // the baseline is in however slow.
  const std::vector<PeriodMeasure> n = {{30, 1}, {10, 1}, {14, 1}, {16, 1}, {19, 1}};
  EXPECT_EQ(mpix::rerun_entrants(n, 1, 0, {}), (std::vector<int>{1, 0, 2}));
}

// Re-checks are paid for: what the trials cost beyond running the current
// choice, against a share of the request's time so far.
TEST(Tournament, AReCheckCostsItsTrialsExcessOverTheCurrentChoice) {
  mpix::TournamentRule rule;  // 3 + 8 periods per entrant, recheck_share 1%
  std::vector<PeriodMeasure> measured(3);
  measured[0] = {10, 0.1, 9};    // the current choice
  measured[1] = {4000, 50, 3900};  // MPI's own call, oversubscribed: 4 ms
  // measured[2] never measured: priced as the slowest entrant.
  const int baseline = 1, mpi_untimed = 50;
  // MPI's call: (50 + 8) periods, each 3990 us above the current 10 us.
  EXPECT_DOUBLE_EQ(mpix::recheck_cost_us({0, 1}, measured, baseline, mpi_untimed, 10, rule), 58 * 3990.0);
  EXPECT_DOUBLE_EQ(mpix::recheck_cost_us({0, 2}, measured, baseline, mpi_untimed, 10, rule), 0.0)
      << "an entrant never measured is priced as the slowest measured one among the entrants";
  EXPECT_DOUBLE_EQ(mpix::recheck_cost_us({0, 1, 2}, measured, baseline, mpi_untimed, 10, rule),
                   58 * 3990.0 + 11 * 3990.0);
  // 231 ms of trials: affordable after 23.1 s of running, not before.
  const double cost = 58 * 3990.0;
  EXPECT_FALSE(mpix::recheck_affordable(cost, 1e6, rule));
  EXPECT_FALSE(mpix::recheck_affordable(cost, 23.0e6, rule));
  EXPECT_TRUE(mpix::recheck_affordable(cost, 23.2e6, rule));
  // A choice that drifted above every other: re-racing costs nothing extra.
  EXPECT_DOUBLE_EQ(mpix::recheck_cost_us({0, 2}, measured, baseline, mpi_untimed, 5000, rule), 0.0);
  EXPECT_TRUE(mpix::recheck_affordable(0.0, 0.0, rule));
}
