#include "selector/tuning_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tuning_defaults.inc"  // generated from selector/tuning_defaults_<mpi>.json: builtin_tuning_json

namespace mpix {

namespace {

using nlohmann::json;

// The file's keys, named once for reading and writing.
template <class Owner, class Field>
struct Key {
  const char* name;
  Field Owner::*field;
};
constexpr Key<FixedCosts, double> fixed_keys[] = {
    {"sync_us", &FixedCosts::sync_us}, {"init_us", &FixedCosts::init_us}, {"reinit_us", &FixedCosts::reinit_us}};
constexpr Key<AlgorithmParameters, FixedCosts> setting_keys[] = {{"one_node", &AlgorithmParameters::one_node},
                                                                  {"multi_node", &AlgorithmParameters::multi_node}};
constexpr Key<AlgorithmParameters, MessageCurve> curve_keys[] = {
    {"node_us", &AlgorithmParameters::node},
    {"node_user_us", &AlgorithmParameters::node_user},
    {"net_us", &AlgorithmParameters::net},
    {"self_us", &AlgorithmParameters::self},
    {"self_user_us", &AlgorithmParameters::self_user},
    {"multi_node_self_us", &AlgorithmParameters::multi_node_self}};

template <class Owner, class Field, std::size_t N>
std::string& append_names(std::string& names, const Key<Owner, Field> (&table)[N]) {
  for (const auto& key : table) names += (names.empty() ? "" : ", ") + std::string(key.name);
  return names;
}

template <class Owner, class Field, std::size_t N>
const Key<Owner, Field>* find_key(const Key<Owner, Field> (&table)[N], const std::string& name) {
  for (const auto& key : table)
    if (name == key.name) return &key;
  return nullptr;
}

int line_at(const std::string& text, std::size_t byte) {
  const std::size_t end = std::min(byte, text.size());
  int line = 1;
  for (std::size_t i = 0; i < end; ++i) line += text[i] == '\n';
  return line;
}

// nlohmann keeps no positions: the line of a key is found by looking for
// each key of its path, in order, in the text.
int line_of_key(const std::string& text, const std::string& path) {
  std::size_t at = 0;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = std::min(path.find('.', start), path.size());
    const std::size_t found = text.find('"' + path.substr(start, dot - start) + '"', at);
    if (found == std::string::npos) break;
    at = found;
    start = dot + 1;
  }
  return line_at(text, at);
}

class Reader {
 public:
  Reader(const std::string& text, const std::string& origin, const std::vector<std::string>* known)
      : text_(text), origin_(origin), known_(known) {}

  // Past these a number is nonsense, not a measurement: an hour per
  // operation, a petabyte per message, a million ranks.
  static constexpr double max_us = 3.6e9;
  static constexpr double max_bytes = 1e15;
  static constexpr long long max_ranks = 1 << 20;

  [[noreturn]] void fail(const std::string& path, const std::string& why) const {
    throw TuningFileError(origin_ + ": line " + std::to_string(line_of_key(text_, path)) + ": key '" + path +
                          "': " + why);
  }

  // A finite number in [0, max]: times in microseconds, sizes in bytes.
  double number(const json& value, const std::string& path, double max) const {
    if (!value.is_number()) fail(path, "expected a number, found " + std::string(value.type_name()));
    const double v = value.get<double>();
    if (!std::isfinite(v) || v < 0 || v > max)
      fail(path, "expected a number in [0, " + json(max).dump() + "], found " + value.dump());
    return v;
  }
  // An integer in [min, max], read without narrowing (4294967297 is not 1).
  long long integer(const json& value, const std::string& path, long long min, long long max) const {
    if (!value.is_number_integer()) fail(path, "expected an integer, found " + value.dump());
    const bool fits = value.is_number_unsigned() ? value.get<unsigned long long>() <= static_cast<unsigned long long>(max)
                                                 : value.get<long long>() >= min && value.get<long long>() <= max;
    if (!fits)
      fail(path, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], found " +
                     value.dump());
    return value.get<long long>();
  }

  // An empty array: not measured in that setting (an algorithm calibrated
  // on one node only, say); the selector does not run it there.
  MessageCurve curve(const json& value, const std::string& path) const {
    if (!value.is_array()) fail(path, "expected an array of [bytes, microseconds] pairs");
    std::vector<std::pair<double, double>> points;
    for (const json& point : value) {
      if (!point.is_array() || point.size() != 2)
        fail(path, "expected [bytes, microseconds] pairs, found " + point.dump());
      points.emplace_back(number(point[0], path, max_bytes), number(point[1], path, max_us));
    }
    try {
      return MessageCurve(std::move(points));
    } catch (const std::invalid_argument& e) {
      fail(path, e.what());
    }
  }

  void fixed(const json& object, const std::string& path, FixedCosts& out) const {
    if (!object.is_object()) fail(path, "expected an object");
    for (const auto& [name, value] : object.items()) {
      const std::string at = path + "." + name;
      const auto* key = find_key(fixed_keys, name);
      if (key == nullptr) {
        std::string known;
        fail(at, "unknown key (known: " + append_names(known, fixed_keys) + ")");
      }
      out.*(key->field) = number(value, at, max_us);
    }
  }

  void algorithm(const json& object, const std::string& path, AlgorithmParameters& out) const {
    if (!object.is_object()) fail(path, "expected an object");
    for (const auto& [name, value] : object.items()) {
      const std::string at = path + "." + name;
      if (const auto* key = find_key(setting_keys, name)) {
        fixed(value, at, out.*(key->field));
      } else if (const auto* curve_key = find_key(curve_keys, name)) {
        out.*(curve_key->field) = curve(value, at);
      } else {
        std::string known;
        append_names(known, setting_keys);
        fail(at, "unknown key (known: " + append_names(known, curve_keys) + ")");
      }
    }
  }

  void document(const json& root, TuningParameters& out) const {
    if (!root.is_object()) fail("", "the document must be a JSON object");
    if (!root.contains("format") || root["format"] != tuning_format)
      fail("format", std::string("expected \"") + tuning_format + "\"");
    if (!root.contains("version")) fail("version", "missing");
    if (integer(root["version"], "version", 0, std::numeric_limits<int>::max()) != tuning_version)
      fail("version", "version " + root["version"].dump() + " is not the one this library reads (" +
                          std::to_string(tuning_version) + ")");
    for (const auto& [key, value] : root.items()) {
      if (key == "format" || key == "version") continue;
      if (key == "source") {
        if (!value.is_string()) fail(key, "expected a string");
        out.source = value.get<std::string>();
      } else if (key == "mpi") {
        if (!value.is_string()) fail(key, "expected a string");
        out.mpi = value.get<std::string>();
      } else if (key == "calibration_ranks") {
        out.calibration_ranks = static_cast<int>(integer(value, key, 1, max_ranks));
      } else if (key == "loop") {
        if (!value.is_string() || (value != "application" && value != "exchange" && value != "barrier"))
          fail(key, "expected \"application\", \"exchange\" or \"barrier\"");
        out.loop = value.get<std::string>();
      } else if (key == "algorithms") {
        if (!value.is_object()) fail(key, "expected an object of algorithm names");
        for (const auto& [name, parameters] : value.items()) {
          if (known_ != nullptr && std::find(known_->begin(), known_->end(), name) == known_->end()) {
            std::string names;
            for (const std::string& k : *known_) names += (names.empty() ? "" : ", ") + k;
            fail("algorithms." + name, "not a registered algorithm (registered: " + names + ")");
          }
          algorithm(parameters, "algorithms." + name, out.algorithms[name]);
        }
      } else {
        fail(key, "unknown key (known: format, version, source, mpi, calibration_ranks, loop, algorithms)");
      }
    }
  }

 private:
  const std::string& text_;
  const std::string& origin_;
  const std::vector<std::string>* known_;
};

// The key nearest before byte in text ("sync_us" for `"sync_us": 1e999`).
std::string key_before(const std::string& text, std::size_t byte) {
  const std::size_t colon = text.rfind(':', byte);
  if (colon == std::string::npos) return "";
  const std::size_t close = text.rfind('"', colon);
  const std::size_t open = close == std::string::npos || close == 0 ? std::string::npos : text.rfind('"', close - 1);
  return open == std::string::npos ? "" : text.substr(open + 1, close - open - 1);
}

json algorithm_json(const AlgorithmParameters& p) {
  json object = json::object();
  for (const auto& setting : setting_keys) {
    json& costs = object[setting.name] = json::object();
    for (const auto& key : fixed_keys) costs[key.name] = (p.*(setting.field)).*(key.field);
  }
  for (const auto& key : curve_keys) {
    json& points = object[key.name] = json::array();
    for (const auto& [bytes, us] : (p.*(key.field)).points()) points.push_back({bytes, us});
  }
  return object;
}

}  // namespace

TuningParameters parse_tuning(const std::string& text, const std::string& origin, const TuningParameters& base,
                              const std::vector<std::string>* known_algorithms) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw TuningFileError(origin + ": line " + std::to_string(line_at(text, e.byte ? e.byte - 1 : 0)) +
                          ": not valid JSON (" + e.what() + ")");
  } catch (const json::exception& e) {
    // A number JSON allows but a double cannot hold (1e999): nlohmann names
    // the literal, not where it is, so look for it.
    const std::string what = e.what();
    const std::size_t quote = what.find('\'');
    const std::string literal =
        quote == std::string::npos ? "" : what.substr(quote + 1, what.find('\'', quote + 1) - quote - 1);
    const std::size_t at = literal.empty() ? std::string::npos : text.find(literal);
    if (at == std::string::npos) throw TuningFileError(origin + ": " + what);
    throw TuningFileError(origin + ": line " + std::to_string(line_at(text, at)) + ": key '" + key_before(text, at) +
                          "': " + literal + " is out of range (" + what + ")");
  }
  TuningParameters parameters = base;
  Reader(text, origin, known_algorithms).document(root, parameters);
  return parameters;
}

TuningParameters read_tuning_file(const std::string& path, const TuningParameters& base,
                                  const std::vector<std::string>* known_algorithms) {
  // Refused before reading: a directory, a device (/dev/zero never ends), a
  // file far larger than any tuning file.
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) throw TuningFileError(path + ": cannot be read (" + std::strerror(errno) + ")");
  if (!S_ISREG(info.st_mode)) throw TuningFileError(path + ": not a regular file");
  if (info.st_size > max_tuning_file_bytes)
    throw TuningFileError(path + ": " + std::to_string(info.st_size) + " bytes, larger than any tuning file (" +
                          std::to_string(max_tuning_file_bytes) + " bytes at most)");
  std::ifstream in(path);
  if (!in) throw TuningFileError(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_tuning(text.str(), path, base, known_algorithms);
}

std::string tuning_to_json(const TuningParameters& parameters) {
  json root;
  root["format"] = tuning_format;
  root["version"] = tuning_version;
  root["source"] = parameters.source;
  if (!parameters.mpi.empty()) root["mpi"] = parameters.mpi;
  root["calibration_ranks"] = parameters.calibration_ranks;
  root["loop"] = parameters.loop;
  json& algorithms = root["algorithms"] = json::object();
  for (const auto& [name, p] : parameters.algorithms) {
    algorithms[name] = algorithm_json(p);
  }
  return root.dump(2) + "\n";
}

TuningParameters builtin_tuning() { return parse_tuning(builtin_tuning_json, "built-in defaults", {}); }

std::uint64_t tuning_fingerprint(const TuningParameters& parameters) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : tuning_to_json(parameters)) hash = (hash ^ c) * 1099511628211ULL;
  return hash;
}

}  // namespace mpix
