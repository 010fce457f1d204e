// What hwloc says about this node: for mpix_info now, the cost model later.
#pragma once

#include <string>

namespace mpix {

struct Topology {
  int packages = 0;
  int numa_nodes = 0;
  int cores = 0;
  int hardware_threads = 0;

  static Topology load();  // a snapshot; hwloc's own objects are freed at once
  std::string summary() const;
};

}  // namespace mpix
