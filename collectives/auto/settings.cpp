#include "collectives/auto/settings.hpp"

#include <climits>

#include "collectives/argument_checks.hpp"

namespace mpix {

namespace {

FallbackPolicy parse_fallback(std::string_view value) {
  return parse_choice<FallbackPolicy>(value, {{"error", FallbackPolicy::error}, {"warn", FallbackPolicy::warn},
                                              {"silent", FallbackPolicy::silent}});
}

AutoConfig& of(Config& c) { return c.section<AutoConfig>(); }

}  // namespace

AutoHints AutoHints::of(const Info* info) {
  if (info == nullptr) return {};
  return {info->get(info_key_expected_iterations), info->get(info_key_auto_settle),
          info->get(info_key_auto_mpi_credit), info->get(info_key_auto_mpi_period)};
}

AutoSettings parse_auto_settings(const AutoHints& hints, const Config& config) {
  const AutoConfig& defaults = config.section<AutoConfig>();
  AutoSettings settings;
  settings.expected_iterations =
      parse_count_hint(info_key_expected_iterations, hints.expected_iterations, 1, defaults.expected_iterations);
  settings.settle_within = parse_count_hint(info_key_auto_settle, hints.settle, 0, defaults.auto_settle);
  settings.mpi_credit_ns = parse_count_hint(info_key_auto_mpi_credit, hints.mpi_credit_ns, 0, 0);
  settings.mpi_period_ns = parse_count_hint(info_key_auto_mpi_period, hints.mpi_period_ns, 0, 0);
  return settings;
}

const std::vector<VariableSpec>& auto_variables() {
  static const std::vector<VariableSpec> rows = {
    {"MPIX_FALLBACK", "enum", "warn", "error|warn|silent",
     "What a request of any family does when its forced algorithm is unknown or cannot run these arguments: "
     "error returns MPIX_ERR_ALGORITHM on every rank; warn prints a warning on rank 0 and uses "
     "the selector (auto); silent uses the selector.",
     [](std::string_view v, Config& c) { of(c).fallback = parse_fallback(v); }},
    {"MPIX_EXPECTED_ITERATIONS", "int", "1000", "a positive integer",
     "How many times a request is expected to run, N in the break-even rule: the selector minimises "
     "T_init + N * T_iter. The info key mpix_expected_iterations of a request overrides it.",
     [](std::string_view v, Config& c) { of(c).expected_iterations = parse_int(v, 1, INT_MAX); }},
    {"MPIX_AUTO_PERIODS", "int", "8", "0..1000",
     "auto's tournament: iteration periods (from one Start to the next, so the application's own work on "
     "the data counts) timed per candidate, after 3 untimed ones. The candidate with the lowest median "
     "period, agreed over ranks, wins if it beat the predicted choice by more than the periods' spread. "
     "0: no tournament, the prediction decides.",
     [](std::string_view v, Config& c) { of(c).auto_periods = parse_int(v, 0, 1000); }},
    {"MPIX_AUTO_WITHIN", "number", "2", "1..1000",
     "auto's tournament: after the best predicted of each mechanism, which always enters, candidates whose "
     "predicted T_init + N*T_iter is within this factor of the predicted best's enter (MPI's own call always "
     "does).",
     [](std::string_view v, Config& c) { of(c).auto_within = parse_double(v, 1, 1000); }},
    {"MPIX_AUTO_SETTLE", "int", "100", "0..100000",
     "auto's tournament: iterations the whole tournament may take; it also takes at most a quarter of the "
     "expected iterations. The choice is settled by then; a drifting period re-runs it, bounded alike. "
     "The info key mpix_auto_settle of a request overrides it.",
     [](std::string_view v, Config& c) { of(c).auto_settle = parse_int(v, 0, 100000); }},
  };
  return rows;
}

}  // namespace mpix
