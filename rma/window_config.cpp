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
     "user memory (created windows, memory-handle windows) from MPIX_CMA_MIN_BYTES up, MPI RMA "
     "otherwise. shm and cma force one where it can apply; mpi sends everything through MPI RMA.",
     [](std::string_view v, Config& c) { c.section<WindowConfig>().node_path = parse_node_path(v); }},
    {"MPIX_CMA_MIN_BYTES", "int", "131072", "0 or a positive integer",
     "Smallest transfer that takes CMA instead of MPI RMA. Measured on these machines (2 ranks, "
     "put+flush into user memory, bench_memhandle): MPI 8.2-10.5 us vs CMA 10.5-13.4 us at "
     "64 KiB, 28-30 vs 20-25 us at 256 KiB, 97-111 vs 79-81 us at 1 MiB.",
     [](std::string_view v, Config& c) { c.section<WindowConfig>().cma_min_bytes = parse_int(v, 0, INT_MAX); }},
    {"MPIX_WIN_THREAD_SLOTS", "int", "4", "1..64",
     "MPI windows per MPIX window created with mpi_win_scope=thread: each thread slot has its own, "
     "so a thread's flush waits only for its own operations on the MPI path.",
     [](std::string_view v, Config& c) { c.section<WindowConfig>().thread_slots = parse_int(v, 1, 64); }},
  };
  return rows;
}

}  // namespace mpix
