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
  // The last search saved three quarters of MPI's time: a price of 90 us
  // needs 120 us of calls ahead; with no typical life, as many as the
  // pattern ran (calls of 10 us).
  const double needed = mpix::rent_needed_us(90.0, 0.75, rule);
  EXPECT_DOUBLE_EQ(needed, 120.0);
  EXPECT_EQ(mpix::calls_to_admission(11, 10.0, 0, needed, needed), 1);
  EXPECT_EQ(mpix::calls_to_admission(12, 10.0, 0, needed, needed), 0);
  EXPECT_EQ(mpix::calls_to_admission(3, 10.0, 0, needed, needed), 9);
  // Nothing measured: rent or buy at the price itself.
  EXPECT_DOUBLE_EQ(mpix::rent_needed_us(90.0, 1.0, rule), 90.0);
  // The last search found nothing faster: still bought, after four times
  // the price (rule.least_gain).
  EXPECT_DOUBLE_EQ(mpix::rent_needed_us(90.0, 0.0, rule), 360.0);
  EXPECT_DOUBLE_EQ(mpix::rent_needed_us(90.0, 0.1, rule), 360.0);
  // Free searches (MPIX_INTERCEPT_ADMISSION=repeats) are bought at once;
  // calls not timed yet never pay for one.
  EXPECT_EQ(mpix::calls_to_admission(1, 0.0, 0, 0.0, 0.0), 0);
  EXPECT_GT(mpix::calls_to_admission(1000, 0.0, 0, 1.0, 1.0), 1000000);
}

TEST(Admission, ExpectsAPatternToRunTheRestOfATypicalLife) {
  EXPECT_EQ(mpix::expected_more_calls(40, 0), 40);     // no life known: as many again
  EXPECT_EQ(mpix::expected_more_calls(40, 250), 210);  // younger: the rest of it
  EXPECT_EQ(mpix::expected_more_calls(300, 250), 300); // it outlived it: as many again
  // Patterns of 250 calls here; a search needs 1200 us of calls of 10 us
  // ahead. At 20 calls the 230 left repay it: admitted then, not after 120.
  EXPECT_EQ(mpix::calls_to_admission(20, 10.0, 250, 1200.0, 1200.0), 0);
  // At 140 calls the 110 left cannot: not before it outlives the others.
  EXPECT_EQ(mpix::calls_to_admission(140, 10.0, 250, 1200.0, 1200.0), 111);
  EXPECT_EQ(mpix::expected_more_calls(250, 250), 0);
  // A search that needs 3000 us ahead is not repaid within a life: after
  // it, at 300 calls, as rent or buy would have.
  EXPECT_EQ(mpix::calls_to_admission(20, 10.0, 250, 3000.0, 3000.0), 280);
  EXPECT_EQ(mpix::calls_to_admission(300, 10.0, 250, 3000.0, 3000.0), 0);
}

TEST(Admission, BetsAYoungPatternOnlyOnTheGainMeasuredNearItsBlocks) {
  // A search of 300 us whose last one saved 60%: a young pattern needs 500
  // us of calls in the rest of its life, one that outlived it 500 too.
  EXPECT_DOUBLE_EQ(mpix::young_rent_needed_us(300.0, 0.6), 500.0);
  // Where the last search saved 5%, a young one needs twenty times the
  // price, not rent or buy's four (least_gain): 100 calls of 10 us left do
  // not repay it; it waits until it outlives the others.
  const double needed = mpix::rent_needed_us(300.0, 0.05, rule), young = mpix::young_rent_needed_us(300.0, 0.05);
  EXPECT_DOUBLE_EQ(needed, 1200.0);
  EXPECT_DOUBLE_EQ(young, 6000.0);
  EXPECT_EQ(mpix::calls_to_admission(150, 10.0, 250, needed, young), 101);
  // Nothing saved: never young; free searches (a price of 0) at once.
  EXPECT_GT(mpix::young_rent_needed_us(300.0, 0.0), 1e300);
  EXPECT_EQ(mpix::young_rent_needed_us(0.0, 0.0), 0.0);
}

// A program that sweeps sizes, each pattern running `life` calls: where the
// library's winner takes (1 - gain) of MPI's time and a search costs what
// the rule expects, the patterns admitted with their life known cost no
// more than MPI's calls alone, and no more than rent or buy's.
TEST(Admission, ALifeKnownNeverCostsMoreThanRentOrBuyOverASweep) {
  for (double call_us : {2.0, 12.0, 60.0, 400.0}) {
    for (double price : {300.0, 1500.0, 6000.0}) {
      for (double gain : {0.3, 0.6}) {
        const long life = 250;
        const double needed = mpix::rent_needed_us(price, gain, rule);
        const auto cost = [&](long typical) {
          double total = 0;
          bool admitted = false;
          for (long n = 1; n <= life; ++n) {
            total += admitted ? (1 - gain) * call_us : call_us;
            if (!admitted && mpix::calls_to_admission(n, call_us, typical, needed,
                                                      mpix::young_rent_needed_us(price, gain)) == 0) {
              admitted = true;
              total += price;
            }
          }
          return total;
        };
        const double plain = static_cast<double>(life) * call_us;
        EXPECT_LE(cost(life), plain + 1e-9) << call_us << " us calls, price " << price << ", gain " << gain;
        EXPECT_LE(cost(life), cost(0) + 1e-9) << call_us << " us calls, price " << price << ", gain " << gain;
      }
    }
  }
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
            const double needed = mpix::rent_needed_us(price, gain, rule);
            if (mpix::calls_to_admission(n, call_us, 0, needed, needed) == 0) {
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
  const long cheap = mpix::calls_before_next_check(0.4, 2.0, mpix::no_admission_awaited, rule);
  EXPECT_EQ(cheap, 1500);
  EXPECT_LE(rule.check_cost_factor * 2.0, rule.check_share * cheap * 0.4 + 1e-12);
  // Among calls of 20 us: every thirty calls.
  EXPECT_EQ(mpix::calls_before_next_check(20.0, 2.0, mpix::no_admission_awaited, rule), 30);
  // Bounded both ways.
  EXPECT_EQ(mpix::calls_before_next_check(0.001, 2.0, mpix::no_admission_awaited, rule), rule.max_calls_between_checks);
  EXPECT_EQ(mpix::calls_before_next_check(1e6, 2.0, mpix::no_admission_awaited, rule), rule.min_calls_between_checks);
  // Not measured yet, or nonsense: the least.
  EXPECT_EQ(mpix::calls_before_next_check(0.0, 2.0, mpix::no_admission_awaited, rule), rule.min_calls_between_checks);
  constexpr double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(mpix::calls_before_next_check(nan, 2.0, mpix::no_admission_awaited, rule), rule.min_calls_between_checks);
  EXPECT_EQ(mpix::calls_before_next_check(0.4, inf, mpix::no_admission_awaited, rule), rule.max_calls_between_checks);
}

TEST(Admission, AnExchangeWaitingForItsRentIsLookedAtWhenItWillHavePaid) {
  // 10 us calls, 3 of them so far, 90 us needed ahead: six more calls
  // (sooner than the cadence's twenty).
  EXPECT_EQ(mpix::calls_before_next_check(10.0, 2.0, mpix::calls_to_admission(3, 10.0, 0, 90.0, 90.0), rule), 6);
  // Never later than the cadence alone.
  EXPECT_EQ(mpix::calls_before_next_check(10.0, 2.0, mpix::calls_to_admission(0, 10.0, 0, 1e6, 1e6), rule),
            mpix::calls_before_next_check(10.0, 2.0, mpix::no_admission_awaited, rule));
  // Already paid: the next call.
  EXPECT_EQ(mpix::calls_before_next_check(10.0, 2.0, mpix::calls_to_admission(10, 10.0, 0, 90.0, 90.0), rule),
            rule.min_calls_between_checks);
}
