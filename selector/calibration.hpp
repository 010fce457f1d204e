// From timings to the cost model's parameters, the one implementation:
// mpix_tune fits one launch's measurements with it, and merges several
// launches' tuning files with it (scripts/tune_defaults.sh builds the
// built-in defaults that way). Pure: no MPI.
//
// What is measured per algorithm, in one setting (one node, or across
// nodes) and at each calibrated size b: T_peers(b), an iteration with blocks
// to the other ranks only, and T_all(b), with the block to itself as well;
// and sync_us = T_peers(0). Then
//   peer curve(b) = (T_peers(b) - sync_us - on-node share) / messages
//   self curve(b) = T_all(b) - T_peers(b)
// Both are differences of noisy timings, so a fitted curve is made sane
// before it is used: a message never costs less than nothing, and never
// less for more bytes. The least-squares monotone fit (pool adjacent
// violators) averages a noisy dip with its neighbours instead of letting a
// single low sample (or a clamp at zero) through.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "selector/cost_model.hpp"

namespace mpix {

// The closest non-decreasing, non-negative curve to points (bytes
// increasing), in least squares.
MessageCurve sane_curve(const std::vector<std::pair<double, double>>& points);

// One algorithm's timings in one setting, at the sizes of the calibration.
struct SettingTimings {
  double sync_us = 0;
  std::vector<double> peers_us;  // T_peers at each size
  std::vector<double> all_us;    // T_all at each size
};

struct FittedCurves {
  MessageCurve peer, self;
};

// messages: a rank's messages in the timed setting (to peers on its node,
// or off it across nodes); on_node: across nodes, the curve that prices the
// node_messages on-node messages inside T_peers (null on one node).
FittedCurves fit_curves(const std::vector<double>& sizes, const SettingTimings& timings, int messages,
                        const MessageCurve* on_node = nullptr, int node_messages = 0);

// Several launches' parameters (the same algorithms and calibrated sizes)
// merged into one. A machine's level moves from launch to launch while the
// algorithms' ratios inside a launch are steady, and a per-number median
// mixes launches' levels and can reorder algorithms a few percent apart.
// So each measured number of an algorithm (a fixed cost, or T_peers and
// T_all at a calibrated size, rebuilt from the curves) merges as the median
// across launches of its ratio to that launch's mean over all algorithms,
// times the median of those means; the curves are then fitted again from
// the merged timings. messages: a rank's messages per iteration in the
// calibration's setting. Throws std::invalid_argument when the launches
// do not match.
TuningParameters merge_launches(const std::vector<TuningParameters>& launches, int messages);

// What is physically impossible in parameters, one line each: negative or
// non-finite costs, curves that get cheaper for more bytes. Empty: sane.
std::vector<std::string> sanity_problems(const TuningParameters& parameters);

// What a calibration changed against `before` (the built-in parameters), in
// lines for people: fixed costs and curve points that moved by more than
// `threshold` (relative), and the uniform exchanges on `ranks` ranks whose
// selected algorithm changes (at each calibrated size, one node with heap
// and MPIX_Alloc_mem buffers, or across nodes).
std::vector<std::string> describe_changes(const TuningParameters& before, const TuningParameters& after, int ranks,
                                          bool multi_node, double threshold = 0.25);

}  // namespace mpix
