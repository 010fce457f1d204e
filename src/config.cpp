#include "src/config.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>

extern char** environ;

namespace mpix {

namespace {

int parse_int(std::string_view value, long min, long max) {
  std::string text(value);
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max)
    throw std::invalid_argument("not an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return static_cast<int>(v);
}

double parse_double(std::string_view value, double min, double max) {
  std::string text(value);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !(v >= min && v <= max))
    throw std::invalid_argument("not a number in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return v;
}

bool parse_on_off(std::string_view value) {
  if (value == "on") return true;
  if (value == "off") return false;
  throw std::invalid_argument("not one of on|off");
}

FallbackPolicy parse_fallback(std::string_view value) {
  if (value == "error") return FallbackPolicy::error;
  if (value == "warn") return FallbackPolicy::warn;
  if (value == "silent") return FallbackPolicy::silent;
  throw std::invalid_argument("not one of error|warn|silent");
}

NodePath parse_node_path(std::string_view value) {
  if (value == "auto") return NodePath::automatic;
  if (value == "shm") return NodePath::shm;
  if (value == "cma") return NodePath::cma;
  if (value == "mpi") return NodePath::mpi;
  throw std::invalid_argument("not one of auto|shm|cma|mpi");
}

PtracePeers parse_ptrace_peers(std::string_view value) {
  if (value == "widen") return PtracePeers::widen;
  if (value == "use") return PtracePeers::use;
  if (value == "off") return PtracePeers::off;
  throw std::invalid_argument("not one of widen|use|off");
}

std::vector<std::string> parse_list(std::string_view value) {
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

const std::vector<VariableSpec> table = {
    {"MPIX_ALLTOALLV_ALGORITHM", "string", "", "a registry name (see mpix_info)",
     "Forces the Alltoallv algorithm of every request, unless the request's info sets "
     "mpix_alltoallv_algorithm. Empty or auto: the selector chooses per request (the default). "
     "A forced name runs even if MPIX_ALLTOALLV_EXCLUDE lists it. An unknown or unsupported name "
     "follows MPIX_FALLBACK.",
     [](std::string_view v, Config& c) { c.alltoallv_algorithm = std::string(v); }},
    {"MPIX_FALLBACK", "enum", "warn", "error|warn|silent",
     "What a request does when the forced algorithm is unknown or cannot run these arguments: "
     "error returns MPIX_ERR_ALGORITHM on every rank; warn prints a warning on rank 0 and uses "
     "the selector (auto); silent uses the selector.",
     [](std::string_view v, Config& c) { c.fallback = parse_fallback(v); }},
    {"MPIX_NODE_SIZE", "int", "0", "0 or a positive integer",
     "Emulates nodes of this many consecutive ranks inside each real node, so one machine can "
     "play several nodes; 0 uses the real shared-memory nodes.",
     [](std::string_view v, Config& c) { c.node_size = parse_int(v, 0, INT_MAX); }},
    {"MPIX_VERBOSE", "int", "0", "0|1|2 (larger: 2)",
     "0 quiet; 1 rank 0 logs each request's algorithm and why: for auto, the agreed pattern summary, "
     "every candidate's predicted T_init, T_iter and break-even, the choice, and each online check "
     "or switch; 2 also logs node layouts. Larger values mean 2.",
     [](std::string_view v, Config& c) { c.verbose = std::min(parse_int(v, 0, INT_MAX), 2); }, Scope::per_rank},
    {"MPIX_NODE_PATH", "enum", "auto", "auto|shm|cma|mpi",
     "How MPIX windows reach targets on the same node. auto: load/store for library memory "
     "(MPIX_Win_allocate; MPIX_Alloc_mem memory under a created or memory-handle window), CMA (process_vm_writev) for "
     "user memory (created windows, memory-handle windows) from MPIX_CMA_MIN_BYTES up, MPI RMA "
     "otherwise. shm and cma force one where it can apply; mpi sends everything through MPI RMA.",
     [](std::string_view v, Config& c) { c.node_path = parse_node_path(v); }},
    {"MPIX_CMA_MIN_BYTES", "int", "131072", "0 or a positive integer",
     "Smallest transfer that takes CMA instead of MPI RMA. Measured on these machines (2 ranks, "
     "put+flush into user memory, bench_memhandle): MPI 8.2-10.5 us vs CMA 10.5-13.4 us at "
     "64 KiB, 28-30 vs 20-25 us at 256 KiB, 97-111 vs 79-81 us at 1 MiB.",
     [](std::string_view v, Config& c) { c.cma_min_bytes = parse_int(v, 0, INT_MAX); }},
    {"MPIX_WIN_THREAD_SLOTS", "int", "4", "1..64",
     "MPI windows per MPIX window created with mpi_win_scope=thread: each thread slot has its own, "
     "so a thread's flush waits only for its own operations on the MPI path.",
     [](std::string_view v, Config& c) { c.win_thread_slots = parse_int(v, 1, 64); }},
    {"MPIX_ALLTOALLV_EXCLUDE", "list", "", "comma-separated registry names",
     "Algorithms the selector (auto) never chooses, e.g. fence,lock. An unknown name makes "
     "MPIX_Alltoallv_init fail with MPIX_ERR_CONFIG on every rank. A forced algorithm is not affected.",
     [](std::string_view v, Config& c) { c.alltoallv_exclude = parse_list(v); }},
    {"MPIX_TUNING_FILE", "path", "", "a JSON file written by mpix_tune",
     "Cost-model parameters for the selector, laid over the built-in ones (measured with mpix_tune "
     "on the development machines: 2 ranks, one node and emulated off-node). A file that cannot be "
     "read or parsed makes MPIX_Alltoallv_init fail with MPIX_ERR_CONFIG, naming the file, line and key. "
     "The path may differ between ranks; the parameters read must not (MPIX_Comm_init agrees on them).",
     [](std::string_view v, Config& c) { c.tuning_file = std::string(v); }, Scope::per_rank},
    {"MPIX_EXPECTED_ITERATIONS", "int", "1000", "a positive integer",
     "How many times a request is expected to run, N in the break-even rule: the selector minimises "
     "T_init + N * T_iter. The info key mpix_expected_iterations of a request overrides it.",
     [](std::string_view v, Config& c) { c.expected_iterations = parse_int(v, 1, INT_MAX); }},
    {"MPIX_AUTO_PERIODS", "int", "8", "0..1000",
     "auto's tournament: iteration periods (from one Start to the next, so the application's own work on "
     "the data counts) timed per candidate, after 3 untimed ones. The candidate with the lowest median "
     "period, agreed over ranks, wins if it beat the predicted choice by more than the periods' spread. "
     "0: no tournament, the prediction decides.",
     [](std::string_view v, Config& c) { c.auto_periods = parse_int(v, 0, 1000); }},
    {"MPIX_AUTO_WITHIN", "number", "2", "1..1000",
     "auto's tournament: candidates whose predicted T_init + N*T_iter is within this factor of the "
     "predicted best's enter (MPI's own call always does).",
     [](std::string_view v, Config& c) { c.auto_within = parse_double(v, 1, 1000); }},
    {"MPIX_AUTO_SETTLE", "int", "100", "0..100000",
     "auto's tournament: iterations the whole tournament may take; it also takes at most a quarter of the "
     "expected iterations. The choice is settled by then; a drifting period re-runs it, bounded alike.",
     [](std::string_view v, Config& c) { c.auto_settle = parse_int(v, 0, 100000); }},
    {"MPIX_CHANNEL_CHUNK_BYTES", "int", "16384", "64..16777216",
     "Node channel (algorithm channel): payload bytes of one slot of the ring a node peer sends this "
     "rank through; larger blocks stream through the ring in chunks of this size. Each rank sizes "
     "its own rings, so ranks may differ.",
     [](std::string_view v, Config& c) { c.channel_chunk_bytes = parse_int(v, 64, 1 << 24); }, Scope::per_rank},
    {"MPIX_CHANNEL_STAGING_BYTES", "int", "1048576", "256..1073741824",
     "Node channel: shared memory per rank for the rings of all its node peers together (at least "
     "two slots per peer); bounds the staging memory however large the blocks. Ranks may differ.",
     [](std::string_view v, Config& c) { c.channel_staging_bytes = parse_int(v, 256, 1 << 30); }, Scope::per_rank},
    {"MPIX_CHANNEL_SINGLE_COPY_BYTES", "int", "4096", "0 or a positive integer",
     "Node channel: blocks from this size up whose send buffer node peers can map (MPIX_Alloc_mem "
     "memory) are not staged: the receiver copies them once, straight from the sender's buffer into "
     "its own, so the data lands in the cache of the core that reads it next. 0: always stage. "
     "Decided by the sender per block, so ranks may differ.",
     [](std::string_view v, Config& c) { c.channel_single_copy_bytes = parse_int(v, 0, INT_MAX); }, Scope::per_rank},
    {"MPIX_CHANNEL_CMA_BYTES", "int", "65536", "0 or a positive integer",
     "Node channel, algorithm channel_cma: blocks in other memory (the heap) from this size up are not "
     "staged: the receiver pulls them with one CMA copy (process_vm_readv), also when the drop-in moves the "
     "buffers. channel stages them. 0: channel_cma stages too. Decided by the sender per block, so ranks "
     "may differ.",
     [](std::string_view v, Config& c) { c.channel_cma_bytes = parse_int(v, 0, INT_MAX); }, Scope::per_rank},
    {"MPIX_CHANNEL_SPIN", "int", "auto", "auto or 0..10000000",
     "Node channel: polls a waiting rank spins before it yields its core on every further poll. auto: "
     "4096 while the node's ranks have a core each, 0 (yield at once) when they outnumber the cores they "
     "may run on (their affinity masks together), since a spinning rank then holds the core its peer "
     "needs. mpix_info and MPIX_VERBOSE=2 show the count. Ranks may differ.",
     [](std::string_view v, Config& c) { c.channel_spin_polls = v == "auto" ? -1 : parse_int(v, 0, 10000000); },
     Scope::per_rank},
    {"MPIX_PTRACE_PEERS", "enum", "widen", "widen|use|off",
     "Single copies between node peers (CMA, and mapping a peer's MPIX_Alloc_mem memory through "
     "pidfd_getfd) need ptrace permission between the processes. widen: a process that publishes memory "
     "to node peers (a window, a memory handle, a node-channel send buffer) lets any process of the same "
     "user attach to it (prctl PR_SET_PTRACER_ANY), which Yama ptrace_scope 1 requires; use: never widens, "
     "single copies only where the kernel already allows them; off: no call that needs ptrace permission "
     "at all (peers' memory through MPI RMA or staged through the node channel, whose segments are passed "
     "over a Unix-domain socket). Where permission is refused, the library falls back the same way.",
     [](std::string_view v, Config& c) { c.ptrace_peers = parse_ptrace_peers(v); }},
    {"MPIX_INTERCEPT", "enum", "on", "on|off",
     "Drop-in (libmpixrma_intercept.so): on serves MPI_Alltoallv calls that repeat from a persistent "
     "request; off passes every call to PMPI_Alltoallv.",
     [](std::string_view v, Config& c) { c.intercept = parse_on_off(v); }},
    {"MPIX_INTERCEPT_REPEATS", "int", "3", "1..16",
     "Drop-in: how many of a communicator's recent calls must have had the same arguments on every rank "
     "before that exchange is served.",
     [](std::string_view v, Config& c) { c.intercept_repeats = parse_int(v, 1, 16); }},
    {"MPIX_INTERCEPT_ENTRIES", "int", "4", "1..16",
     "Drop-in: exchanges kept per communicator (the least recently served goes first).",
     [](std::string_view v, Config& c) { c.intercept_entries = parse_int(v, 1, 16); }},
    {"MPIX_INTERCEPT_MIN_BYTES", "int", "8192", "0..2147483647",
     "Drop-in: the smallest exchange served, as the largest block any rank sends or receives; smaller "
     "ones pass straight to PMPI_Alltoallv (without agreement, re-checked now and then).",
     [](std::string_view v, Config& c) { c.intercept_min_bytes = parse_int(v, 0, 2147483647); }},
};

}  // namespace

const std::vector<VariableSpec>& variable_table() { return table; }

Configuration Configuration::parse(const std::map<std::string, std::string>& environment) {
  Configuration result;
  for (const VariableSpec& spec : table) {
    auto it = environment.find(spec.name);
    const bool set = it != environment.end();
    const std::string value = set ? it->second : spec.default_value;
    try {
      spec.apply(value, result.values_);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(std::string(spec.name) + "='" + value + "' is invalid (" + e.what() +
                        "); accepted: " + spec.accepted);
    }
    result.settings_.push_back({&spec, value, set});
  }
  for (const auto& [name, value] : environment) {
    bool known = false;
    for (const VariableSpec& spec : table) known = known || name == spec.name;
    if (!known) result.unknown_.push_back(name);
  }
  return result;
}

Configuration Configuration::from_process_environment() {
  std::map<std::string, std::string> mpix_variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    if (text.rfind("MPIX_", 0) != 0) continue;
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    mpix_variables.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return parse(mpix_variables);
}

}  // namespace mpix
