#include "collectives/alltoallv_config.hpp"

#include <climits>

namespace mpix {

namespace {

FallbackPolicy parse_fallback(std::string_view value) {
  return parse_choice<FallbackPolicy>(value, {{"error", FallbackPolicy::error}, {"warn", FallbackPolicy::warn},
                                              {"silent", FallbackPolicy::silent}});
}

std::vector<std::string> parse_list(std::string_view value) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t comma = std::min(value.find(',', start), value.size());
    std::string_view item = value.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) items.emplace_back(item);
    start = comma + 1;
  }
  return items;
}

AlltoallvConfig& of(Config& c) { return c.section<AlltoallvConfig>(); }

}  // namespace

const std::vector<VariableSpec>& alltoallv_variables() {
  static const std::vector<VariableSpec> rows = {
    {"MPIX_ALLTOALLV_ALGORITHM", "string", "", "a registry name (see mpix_info)",
     "Forces the Alltoallv algorithm of every request, unless the request's info sets "
     "mpix_alltoallv_algorithm. Empty or auto: the selector chooses per request (the default). "
     "A forced name runs even if MPIX_ALLTOALLV_EXCLUDE lists it. An unknown or unsupported name "
     "follows MPIX_FALLBACK.",
     [](std::string_view v, Config& c) { of(c).algorithm = std::string(v); }},
    {"MPIX_FALLBACK", "enum", "warn", "error|warn|silent",
     "What a request does when the forced algorithm is unknown or cannot run these arguments: "
     "error returns MPIX_ERR_ALGORITHM on every rank; warn prints a warning on rank 0 and uses "
     "the selector (auto); silent uses the selector.",
     [](std::string_view v, Config& c) { of(c).fallback = parse_fallback(v); }},
    {"MPIX_ALLTOALLV_EXCLUDE", "list", "", "comma-separated registry names",
     "Algorithms the selector (auto) never chooses, e.g. fence,lock. An unknown name makes "
     "MPIX_Alltoallv_init fail with MPIX_ERR_CONFIG on every rank. A forced algorithm is not affected.",
     [](std::string_view v, Config& c) { of(c).exclude = parse_list(v); }},
    {"MPIX_TUNING_FILE", "path", "", "a JSON file written by mpix_tune",
     "Cost-model parameters for the selector, laid over the built-in ones (measured with mpix_tune "
     "on the development machines: 2 ranks, one node and emulated off-node). A file that cannot be "
     "read or parsed makes MPIX_Alltoallv_init fail with MPIX_ERR_CONFIG, naming the file, line and key. "
     "The path may differ between ranks; the parameters read must not (MPIX_Comm_init agrees on them).",
     [](std::string_view v, Config& c) { of(c).tuning_file = std::string(v); }, Scope::per_rank},
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
     "expected iterations. The choice is settled by then; a drifting period re-runs it, bounded alike.",
     [](std::string_view v, Config& c) { of(c).auto_settle = parse_int(v, 0, 100000); }},
  };
  return rows;
}

}  // namespace mpix
