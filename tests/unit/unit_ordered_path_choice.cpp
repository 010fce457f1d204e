// OrderedPathChoice (rma/ordered_path_choice.hpp): the blocks an ordered
// window's first transfers form, and the choice their periods make.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

#include "rma/ordered_path_choice.hpp"

using mpix::OrderedPathChoice;

namespace {

constexpr int blocks = 2 * OrderedPathChoice::blocks_per_path;

// Runs the trials with block b lasting period(b) nanoseconds; returns how
// many transfers went by CMA.
int run_trials(OrderedPathChoice& choice, const std::function<std::uint64_t(int)>& period) {
  std::uint64_t now = 1000;
  int by_cma = 0;
  for (int transfer = 0; transfer <= blocks * OrderedPathChoice::block_size; ++transfer) {
    const OrderedPathChoice::Pick pick = choice.pick();
    const int block = transfer / OrderedPathChoice::block_size;
    EXPECT_EQ(pick.direct, block % 2 == 0) << "transfer " << transfer;
    EXPECT_EQ(pick.opens_block, transfer % OrderedPathChoice::block_size == 0 ? block : -1) << "transfer " << transfer;
    if (pick.opens_block >= 0) {
      choice.stamp(pick.opens_block, now);
      if (block < blocks) now += period(block);
    }
    by_cma += pick.direct;
  }
  return by_cma;
}

}  // namespace

TEST(OrderedPathChoice, TheRuleComparesMedians) {
  EXPECT_TRUE(OrderedPathChoice::cma_wins({5, 5, 5, 5}, {6, 6, 6, 6}));
  EXPECT_FALSE(OrderedPathChoice::cma_wins({6, 6, 6, 6}, {5, 5, 5, 5}));
  EXPECT_TRUE(OrderedPathChoice::cma_wins({5, 5, 5, 5}, {5, 5, 5, 5})) << "a tie keeps CMA";
  // One preempted block does not outvote the others.
  EXPECT_TRUE(OrderedPathChoice::cma_wins({5, 900, 5, 5}, {6, 6, 6, 6}));
  EXPECT_FALSE(OrderedPathChoice::cma_wins({6, 6, 6, 6}, {5, 900, 5, 5}));
}

TEST(OrderedPathChoice, MeasuresUntilEveryBlockIsStamped) {
  OrderedPathChoice choice;
  EXPECT_EQ(choice.describe(), "measuring");
  for (int transfer = 0; transfer < blocks * OrderedPathChoice::block_size; ++transfer) {
    const OrderedPathChoice::Pick pick = choice.pick();
    if (pick.opens_block >= 0) choice.stamp(pick.opens_block, 1000u * static_cast<unsigned>(transfer + 1));
  }
  EXPECT_EQ(choice.describe(), "measuring") << "the last block has no end yet";
}

TEST(OrderedPathChoice, TakesMpiWhereItsBlocksAreShorter) {
  OrderedPathChoice choice;
  run_trials(choice, [](int block) { return block % 2 == 0 ? 3200u : 1600u; });
  EXPECT_EQ(choice.describe(), "mpi (cma 0.20 us, mpi 0.10 us per transfer)");
  for (int i = 0; i < 100; ++i) {
    const OrderedPathChoice::Pick pick = choice.pick();
    EXPECT_FALSE(pick.direct);
    EXPECT_EQ(pick.opens_block, -1);
  }
}

TEST(OrderedPathChoice, TakesCmaWhereItsBlocksAreShorter) {
  OrderedPathChoice choice;
  // One CMA block preempted: the median still sees CMA faster.
  run_trials(choice, [](int block) { return block == 2 ? 1000000u : block % 2 == 0 ? 800u : 1600u; });
  EXPECT_EQ(choice.describe(), "cma (cma 0.05 us, mpi 0.10 us per transfer)");
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(choice.pick().direct);
}
