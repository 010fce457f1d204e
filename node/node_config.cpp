#include "node/node_config.hpp"

#include <climits>

namespace mpix {

namespace {

PtracePeers parse_ptrace_peers(std::string_view value) {
  return parse_choice<PtracePeers>(value, {{"widen", PtracePeers::widen}, {"use", PtracePeers::use}, {"off", PtracePeers::off}});
}

}  // namespace

const std::vector<VariableSpec>& node_variables() {
  static const std::vector<VariableSpec> rows = {
    {"MPIX_CHANNEL", "on|off", "on", "on|off",
     "The node channel (shared-memory segments passed between a node's ranks, docs/security.md): off "
     "creates none, for any family or the drop-in. Every algorithm that needs it is refused with this "
     "reason (auto runs the others; a forced one fails at init with MPIX_ERR_ALGORITHM), and the drop-in "
     "agrees through MPI_Allreduce. Ranks must agree.",
     [](std::string_view v, Config& c) { c.section<NodeConfig>().channel = parse_on_off(v); }},
    {"MPIX_CHANNEL_CHUNK_BYTES", "int", "32768", "64..16777216",
     "Node channel (algorithm channel): payload bytes of one slot of the ring a node peer sends this "
     "rank through; larger blocks stream through the ring in chunks of this size. Smaller where two "
     "slots per node peer would not fit MPIX_CHANNEL_STAGING_BYTES. Each rank sizes its own rings, so "
     "ranks may differ.",
     [](std::string_view v, Config& c) { c.section<NodeConfig>().chunk_bytes = parse_int(v, 64, 1 << 24); }, Scope::per_rank},
    {"MPIX_CHANNEL_STAGING_BYTES", "int", "1048576", "256..1073741824",
     "Node channel: shared memory per rank for the rings of all its node peers together (at least "
     "two slots per peer); bounds the staging memory however large the blocks. Ranks may differ.",
     [](std::string_view v, Config& c) { c.section<NodeConfig>().staging_bytes = parse_int(v, 256, 1 << 30); }, Scope::per_rank},
    {"MPIX_CHANNEL_SINGLE_COPY_BYTES", "int", "4096", "0 or a positive integer",
     "Node channel: blocks from this size up whose send buffer node peers can map (MPIX_Alloc_mem "
     "memory) are not staged: the receiver copies them once, straight from the sender's buffer into "
     "its own, so the data lands in the cache of the core that reads it next. 0: always stage. "
     "Decided by the sender per block, so ranks may differ.",
     [](std::string_view v, Config& c) { c.section<NodeConfig>().single_copy_bytes = parse_int(v, 0, INT_MAX); }, Scope::per_rank},
    {"MPIX_CHANNEL_CMA_BYTES", "int", "65536", "0 or a positive integer",
     "Node channel, algorithm channel_cma: blocks in other memory (the heap) from this size up are not "
     "staged: the receiver pulls them with one CMA copy (process_vm_readv), also when the drop-in moves the "
     "buffers. channel stages them. 0: channel_cma stages too. Decided by the sender per block, so ranks "
     "may differ.",
     [](std::string_view v, Config& c) { c.section<NodeConfig>().cma_bytes = parse_int(v, 0, INT_MAX); }, Scope::per_rank},
    {"MPIX_CHANNEL_LOCKSTEP_BYTES", "int", "2304", "0 or a positive integer",
     "Node channel, neighbourhood family: a pair of node peers that send each other about as much per "
     "round (within 15%), each at least this many bytes, goes in lockstep: a round's blocks to the peer "
     "are written once it has copied out the round before. Running ahead would let each core write lines "
     "while the other pulls lines out of its cache, and an even pair can then stay in a slow phase for "
     "thousands of rounds; for small blocks the check costs more than it saves, an uneven pair needs the "
     "overlap, and a uniform Alltoallv stays in phase by itself (its channels always run ahead). 0: never. "
     "Decided by the sender per pair, so ranks may differ.",
     [](std::string_view v, Config& c) { c.section<NodeConfig>().lockstep_bytes = parse_int(v, 0, INT_MAX); }, Scope::per_rank},
    {"MPIX_CHANNEL_SPIN", "int", "auto", "auto or 0..10000000",
     "Node channel: polls a waiting rank spins before it yields its core on every further poll. auto: "
     "4096 while the node's ranks have a core each, 0 (yield at once) when they outnumber the cores they "
     "may run on (their affinity masks together), since a spinning rank then holds the core its peer "
     "needs. mpix_info and MPIX_VERBOSE=2 show the count. Ranks may differ.",
     [](std::string_view v, Config& c) { c.section<NodeConfig>().spin_polls = v == "auto" ? -1 : parse_int(v, 0, 10000000); },
     Scope::per_rank},
    {"MPIX_PTRACE_PEERS", "enum", "widen", "widen|use|off",
     "Single copies between node peers (CMA, and mapping a peer's MPIX_Alloc_mem memory through "
     "pidfd_getfd) need ptrace permission between the processes. widen: a process that publishes memory "
     "to node peers (a window, a memory handle, a node-channel send buffer) lets any process of the same "
     "user attach to it (prctl PR_SET_PTRACER_ANY), which Yama ptrace_scope 1 requires; use: never widens, "
     "single copies only where the kernel already allows them; off: no call that needs ptrace permission "
     "at all (peers' memory through MPI RMA or staged through the node channel, whose segments are passed "
     "over a Unix-domain socket). Where permission is refused, the library falls back the same way.",
     [](std::string_view v, Config& c) { c.section<NodeConfig>().ptrace_peers = parse_ptrace_peers(v); }},
  };
  return rows;
}

}  // namespace mpix
