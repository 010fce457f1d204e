#include "src/topology.hpp"

#include <hwloc.h>

#include "src/error.hpp"

namespace mpix {

Topology Topology::load() {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) throw Error(MPI_ERR_OTHER, "hwloc_topology_init failed");
  Topology t;
  if (hwloc_topology_load(topo) == 0) {
    auto count = [&](hwloc_obj_type_t type) {
      int n = hwloc_get_nbobjs_by_type(topo, type);
      return n < 0 ? 0 : n;
    };
    t.packages = count(HWLOC_OBJ_PACKAGE);
    t.numa_nodes = count(HWLOC_OBJ_NUMANODE);
    t.cores = count(HWLOC_OBJ_CORE);
    t.hardware_threads = count(HWLOC_OBJ_PU);
  }
  hwloc_topology_destroy(topo);
  return t;
}

std::string Topology::summary() const {
  return std::to_string(packages) + " package(s), " + std::to_string(numa_nodes) + " NUMA domain(s), " +
         std::to_string(cores) + " core(s), " + std::to_string(hardware_threads) + " hardware thread(s)";
}

}  // namespace mpix
