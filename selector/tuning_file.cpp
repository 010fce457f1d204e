#include "selector/tuning_file.hpp"

#include <cstddef>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tuning_defaults.inc"  // generated from selector/tuning_defaults.json: builtin_tuning_json

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
  Reader(const std::string& text, const std::string& origin) : text_(text), origin_(origin) {}

  [[noreturn]] void fail(const std::string& path, const std::string& why) const {
    throw TuningFileError(origin_ + ": line " + std::to_string(line_of_key(text_, path)) + ": key '" + path +
                          "': " + why);
  }

  double number(const json& value, const std::string& path) const {
    if (!value.is_number()) fail(path, "expected a number, found " + std::string(value.type_name()));
    const double v = value.get<double>();
    if (!(v >= 0)) fail(path, "expected a number >= 0, found " + value.dump());
    return v;
  }

  MessageCurve curve(const json& value, const std::string& path) const {
    if (!value.is_array()) fail(path, "expected an array of [bytes, microseconds] pairs");
    std::vector<std::pair<double, double>> points;
    for (const json& point : value) {
      if (!point.is_array() || point.size() != 2)
        fail(path, "expected [bytes, microseconds] pairs, found " + point.dump());
      points.emplace_back(number(point[0], path), number(point[1], path));
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
      out.*(key->field) = number(value, at);
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
    if (!root.contains("version") || !root["version"].is_number_integer())
      fail("version", "expected an integer");
    if (root["version"].get<int>() != tuning_version)
      fail("version", "version " + root["version"].dump() + " is not the one this library reads (" +
                          std::to_string(tuning_version) + ")");
    for (const auto& [key, value] : root.items()) {
      if (key == "format" || key == "version") continue;
      if (key == "source") {
        if (!value.is_string()) fail(key, "expected a string");
        out.source = value.get<std::string>();
      } else if (key == "calibration_ranks") {
        if (!value.is_number_integer() || value.get<long>() < 1) fail(key, "expected an integer >= 1");
        out.calibration_ranks = value.get<int>();
      } else if (key == "algorithms") {
        if (!value.is_object()) fail(key, "expected an object of algorithm names");
        for (const auto& [name, parameters] : value.items())
          algorithm(parameters, "algorithms." + name, out.algorithms[name]);
      } else {
        fail(key, "unknown key (known: format, version, source, calibration_ranks, algorithms)");
      }
    }
  }

 private:
  const std::string& text_;
  const std::string& origin_;
};

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

TuningParameters parse_tuning(const std::string& text, const std::string& origin, const TuningParameters& base) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw TuningFileError(origin + ": line " + std::to_string(line_at(text, e.byte ? e.byte - 1 : 0)) +
                          ": not valid JSON (" + e.what() + ")");
  }
  TuningParameters parameters = base;
  Reader(text, origin).document(root, parameters);
  return parameters;
}

TuningParameters read_tuning_file(const std::string& path, const TuningParameters& base) {
  std::ifstream in(path);
  if (!in) throw TuningFileError(path + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_tuning(text.str(), path, base);
}

std::string tuning_to_json(const TuningParameters& parameters) {
  json root;
  root["format"] = tuning_format;
  root["version"] = tuning_version;
  root["source"] = parameters.source;
  root["calibration_ranks"] = parameters.calibration_ranks;
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
