// The MPIX_* environment variables: one typed table parsed once into an
// immutable Config. Nothing else in the library reads the environment.
// The core rows are in config.cpp; a component (a transport, the drop-in)
// owns its rows and its section of Config in its own folder, and joins the
// table by one line in src/components.def.
#pragma once

#include <any>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeindex>
#include <utility>
#include <vector>

namespace mpix {

struct Config {
  int node_size = 0;  // 0: real shared-memory nodes
  int verbose = 0;

  // A component's section: a struct of its settings with their defaults,
  // filled by its rows. Reading a section no row has set gives the defaults.
  template <class Section>
  const Section& section() const {
    auto it = sections_.find(typeid(Section));
    if (it == sections_.end()) {
      static const Section defaults{};
      return defaults;
    }
    return *std::any_cast<Section>(&it->second);
  }
  template <class Section>
  Section& section() {
    auto it = sections_.try_emplace(typeid(Section), Section{}).first;
    return *std::any_cast<Section>(&it->second);
  }

 private:
  std::map<std::type_index, std::any> sections_;
};

// Parsers for the rows' apply functions; they throw std::invalid_argument
// saying what is accepted.
int parse_int(std::string_view value, long min, long max);
double parse_double(std::string_view value, double min, double max);
bool parse_on_off(std::string_view value);
// One of the named values of an enumeration, e.g. {{"on", Mode::on}, ...}.
template <class Enum>
Enum parse_choice(std::string_view value, std::initializer_list<std::pair<std::string_view, Enum>> choices) {
  std::string accepted;
  for (const auto& [name, choice] : choices) {
    if (value == name) return choice;
    accepted += (accepted.empty() ? "" : "|") + std::string(name);
  }
  throw std::invalid_argument("not one of " + accepted);
}

// Parsing failures name the variable, the value and what is accepted.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether ranks of one communicator may set a variable differently. Most
// change what the ranks do together (which algorithm, how many windows,
// the node layout), so MPIX_Comm_init agrees on them; the others only
// change what one rank does on its own side.
enum class Scope { every_rank_alike, per_rank };

struct VariableSpec {
  const char* name;
  const char* type;
  const char* default_value;
  const char* accepted;
  const char* description;
  // Parses value into its field of out; throws std::invalid_argument.
  void (*apply)(std::string_view value, Config& out);
  Scope scope = Scope::every_rank_alike;
  // What ranks must agree on beyond the variable's text, whatever its
  // scope: the identity of what it names (a file's parameters), or the
  // error reading it gave; null for none.
  std::string (*agreed_content)(const Config& config) = nullptr;
};

// Every row: the core's, then each component's in src/components.def order.
const std::vector<VariableSpec>& variable_table();

struct VariableSetting {
  const VariableSpec* spec;
  std::string value;
  bool from_environment;
};

class Configuration {
 public:
  // environment: every MPIX_* variable that is set, name -> value.
  static Configuration parse(const std::map<std::string, std::string>& environment);
  static Configuration from_process_environment();

  const Config& values() const { return values_; }
  const std::vector<VariableSetting>& settings() const { return settings_; }
  // MPIX_* names that are set but not in the table: most likely typos.
  const std::vector<std::string>& unknown_variables() const { return unknown_; }
  // What every rank of a communicator must share, name -> value: each
  // every_rank_alike variable's value, and each row's agreed_content.
  std::vector<std::pair<std::string, std::string>> shared_values() const;

 private:
  Config values_;
  std::vector<VariableSetting> settings_;
  std::vector<std::string> unknown_;
};

}  // namespace mpix
