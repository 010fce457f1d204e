// StagingChoice (collectives/staging_choice.hpp): which epochs stage, and
// the choice each round's trials make.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

#include "collectives/staging_choice.hpp"

using mpix::StagingChoice;

namespace {

constexpr std::uint64_t first = StagingChoice::first_trial, trials = StagingChoice::trial_epochs;

// Runs epochs [from, to): each trial takes staged_s or direct_s seconds,
// as it stages or not; returns the epochs that staged outside trials.
std::uint64_t run(StagingChoice& choice, std::uint64_t from, std::uint64_t to, double staged_s, double direct_s) {
  std::uint64_t staged = 0;
  for (std::uint64_t epoch = from; epoch < to; ++epoch) {
    const bool stages = choice.stages(epoch);
    if (choice.on_trial(epoch)) choice.measured(epoch, stages ? staged_s : direct_s);
    else staged += stages;
  }
  return staged;
}

}  // namespace

TEST(StagingChoice, TrialsStageTheirFirstHalfOnly) {
  StagingChoice choice;
  for (std::uint64_t round = 0; round < 3; ++round)
    for (std::uint64_t at = 0; at < StagingChoice::round_epochs; ++at) {
      const std::uint64_t epoch = round * StagingChoice::round_epochs + at;
      const bool trial = at >= first && at < first + trials;
      EXPECT_EQ(choice.on_trial(epoch), trial) << "epoch " << epoch;
      if (trial) EXPECT_EQ(choice.stages(epoch), at < first + trials / 2) << "epoch " << epoch;
    }
}

TEST(StagingChoice, StagesUntilItsFirstTrialsEnd) {
  StagingChoice choice;
  EXPECT_EQ(run(choice, 1, first, 1.0, 0.5), first - 1);
}

TEST(StagingChoice, EachRoundRunsTheWayItsTrialsFoundFaster) {
  StagingChoice choice;
  const std::uint64_t round = StagingChoice::round_epochs, outside = round - trials;
  // Staging slower: the round's epochs after its trials go direct (those
  // before them run the last round's way: staged, the first).
  EXPECT_EQ(run(choice, round, 2 * round, 2e-6, 1e-6), first);
  // The next round's trials find staging faster: it stages again after them.
  EXPECT_EQ(run(choice, 2 * round, 3 * round, 1e-6, 2e-6), outside - first);
}

TEST(StagingChoice, OneLateEpochDoesNotDecide) {
  StagingChoice choice;
  const std::uint64_t round = StagingChoice::round_epochs;
  // Staging is faster but for one epoch in which this rank was descheduled.
  for (std::uint64_t epoch = round; epoch < round + first + trials; ++epoch) {
    const bool stages = choice.stages(epoch);
    if (!choice.on_trial(epoch)) continue;
    const bool late = epoch == round + first;
    choice.measured(epoch, late ? 1e-3 : stages ? 1e-6 : 2e-6);
  }
  EXPECT_TRUE(choice.stages(round + first + trials));
}
