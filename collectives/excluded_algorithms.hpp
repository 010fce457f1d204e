// The variable that keeps algorithms out of a family's auto
// (MPIX_<FAMILY>_EXCLUDE), written once for every family: its row of the
// typed configuration table, the names the family's constant reads
// (collectives/family.hpp), and the check that each is one of auto's
// candidates. Section is the family's section of the configuration; its
// `exclude` holds the names. A request that forces an algorithm runs it
// whether or not it is listed.
#pragma once

#include <mpix/mpix.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "src/config.hpp"
#include "src/error.hpp"
#include "src/library.hpp"

namespace mpix {

// "fence, lock" -> {"fence", "lock"}: commas separate, blanks around a
// name are not part of it, empty items are dropped.
std::vector<std::string> parse_name_list(std::string_view value);

template <class Section>
VariableSpec excluded_algorithms_variable(const char* name, const char* description) {
  return {name, "list", "", "comma-separated registry names", description,
          [](std::string_view value, Config& c) { c.section<Section>().exclude = parse_name_list(value); }};
}

template <class Section>
const std::vector<std::string>& excluded_algorithms(const Config& config) {
  return config.section<Section>().exclude;
}

// MPIX_ERR_CONFIG, naming the variable, for a name that is not one of
// candidates (registry rows with a `name`).
template <class Row>
void check_excluded_names(const char* variable, const std::vector<std::string>& names,
                          const std::vector<const Row*>& candidates) {
  for (const std::string& name : names) {
    const bool known =
        std::any_of(candidates.begin(), candidates.end(), [&](const Row* row) { return name == row->name; });
    if (known) continue;
    std::string listing;
    for (const Row* row : candidates) listing += (listing.empty() ? "" : ", ") + std::string(row->name);
    throw Error(error_code(MPIX_ERRKIND_CONFIG), std::string(variable) + " names '" + name +
                                                     "', which is not a candidate of auto (" + listing + ")");
  }
}

}  // namespace mpix
