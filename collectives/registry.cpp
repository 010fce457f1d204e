#include "collectives/registry.hpp"

#include "collectives/algorithm.hpp"

namespace mpix {

std::string capability_list(unsigned capabilities) {
  std::string names;
  for (const CapabilityName& c : capability_names) {
    if ((capabilities & c.bit) == 0) continue;
    if (!names.empty()) names += ",";
    names += c.name;
  }
  return names;
}

}  // namespace mpix
