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

const std::vector<VariableSpec> table = {
    {"MPIX_NODE_SIZE", "int", "0", "0 or a positive integer",
     "Emulates nodes of this many consecutive ranks inside each real node, so one machine can "
     "play several nodes; 0 uses the real shared-memory nodes.",
     [](std::string_view v, Config& c) { c.node_size = parse_int(v, 0, INT_MAX); }},
    {"MPIX_VERBOSE", "int", "0", "0|1|2 (larger: 2)",
     "0 quiet; 1 rank 0 logs each request's algorithm and why: for auto, the agreed pattern summary, "
     "every candidate's predicted T_init, T_iter and break-even, the choice, and each online check "
     "or switch, and each node's first rank why a window's on-node targets use MPI RMA; 2 also logs node "
     "layouts, and that reason on every rank. Larger values mean 2.",
     [](std::string_view v, Config& c) { c.verbose = std::min(parse_int(v, 0, INT_MAX), 2); }, Scope::per_rank},
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

std::vector<std::pair<std::string, std::string>> Configuration::shared_values() const {
  std::vector<std::pair<std::string, std::string>> shared;
  for (const VariableSetting& s : settings_) {
    if (s.spec->scope == Scope::every_rank_alike) shared.emplace_back(s.spec->name, s.value);
    if (s.spec->agreed_content != nullptr)
      shared.emplace_back(std::string("what ") + s.spec->name + " names", s.spec->agreed_content(values_));
  }
  return shared;
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
