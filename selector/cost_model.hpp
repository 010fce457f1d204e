// The cost model of one algorithm: measured parameters (mpix_tune, or the
// built-in defaults measured on the development machines) turned into a
// predicted T_init and T_iter for a pattern. Pure: no MPI.
//
//   T_init = init_us, or reinit_us when the window is pooled
//   T_iter = sync_us * scale(P)
//          + node_messages * node_curve(node_bytes / node_messages)
//          + net_messages  * net_curve(net_bytes / net_messages)
//          + self_curve(self_bytes)
//
// sync_us is the time of an iteration that moves nothing (the epoch or
// collective synchronization), scaled by log2 P from the calibration's rank
// count; it and the init costs are measured on one node and across nodes.
// A curve gives the cost of one message of b bytes (per-peer overhead at
// small b, 1/bandwidth as its slope at large b), measured per locality:
// on-node into MPIX_Alloc_mem memory, on-node into user memory, off-node;
// and the block a rank sends itself (on one node, and across nodes), which
// some algorithms copy directly and MPI may not.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "selector/pattern_summary.hpp"

namespace mpix {

// Piecewise-linear in bytes through measured points; flat below the first,
// extended along the last segment's slope beyond the last.
class MessageCurve {
 public:
  MessageCurve() = default;
  // points: (bytes, microseconds), bytes strictly increasing; throws
  // std::invalid_argument otherwise.
  explicit MessageCurve(std::vector<std::pair<double, double>> points);

  double at(double bytes) const;
  bool empty() const { return points_.empty(); }
  const std::vector<std::pair<double, double>>& points() const { return points_; }

 private:
  std::vector<std::pair<double, double>> points_;
};

// The fixed costs of one setting: all ranks on one node, or several nodes.
struct FixedCosts {
  double sync_us = 0;    // one iteration without data, at the calibration's rank count
  double init_us = 0;    // init + free of a request that creates its window
  double reinit_us = 0;  // the same when the communicator's pool holds the window
};

struct AlgorithmParameters {
  FixedCosts one_node;
  FixedCosts multi_node;
  MessageCurve node;       // a peer on the node, receive buffer in MPIX_Alloc_mem memory
  MessageCurve node_user;  // a peer on the node, receive buffer in user memory
  MessageCurve net;        // a peer on another node
  // What the block to itself adds to an exchange on one node, receive
  // buffer in MPIX_Alloc_mem memory, and in user memory.
  MessageCurve self;
  MessageCurve self_user;
  // The block to itself when the ranks span nodes: MPI may then move it
  // through other transports (with UCX_TLS=tcp,self, UCX's self transport).
  MessageCurve multi_node_self;
};

struct TuningParameters {
  int version = 1;
  std::string source;         // who measured these, where, how
  std::string mpi;            // the MPI measured ("MPICH 4.0.2"); empty: not recorded
  int calibration_ranks = 2;  // the rank count sync_us was measured at
  // What each timed iteration included: "application" (send blocks written
  // before Start, received blocks read after Wait: the loop the selector
  // serves) or "exchange" (Start + Wait alone).
  std::string loop = "application";
  std::map<std::string, AlgorithmParameters> algorithms;
};

struct CostPrediction {
  double t_init_us = 0;
  double t_iter_us = 0;
};

// Whether the curves predict_cost reads for pattern were measured (a tuning
// file may hold an algorithm calibrated on one node only).
bool measured_for(const AlgorithmParameters& parameters, const PatternSummary& pattern);

// window_pooled: every rank's pool holds the window this request needs.
CostPrediction predict_cost(const AlgorithmParameters& parameters, const PatternSummary& pattern,
                            int calibration_ranks, bool window_pooled);

}  // namespace mpix
