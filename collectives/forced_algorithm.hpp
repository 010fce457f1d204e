// The variable that forces a family's algorithm for every request
// (MPIX_<FAMILY>_ALGORITHM), written once for every family: its row of the
// typed configuration table, and the value the family's constant reads
// (collectives/family.hpp). Section is the family's section of the
// configuration; its `algorithm` holds the value ("" when unset).
#pragma once

#include <string>
#include <string_view>

#include "src/config.hpp"

namespace mpix {

template <class Section>
VariableSpec forced_algorithm_variable(const char* name, const char* description) {
  return {name, "string", "", "a registry name (see mpix_info)", description,
          [](std::string_view value, Config& c) { c.section<Section>().algorithm = std::string(value); }};
}

template <class Section>
const std::string& forced_algorithm(const Config& config) {
  return config.section<Section>().algorithm;
}

}  // namespace mpix
