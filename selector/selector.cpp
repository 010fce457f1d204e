#include "selector/selector.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace mpix {

namespace {

std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char text[160];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

std::string breakeven_text(double n) {
  if (n < 0) return "never (not on)";
  return format("%.0f", std::ceil(n));
}

// The cheapest eligible candidate other than `skip`, or -1.
int runner_up(const Selection& s, int skip) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(s.predictions.size()); ++i) {
    if (i == skip || !s.predictions[i].eligible) continue;
    if (best < 0 || s.predictions[i].total_us < s.predictions[best].total_us) best = i;
  }
  return best;
}

}  // namespace

double breakeven_iterations(const CostPrediction& over, const CostPrediction& baseline) {
  const double extra_init = over.t_init_us - baseline.t_init_us;
  const double saved_per_iteration = baseline.t_iter_us - over.t_iter_us;
  if (extra_init <= 0) return saved_per_iteration >= 0 ? 0 : -1;
  if (saved_per_iteration <= 0) return -1;
  return extra_init / saved_per_iteration;
}

Selection select_algorithm(const SelectionInputs& inputs, const TuningParameters& parameters) {
  Selection s;
  const double n = static_cast<double>(inputs.expected_iterations);
  for (const CandidateState& candidate : inputs.candidates) {
    CandidatePrediction p;
    p.name = candidate.name;
    const auto measured = parameters.algorithms.find(candidate.name);
    if (candidate.excluded)
      p.why_not = "excluded by MPIX_ALLTOALLV_EXCLUDE";
    else if (candidate.refused)
      p.why_not = "cannot run these arguments";
    else if (measured == parameters.algorithms.end())
      p.why_not = "no measured parameters (run mpix_tune)";
    else if (!measured_for(measured->second, inputs.pattern))
      p.why_not = std::string("not measured ") + (inputs.pattern.nodes > 1 ? "across nodes" : "on one node") +
                  " (run mpix_tune there)";
    else {
      p.eligible = true;
      p.cost = predict_cost(measured->second, inputs.pattern, parameters.calibration_ranks, inputs.window_pooled);
      p.total_us = p.cost.t_init_us + n * p.cost.t_iter_us;
    }
    s.predictions.push_back(std::move(p));
  }
  s.chosen = runner_up(s, -1);
  if (s.chosen < 0) throw std::invalid_argument("no Alltoallv algorithm is eligible (all excluded or refused)");

  const CandidatePrediction& chosen = s.choice();
  s.reason = "lowest T_init + N*T_iter at N=" + std::to_string(inputs.expected_iterations) +
             format(": %.1f us", chosen.total_us);
  const int second = runner_up(s, s.chosen);
  if (second >= 0) {
    const CandidatePrediction& other = s.predictions[second];
    s.reason += format(" against %.1f us for ", other.total_us) + other.name + "; break-even against it at N=" +
                breakeven_text(breakeven_iterations(chosen.cost, other.cost));
  }
  return s;
}

std::string describe_selection(const SelectionInputs& inputs, const Selection& selection) {
  const PatternSummary& p = inputs.pattern;
  std::string text = "  pattern: " + std::to_string(p.ranks) + " ranks on " + std::to_string(p.nodes) +
                     " nodes; busiest rank: " + std::to_string(p.node_bytes) + " B in " +
                     std::to_string(p.node_messages) + " on-node messages, " + std::to_string(p.net_bytes) +
                     " B in " + std::to_string(p.net_messages) + " off-node messages, " + std::to_string(p.self_bytes) +
                     " B to itself; largest block " + std::to_string(p.max_peer_bytes) + " B; receive buffers in " +
                     (p.library_memory ? "MPIX_Alloc_mem" : "user") + " memory; window " +
                     (inputs.window_pooled ? "pooled" : "not pooled") + "\n";
  const CandidatePrediction& chosen = selection.choice();
  for (const CandidatePrediction& c : selection.predictions) {
    text += "  " + c.name + ": ";
    if (!c.eligible) {
      text += "not a candidate (" + c.why_not + ")\n";
      continue;
    }
    text += format("T_init %.1f us, T_iter %.3f us, total %.1f us", c.cost.t_init_us, c.cost.t_iter_us,
                   c.total_us);
    if (&c != &chosen)
      text += ", " + chosen.name + " is cheaper from N=" + breakeven_text(breakeven_iterations(chosen.cost, c.cost));
    text += "\n";
  }
  text += "  choice: " + chosen.name + " (" + selection.reason + ")";
  return text;
}

}  // namespace mpix
