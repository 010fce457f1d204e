#include "collectives/blocks/node_exchange.hpp"

#include <algorithm>
#include <cstring>

#include "collectives/blocks/put_plan.hpp"
#include "src/error.hpp"

namespace mpix {

NodeExchange::NodeExchange(const AlltoallvArgs& args, HeapBlocks heap)
    : args_(args), pool_(args.comm->component<ChannelPool>()), settings_(ChannelSettings::of(*args.comm)) {
  const Comm& comm = *args_.comm;
  const int n = comm.size(), me = comm.rank();
  const MPI_Aint send_extent = args_.send_layout.extent, recv_extent = args_.recv_layout.extent;
  const std::size_t send_span = static_cast<std::size_t>(PutPlan::make(args_).send_extent_bytes);
  if (args_.in_place) in_place_copy_.resize(send_span);
  const char* send = send_base();
  char* recv = static_cast<char*>(args_.recvbuf);
  bool mapped_send = false;  // my send buffer is MPIX_Alloc_mem memory
  std::vector<int> reaches_mine;  // per node rank: it can read my send buffer
  if (comm.node_size() > 1) {
    std::size_t largest = 0;  // of the blocks node peers send this rank
    for (int source = 0; source < n; ++source)
      if (source != me && comm.same_node(source))
        largest = std::max(largest, static_cast<std::size_t>(args_.recv_bytes(source)));
    channel_ = pool_->take(comm, settings_, largest);
    mapped_send = publish_send_buffer(send, send_span, reaches_mine);
  }

  self_bytes_ = static_cast<std::size_t>(args_.send_bytes(me));
  self_from_ = send + args_.sdispls[me] * send_extent;
  self_to_ = recv + args_.rdispls[me] * recv_extent;
  // A block sent by reference is read where the sender published it. A
  // mapped buffer is read through its segment, so a block that may move
  // out of it is staged; CMA reads any address of the sender, so a moved
  // block only moves its offset (buffers_moved).
  const std::size_t heap_threshold = heap == HeapBlocks::pulled ? settings_.cma_bytes : 0;
  const std::size_t threshold = mapped_send && !args_.buffers_move ? settings_.single_copy_bytes : heap_threshold;
  // Peers in rotated order (targets after me, sources before me), so that
  // the ranks of a node do not all start with the same peer.
  for (int k = 1; k < n; ++k) {
    const int target = (me + k) % n, source = (me - k + n) % n;
    if (comm.same_node(target) && args_.send_bytes(target) > 0) {
      const char* block = send + args_.sdispls[target] * send_extent;
      const std::size_t bytes = static_cast<std::size_t>(args_.send_bytes(target));
      const int peer = comm.node_rank_of(target);
      const int reach = reaches_mine[static_cast<std::size_t>(peer)];
      const bool reachable = args_.buffers_move ? reach == by_cma : reach != unreachable;
      // Running ahead: in a uniform exchange the ranks stay in phase by
      // themselves, and lockstep's read of the peer's counter every round
      // only costs (measured in Benchmark 1: it lost at 4 KiB, gained
      // nowhere).
      outgoing_.push_back(channel_.channel->outgoing(peer, block, bytes,
                                                     reachable && threshold > 0 && bytes >= threshold,
                                                     static_cast<std::size_t>(block - send),
                                                     NodeChannel::Pacing::run_ahead));
    }
    if (comm.same_node(source) && args_.recv_bytes(source) > 0) {
      const int peer = comm.node_rank_of(source);
      incoming_.push_back(channel_.channel->incoming(peer, recv + args_.rdispls[source] * recv_extent,
                                                     static_cast<std::size_t>(args_.recv_bytes(source)),
                                                     &send_buffers_[static_cast<std::size_t>(peer)].target));
    }
  }
}

std::optional<std::string> NodeExchange::unsupported(const AlltoallvArgs& args) {
  if (args.comm->node_size() > 1) {
    const std::string why = NodeChannel::unavailable_reason(*args.comm);
    if (!why.empty()) return "the node channel cannot run here (" + why + ")";
  }
  return std::nullopt;
}

NodeExchange::~NodeExchange() {
  if (channel_.channel) pool_->give_back(std::move(channel_));
}

const char* NodeExchange::send_base() const {
  return args_.in_place ? in_place_copy_.data() : static_cast<const char*>(args_.sendbuf);
}

void NodeExchange::buffers_moved(const char* old_send_base, char* old_recv) {
  const std::ptrdiff_t send_shift = send_base() - old_send_base;
  const std::ptrdiff_t recv_shift = static_cast<char*>(args_.recvbuf) - old_recv;
  for (NodeChannel::Outgoing& m : outgoing_) {
    m.data += send_shift;
    if (m.by_reference) m.offset += static_cast<std::size_t>(send_shift);  // modulo 2^64: may go below the base
  }
  for (NodeChannel::Incoming& m : incoming_) m.data += recv_shift;
  self_from_ += send_shift;
  self_to_ += recv_shift;
}

void NodeExchange::take_send_blocks() {
  if (!in_place_copy_.empty()) std::memcpy(in_place_copy_.data(), args_.recvbuf, in_place_copy_.size());
}

void NodeExchange::start() {
  for (NodeChannel::Outgoing& m : outgoing_) m.sent = 0, m.last_chunk = 0, m.done = m.bytes == 0;
  for (NodeChannel::Incoming& m : incoming_) m.received = 0, m.done = m.bytes == 0;
  pending_out_ = outgoing_.size();
  pending_in_ = incoming_.size();
  // Blocks to node peers first, so that they can start copying them out
  // while this rank copies its own.
  for (NodeChannel::Outgoing& m : outgoing_)
    if (channel_.channel->progress(m)) --pending_out_;
  if (self_bytes_ > 0) std::memcpy(self_to_, self_from_, self_bytes_);
}

bool NodeExchange::progress() {
  if (pending_out_ > 0)
    for (NodeChannel::Outgoing& m : outgoing_)
      if (!m.done && channel_.channel->progress(m)) --pending_out_;
  if (pending_in_ > 0)
    for (NodeChannel::Incoming& m : incoming_)
      if (!m.done && channel_.channel->progress(m)) --pending_in_;
  return pending_out_ == 0 && pending_in_ == 0;
}

void NodeExchange::pause(unsigned& polls) const { spin_then_yield(polls, settings_.spin_polls); }

// Collective over the node: every rank learns how it reaches each node
// peer's send buffer, for blocks sent by reference, and tells each peer
// whether it can and how (reaches_mine, a Reach per peer: a block goes by
// reference only to peers that read mine, the others get it staged). True if mine is
// MPIX_Alloc_mem memory, which peers map and copy from by load/store (a peer
// whose mapping fails falls back to CMA, slower but correct).
bool NodeExchange::publish_send_buffer(const char* send, std::size_t bytes, std::vector<int>& reaches_mine) {
  const Comm& comm = *args_.comm;
  const PtracePeers policy = comm.config().section<NodeConfig>().ptrace_peers;
  const PeerMemory mine = PeerMemory::describe(send, bytes, policy);
  std::vector<PeerMemory> all(static_cast<std::size_t>(comm.node_size()));
  mpi_check(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm.node()),
            "MPI_Allgather");
  send_buffers_.resize(all.size());
  std::vector<int> reach(all.size(), 0);
  for (std::size_t p = 0; p < all.size(); ++p)
    if (static_cast<int>(p) != comm.node_rank()) {
      send_buffers_[p] = choose_direct_path(all[p], false, NodePath::automatic, policy);
      const DirectTarget::Mode mode = send_buffers_[p].target.mode;
      reach[p] = mode == DirectTarget::Mode::cma ? by_cma : mode == DirectTarget::Mode::shm ? mapped : unreachable;
    }
  reaches_mine.assign(all.size(), 0);
  mpi_check(MPI_Alltoall(reach.data(), 1, MPI_INT, reaches_mine.data(), 1, MPI_INT, comm.node()), "MPI_Alltoall");
  return mine.segment_fd >= 0;
}

}  // namespace mpix
