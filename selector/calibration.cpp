#include "selector/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "selector/selector.hpp"

namespace mpix {

MessageCurve sane_curve(const std::vector<std::pair<double, double>>& points) {
  // Pool adjacent violators: blocks of equal value, merged while a block is
  // below the one before it.
  struct Block {
    double sum;
    int count;
    double mean() const { return sum / count; }
  };
  std::vector<Block> blocks;
  for (const auto& point : points) {
    blocks.push_back({std::isfinite(point.second) ? point.second : 0.0, 1});
    while (blocks.size() > 1 && blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
      const Block last = blocks.back();
      blocks.pop_back();
      blocks.back().sum += last.sum;
      blocks.back().count += last.count;
    }
  }
  std::vector<std::pair<double, double>> fitted;
  fitted.reserve(points.size());
  for (const Block& block : blocks)
    for (int k = 0; k < block.count; ++k)
      fitted.emplace_back(points[fitted.size()].first, std::max(0.0, block.mean()));
  return MessageCurve(std::move(fitted));
}

FittedCurves fit_curves(const std::vector<double>& sizes, const SettingTimings& timings, int messages,
                        const MessageCurve* on_node, int node_messages) {
  if (timings.peers_us.size() != sizes.size() || timings.all_us.size() != sizes.size())
    throw std::invalid_argument("a timing per calibrated size is needed");
  if (messages < 1) throw std::invalid_argument("the calibration needs at least one message per rank");
  std::vector<std::pair<double, double>> peer, self;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    double cost = timings.peers_us[i] - timings.sync_us;
    if (on_node != nullptr) cost -= node_messages * on_node->at(sizes[i]);
    peer.emplace_back(sizes[i], cost / messages);
    self.emplace_back(sizes[i], timings.all_us[i] - timings.peers_us[i]);
  }
  return {sane_curve(peer), sane_curve(self)};
}

namespace {

// numbers[launch][algorithm] -> per algorithm: the median across launches
// of its ratio to the launch's mean, times the median of the means.
std::vector<double> ratio_median(const std::vector<std::vector<double>>& numbers) {
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  };
  std::vector<double> levels;
  for (const std::vector<double>& launch : numbers)
    levels.push_back(std::accumulate(launch.begin(), launch.end(), 0.0) / static_cast<double>(launch.size()));
  const double level = median(levels);
  std::vector<double> merged;
  for (std::size_t a = 0; a < numbers.front().size(); ++a) {
    std::vector<double> ratios;
    for (std::size_t l = 0; l < numbers.size(); ++l)
      if (levels[l] > 0) ratios.push_back(numbers[l][a] / levels[l]);
    merged.push_back(ratios.empty() ? 0.0 : level * median(ratios));
  }
  return merged;
}

// The fixed costs and curves of one setting, as fields of the parameters.
struct Setting {
  FixedCosts AlgorithmParameters::*fixed;
  MessageCurve AlgorithmParameters::*peer;
  MessageCurve AlgorithmParameters::*self;
};
constexpr Setting settings[] = {
    {&AlgorithmParameters::one_node, &AlgorithmParameters::node, &AlgorithmParameters::self},
    {&AlgorithmParameters::one_node, &AlgorithmParameters::node_user, &AlgorithmParameters::self_user},
    {&AlgorithmParameters::multi_node, &AlgorithmParameters::net, &AlgorithmParameters::multi_node_self},
};
constexpr double FixedCosts::*fixed_numbers[] = {&FixedCosts::sync_us, &FixedCosts::init_us, &FixedCosts::reinit_us};

std::vector<double> sizes_of(const MessageCurve& curve) {
  std::vector<double> sizes;
  for (const auto& point : curve.points()) sizes.push_back(point.first);
  return sizes;
}

void check_launches_match(const std::vector<TuningParameters>& launches) {
  if (launches.empty()) throw std::invalid_argument("no launches to merge");
  const TuningParameters& first = launches.front();
  for (const TuningParameters& launch : launches) {
    if (launch.algorithms.size() != first.algorithms.size())
      throw std::invalid_argument("the launches measured different algorithms");
    if (launch.calibration_ranks != first.calibration_ranks || launch.loop != first.loop)
      throw std::invalid_argument("the launches ran different rank counts or loops");
    if (launch.mpi != first.mpi)
      throw std::invalid_argument("the launches measured different MPIs ('" + first.mpi + "', '" + launch.mpi + "')");
    for (const auto& [name, parameters] : first.algorithms) {
      const auto other = launch.algorithms.find(name);
      if (other == launch.algorithms.end()) throw std::invalid_argument("a launch did not measure " + name);
      for (const Setting& s : settings)
        if (sizes_of(parameters.*s.peer) != sizes_of(other->second.*s.peer) ||
            sizes_of(parameters.*s.self) != sizes_of(parameters.*s.peer))
          throw std::invalid_argument("the launches calibrated " + name + " at different sizes");
    }
  }
}

}  // namespace

TuningParameters merge_launches(const std::vector<TuningParameters>& launches, int messages) {
  check_launches_match(launches);
  TuningParameters merged = launches.front();
  // Per setting, the algorithms measured in it (an algorithm new to a
  // tuning file is measured on one node before it is across nodes); the
  // launches agree on which (check_launches_match).
  auto measured_in = [&](MessageCurve AlgorithmParameters::*peer) {
    std::vector<std::string> names;
    for (const auto& [name, parameters] : merged.algorithms)
      if (!(parameters.*peer).empty()) names.push_back(name);
    return names;
  };
  auto across = [&](const std::vector<std::string>& names, auto number) {
    std::vector<std::vector<double>> table;
    for (const TuningParameters& launch : launches) {
      std::vector<double> row;
      for (const std::string& name : names) row.push_back(number(launch.algorithms.at(name)));
      table.push_back(std::move(row));
    }
    return table;
  };
  for (const Setting& s : {settings[0], settings[2]}) {
    const std::vector<std::string> names = measured_in(s.peer);
    if (names.empty()) continue;
    for (double FixedCosts::*number : fixed_numbers) {
      const std::vector<double> values =
          ratio_median(across(names, [&](const AlgorithmParameters& p) { return (p.*s.fixed).*number; }));
      for (std::size_t a = 0; a < names.size(); ++a) (merged.algorithms[names[a]].*s.fixed).*number = values[a];
    }
  }
  for (const Setting& s : settings) {
    const std::vector<std::string> names = measured_in(s.peer);
    if (names.empty()) continue;
    const std::vector<double> sizes = sizes_of(launches.front().algorithms.at(names.front()).*s.peer);
    std::vector<SettingTimings> timings(names.size());
    for (std::size_t a = 0; a < names.size(); ++a) timings[a].sync_us = (merged.algorithms[names[a]].*s.fixed).sync_us;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      // What was measured: T_peers = sync + messages * peer(b) and
      // T_all = T_peers + self(b); these merge, then the curves come back.
      auto peers = [&](const AlgorithmParameters& p) {
        return (p.*s.fixed).sync_us + messages * (p.*s.peer).points()[i].second;
      };
      const std::vector<double> merged_peers = ratio_median(across(names, peers));
      const std::vector<double> merged_all = ratio_median(
          across(names, [&](const AlgorithmParameters& p) { return peers(p) + (p.*s.self).points()[i].second; }));
      for (std::size_t a = 0; a < names.size(); ++a) {
        timings[a].peers_us.push_back(merged_peers[a]);
        timings[a].all_us.push_back(merged_all[a]);
      }
    }
    for (std::size_t a = 0; a < names.size(); ++a) {
      const FittedCurves fitted = fit_curves(sizes, timings[a], messages);
      merged.algorithms[names[a]].*s.peer = fitted.peer;
      merged.algorithms[names[a]].*s.self = fitted.self;
    }
  }
  return merged;
}

namespace {

std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char text[200];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

const char* const curve_names[] = {"node_us",       "node_user_us", "net_us",
                                   "self_us",       "self_user_us", "multi_node_self_us"};
constexpr MessageCurve AlgorithmParameters::*curves[] = {
    &AlgorithmParameters::node, &AlgorithmParameters::node_user, &AlgorithmParameters::net,
    &AlgorithmParameters::self, &AlgorithmParameters::self_user, &AlgorithmParameters::multi_node_self};
const char* const fixed_names[] = {"sync_us", "init_us", "reinit_us"};

}  // namespace

std::vector<std::string> sanity_problems(const TuningParameters& parameters) {
  std::vector<std::string> problems;
  for (const auto& [name, p] : parameters.algorithms) {
    for (const auto& [setting, fixed] : {std::pair{"one_node", &p.one_node}, std::pair{"multi_node", &p.multi_node}})
      for (std::size_t k = 0; k < 3; ++k) {
        const double value = fixed->*fixed_numbers[k];
        if (!std::isfinite(value) || value < 0)
          problems.push_back(name + "." + setting + "." + fixed_names[k] + format(" is %g: a cost is >= 0", value));
      }
    for (std::size_t c = 0; c < std::size(curves); ++c) {
      const auto& points = (p.*curves[c]).points();
      for (std::size_t i = 1; i < points.size(); ++i)
        if (points[i].second < points[i - 1].second)
          problems.push_back(name + "." + curve_names[c] +
                             format(" gets cheaper for more bytes: %g us at %.0f B, ", points[i - 1].second,
                                    points[i - 1].first) +
                             format("%g us at %.0f B", points[i].second, points[i].first));
    }
  }
  return problems;
}

namespace {

bool moved(double before, double after, double threshold) {
  const double scale = std::max({std::fabs(before), std::fabs(after), 1e-9});
  // Below 0.05 us a change is timer noise, whatever its ratio.
  return std::fabs(after - before) > 0.05 && std::fabs(after - before) / scale > threshold;
}

std::string human_bytes(double bytes) {
  if (bytes >= 1 << 20 && std::fmod(bytes, 1 << 20) == 0) return format("%.0f MiB", bytes / (1 << 20));
  if (bytes >= 1024 && std::fmod(bytes, 1024) == 0) return format("%.0f KiB", bytes / 1024);
  return format("%.0f B", bytes);
}

// Which algorithm the selector runs for a uniform exchange of `bytes` per
// peer, one rank per node or all on one, over many iterations.
std::string chosen_for(const TuningParameters& parameters, int ranks, bool multi_node, bool library_memory,
                       double bytes) {
  SelectionInputs inputs;
  PatternSummary& pattern = inputs.pattern;
  pattern.ranks = ranks;
  pattern.nodes = multi_node ? ranks : 1;
  const auto b = static_cast<std::int64_t>(bytes);
  (multi_node ? pattern.net_messages : pattern.node_messages) = ranks - 1;
  (multi_node ? pattern.net_bytes : pattern.node_bytes) = b * (ranks - 1);
  pattern.max_peer_bytes = b;
  pattern.self_bytes = b;
  pattern.library_memory = library_memory;
  inputs.window_pooled = true;
  for (const auto& entry : parameters.algorithms) inputs.candidates.push_back({entry.first, false, false});
  return select_algorithm(inputs, parameters).choice().name;
}

}  // namespace

std::vector<std::string> describe_changes(const TuningParameters& before, const TuningParameters& after, int ranks,
                                          bool multi_node, double threshold) {
  std::vector<std::string> lines;
  const char* setting = multi_node ? "multi_node" : "one_node";
  for (const auto& [name, now] : after.algorithms) {
    const auto old = before.algorithms.find(name);
    if (old == before.algorithms.end()) {
      lines.push_back(name + ": new (the built-in parameters have none)");
      continue;
    }
    const FixedCosts& f_now = multi_node ? now.multi_node : now.one_node;
    const FixedCosts& f_old = multi_node ? old->second.multi_node : old->second.one_node;
    for (std::size_t k = 0; k < 3; ++k)
      if (moved(f_old.*fixed_numbers[k], f_now.*fixed_numbers[k], threshold))
        lines.push_back(name + "." + setting + "." + fixed_names[k] +
                        format(": %.3g -> %.3g us (%+.0f%%)", f_old.*fixed_numbers[k], f_now.*fixed_numbers[k],
                               100 * (f_now.*fixed_numbers[k] / std::max(f_old.*fixed_numbers[k], 1e-9) - 1)));
    for (std::size_t c = 0; c < std::size(curves); ++c) {
      const bool net_curve =
          curves[c] == &AlgorithmParameters::net || curves[c] == &AlgorithmParameters::multi_node_self;
      if (net_curve != multi_node) continue;
      // The point that moved most, if any moved beyond the threshold.
      double worst = 0, at = 0, was = 0, is = 0;
      for (const auto& [bytes, us] : (now.*curves[c]).points()) {
        const double old_us = (old->second.*curves[c]).at(bytes);
        const double change = std::fabs(us - old_us) / std::max({us, old_us, 1e-9});
        if (moved(old_us, us, threshold) && change > worst)
          std::tie(worst, at, was, is) = std::tie(change, bytes, old_us, us);
      }
      if (worst > 0)
        lines.push_back(name + "." + curve_names[c] + ": most at " + human_bytes(at) +
                        format(", %.3g -> %.3g us", was, is));
    }
  }
  std::vector<double> sizes;
  for (const auto& entry : after.algorithms)
    for (const auto& point : (multi_node ? entry.second.net : entry.second.node_user).points())
      sizes.push_back(point.first);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (const bool library_memory : multi_node ? std::vector<bool>{true} : std::vector<bool>{false, true})
    for (double bytes : sizes) {
      const std::string was = chosen_for(before, ranks, multi_node, library_memory, bytes);
      const std::string is = chosen_for(after, ranks, multi_node, library_memory, bytes);
      if (was != is)
        lines.push_back(std::string("selection, ") + (multi_node ? "across nodes" : "one node") +
                        (multi_node ? "" : library_memory ? ", MPIX_Alloc_mem buffers" : ", heap buffers") + ", " +
                        human_bytes(bytes) + " per peer: " + is + " (built-in: " + was + ")");
    }
  return lines;
}

}  // namespace mpix
