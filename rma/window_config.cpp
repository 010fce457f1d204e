#include "rma/window_config.hpp"

#include <climits>

namespace mpix {

namespace {

NodePath parse_node_path(std::string_view value) {
  return parse_choice<NodePath>(value, {{"auto", NodePath::automatic}, {"shm", NodePath::shm}, {"cma", NodePath::cma},
                              {"mpi", NodePath::mpi}});
}

}  // namespace

const std::vector<VariableSpec>& window_variables() {
  static const std::vector<VariableSpec> rows = {
    {"MPIX_NODE_PATH", "enum", "auto", "auto|shm|cma|mpi",
     "How MPIX windows reach targets on the same node. auto: load/store for library memory "
     "(MPIX_Win_allocate; MPIX_Alloc_mem memory under a created or memory-handle window), CMA (process_vm_writev) for "
     "user memory (created windows, memory-handle windows) from MPIX_CMA_MIN_BYTES up (on ordered windows, where "
     "their first transfers timed it faster than MPI RMA), MPI RMA otherwise. shm and cma force one where it can "
     "apply; mpi sends everything through MPI RMA.",
     [](std::string_view v, Config& c) { c.section<WindowConfig>().node_path = parse_node_path(v); }},
    {"MPIX_CMA_MIN_BYTES", "int", "131072", "0 or a positive integer",
     "Smallest transfer into user memory that takes CMA instead of MPI RMA; ordered windows, which complete "
     "each operation before the next, time both paths on their first transfers instead (mpix_ordered_path). "
     "Where CMA wins depends on the machine and on how many puts share a flush (scripts/benchmark.sh rma "
     "measures both): a lower value may speed up windows of mid-sized transfers, but the default stays where "
     "the Alltoallv RMA algorithms' built-in cost parameters were measured: below it, auto's prior would "
     "misjudge them.",
     [](std::string_view v, Config& c) { c.section<WindowConfig>().cma_min_bytes = parse_int(v, 0, INT_MAX); }},
    {"MPIX_WIN_THREAD_SLOTS", "int", "4", "1..64",
     "MPI windows per MPIX window created with mpi_win_scope=thread: each thread slot has its own, "
     "so a thread's flush waits only for its own operations on the MPI path.",
     [](std::string_view v, Config& c) { c.section<WindowConfig>().thread_slots = parse_int(v, 1, 64); }},
  };
  return rows;
}

}  // namespace mpix
