#include "node/node_channel.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "node/descriptor_passing.hpp"
#include "src/error.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

constexpr std::size_t line = 64;
constexpr std::size_t header_bytes = 32;  // the rest of the slot's first line is payload
constexpr const char* switched_off = "turned off by MPIX_CHANNEL=off";
// A wait's polls between two of the MPI's progress (spin_then_yield): a
// fraction of a microsecond of spinning each, so that a probe's cost is
// lost in them.
constexpr unsigned polls_per_mpi_progress = 64;

// The first 32 bytes of a slot. seq is published last (release) and read
// first (acquire): the other fields and the payload are plain memory.
struct SlotHeader {
  std::atomic<std::uint64_t> seq;
  std::uint64_t bytes;
  std::uint64_t offset;  // by reference: where the block is in the sender's send buffer
  std::uint32_t by_reference;
  std::uint32_t unused;
};
static_assert(sizeof(SlotHeader) == header_bytes, "the header shares its line with the payload");
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "the rings need lock-free 64-bit atomics");

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Touches every page of [begin, begin + bytes) for writing through this
// process's mapping. MAP_POPULATE fills the kernel's page tables, but a
// virtual machine with shadow page tables still faults the first access of
// each page of each mapping into its own, microseconds a page: for the
// largest rings, milliseconds on both ends of their first pass. An atomic
// add of zero is a write that cannot lose a peer's concurrent store.
void touch_for_writing(char* begin, std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t first = round_up(reinterpret_cast<std::uintptr_t>(begin), sizeof(std::uint64_t));
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(begin) + bytes;
  for (std::uintptr_t a = first; a + sizeof(std::uint64_t) <= end; a = (a / page + 1) * page)
    __atomic_fetch_add(reinterpret_cast<std::uint64_t*>(a), 0, __ATOMIC_RELAXED);
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// The numbers a rank publishes once, at creation.
struct Published {
  long long segment_bytes;  // 0: it has no segment (creation failed)
  long long stride;
  long long slots;
};

}  // namespace

ChannelSettings ChannelSettings::of(const Comm& comm) {
  const NodeConfig& config = comm.config().section<NodeConfig>();
  ChannelSettings s;
  s.chunk_bytes = static_cast<std::size_t>(config.chunk_bytes);
  s.staging_bytes = static_cast<std::size_t>(config.staging_bytes);
  s.single_copy_bytes = static_cast<std::size_t>(config.single_copy_bytes);
  s.cma_bytes = config.ptrace_peers == PtracePeers::off ? 0 : static_cast<std::size_t>(config.cma_bytes);
  s.lockstep_bytes = static_cast<std::size_t>(config.lockstep_bytes);
  s.spin_polls = config.spin_polls >= 0 ? config.spin_polls
                 : comm.oversubscribed()        ? 0
                                                : default_spin_polls;
  return s;
}

std::string ChannelSettings::waiting_summary(const Comm& comm) {
  const int spin = of(comm).spin_polls;
  return std::to_string(comm.machine_ranks()) + " rank(s) on this machine, " + std::to_string(comm.machine_cores()) +
         " core(s) their affinity allows" + (comm.oversubscribed() ? " (oversubscribed)" : "") +
         ": node-channel waits " +
         (spin == 0 ? std::string("yield the core at once") : "spin " + std::to_string(spin) + " polls, then yield") +
         (comm.config().section<NodeConfig>().spin_polls < 0 ? " (MPIX_CHANNEL_SPIN=auto)" : " (MPIX_CHANNEL_SPIN)");
}

struct NodeChannel::Ring {
  std::atomic<std::uint64_t>* consumed;  // its own line, written by the owner only
  char* slots;
  std::size_t stride;
  std::uint64_t count;

  SlotHeader& header(std::uint64_t chunk) const {
    return *reinterpret_cast<SlotHeader*>(slots + (chunk % count) * stride);
  }
  char* payload(std::uint64_t chunk) const { return slots + (chunk % count) * stride + header_bytes; }
  static std::size_t bytes(std::size_t stride, std::uint64_t count) { return line + stride * count; }
};

// Rings in a segment, in node-rank order of their senders, the owner's own
// index skipped.
static std::size_t ring_index(int sender, int owner) {
  return static_cast<std::size_t>(sender < owner ? sender : sender - 1);
}

NodeChannel::Geometry NodeChannel::geometry_for(const ChannelSettings& settings, int node_size,
                                                std::size_t largest_block) {
  const std::size_t peers = static_cast<std::size_t>(std::max(0, node_size - 1));
  if (peers == 0) return {};
  // A chunk is cut so that two slots per peer fit the staging budget (a
  // ring's least), down to one line; past that the budget is exceeded.
  const std::size_t two_slots = settings.staging_bytes / (2 * peers);
  const std::size_t budget_chunk = std::max(line, two_slots / line * line) - header_bytes;
  const std::size_t chunk = std::min({std::max<std::size_t>(settings.chunk_bytes, line), budget_chunk,
                                      std::max<std::size_t>(largest_block, line - header_bytes)});
  Geometry g;
  g.stride = round_up(header_bytes + chunk, line);
  const std::uint64_t chunks_per_block = (std::max<std::size_t>(largest_block, 1) + chunk - 1) / chunk;
  const std::uint64_t budget = settings.staging_bytes / (peers * g.stride);
  g.slots = std::max<std::uint64_t>(2, std::min<std::uint64_t>(std::max<std::uint64_t>(4, 2 * chunks_per_block), budget));
  return g;
}

NodeChannel::NodeChannel(const Comm& comm, const ChannelSettings& settings, std::size_t largest_block)
    : settings_(settings), node_rank_(comm.node_rank()), node_size_(comm.node_size()) {
  // Every rank alike (MPIX_CHANNEL is agreed): none goes on to the
  // collective set-up below.
  if (!comm.config().section<NodeConfig>().channel)
    throw Error(MPI_ERR_OTHER, std::string("node channel: ") + switched_off);
  const std::size_t peers = static_cast<std::size_t>(node_size_ - 1);
  const Geometry shape = geometry_for(settings, node_size_, largest_block);
  const std::size_t stride = shape.stride;
  const std::uint64_t slots = shape.slots;
  const std::size_t segment_bytes = std::max<std::size_t>(line, peers * Ring::bytes(stride, slots));

  std::optional<Error> failure;
  Published mine{0, static_cast<long long>(stride), static_cast<long long>(slots)};
  try {
    if (peers > 0) {
      // Populated and touched now (no peer has it yet), as the peers'
      // mappings below: the rings' first pass would otherwise fault on
      // every page, on both sides, inside a Start, and look like a slow
      // algorithm to auto's probe.
      segment_ = std::make_unique<SharedSegment>(segment_bytes, "mpix-node-channel", true);
      touch_for_writing(segment_->base(), segment_bytes);
      mine.segment_bytes = static_cast<long long>(segment_bytes);
    }
  } catch (const Error& e) {
    failure = e;
  }
  std::vector<Published> all(static_cast<std::size_t>(node_size_));
  mpi_check(MPI_Allgather(&mine, 3, MPI_LONG_LONG, all.data(), 3, MPI_LONG_LONG, comm.node()), "MPI_Allgather");
  // Every rank hands its segment's descriptor to its node peers (no ptrace
  // permission needed), maps theirs, and closes the descriptors.
  SharedDescriptors shared = share_descriptor(comm.node(), segment_ ? segment_->fd() : -1);
  if (segment_) segment_->close_fd();
  if (shared.forged > 0)
    std::fprintf(stderr,
                 "mpix-rma warning (node rank %d): node channel: dropped %d forged descriptor datagram(s), not sent "
                 "by the node rank they came for (last from %s)\n",
                 node_rank_, shared.forged, shared.forged_from.c_str());

  peers_.resize(all.size());
  geometry_.resize(all.size());
  std::string why = shared.why;
  for (std::size_t p = 0; p < all.size(); ++p) {
    geometry_[p] = {static_cast<std::size_t>(all[p].stride), static_cast<std::uint64_t>(all[p].slots)};
    if (static_cast<int>(p) == node_rank_ || failure) continue;
    if (all[p].segment_bytes == 0) {
      if (why.empty()) why = "node rank " + std::to_string(p) + " could not create its segment";
      continue;
    }
    if (shared.of[p].get() < 0) continue;  // why says why
    peers_[p] = std::make_unique<PeerMapping>(shared.of[p].get(), static_cast<std::size_t>(all[p].segment_bytes), true);
    if (!peers_[p]->ok() && why.empty()) why = peers_[p]->why();
  }
  shared.of.clear();
  if (!failure && !why.empty()) failure.emplace(MPI_ERR_OTHER, "node channel: " + why);
  // Every node peer learns whether the channel works everywhere before any
  // of them relies on it; each reports its own reason.
  int ok = failure ? 0 : 1;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm.node()), "MPI_Allreduce");
  if (failure) throw *failure;
  if (!ok) throw Error(MPI_ERR_OTHER, "node channel: a node peer could not map the channel's memory (its own "
                                      "error names the reason)");

  // Each ring this rank writes into, before it sends its first chunk there
  // (its owner writes only the ring's consumed counter, and only once it
  // has received a chunk).
  for (std::size_t p = 0; p < all.size(); ++p)
    if (static_cast<int>(p) != node_rank_) {
      const Geometry& g = geometry_[p];
      touch_for_writing(peers_[p]->base() + ring_index(node_rank_, static_cast<int>(p)) * Ring::bytes(g.stride, g.slots),
                        Ring::bytes(g.stride, g.slots));
    }
  sent_chunks_.assign(all.size(), 0);
  seen_consumed_.assign(all.size(), 0);
  received_chunks_.assign(all.size(), 0);
  round_start_.assign(all.size(), 0);
}

NodeChannel::~NodeChannel() = default;

NodeChannel::Ring NodeChannel::inbound(int peer) const {
  const Geometry& g = geometry_[static_cast<std::size_t>(node_rank_)];
  char* ring = segment_->base() + ring_index(peer, node_rank_) * Ring::bytes(g.stride, g.slots);
  return {reinterpret_cast<std::atomic<std::uint64_t>*>(ring), ring + line, g.stride, g.slots};
}

NodeChannel::Ring NodeChannel::outbound(int peer) const {
  const Geometry& g = geometry_[static_cast<std::size_t>(peer)];
  char* ring = peers_[static_cast<std::size_t>(peer)]->base() + ring_index(node_rank_, peer) * Ring::bytes(g.stride, g.slots);
  return {reinterpret_cast<std::atomic<std::uint64_t>*>(ring), ring + line, g.stride, g.slots};
}

NodeChannel::Outgoing NodeChannel::outgoing(int peer, const void* data, std::size_t bytes, bool by_reference,
                                            std::size_t offset, Pacing pacing) const {
  Outgoing m;
  m.pacing = pacing;
  m.peer = peer;
  m.data = static_cast<const char*>(data);
  m.bytes = bytes;
  m.offset = offset;
  m.by_reference = by_reference;
  m.done = bytes == 0;
  return m;
}

NodeChannel::Incoming NodeChannel::incoming(int peer, void* data, std::size_t bytes, const DirectTarget* source) const {
  Incoming m;
  m.peer = peer;
  m.data = static_cast<char*>(data);
  m.bytes = bytes;
  m.source = source;
  m.done = bytes == 0;
  return m;
}

NodeChannel::Pacing NodeChannel::pacing_for(const ChannelSettings& settings, std::size_t bytes_to,
                                            std::size_t bytes_from) {
  const std::size_t less = std::min(bytes_to, bytes_from), more = std::max(bytes_to, bytes_from);
  const bool even = static_cast<double>(more) <= uneven_ratio * static_cast<double>(less);
  return settings.lockstep_bytes > 0 && less >= settings.lockstep_bytes && even ? Pacing::lockstep : Pacing::run_ahead;
}

void NodeChannel::begin_round() { std::copy(sent_chunks_.begin(), sent_chunks_.end(), round_start_.begin()); }

bool NodeChannel::progress(Outgoing& m) {
  if (m.done) return true;
  const std::size_t p = static_cast<std::size_t>(m.peer);
  const Ring ring = outbound(m.peer);
  while (!m.done) {
    if (m.by_reference && m.sent == m.bytes) {
      // The descriptor is posted: the block is the receiver's to read until
      // it has consumed the descriptor.
      seen_consumed_[p] = ring.consumed->load(std::memory_order_acquire);
      m.done = seen_consumed_[p] >= m.last_chunk;
      return m.done;
    }
    const std::uint64_t chunk = sent_chunks_[p];
    if (m.sent == 0 && m.pacing == Pacing::lockstep && seen_consumed_[p] < round_start_[p]) {
      seen_consumed_[p] = ring.consumed->load(std::memory_order_acquire);
      if (seen_consumed_[p] < round_start_[p]) return false;
    }
    if (chunk - seen_consumed_[p] >= ring.count) {
      seen_consumed_[p] = ring.consumed->load(std::memory_order_acquire);
      if (chunk - seen_consumed_[p] >= ring.count) return false;
    }
    SlotHeader& h = ring.header(chunk);
    if (m.by_reference) {
      h.bytes = m.bytes;
      h.offset = m.offset;
      h.by_reference = 1;
      m.sent = m.bytes;
      m.last_chunk = chunk + 1;
    } else {
      const std::size_t n = std::min(ring.stride - header_bytes, m.bytes - m.sent);
      std::memcpy(ring.payload(chunk), m.data + m.sent, n);
      h.bytes = n;
      h.by_reference = 0;
      m.sent += n;
      m.done = m.sent == m.bytes;
    }
    h.seq.store(chunk + 1, std::memory_order_release);
    sent_chunks_[p] = chunk + 1;
  }
  return true;
}

bool NodeChannel::progress(Incoming& m) {
  if (m.done) return true;
  const std::size_t p = static_cast<std::size_t>(m.peer);
  const Ring ring = inbound(m.peer);
  while (!m.done) {
    const std::uint64_t chunk = received_chunks_[p];
    SlotHeader& h = ring.header(chunk);
    if (h.seq.load(std::memory_order_acquire) != chunk + 1) return false;
    const std::size_t n = static_cast<std::size_t>(h.bytes);
    if (n > m.bytes - m.received)
      throw Error(MPI_ERR_INTERN, "node channel: node rank " + std::to_string(m.peer) + " sent " +
                                      std::to_string(n) + " bytes where " + std::to_string(m.bytes - m.received) +
                                      " were expected");
    if (h.by_reference) {
      if (m.source == nullptr || m.source->mode == DirectTarget::Mode::none)
        throw Error(MPI_ERR_INTERN, "node channel: node rank " + std::to_string(m.peer) +
                                        " sent a block by reference that this rank cannot reach");
      m.source->get(static_cast<MPI_Aint>(h.offset), m.data + m.received, n);
    } else {
      std::memcpy(m.data + m.received, ring.payload(chunk), n);
    }
    m.received += n;
    received_chunks_[p] = chunk + 1;
    ring.consumed->store(chunk + 1, std::memory_order_release);
    m.done = m.received == m.bytes;
  }
  return true;
}

void spin_then_yield(unsigned& polls, int spin_polls) {
  // Every so often the MPI progresses too (mpi_implementation::make_progress).
  if (++polls % polls_per_mpi_progress == 0) mpi_implementation::make_progress();
  if (polls <= static_cast<unsigned>(spin_polls))
    cpu_relax();
  else
    sched_yield();
}

std::string NodeChannel::unavailable_reason(const Comm& comm) {
  if (!comm.config().section<NodeConfig>().channel) return switched_off;
  static const std::string reason = []() -> std::string {
    if (const char* why = mpi_implementation::ranks_are_not_processes()) return why;
    // The calls the channel makes, made on this process: a kernel or
    // seccomp policy without them fails here, before any peer relies on it.
    // The answer is kept for the process, so a passing lack of resources
    // (descriptors, memory) is no verdict: creation reports it then.
    const int memfd = memfd_create("mpix-channel-probe", MFD_CLOEXEC);
    if (memfd < 0 && !is_resource_error(errno)) return system_error("memfd_create", errno);
    if (memfd >= 0) close(memfd);
    return descriptor_passing_unavailable();
  }();
  return reason;
}

ChannelPool::Entry ChannelPool::take(const Comm& comm, const ChannelSettings& settings, std::size_t largest_block) {
  if (sharing_) {
    // Whether the shared channel exists is the same on every node rank (it
    // is made collectively, or its creation failed on all alike), so taking
    // it needs no agreement.
    if (!shared_.channel) shared_ = {next_id_++, make(comm, settings, settings.staging_bytes)};
    return shared_;
  }
  // Every idle channel whose rings have the geometry wanted here is offered
  // by its id (0: not offered); the oldest that every node peer offers is
  // reused. Ranks want different geometries (each sizes its own rings), so
  // each must see the others' offers, not just the first.
  const NodeChannel::Geometry wanted = NodeChannel::geometry_for(settings, comm.node_size(), largest_block);
  long long offers[2 * capacity] = {};
  for (std::size_t i = 0; i < idle_.size(); ++i)
    if (idle_[i].channel->inbound_geometry() == wanted) {
      offers[i] = static_cast<long long>(idle_[i].id);
      offers[capacity + i] = -offers[i];
    }
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, offers, 2 * capacity, MPI_LONG_LONG, MPI_MIN, comm.node()), "MPI_Allreduce");
  for (std::size_t i = 0; i < idle_.size(); ++i)
    if (offers[i] != 0 && offers[i] == -offers[capacity + i]) {
      Entry entry = std::move(idle_[i]);
      idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(i));
      return entry;
    }
  return {next_id_++, make(comm, settings, largest_block)};
}

std::shared_ptr<NodeChannel> ChannelPool::make(const Comm& comm, const ChannelSettings& settings,
                                               std::size_t largest_block) {
  auto channel = std::make_shared<NodeChannel>(comm, settings, largest_block);
  ++created_;
  return channel;
}

void ChannelPool::share_between_requests(const Comm& comm, const ChannelSettings& settings) {
  sharing_ = true;
  if (comm.node_size() == 1) return;
  // Whether the channel can run is each process's own finding: agreed
  // first, since creating one is collective.
  int available = NodeChannel::unavailable_reason(comm).empty() ? 1 : 0;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &available, 1, MPI_INT, MPI_MIN, comm.node()), "MPI_Allreduce");
  if (available) take(comm, settings, 0);
}

void ChannelPool::give_back(Entry entry) {
  // A shared channel stays with the pool (shared_) for the next request.
  if (closed_ || !entry.channel || sharing_) return;
  idle_.push_back(std::move(entry));
  if (idle_.size() > capacity) idle_.erase(idle_.begin());
}

void ChannelPool::close() {
  closed_ = true;
  idle_.clear();
  shared_ = {};
}

}  // namespace mpix
