#include "selector/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mpix {

MessageCurve::MessageCurve(std::vector<std::pair<double, double>> points) : points_(std::move(points)) {
  for (std::size_t i = 0; i < points_.size(); ++i) {
    if (!(points_[i].first >= 0) || !std::isfinite(points_[i].second) || points_[i].second < 0)
      throw std::invalid_argument("a point needs bytes >= 0 and a finite time >= 0");
    if (i > 0 && !(points_[i].first > points_[i - 1].first))
      throw std::invalid_argument("bytes must increase from point to point");
  }
}

double MessageCurve::at(double bytes) const {
  if (points_.empty()) return 0;
  if (points_.size() == 1 || bytes <= points_.front().first) return points_.front().second;
  auto upper = std::upper_bound(points_.begin(), points_.end(), bytes,
                                [](double b, const std::pair<double, double>& p) { return b < p.first; });
  if (upper == points_.end()) upper = points_.end() - 1;
  const auto& [b1, t1] = *upper;
  const auto& [b0, t0] = *(upper - 1);
  return std::max(0.0, t0 + (t1 - t0) * (bytes - b0) / (b1 - b0));
}

namespace {

double messages_cost(const MessageCurve& curve, std::int64_t messages, std::int64_t bytes) {
  if (messages <= 0) return 0;
  return static_cast<double>(messages) * curve.at(static_cast<double>(bytes) / static_cast<double>(messages));
}

// Barriers, fences and MPI's collectives grow with log2 P.
double sync_scale(int ranks, int calibration_ranks) {
  const double at = std::max(1.0, std::log2(static_cast<double>(ranks)));
  const double calibrated = std::max(1.0, std::log2(static_cast<double>(calibration_ranks)));
  return at / calibrated;
}

const MessageCurve& self_curve(const AlgorithmParameters& parameters, const PatternSummary& pattern) {
  if (pattern.nodes > 1 && !parameters.multi_node_self.empty()) return parameters.multi_node_self;
  return pattern.library_memory ? parameters.self : parameters.self_user;
}

}  // namespace

bool measured_for(const AlgorithmParameters& parameters, const PatternSummary& pattern) {
  const MessageCurve& node = pattern.library_memory ? parameters.node : parameters.node_user;
  if (pattern.nodes > 1) return !parameters.net.empty() && (pattern.node_messages == 0 || !node.empty());
  return !node.empty();
}

CostPrediction predict_cost(const AlgorithmParameters& parameters, const PatternSummary& pattern,
                            int calibration_ranks, bool window_pooled) {
  const MessageCurve& node = pattern.library_memory ? parameters.node : parameters.node_user;
  const FixedCosts& fixed = pattern.nodes > 1 ? parameters.multi_node : parameters.one_node;
  CostPrediction cost;
  cost.t_init_us = window_pooled ? fixed.reinit_us : fixed.init_us;
  cost.t_iter_us = fixed.sync_us * sync_scale(pattern.ranks, calibration_ranks) +
                   messages_cost(node, pattern.node_messages, pattern.node_bytes) +
                   messages_cost(parameters.net, pattern.net_messages, pattern.net_bytes) +
                   messages_cost(self_curve(parameters, pattern), pattern.self_bytes > 0 ? 1 : 0, pattern.self_bytes);
  return cost;
}

}  // namespace mpix
