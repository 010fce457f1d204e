// Barrier-free neighbourhood exchange: edges to and from ranks of this node
// travel through the node channel (node/node_channel.hpp), copy-in by the
// sender, copy-out by the receiver; edges off the node by persistent
// point-to-point (collectives/neighbor_alltoallv/edge_messages.hpp); self-loops are local
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
// Small duplicate edges are packed: where a pair has several non-empty
// edges one way and they carry MPIX_NEIGHBOR_PACK_BYTES or less in all, the
// sender copies them, in edge order, into one staging block that travels as
// one message, and the receiver copies them out of its own in the same
// order once it has arrived. Each message costs a handshake through the
// ring (a chunk published, a chunk consumed), which for small blocks is most
// of the exchange; two extra copies of a few bytes cost less. Both ends see
// the same edges and counts (MPI requires the pairs to match) and the same
// setting (agreed), so they pack alike.
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

#include "collectives/neighbor_alltoallv/args.hpp"
#include "collectives/neighbor_alltoallv/config.hpp"
#include "collectives/neighbor_alltoallv/edge_messages.hpp"
#include "node/node_channel.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

class ChannelNeighborAlltoallv final : public PersistentOperation {
 public:
  explicit ChannelNeighborAlltoallv(const NeighborArgs& args)
      : args_(args),
        net_(args_.comm->global(), neighbor_tag, args_.sendtype, args_.recvtype,
             edge_messages(args_, [comm = args_.comm](int rank, MPI_Count) { return !comm->same_node(rank); }), args_.sendbuf,
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

    // Per node peer: what all of a pair's non-empty edges carry each way,
    // and how many there are.
    const std::size_t peers = static_cast<std::size_t>(comm.node_size());
    std::vector<std::size_t> from_peer(peers), to_peer(peers);
    std::vector<int> edges_from(peers), edges_to(peers);
    for (int e = 0; e < args_.indegree(); ++e)
      if (args_.sources[e] != me && comm.same_node(args_.sources[e]) && args_.recv_bytes(e) > 0) {
        const std::size_t peer = static_cast<std::size_t>(comm.node_rank_of(args_.sources[e]));
        from_peer[peer] += static_cast<std::size_t>(args_.recv_bytes(e));
        ++edges_from[peer];
      }
    for (int e = 0; e < args_.outdegree(); ++e)
      if (args_.destinations[e] != me && comm.same_node(args_.destinations[e]) && args_.send_bytes(e) > 0) {
        const std::size_t peer = static_cast<std::size_t>(comm.node_rank_of(args_.destinations[e]));
        to_peer[peer] += static_cast<std::size_t>(args_.send_bytes(e));
        ++edges_to[peer];
      }
    const std::size_t pack_bytes = comm.config().section<NeighborConfig>().pack_bytes;
    auto packed = [pack_bytes](int edges, std::size_t bytes) { return edges > 1 && bytes <= pack_bytes; };
    std::size_t staging_bytes = 0;
    std::vector<std::size_t> pack_at(peers), unpack_at(peers);  // offsets in staging_
    for (std::size_t peer = 0; peer < peers; ++peer) {
      if (packed(edges_to[peer], to_peer[peer])) pack_at[peer] = staging_bytes, staging_bytes += to_peer[peer];
      if (packed(edges_from[peer], from_peer[peer]))
        unpack_at[peer] = staging_bytes, staging_bytes += from_peer[peer];
    }
    staging_.resize(staging_bytes);

    std::vector<int> self_in;
    std::vector<std::size_t> filled(peers);  // bytes of a packed peer's staging block placed so far
    for (int e = 0; e < args_.indegree(); ++e) {
      const int source = args_.sources[e];
      const std::size_t bytes = static_cast<std::size_t>(args_.recv_bytes(e));
      if (source == me) {
        self_in.push_back(e);
      } else if (comm.same_node(source) && bytes > 0) {
        const int peer = comm.node_rank_of(source);
        const std::size_t p = static_cast<std::size_t>(peer);
        if (!packed(edges_from[p], from_peer[p])) {
          incoming_.push_back(channel_.channel->incoming(peer, args_.recv_block(e), bytes, nullptr));
          incoming_packed_.push_back(false);
          continue;
        }
        char* staged = staging_.data() + unpack_at[p];
        if (filled[p] == 0) {
          incoming_.push_back(channel_.channel->incoming(peer, staged, from_peer[p], nullptr));
          incoming_packed_.push_back(true);
        }
        unpacks_.push_back({staged + filled[p], args_.recv_block(e), bytes});
        filled[p] += bytes;
      }
    }
    std::fill(filled.begin(), filled.end(), 0);
    std::size_t self = 0;
    for (int e = 0; e < args_.outdegree(); ++e) {
      const int target = args_.destinations[e];
      const std::size_t bytes = static_cast<std::size_t>(args_.send_bytes(e));
      if (target == me) {
        const int in = self_in.at(self++);  // agreed at init: as many self sources as self destinations
        if (bytes > 0) self_copies_.push_back({args_.send_block(e), args_.recv_block(in), bytes});
      } else if (comm.same_node(target) && bytes > 0) {
        const int peer = comm.node_rank_of(target);
        const std::size_t p = static_cast<std::size_t>(peer);
        const NodeChannel::Pacing pacing = NodeChannel::pacing_for(settings_, to_peer[p], from_peer[p]);
        lockstep_ = lockstep_ || pacing == NodeChannel::Pacing::lockstep;
        if (!packed(edges_to[p], to_peer[p])) {
          outgoing_.push_back(channel_.channel->outgoing(peer, args_.send_block(e), bytes, false, 0, pacing));
          outgoing_packed_.push_back(false);
          continue;
        }
        char* staged = staging_.data() + pack_at[p];
        if (filled[p] == 0) {
          outgoing_.push_back(channel_.channel->outgoing(peer, staged, to_peer[p], false, 0, pacing));
          outgoing_packed_.push_back(true);
        }
        packs_.push_back({args_.send_block(e), staged + filled[p], bytes});
        filled[p] += bytes;
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
    // Packed messages stay in staging_; their edges' copies move instead.
    for (std::size_t i = 0; i < outgoing_.size(); ++i)
      if (!outgoing_packed_[i]) outgoing_[i].data += send_shift;
    for (std::size_t i = 0; i < incoming_.size(); ++i)
      if (!incoming_packed_[i]) incoming_[i].data += recv_shift;
    for (SelfCopy& c : self_copies_) c.from += send_shift, c.to += recv_shift;
    for (SelfCopy& c : packs_) c.from += send_shift;
    for (SelfCopy& c : unpacks_) c.to += recv_shift;
    net_.use(args_.sendbuf, args_.recvbuf);
  }

  void start() override {
    net_.start();
    net_done_ = net_.empty();
    for (NodeChannel::Outgoing& m : outgoing_) m.sent = 0, m.last_chunk = 0, m.done = false;
    for (NodeChannel::Incoming& m : incoming_) m.received = 0, m.done = false;
    pending_in_ = incoming_.size();
    unpacked_ = unpacks_.empty();
    if (lockstep_) channel_.channel->begin_round();
    for (const SelfCopy& c : packs_) std::memcpy(c.to, c.from, c.bytes);
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
  // earlier ones (one ring per pair and direction). Packed edges are copied
  // out once every message is in.
  bool progress_node() {
    if (pending_out_ > 0) pending_out_ = advance(outgoing_);
    if (pending_in_ > 0) pending_in_ = advance(incoming_);
    if (pending_in_ == 0 && !unpacked_) {
      for (const SelfCopy& c : unpacks_) std::memcpy(c.to, c.from, c.bytes);
      unpacked_ = true;
    }
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
  std::vector<bool> outgoing_packed_, incoming_packed_;  // per message: from or into staging_
  std::vector<char> staging_;      // packed messages: one block per packed pair and direction
  std::vector<SelfCopy> packs_;    // send blocks into staging_, in edge order
  std::vector<SelfCopy> unpacks_;  // staging_ into receive blocks, in edge order
  bool unpacked_ = true;
  std::vector<std::uint64_t> busy_;  // per node rank: the round in which it has a message still moving
  std::uint64_t round_ = 0;
  std::size_t pending_out_ = 0, pending_in_ = 0;
  bool net_done_ = true;
  bool lockstep_ = false;  // some message to a node peer goes in lockstep
};

std::optional<std::string> without_node_channel(const NeighborArgs& args) {
  if (args.comm->node_size() > 1) {
    const std::string why = NodeChannel::unavailable_reason(*args.comm);
    if (!why.empty()) return "the node channel cannot run here (" + why + ")";
  }
  return std::nullopt;
}

}  // namespace

namespace neighbor_alltoallv_rows {
extern const NeighborAlgorithm channel{
    "channel",
    "barrier-free: edges on the node through the node channel's rings (copy-in/copy-out), edges off the node by "
    "persistent point-to-point, self-loops copied",
    without_node_channel, make_operation<ChannelNeighborAlltoallv>};
}  // namespace neighbor_alltoallv_rows

}  // namespace mpix
