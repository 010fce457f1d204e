// The cost model and the break-even rule, without MPI: made-up parameters
// with known answers.
#include <gtest/gtest.h>

#include <stdexcept>

#include "selector/selector.hpp"

namespace {

using mpix::AlgorithmParameters;
using mpix::MessageCurve;

// An algorithm costing `sync` per iteration, `per_message` + bytes/`bandwidth`
// per message, `init` to set up.
AlgorithmParameters flat(double sync, double per_message, double bandwidth, double init) {
  AlgorithmParameters p;
  p.one_node = p.multi_node = {sync, init, init / 4};
  p.node = p.node_user = p.net =
      MessageCurve({{0, per_message}, {1 << 20, per_message + (1 << 20) / bandwidth}});
  return p;
}

mpix::TuningParameters parameters() {
  mpix::TuningParameters t;
  t.algorithms["cheap_init"] = flat(0.1, 1.0, 1000, 5);  // a two-sided baseline
  t.algorithms["fast_iter"] = flat(0.1, 0.2, 10000, 500);  // an RMA algorithm
  return t;
}

mpix::SelectionInputs inputs(long bytes_per_message, long iterations) {
  mpix::SelectionInputs in;
  in.pattern.ranks = 2;
  in.pattern.node_messages = 1;
  in.pattern.node_bytes = bytes_per_message;
  in.pattern.max_peer_bytes = bytes_per_message;
  in.expected_iterations = iterations;
  in.candidates = {{"cheap_init"}, {"fast_iter"}};
  return in;
}

}  // namespace

TEST(MessageCurve, InterpolatesAndExtendsTheLastSlope) {
  const MessageCurve c({{8, 1.0}, {1024, 2.0}, {2048, 4.0}});
  EXPECT_DOUBLE_EQ(c.at(0), 1.0);  // flat below the first point
  EXPECT_DOUBLE_EQ(c.at(8), 1.0);
  EXPECT_DOUBLE_EQ(c.at(516), 1.5);
  EXPECT_DOUBLE_EQ(c.at(1536), 3.0);
  EXPECT_DOUBLE_EQ(c.at(4096), 8.0);  // 2 us per KiB beyond the last point
  EXPECT_DOUBLE_EQ(MessageCurve().at(100), 0.0);
}

TEST(MessageCurve, RejectsBytesThatDoNotIncreaseAndNegativeTimes) {
  EXPECT_THROW(MessageCurve({{8, 1.0}, {8, 2.0}}), std::invalid_argument);
  EXPECT_THROW(MessageCurve({{8, -1.0}}), std::invalid_argument);
}

TEST(CostModel, AddsSyncAndMessagesPerLocality) {
  AlgorithmParameters p;
  p.one_node = {1.0, 40, 4};
  p.multi_node = {10.0, 200, 20};
  p.node = MessageCurve({{0, 0.5}});
  p.node_user = MessageCurve({{0, 2.0}});
  p.net = MessageCurve({{0, 7.0}});
  mpix::PatternSummary s;
  s.ranks = 2;
  s.node_messages = 3;
  s.node_bytes = 300;
  s.library_memory = true;
  EXPECT_DOUBLE_EQ(mpix::predict_cost(p, s, 2, false).t_iter_us, 1.0 + 3 * 0.5);
  EXPECT_DOUBLE_EQ(mpix::predict_cost(p, s, 2, false).t_init_us, 40);
  EXPECT_DOUBLE_EQ(mpix::predict_cost(p, s, 2, true).t_init_us, 4);  // pooled window
  s.library_memory = false;
  EXPECT_DOUBLE_EQ(mpix::predict_cost(p, s, 2, false).t_iter_us, 1.0 + 3 * 2.0);
  s.nodes = 2;
  s.net_messages = 2;
  s.net_bytes = 64;
  EXPECT_DOUBLE_EQ(mpix::predict_cost(p, s, 2, false).t_iter_us, 10.0 + 3 * 2.0 + 2 * 7.0);
  s.ranks = 8;  // log2 8 / log2 2: the synchronization triples
  EXPECT_DOUBLE_EQ(mpix::predict_cost(p, s, 2, false).t_iter_us, 30.0 + 3 * 2.0 + 2 * 7.0);
  p.self = MessageCurve({{0, 0.25}});
  p.self_user = MessageCurve({{0, 0.75}});
  s.self_bytes = 100;  // the block to itself, priced once
  EXPECT_DOUBLE_EQ(mpix::predict_cost(p, s, 2, false).t_iter_us, 30.0 + 3 * 2.0 + 2 * 7.0 + 0.75);
  s.library_memory = true;
  EXPECT_DOUBLE_EQ(mpix::predict_cost(p, s, 2, false).t_iter_us, 30.0 + 3 * 0.5 + 2 * 7.0 + 0.25);
  p.multi_node_self = MessageCurve({{0, 4.0}});  // measured across nodes: used there
  EXPECT_DOUBLE_EQ(mpix::predict_cost(p, s, 2, false).t_iter_us, 30.0 + 3 * 0.5 + 2 * 7.0 + 4.0);
}

TEST(Selector, BreakEvenRuleDependsOnTheExpectedIterations) {
  // fast_iter saves 0.8072 us per iteration for 495 us more init: N = 613.2.
  const auto few = mpix::select_algorithm(inputs(8, 100), parameters());
  EXPECT_EQ(few.choice().name, "cheap_init");
  const auto many = mpix::select_algorithm(inputs(8, 10000), parameters());
  EXPECT_EQ(many.choice().name, "fast_iter");
  EXPECT_NEAR(mpix::breakeven_iterations(many.predictions[1].cost, many.predictions[0].cost), 613.2, 0.1);
  EXPECT_NE(many.reason.find("N=10000"), std::string::npos) << many.reason;
  EXPECT_NE(many.reason.find("break-even against it at N=614"), std::string::npos) << many.reason;
}

TEST(Selector, NeverChoosesAnExcludedRefusedOrUnmeasuredAlgorithm) {
  auto in = inputs(8, 10000);
  in.candidates[1].excluded = true;
  auto s = mpix::select_algorithm(in, parameters());
  EXPECT_EQ(s.choice().name, "cheap_init");
  EXPECT_EQ(s.predictions[1].why_not, "excluded by MPIX_ALLTOALLV_EXCLUDE");
  in.candidates[1] = {"fast_iter", true, false};
  EXPECT_EQ(mpix::select_algorithm(in, parameters()).choice().name, "cheap_init");
  in.candidates[1] = {"never_measured"};
  s = mpix::select_algorithm(in, parameters());
  EXPECT_EQ(s.choice().name, "cheap_init");
  EXPECT_FALSE(s.predictions[1].eligible);
  in.candidates[0].excluded = true;
  EXPECT_THROW(mpix::select_algorithm(in, parameters()), std::invalid_argument);
}

TEST(Selector, RunsAnAlgorithmOnlyWhereItWasMeasured) {
  // fast_iter calibrated on one node only: its off-node curve is empty.
  mpix::TuningParameters t = parameters();
  t.algorithms["fast_iter"].net = MessageCurve();
  auto in = inputs(65536, 10000);
  EXPECT_EQ(mpix::select_algorithm(in, t).choice().name, "fast_iter");
  in.pattern.nodes = 2;
  in.pattern.node_messages = 0;
  in.pattern.net_messages = 1;
  in.pattern.net_bytes = 65536;
  const auto s = mpix::select_algorithm(in, t);
  EXPECT_EQ(s.choice().name, "cheap_init");
  EXPECT_FALSE(s.predictions[1].eligible);
  EXPECT_EQ(s.predictions[1].why_not, "not measured across nodes (run mpix_tune there)");
}

TEST(Selector, ExplainsEveryCandidate) {
  auto in = inputs(8, 10000);
  in.candidates[0].excluded = true;
  const auto s = mpix::select_algorithm(in, parameters());
  const std::string text = mpix::describe_selection(in, s);
  EXPECT_NE(text.find("cheap_init: not a candidate (excluded"), std::string::npos) << text;
  EXPECT_NE(text.find("fast_iter: T_init"), std::string::npos) << text;
  EXPECT_NE(text.find("choice: fast_iter"), std::string::npos) << text;
}

