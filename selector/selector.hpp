// The break-even rule as a pure function: agreed inputs and measured
// parameters in, the algorithm that minimises T_init + N * T_iter out, with
// every candidate's predicted costs and the reason in words. No MPI: the
// unit tests call it directly, and every rank computes the same answer from
// the same inputs.
#pragma once

#include <string>
#include <vector>

#include "selector/cost_model.hpp"
#include "selector/pattern_summary.hpp"

namespace mpix {

struct CandidateState {
  std::string name;
  bool refused = false;   // cannot run these arguments on some rank
  bool excluded = false;  // named in MPIX_ALLTOALLV_EXCLUDE
};

struct SelectionInputs {
  PatternSummary pattern;
  long expected_iterations = 1000;
  long settle_within = 100;  // iterations auto's tournament may take
  long mpi_credit_ns = 0;    // credited to MPI's own call per period (TournamentRule::mpi_credit_us)
  long mpi_period_ns = 0;    // MPI's own call's period, measured by the caller (TournamentRule::mpi_period_us)
  bool window_pooled = false;  // RMA candidates find their window in the pool
  std::vector<CandidateState> candidates;
};

struct CandidatePrediction {
  std::string name;
  bool eligible = false;
  std::string why_not;  // when not eligible
  CostPrediction cost;
  double total_us = 0;  // t_init + N * t_iter
  // A call of MPI's own collective, plain or persistent: after other
  // traffic it warms up as MPI does, so its trials leave
  // TournamentRule::mpi_untimed periods untimed and it is never cut short.
  bool mpi_call = false;
  // How it moves the data (its row's mechanism bits): the tournament tries
  // the best predicted of each mechanism before a second of any.
  unsigned mechanism = 0;
};

struct Selection {
  int chosen = -1;  // index into candidates and predictions
  std::vector<CandidatePrediction> predictions;
  std::string reason;

  const CandidatePrediction& choice() const { return predictions.at(static_cast<std::size_t>(chosen)); }
};

// Throws std::invalid_argument when no candidate is eligible.
Selection select_algorithm(const SelectionInputs& inputs, const TuningParameters& parameters);

// The break-even iteration count of running candidate `over` instead of
// `baseline`: the N from which init(over) + N iter(over) is the cheaper;
// negative when never, 0 when from the first iteration.
double breakeven_iterations(const CostPrediction& over, const CostPrediction& baseline);

// One line per candidate, for MPIX_VERBOSE.
std::string describe_selection(const SelectionInputs& inputs, const Selection& selection);

}  // namespace mpix
