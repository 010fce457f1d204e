// Fitting and merging calibration launches (selector/calibration.hpp),
// without MPI: made-up timings with known answers, and the built-in file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>

#include "selector/calibration.hpp"
#include "selector/tuning_file.hpp"

namespace {

using mpix::AlgorithmParameters;
using mpix::MessageCurve;
using mpix::TuningParameters;

std::vector<double> values(const MessageCurve& c) {
  std::vector<double> v;
  for (const auto& p : c.points()) v.push_back(p.second);
  return v;
}

TEST(SaneCurve, KeepsAMonotoneCurveAsItIs) {
  EXPECT_EQ(values(mpix::sane_curve({{8, 0.5}, {64, 0.5}, {512, 0.9}, {4096, 3.0}})),
            (std::vector<double>{0.5, 0.5, 0.9, 3.0}));
}

TEST(SaneCurve, AveragesADipWithItsNeighboursInsteadOfKeepingIt) {
  // The built-in fence curve once read 12.3 us at 512 B, 0 at 1 KiB and
  // 1.65 at 4 KiB: noise, kept by a clamp at zero.
  const std::vector<double> fitted = values(mpix::sane_curve({{512, 12.3}, {1024, -2.0}, {4096, 1.65}, {8192, 20.0}}));
  ASSERT_EQ(fitted.size(), 4u);
  for (std::size_t i = 1; i < fitted.size(); ++i) EXPECT_LE(fitted[i - 1], fitted[i]);
  EXPECT_NEAR(fitted[0], (12.3 - 2.0 + 1.65) / 3, 1e-12);  // least squares: the pooled mean
  EXPECT_NEAR(fitted[2], fitted[0], 1e-12);
  EXPECT_EQ(fitted[3], 20.0);
}

TEST(SaneCurve, NeverBelowZero) {
  for (double v : values(mpix::sane_curve({{8, -1.0}, {64, -0.5}, {512, 0.25}}))) EXPECT_GE(v, 0.0);
}

TEST(FitCurves, RecoversTheCurvesATimingWasMadeOf) {
  // T_peers = sync + messages * peer(b), T_all = T_peers + self(b).
  const std::vector<double> sizes = {8, 4096, 65536};
  const std::vector<double> peer = {0.4, 1.2, 9.0}, self = {0.1, 0.6, 4.0};
  mpix::SettingTimings t;
  t.sync_us = 2.0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    t.peers_us.push_back(t.sync_us + 3 * peer[i]);
    t.all_us.push_back(t.peers_us.back() + self[i]);
  }
  const mpix::FittedCurves fitted = mpix::fit_curves(sizes, t, 3);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_NEAR(values(fitted.peer)[i], peer[i], 1e-12);
    EXPECT_NEAR(values(fitted.self)[i], self[i], 1e-12);
  }
  // Across nodes the on-node messages are priced by their curve first.
  const MessageCurve on_node({{8, 0.5}, {65536, 0.5}});
  for (double& v : t.peers_us) v += 2 * 0.5;
  for (double& v : t.all_us) v += 2 * 0.5;
  const mpix::FittedCurves across = mpix::fit_curves(sizes, t, 3, &on_node, 2);
  for (std::size_t i = 0; i < sizes.size(); ++i) EXPECT_NEAR(values(across.peer)[i], peer[i], 1e-12);
  EXPECT_THROW(mpix::fit_curves(sizes, t, 0), std::invalid_argument);
  t.all_us.pop_back();
  EXPECT_THROW(mpix::fit_curves(sizes, t, 3), std::invalid_argument);
}

void expect_near(double got, double want, const std::string& where) {
  EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::fabs(want))) << where;
}

TEST(MergeLaunches, IdenticalLaunchesReproduceTheBuiltInParameters) {
  const TuningParameters builtin = mpix::builtin_tuning();
  const TuningParameters merged = mpix::merge_launches({builtin, builtin, builtin}, builtin.calibration_ranks - 1);
  ASSERT_EQ(merged.algorithms.size(), builtin.algorithms.size());
  for (const auto& [name, want] : builtin.algorithms) {
    const AlgorithmParameters& got = merged.algorithms.at(name);
    for (const auto& [g, w, setting] : {std::tuple{&got.one_node, &want.one_node, "one_node"},
                                        std::tuple{&got.multi_node, &want.multi_node, "multi_node"}}) {
      expect_near(g->sync_us, w->sync_us, name + "." + setting + ".sync_us");
      expect_near(g->init_us, w->init_us, name + "." + setting + ".init_us");
      expect_near(g->reinit_us, w->reinit_us, name + "." + setting + ".reinit_us");
    }
    for (MessageCurve AlgorithmParameters::*curve :
         {&AlgorithmParameters::node, &AlgorithmParameters::node_user, &AlgorithmParameters::net,
          &AlgorithmParameters::self, &AlgorithmParameters::self_user, &AlgorithmParameters::multi_node_self}) {
      const auto& g = (got.*curve).points();
      const auto& w = (want.*curve).points();
      ASSERT_EQ(g.size(), w.size()) << name;
      for (std::size_t i = 0; i < w.size(); ++i) {
        EXPECT_EQ(g[i].first, w[i].first) << name;
        expect_near(g[i].second, w[i].second, name + " at " + std::to_string(w[i].first) + " B");
      }
    }
  }
}

TEST(MergeLaunches, TheBuiltInParametersAreSane) {
  const std::vector<std::string> problems = mpix::sanity_problems(mpix::builtin_tuning());
  std::string all;
  for (const std::string& p : problems) all += p + "\n";
  EXPECT_TRUE(problems.empty()) << all;
}

// Two algorithms at one calibrated size: 'slow' takes 4 + 10 + 6 = 20 us
// (sync, curve, self block), 'fast' 19 split as given; every number scaled
// by the launch's level.
TuningParameters launch(double sync, double curve, double self, double level) {
  TuningParameters t;
  auto make = [&](double s, double c, double b) {
    AlgorithmParameters p;
    p.one_node = p.multi_node = {s * level, 50 * level, 5 * level};
    p.node = p.node_user = p.net = MessageCurve({{4096, c * level}});
    p.self = p.self_user = p.multi_node_self = MessageCurve({{4096, b * level}});
    return p;
  };
  t.algorithms["fast"] = make(sync, curve, self);
  t.algorithms["slow"] = make(4.0, 10.0, 6.0);
  return t;
}

TEST(MergeLaunches, KeepsEachLaunchsRatiosAcrossLevelsAndSplits) {
  // In every launch 'fast' takes 0.95 of 'slow', but its T_iter splits
  // differently between sync, curve and self block, and the machine's level
  // moves by 40%: a per-number median would price 'fast' at
  // 2.8 + 10 + 9 = 21.8 against 20, the wrong order.
  const TuningParameters merged =
      mpix::merge_launches({launch(0.0, 10.0, 9.0, 1.0), launch(2.0, 5.0, 12.0, 1.4), launch(4.5, 14.5, 0.0, 1.0)}, 1);
  auto total = [&](const std::string& name, MessageCurve AlgorithmParameters::*curve,
                   MessageCurve AlgorithmParameters::*self, bool multi) {
    const AlgorithmParameters& p = merged.algorithms.at(name);
    const double peers = (multi ? p.multi_node : p.one_node).sync_us + (p.*curve).at(4096);
    return std::pair{peers, peers + (p.*self).at(4096)};
  };
  for (const auto& [curve, self, multi] :
       {std::tuple{&AlgorithmParameters::node, &AlgorithmParameters::self, false},
        std::tuple{&AlgorithmParameters::node_user, &AlgorithmParameters::self_user, false},
        std::tuple{&AlgorithmParameters::net, &AlgorithmParameters::multi_node_self, true}}) {
    const auto [fast_peers, fast_all] = total("fast", curve, self, multi);
    const auto [slow_peers, slow_all] = total("slow", curve, self, multi);
    EXPECT_NEAR(fast_all / slow_all, 0.95, 1e-9);
    EXPECT_LT(fast_peers, slow_peers);
    EXPECT_NEAR(slow_all, 20.0, 1e-9);
  }
  EXPECT_NEAR(merged.algorithms.at("slow").one_node.init_us, 50.0, 1e-9);
}

TEST(MergeLaunches, AnAlgorithmMeasuredOnOneNodeOnlyStaysUnmeasuredAcrossNodes) {
  // A new algorithm's first calibration: one-node launches carry the other
  // algorithms' off-node parameters and nothing for it.
  auto one_node_only = [](TuningParameters t) {
    AlgorithmParameters& fresh = t.algorithms.at("fast");
    fresh.multi_node = {};
    fresh.net = fresh.multi_node_self = MessageCurve();
    return t;
  };
  const TuningParameters merged = mpix::merge_launches(
      {one_node_only(launch(0.0, 10.0, 9.0, 1.0)), one_node_only(launch(2.0, 5.0, 12.0, 1.4))}, 1);
  const AlgorithmParameters& fresh = merged.algorithms.at("fast");
  EXPECT_TRUE(fresh.net.empty());
  EXPECT_TRUE(fresh.multi_node_self.empty());
  EXPECT_EQ(fresh.multi_node.sync_us, 0.0);
  const AlgorithmParameters& slow = merged.algorithms.at("slow");
  // Alone across nodes, 'slow' merges to the median of its 20 and 28 us.
  EXPECT_NEAR(slow.multi_node.sync_us + slow.net.at(4096) + slow.multi_node_self.at(4096), 24.0, 1e-9);
  EXPECT_NEAR((fresh.one_node.sync_us + fresh.node.at(4096) + fresh.self.at(4096)) /
                  (slow.one_node.sync_us + slow.node.at(4096) + slow.self.at(4096)),
              0.95, 1e-9);
  EXPECT_TRUE(mpix::sanity_problems(merged).empty());
}

TEST(MergeLaunches, RefusesLaunchesThatDoNotMatch) {
  TuningParameters other = launch(1, 1, 1, 1);
  other.algorithms.erase("slow");
  EXPECT_THROW(mpix::merge_launches({launch(1, 1, 1, 1), other}, 1), std::invalid_argument);
  TuningParameters sizes = launch(1, 1, 1, 1);
  sizes.algorithms["fast"].node = MessageCurve({{8, 1.0}});
  EXPECT_THROW(mpix::merge_launches({launch(1, 1, 1, 1), sizes}, 1), std::invalid_argument);
  EXPECT_THROW(mpix::merge_launches({}, 1), std::invalid_argument);
}

TEST(SanityProblems, NamesNegativeCostsAndCurvesThatGetCheaper) {
  TuningParameters t = launch(1, 1, 1, 1);
  t.algorithms["fast"].one_node.sync_us = -0.5;
  t.algorithms["slow"].node_user = MessageCurve({{8, 3.0}, {64, 1.0}});
  const std::vector<std::string> problems = mpix::sanity_problems(t);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("fast.one_node.sync_us"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("slow.node_user_us gets cheaper"), std::string::npos) << problems[1];
}

TEST(DescribeChanges, NamesWhatMovedAndWhichSelectionsChange) {
  TuningParameters before = launch(4.0, 10.0, 6.0, 1.0);  // fast == slow: 'fast' wins the tie by name order
  TuningParameters after = before;
  after.algorithms["fast"].one_node.sync_us = 8.0;  // fast is now slower: 'slow' gets chosen
  const std::vector<std::string> lines = mpix::describe_changes(before, after, 2, false);
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  EXPECT_NE(all.find("fast.one_node.sync_us: 4 -> 8 us (+100%)"), std::string::npos) << all;
  EXPECT_NE(all.find("one node, heap buffers, 4 KiB per peer: slow (built-in: fast)"), std::string::npos) << all;
  EXPECT_EQ(all.find("slow.one_node"), std::string::npos) << all;
  EXPECT_TRUE(mpix::describe_changes(before, before, 2, false).empty());
}

}  // namespace
