// The node channel's ring geometry, without MPI: what a rank's rings take
// of the staging budget for a given node size and largest block.
#include <gtest/gtest.h>

#include "node/node_channel.hpp"

namespace {

mpix::ChannelSettings settings(std::size_t chunk, std::size_t staging) {
  mpix::ChannelSettings s;
  s.chunk_bytes = chunk;
  s.staging_bytes = staging;
  return s;
}

// Bytes of shared memory one rank's inbound rings take.
std::size_t staging_of(const mpix::NodeChannel::Geometry& g, int node_size) {
  return static_cast<std::size_t>(node_size - 1) * g.stride * g.slots;
}

}  // namespace

TEST(ChannelGeometry, ASlotHoldsAWholeBlockUpToTheChunk) {
  const auto g = mpix::NodeChannel::geometry_for(settings(32768, 1 << 20), 2, 32768);
  EXPECT_GE(g.stride, 32768u);  // one chunk per 32 KiB block, header beside it
  EXPECT_LE(g.stride, 32768u + 64);
  const auto small = mpix::NodeChannel::geometry_for(settings(32768, 1 << 20), 2, 100);
  EXPECT_LE(small.stride, 256u);  // small blocks cycle through a few lines
}

TEST(ChannelGeometry, ChunksShrinkSoThatTwoSlotsPerPeerFitTheBudget) {
  for (int node_size : {2, 8, 16, 17, 64, 200}) {
    const auto g = mpix::NodeChannel::geometry_for(settings(32768, 1 << 20), node_size, 1 << 20);
    EXPECT_GE(g.slots, 2u) << node_size;
    EXPECT_LE(staging_of(g, node_size), std::size_t{1} << 20) << node_size << " ranks on the node";
  }
  // Only a budget below two one-line slots per peer is exceeded.
  const auto tiny = mpix::NodeChannel::geometry_for(settings(32768, 256), 64, 1 << 20);
  EXPECT_EQ(tiny.stride, 64u);
  EXPECT_EQ(tiny.slots, 2u);
}

// Lockstep only for an even pair whose blocks both reach the threshold;
// an uneven pair, small blocks and a threshold of 0 run ahead.
TEST(ChannelPacing, LockstepOnlyForAnEvenPairOfLargeEnoughBlocks) {
  using Pacing = mpix::NodeChannel::Pacing;
  mpix::ChannelSettings s;
  s.lockstep_bytes = 2304;
  const auto pacing = [&](std::size_t to, std::size_t from) { return mpix::NodeChannel::pacing_for(s, to, from); };
  EXPECT_EQ(pacing(6584, 6576), Pacing::lockstep);
  EXPECT_EQ(pacing(2304, 2600), Pacing::lockstep);  // within 15%, both at the threshold
  EXPECT_EQ(pacing(2600, 2304), Pacing::lockstep);  // both ends of the pair pace alike
  EXPECT_EQ(pacing(2303, 2303), Pacing::run_ahead);  // too small
  EXPECT_EQ(pacing(31384, 3632), Pacing::run_ahead);  // uneven
  EXPECT_EQ(pacing(3632, 31384), Pacing::run_ahead);
  EXPECT_EQ(pacing(10000, 11600), Pacing::run_ahead);  // 16% apart
  EXPECT_EQ(pacing(0, 4096), Pacing::run_ahead);  // one way only
  s.lockstep_bytes = 0;
  EXPECT_EQ(pacing(6584, 6576), Pacing::run_ahead);  // 0: never
}
