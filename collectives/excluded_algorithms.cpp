#include "collectives/excluded_algorithms.hpp"

namespace mpix {

std::vector<std::string> parse_name_list(std::string_view value) {
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

}  // namespace mpix
