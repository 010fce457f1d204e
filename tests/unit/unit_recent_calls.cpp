// The drop-in's memory of recent calls, without MPI: how many calls a
// pattern has run and what it costs, as the agreements see it.
#include <gtest/gtest.h>

#include "intercept/recent_calls.hpp"

using mpix::intercept::RecentCalls;

namespace {

constexpr double period_s = 25e-6;  // from one call's start to the next's

// Calls [from, to) with one hash, each timed at us, one every period_s,
// recorded as the drop-in does: only the window's worth before the
// agreement at call `to - 1`.
void run(RecentCalls& r, long from, long to, std::uint64_t hash, double us) {
  for (long c = std::max(from, to - RecentCalls::window); c < to; ++c) {
    r.record(c, hash);
    r.timed(static_cast<double>(c) * period_s, us);
  }
}

}  // namespace

TEST(RecentCalls, APatternRunsSinceItWasFirstSeenWhileEveryAgreementFindsIt) {
  RecentCalls r;
  run(r, 0, 10, 7, 5.0);
  RecentCalls::Pattern p = r.at_agreement(9);
  EXPECT_EQ(p.repeats, 10);
  EXPECT_EQ(p.calls, 10);
  EXPECT_DOUBLE_EQ(p.call_us, 5.0);
  EXPECT_NEAR(p.period_us, 1e6 * period_s, 1e-6);
  run(r, 10, 200, 7, 5.0);  // passed through unrecorded, then the window before the agreement
  p = r.at_agreement(199);
  EXPECT_EQ(p.repeats, RecentCalls::window);
  EXPECT_EQ(p.calls, 200);
  EXPECT_DOUBLE_EQ(r.mean_call_us(), 5.0);
}

TEST(RecentCalls, ANewPatternStartsAfresh) {
  RecentCalls r;
  run(r, 0, 100, 7, 5.0);
  r.at_agreement(99);
  run(r, 100, 106, 8, 20.0);
  const RecentCalls::Pattern p = r.at_agreement(105);
  EXPECT_EQ(p.repeats, 6);
  EXPECT_EQ(p.calls, 6);
  EXPECT_DOUBLE_EQ(p.call_us, 20.0);
}

// Two exchanges alternating (a forward and a backward transpose): each has
// run for half the calls.
TEST(RecentCalls, AlternatingPatternsEachRunTheirShare) {
  RecentCalls r;
  const auto alternate = [&r](long from, long to) {
    for (long c = from; c < to; ++c) {
      r.record(c, c % 2 ? 8 : 7);
      r.timed(static_cast<double>(c) * period_s, c % 2 ? 20.0 : 10.0);
    }
  };
  alternate(0, 16);
  r.at_agreement(15);
  alternate(84, 100);
  const RecentCalls::Pattern p = r.at_agreement(99);  // call 99: hash 8
  EXPECT_EQ(p.repeats, 8);
  EXPECT_EQ(p.calls, 99 * 8 / 16);  // since call 1, half of them
  EXPECT_DOUBLE_EQ(p.call_us, 20.0);
  EXPECT_DOUBLE_EQ(r.mean_call_us(), 15.0);
  EXPECT_EQ(p.period_us, 0.0) << "no two consecutive calls share arguments";
}

// The periods around a call at an agreement hold the agreement and what
// followed it: they are left out, and so is a call never timed.
TEST(RecentCalls, ThePeriodIsMpisAndTheProgramsOnly) {
  RecentCalls r;
  double began = 0;
  for (long c = 0; c < 12; ++c) {
    r.record(c, 7);
    if (c == 5) {
      r.at_agreement(c);
      began += 40e-6;  // the agreement, before MPI's call
    }
    if (c != 8) r.timed(began, 5.0);
    began += period_s;
    if (c == 5) began += 300e-6;  // the admission, after it
  }
  EXPECT_NEAR(r.at_agreement(11).period_us, 1e6 * period_s, 1e-6);
}

// A pattern missing from one agreement's window broke its run.
TEST(RecentCalls, APatternAbsentAtAnAgreementRunsAgainFromItsReturn) {
  RecentCalls r;
  run(r, 0, 50, 7, 5.0);
  r.at_agreement(49);
  run(r, 50, 100, 8, 5.0);
  r.at_agreement(99);
  run(r, 100, 104, 7, 5.0);
  EXPECT_EQ(r.at_agreement(103).calls, 4);
}
