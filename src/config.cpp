#include "src/config.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>

extern char** environ;

namespace mpix {

int parse_int(std::string_view value, long min, long max) {
  std::string text(value);
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max)
    throw std::invalid_argument("not an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return static_cast<int>(v);
}

double parse_double(std::string_view value, double min, double max) {
  std::string text(value);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !(v >= min && v <= max))
    throw std::invalid_argument("not a number in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return v;
}

bool parse_on_off(std::string_view value) {
  if (value == "on") return true;
  if (value == "off") return false;
  throw std::invalid_argument("not one of on|off");
}

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

const std::vector<VariableSpec> table = {
    {"MPIX_ALLTOALLV_ALGORITHM", "string", "", "a registry name (see mpix_info)",
     "Forces the Alltoallv algorithm of every request, unless the request's info sets "
     "mpix_alltoallv_algorithm. Empty or auto: the selector chooses per request (the default). "
     "A forced name runs even if MPIX_ALLTOALLV_EXCLUDE lists it. An unknown or unsupported name "
     "follows MPIX_FALLBACK.",
     [](std::string_view v, Config& c) { c.alltoallv_algorithm = std::string(v); }},
    {"MPIX_FALLBACK", "enum", "warn", "error|warn|silent",
     "What a request does when the forced algorithm is unknown or cannot run these arguments: "
     "error returns MPIX_ERR_ALGORITHM on every rank; warn prints a warning on rank 0 and uses "
     "the selector (auto); silent uses the selector.",
     [](std::string_view v, Config& c) { c.fallback = parse_fallback(v); }},
    {"MPIX_NODE_SIZE", "int", "0", "0 or a positive integer",
     "Emulates nodes of this many consecutive ranks inside each real node, so one machine can "
     "play several nodes; 0 uses the real shared-memory nodes.",
     [](std::string_view v, Config& c) { c.node_size = parse_int(v, 0, INT_MAX); }},
    {"MPIX_VERBOSE", "int", "0", "0|1|2 (larger: 2)",
     "0 quiet; 1 rank 0 logs each request's algorithm and why: for auto, the agreed pattern summary, "
     "every candidate's predicted T_init, T_iter and break-even, the choice, and each online check "
     "or switch; 2 also logs node layouts. Larger values mean 2.",
     [](std::string_view v, Config& c) { c.verbose = std::min(parse_int(v, 0, INT_MAX), 2); }, Scope::per_rank},
    {"MPIX_ALLTOALLV_EXCLUDE", "list", "", "comma-separated registry names",
     "Algorithms the selector (auto) never chooses, e.g. fence,lock. An unknown name makes "
     "MPIX_Alltoallv_init fail with MPIX_ERR_CONFIG on every rank. A forced algorithm is not affected.",
     [](std::string_view v, Config& c) { c.alltoallv_exclude = parse_list(v); }},
    {"MPIX_TUNING_FILE", "path", "", "a JSON file written by mpix_tune",
     "Cost-model parameters for the selector, laid over the built-in ones (measured with mpix_tune "
     "on the development machines: 2 ranks, one node and emulated off-node). A file that cannot be "
     "read or parsed makes MPIX_Alltoallv_init fail with MPIX_ERR_CONFIG, naming the file, line and key. "
     "The path may differ between ranks; the parameters read must not (MPIX_Comm_init agrees on them).",
     [](std::string_view v, Config& c) { c.tuning_file = std::string(v); }, Scope::per_rank},
    {"MPIX_EXPECTED_ITERATIONS", "int", "1000", "a positive integer",
     "How many times a request is expected to run, N in the break-even rule: the selector minimises "
     "T_init + N * T_iter. The info key mpix_expected_iterations of a request overrides it.",
     [](std::string_view v, Config& c) { c.expected_iterations = parse_int(v, 1, INT_MAX); }},
    {"MPIX_AUTO_PERIODS", "int", "8", "0..1000",
     "auto's tournament: iteration periods (from one Start to the next, so the application's own work on "
     "the data counts) timed per candidate, after 3 untimed ones. The candidate with the lowest median "
     "period, agreed over ranks, wins if it beat the predicted choice by more than the periods' spread. "
     "0: no tournament, the prediction decides.",
     [](std::string_view v, Config& c) { c.auto_periods = parse_int(v, 0, 1000); }},
    {"MPIX_AUTO_WITHIN", "number", "2", "1..1000",
     "auto's tournament: candidates whose predicted T_init + N*T_iter is within this factor of the "
     "predicted best's enter (MPI's own call always does).",
     [](std::string_view v, Config& c) { c.auto_within = parse_double(v, 1, 1000); }},
    {"MPIX_AUTO_SETTLE", "int", "100", "0..100000",
     "auto's tournament: iterations the whole tournament may take; it also takes at most a quarter of the "
     "expected iterations. The choice is settled by then; a drifting period re-runs it, bounded alike.",
     [](std::string_view v, Config& c) { c.auto_settle = parse_int(v, 0, 100000); }},
};

}  // namespace

#define MPIX_COMPONENT_VARIABLES(rows) const std::vector<VariableSpec>& rows();
#include "src/components.def"
#undef MPIX_COMPONENT_VARIABLES

const std::vector<VariableSpec>& variable_table() {
  static const std::vector<VariableSpec> all = [] {
    std::vector<VariableSpec> rows = table;
#define MPIX_COMPONENT_VARIABLES(component) \
  rows.insert(rows.end(), component().begin(), component().end());
#include "src/components.def"
#undef MPIX_COMPONENT_VARIABLES
    return rows;
  }();
  return all;
}

Configuration Configuration::parse(const std::map<std::string, std::string>& environment) {
  Configuration result;
  for (const VariableSpec& spec : variable_table()) {
    auto it = environment.find(spec.name);
    const bool set = it != environment.end();
    const std::string value = set ? it->second : spec.default_value;
    try {
      spec.apply(value, result.values_);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(std::string(spec.name) + "='" + value + "' is invalid (" + e.what() +
                        "); accepted: " + spec.accepted);
    }
    result.settings_.push_back({&spec, value, set});
  }
  for (const auto& [name, value] : environment) {
    bool known = false;
    for (const VariableSpec& spec : variable_table()) known = known || name == spec.name;
    if (!known) result.unknown_.push_back(name);
  }
  return result;
}

Configuration Configuration::from_process_environment() {
  std::map<std::string, std::string> mpix_variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    if (text.rfind("MPIX_", 0) != 0) continue;
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    mpix_variables.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return parse(mpix_variables);
}

}  // namespace mpix
