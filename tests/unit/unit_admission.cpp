// The drop-in's admission rules, without MPI: the rent-or-buy bound and the
// agreements' cadence with made-up call times.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "selector/admission.hpp"

namespace {

const mpix::TournamentRule tournament;
const mpix::AdmissionRule rule;

}  // namespace

TEST(Admission, TrialsCostTheLosersExcessUntilTheyAreCut) {
  // Three losers, each 3 untimed + 3 scout periods at most 1.5 times MPI's.
  EXPECT_DOUBLE_EQ(mpix::trial_excess_periods(tournament, rule), 9.0);
  mpix::TournamentRule longer = tournament;
  longer.scout = 5;
  EXPECT_DOUBLE_EQ(mpix::trial_excess_periods(longer, rule), 12.0);
}

TEST(Admission, PricedByTheLastSearchMeasuredOrWhatTheRuleAllowsIfMore) {
  // The last search cost 400 us beyond MPI's calls: more than a request of
  // 150 us and nine periods of 10 us.
  EXPECT_DOUBLE_EQ(mpix::admission_price_us(400.0, 150.0, 10.0, tournament, rule), 400.0);
  // Calls of 100 us: the trials the rule allows cost more than that search.
  EXPECT_DOUBLE_EQ(mpix::admission_price_us(400.0, 150.0, 100.0, tournament, rule), 1050.0);
  EXPECT_DOUBLE_EQ(mpix::admission_price_us(0.0, 0.0, 10.0, tournament, rule), 90.0);  // nothing measured yet
  EXPECT_DOUBLE_EQ(mpix::admission_price_us(-5.0, -1.0, 10.0, tournament, rule), 90.0);
}

TEST(Admission, ASearchCostsWhatItTookBeyondTheFasterOfMpiAndItsWinner) {
  // A request of 50 us, then 20 calls taking 300 us: against MPI's 10 us
  // calls, where nothing beat them (the fastest call took 12 us)...
  EXPECT_DOUBLE_EQ(mpix::search_excess_us(50.0, 300.0, 20, 12.0, 10.0), 150.0);
  // ... and against a winner's 2 us calls, which beat MPI's.
  EXPECT_DOUBLE_EQ(mpix::search_excess_us(50.0, 300.0, 20, 2.0, 10.0), 310.0);
  // No call yet: against MPI's; never below nothing.
  EXPECT_DOUBLE_EQ(mpix::search_excess_us(50.0, 0.0, 0, 0.0, 10.0), 50.0);
  EXPECT_DOUBLE_EQ(mpix::search_excess_us(0.0, 100.0, 20, 0.0, 10.0), 0.0);
}

TEST(Admission, ASearchGainsWhatItsWinnerSavedOfMpisTime) {
  EXPECT_DOUBLE_EQ(mpix::search_gain(2.5, 10.0), 0.75);
  EXPECT_DOUBLE_EQ(mpix::search_gain(12.0, 10.0), 0.0);  // MPI's call won
  EXPECT_DOUBLE_EQ(mpix::search_gain(0.0, 10.0), 1.0);   // nothing measured
  EXPECT_DOUBLE_EQ(mpix::search_gain(2.0, 0.0), 1.0);
}

TEST(Admission, AdmitsOnceTheRentOverTheGainReachesThePrice) {
  // The last search saved three quarters of MPI's time.
  EXPECT_FALSE(mpix::admission_pays(119.9, 90.0, 0.75, rule));
  EXPECT_TRUE(mpix::admission_pays(120.0, 90.0, 0.75, rule));
  // Nothing measured: rent or buy at the price itself.
  EXPECT_TRUE(mpix::admission_pays(90.0, 90.0, 1.0, rule));
  // The last search found nothing faster: still bought, after four times
  // the price (rule.least_gain).
  EXPECT_FALSE(mpix::admission_pays(359.9, 90.0, 0.0, rule));
  EXPECT_TRUE(mpix::admission_pays(360.0, 90.0, 0.0, rule));
  EXPECT_DOUBLE_EQ(mpix::rent_needed_us(90.0, 0.1, rule), 360.0);
}

// Rent or buy's guarantee where the library wins nothing (MPI's own call
// is fastest, so admission only costs): after any number of calls, the
// total is at most (1 + gain) times what MPI alone would have taken, and
// the excess shrinks as 1 / calls.
TEST(Admission, WhereMpiWinsAdmissionCostsAtMostTheGainsShareOfWhatThePatternHadCost) {
  for (double call_us : {0.5, 8.0, 14.0, 400.0}) {
    for (double search_us : {0.0, 50.0, 1500.0}) {
      for (double gain : {0.0, 0.5, 1.0}) {
        const double price = mpix::admission_price_us(search_us, 0.0, call_us, tournament, rule);
        const double bound = 1 + std::max(gain, rule.least_gain);
        double rent = 0, total = 0;
        bool admitted = false;
        for (long n = 1; n <= 100000; ++n) {
          total += call_us;
          if (!admitted) {
            rent += call_us;
            if (mpix::admission_pays(rent, price, gain, rule)) {
              admitted = true;
              total += price;
            }
          }
          const double plain = static_cast<double>(n) * call_us;
          ASSERT_LE(total, bound * plain + 1e-9) << "call " << n << ", call_us " << call_us << ", gain " << gain;
          if (n >= 100 * static_cast<long>(std::ceil(price / call_us)))
            ASSERT_LE(total, 1.01 * plain + 1e-9) << "call " << n << ", call_us " << call_us;
        }
        ASSERT_TRUE(admitted);
      }
    }
  }
}

TEST(Admission, ExpectsALastSearchsGainOnlyNearItsBlocks) {
  // A search over 8 KiB blocks that saved 60% of MPI's time: the next
  // search is expected to save as much over blocks up to four times
  // larger or smaller, and least_gain further off, where the rent it
  // needs is four times its price.
  EXPECT_EQ(mpix::expected_gain(0.6, 8192, 8192, rule), 0.6);
  EXPECT_EQ(mpix::expected_gain(0.6, 8192, 32768, rule), 0.6);
  EXPECT_EQ(mpix::expected_gain(0.6, 8192, 2048, rule), 0.6);
  EXPECT_EQ(mpix::expected_gain(0.6, 8192, 32769, rule), rule.least_gain);
  EXPECT_EQ(mpix::expected_gain(0.6, 8192, 262144, rule), rule.least_gain);
  EXPECT_EQ(mpix::expected_gain(0.6, 262144, 2047, rule), rule.least_gain);
  EXPECT_DOUBLE_EQ(mpix::rent_needed_us(100, mpix::expected_gain(0.6, 8192, 262144, rule), rule), 400);
  // A search that gained less than least_gain keeps its own, and one whose
  // blocks are not known foretells nothing.
  EXPECT_EQ(mpix::expected_gain(0.1, 8192, 262144, rule), 0.1);
  EXPECT_EQ(mpix::expected_gain(0.6, 0, 8192, rule), rule.least_gain);
}

TEST(Admission, LooksRarelyAtCheapCallsAndOftenAtExpensiveOnes) {
  // An agreement of 2 us among calls of 0.4 us, which costs them three
  // times that: at most 1% of their time.
  const long cheap = mpix::calls_before_next_check(0.4, 2.0, false, 0, 0, rule);
  EXPECT_EQ(cheap, 1500);
  EXPECT_LE(rule.check_cost_factor * 2.0, rule.check_share * cheap * 0.4 + 1e-12);
  // Among calls of 20 us: every thirty calls.
  EXPECT_EQ(mpix::calls_before_next_check(20.0, 2.0, false, 0, 0, rule), 30);
  // Bounded both ways.
  EXPECT_EQ(mpix::calls_before_next_check(0.001, 2.0, false, 0, 0, rule), rule.max_calls_between_checks);
  EXPECT_EQ(mpix::calls_before_next_check(1e6, 2.0, false, 0, 0, rule), rule.min_calls_between_checks);
  // Not measured yet, or nonsense: the least.
  EXPECT_EQ(mpix::calls_before_next_check(0.0, 2.0, false, 0, 0, rule), rule.min_calls_between_checks);
  EXPECT_EQ(mpix::calls_before_next_check(std::numeric_limits<double>::quiet_NaN(), 2.0, false, 0, 0, rule),
            rule.min_calls_between_checks);
  EXPECT_EQ(mpix::calls_before_next_check(0.4, std::numeric_limits<double>::infinity(), false, 0, 0, rule),
            rule.max_calls_between_checks);
}

TEST(Admission, AnExchangeWaitingForItsRentIsLookedAtWhenItWillHavePaid) {
  // 10 us calls, 30 us of rent so far, a price of 90: six more calls
  // (sooner than the cadence's twenty).
  EXPECT_EQ(mpix::calls_before_next_check(10.0, 2.0, true, 30.0, 90.0, rule), 6);
  // Never later than the cadence alone.
  EXPECT_EQ(mpix::calls_before_next_check(10.0, 2.0, true, 0.0, 1e6, rule),
            mpix::calls_before_next_check(10.0, 2.0, false, 0.0, 0.0, rule));
  // Already paid: the next call.
  EXPECT_EQ(mpix::calls_before_next_check(10.0, 2.0, true, 95.0, 90.0, rule), rule.min_calls_between_checks);
}
