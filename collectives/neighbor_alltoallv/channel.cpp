// Barrier-free neighbourhood exchange: edges to and from ranks of this node
// travel through the node channel (node/node_channel.hpp), copy-in by the
// sender, copy-out by the receiver; edges off the node by persistent
// point-to-point (collectives/persistent_edges.hpp); self-loops are local
// copies. A rank waits only for its own neighbours: no barrier, no epoch.
//
// Duplicate edges: a ring carries one pair's chunks in order, so the
// messages of one pair go one after another: a message to (or from) a peer
// moves only once the earlier ones of that peer are complete, in edge
// order. The k-th edge from a to b is then a's k-th message to b and b's
// k-th from a: the pairing of MPI_Neighbor_alltoallv. Self-loops pair the
// k-th destination that is this rank with the k-th source that is.
//
// A pair is paced by what its edges carry in all (node/node_channel.hpp):
// in lockstep where the halo is even and its blocks are not small, running
// ahead otherwise.
//
// The user's guarantees hold as in Alltoallv's channel: nothing is written
// into the receive buffer except by this rank inside Start..Wait, and the
// send buffer is read only inside Start..Wait (blocks are staged, never
// sent by reference, so Wait returns once the sender's chunks are in the
// rings and its buffer is free). Staging also lets the buffers move
// (mpix_buffers_move): nothing set up at init holds a peer's address.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "collectives/neighbor_alltoallv_args.hpp"
#include "collectives/persistent_edges.hpp"
#include "node/node_channel.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

class ChannelNeighborAlltoallv final : public PersistentOperation {
 public:
  explicit ChannelNeighborAlltoallv(const NeighborArgs& args)
      : args_(args),
        net_(args_.comm->global(), neighbor_tag, args_.sendtype, args_.recvtype,
             edge_messages(args_, [comm = args_.comm](int rank) { return !comm->same_node(rank); }), args_.sendbuf,
             args_.recvbuf),
        pool_(args_.comm->component<ChannelPool>()),
        settings_(ChannelSettings::of(*args_.comm)) {
    const Comm& comm = *args_.comm;
    const int me = comm.rank();
    std::size_t largest = 0;  // of the blocks node peers send this rank
    for (int e = 0; e < args_.indegree(); ++e)
      if (args_.sources[e] != me && comm.same_node(args_.sources[e]))
        largest = std::max(largest, static_cast<std::size_t>(args_.recv_bytes(e)));
    if (comm.node_size() > 1) channel_ = pool_->take(comm, settings_, largest);

    // Per node peer: what all of a pair's edges carry each way.
    std::vector<std::size_t> from_peer(static_cast<std::size_t>(comm.node_size())), to_peer(from_peer.size());
    std::vector<int> self_in;
    for (int e = 0; e < args_.indegree(); ++e) {
      const int source = args_.sources[e];
      const std::size_t bytes = static_cast<std::size_t>(args_.recv_bytes(e));
      if (source == me) {
        self_in.push_back(e);
      } else if (comm.same_node(source) && bytes > 0) {
        incoming_.push_back(channel_.channel->incoming(comm.node_rank_of(source), args_.recv_block(e), bytes, nullptr));
        from_peer[static_cast<std::size_t>(comm.node_rank_of(source))] += bytes;
      }
    }
    for (int e = 0; e < args_.outdegree(); ++e)
      if (args_.destinations[e] != me && comm.same_node(args_.destinations[e]))
        to_peer[static_cast<std::size_t>(comm.node_rank_of(args_.destinations[e]))] +=
            static_cast<std::size_t>(args_.send_bytes(e));
    std::size_t self = 0;
    for (int e = 0; e < args_.outdegree(); ++e) {
      const int target = args_.destinations[e];
      const std::size_t bytes = static_cast<std::size_t>(args_.send_bytes(e));
      if (target == me) {
        const int in = self_in.at(self++);  // agreed at init: as many self sources as self destinations
        if (bytes > 0) self_copies_.push_back({args_.send_block(e), args_.recv_block(in), bytes});
      } else if (comm.same_node(target) && bytes > 0) {
        const int peer = comm.node_rank_of(target);
        const NodeChannel::Pacing pacing = NodeChannel::pacing_for(
            settings_, to_peer[static_cast<std::size_t>(peer)], from_peer[static_cast<std::size_t>(peer)]);
        lockstep_ = lockstep_ || pacing == NodeChannel::Pacing::lockstep;
        outgoing_.push_back(channel_.channel->outgoing(peer, args_.send_block(e), bytes, false, 0, pacing));
      }
    }
    busy_.assign(static_cast<std::size_t>(comm.node_size()), 0);
  }

  ~ChannelNeighborAlltoallv() override {
    if (channel_.channel) pool_->give_back(std::move(channel_));
  }

  // Every block is staged, so a message is its place in the buffers: moved
  // buffers shift the on-node messages and select the off-node requests.
  void rebind(const void* sendbuf, void* recvbuf) override {
    const char* old_send = static_cast<const char*>(args_.sendbuf);
    char* old_recv = static_cast<char*>(args_.recvbuf);
    args_.move_buffers(sendbuf, recvbuf);
    const std::ptrdiff_t send_shift = static_cast<const char*>(args_.sendbuf) - old_send;
    const std::ptrdiff_t recv_shift = static_cast<char*>(args_.recvbuf) - old_recv;
    if (send_shift == 0 && recv_shift == 0) return;
    for (NodeChannel::Outgoing& m : outgoing_) m.data += send_shift;
    for (NodeChannel::Incoming& m : incoming_) m.data += recv_shift;
    for (SelfCopy& c : self_copies_) c.from += send_shift, c.to += recv_shift;
    net_.use(args_.sendbuf, args_.recvbuf);
  }

  void start() override {
    net_.start();
    net_done_ = net_.empty();
    for (NodeChannel::Outgoing& m : outgoing_) m.sent = 0, m.last_chunk = 0, m.done = false;
    for (NodeChannel::Incoming& m : incoming_) m.received = 0, m.done = false;
    pending_in_ = incoming_.size();
    if (lockstep_) channel_.channel->begin_round();
    // Blocks to node peers first, so that they can start copying them out
    // while this rank copies its own.
    pending_out_ = advance(outgoing_);
    for (const SelfCopy& c : self_copies_) std::memcpy(c.to, c.from, c.bytes);
    progress_node();
  }

  bool test() override { return progress(); }

  void wait() override {
    if (outgoing_.empty() && incoming_.empty()) {
      net_.wait();
      return;
    }
    unsigned polls = 0;
    while (!progress()) spin_then_yield(polls, settings_.spin_polls);
  }

 private:
  struct SelfCopy {
    const char* from;
    char* to;
    std::size_t bytes;
  };

  bool progress() {
    const bool node_done = progress_node();
    if (!net_done_) net_done_ = net_.test();
    return node_done && net_done_;
  }

  // Moves every message it can; a peer's later messages wait for its
  // earlier ones (one ring per pair and direction).
  bool progress_node() {
    if (pending_out_ > 0) pending_out_ = advance(outgoing_);
    if (pending_in_ > 0) pending_in_ = advance(incoming_);
    return pending_out_ == 0 && pending_in_ == 0;
  }

  template <class Message>
  std::size_t advance(std::vector<Message>& messages) {
    ++round_;
    std::size_t pending = 0;
    for (Message& m : messages) {
      if (m.done) continue;
      std::uint64_t& busy = busy_[static_cast<std::size_t>(m.peer)];
      if (busy != round_ && channel_.channel->progress(m)) continue;
      busy = round_;  // an earlier message of this peer is still moving
      ++pending;
    }
    return pending;
  }

  NeighborArgs args_;
  PersistentEdges net_;
  std::shared_ptr<ChannelPool> pool_;
  ChannelSettings settings_;
  ChannelPool::Entry channel_;
  std::vector<NodeChannel::Outgoing> outgoing_;  // in edge order
  std::vector<NodeChannel::Incoming> incoming_;  // in edge order
  std::vector<SelfCopy> self_copies_;
  std::vector<std::uint64_t> busy_;  // per node rank: the round in which it has a message still moving
  std::uint64_t round_ = 0;
  std::size_t pending_out_ = 0, pending_in_ = 0;
  bool net_done_ = true;
  bool lockstep_ = false;  // some message to a node peer goes in lockstep
};

std::optional<std::string> without_node_channel(const NeighborArgs& args) {
  if (args.comm->node_size() > 1) {
    const std::string why = NodeChannel::unavailable_reason();
    if (!why.empty()) return "the node channel cannot run here (" + why + ")";
  }
  return std::nullopt;
}

}  // namespace

namespace neighbor_algorithms {
extern const NeighborAlgorithm channel{
    "channel",
    "barrier-free: edges on the node through the node channel's rings (copy-in/copy-out), edges off the node by "
    "persistent point-to-point, self-loops copied",
    without_node_channel, make_operation<ChannelNeighborAlltoallv>};
}  // namespace neighbor_algorithms

}  // namespace mpix
