// How long a communicator's patterns ran, as the agreements see them.
#include <gtest/gtest.h>

#include "selector/pattern_lives.hpp"

TEST(PatternLives, ASweepsPatternsRunTheirCallsEach) {
  // Patterns of 250 calls, agreed every 40 calls (call 10, 50, 90, ...):
  // each agreement is told how many calls its pattern has run.
  mpix::PatternLives lives;
  for (long call = 10; call < 1500; call += 40) {
    lives.at_agreement(call, call % 250 + 1);
    if (call < 250) EXPECT_EQ(lives.typical(), 0) << call;  // no pattern ended yet
  }
  EXPECT_EQ(lives.typical(), 250);
}

TEST(PatternLives, TheShortestOfTheLastFewIsTypical) {
  mpix::PatternLives lives;
  // Patterns beginning at calls 0, 100, 400, 500 and 1500.
  const long begins[] = {0, 100, 400, 500, 1500};
  long call = 0;
  for (long begin : begins) {
    for (call = begin + 5; call < begin + 90; call += 30) lives.at_agreement(call, call - begin + 1);
  }
  EXPECT_EQ(lives.typical(), 100);  // lives of 100, 300, 100 and 1000: the last three's shortest
  // Two more long ones push the short one out.
  for (long begin : {2500L, 3500L})
    for (call = begin + 5; call < begin + 90; call += 30) lives.at_agreement(call, call - begin + 1);
  EXPECT_EQ(lives.typical(), 1000);
}

TEST(PatternLives, APatternRunningOnEndsNoLife) {
  // One pattern, agreed at growing spacing: no pattern ended.
  mpix::PatternLives lives;
  for (long call = 3, gap = 1; call < 100000; call += gap, gap *= 2) lives.at_agreement(call, call + 1);
  EXPECT_EQ(lives.typical(), 0);
}
