// Barrier-free persistent Alltoallv. On-node blocks travel through the node
// channel (rma/node_channel.hpp): the sender's copy-in and the receiver's
// copy-out (or the receiver's single copy straight from the sender's
// MPIX_Alloc_mem buffer) are the only synchronization, pair by pair, so
// Start never waits for the whole node and Wait waits only for this rank's
// own sources and for its send blocks to be free again. Off-node blocks go by persistent point-to-point
// (MPI_Send_init / MPI_Recv_init, started every iteration), which carries
// its own notification.
//
// The user's guarantees hold without a barrier: nothing is written into
// this rank's receive buffer except by this rank, inside its own Start..Wait
// (on-node receivers copy out; off-node receives are posted at Start); the
// send buffer is only read inside Start..Wait (chunks are copied into the
// ring; a block sent by reference is released by the receiver's consumed
// counter, which the sender's Wait waits for).
// Persistent requests on one communicator are started in the same order on
// every rank (MPI's rule for persistent collectives), so the point-to-point
// messages of several live requests match in order under one tag.
#include <algorithm>
#include <cstring>
#include <vector>

#include "collectives/algorithm.hpp"
#include "collectives/put_plan.hpp"
#include "rma/node_channel.hpp"
#include "rma/peer_memory.hpp"
#include "src/error.hpp"
#include "src/library.hpp"
#include "src/mpi_handle.hpp"

namespace mpix {

namespace {

constexpr int exchange_tag = 0x6d78;

class ChannelAlltoallv final : public PersistentOperation {
 public:
  explicit ChannelAlltoallv(const AlltoallvArgs& args) : args_(args), pool_(args.channel_pool) {
    const Comm& comm = *args_.comm;
    const int n = comm.size(), me = comm.rank();
    const MPI_Aint send_extent = args_.send_layout.extent, recv_extent = args_.recv_layout.extent;
    const char* send = static_cast<const char*>(args_.sendbuf);
    const std::size_t send_span = static_cast<std::size_t>(PutPlan::make(args_).send_extent_bytes);
    if (args_.in_place) {
      // Sources write into recvbuf while this rank still sends from it: the
      // send blocks are copied out at Start.
      in_place_copy_.resize(send_span);
      send = in_place_copy_.data();
    }
    char* recv = static_cast<char*>(args_.recvbuf);
    const ChannelSettings settings = ChannelSettings::of(comm.config());
    bool mapped_send = false;  // node peers reach my send blocks by load/store
    if (comm.node_size() > 1) {
      std::size_t largest = 0;  // of the blocks node peers send this rank
      for (int source = 0; source < n; ++source)
        if (source != me && comm.same_node(source))
          largest = std::max(largest, static_cast<std::size_t>(args_.recv_bytes(source)));
      channel_ = pool_->take(comm, settings, largest);
      mapped_send = publish_send_buffer(comm, send, send_span);
    }

    self_bytes_ = static_cast<std::size_t>(args_.send_bytes(me));
    self_from_ = send + args_.sdispls[me] * send_extent;
    self_to_ = recv + args_.rdispls[me] * recv_extent;
    // Peers in rotated order (targets after me, sources before me), so that
    // the ranks of a node do not all start with the same peer.
    for (int k = 1; k < n; ++k) {
      const int target = (me + k) % n, source = (me - k + n) % n;
      const void* block = send + args_.sdispls[target] * send_extent;
      void* slot = recv + args_.rdispls[source] * recv_extent;
      if (args_.send_bytes(target) > 0) {
        const std::size_t bytes = static_cast<std::size_t>(args_.send_bytes(target));
        // A block sent by reference is read where the sender published it:
        // buffers that move are always staged.
        const std::size_t threshold =
            args_.buffers_move ? 0 : mapped_send ? settings.single_copy_bytes : settings.cma_bytes;
        if (comm.same_node(target))
          outgoing_.push_back(channel_.channel->outgoing(comm.node_rank_of(target), block, bytes,
                                                         threshold > 0 && bytes >= threshold,
                                                         static_cast<std::size_t>(static_cast<const char*>(block) - send)));
        else
          net_peers_.push_back({target, true});
      }
      if (args_.recv_bytes(source) > 0) {
        if (comm.same_node(source))
          incoming_.push_back(channel_.channel->incoming(comm.node_rank_of(source), slot,
                                                         static_cast<std::size_t>(args_.recv_bytes(source)),
                                                         &send_buffers_[static_cast<std::size_t>(comm.node_rank_of(source))].target));
        else
          net_peers_.push_back({source, false});
      }
    }
    net_sets_.push_back(make_net(send, recv));
  }

  ~ChannelAlltoallv() override {
    for (NetRequests& set : net_sets_) free_net(set.requests);
    if (channel_.channel) pool_->give_back(std::move(channel_));
  }

  // Every path reads and writes the buffers through pointers this rank set
  // up itself (ring copies, self block, point-to-point): moving them is
  // local. Blocks by reference are off for such requests (see above).
  void rebind(const void* sendbuf, void* recvbuf) override {
    const char* old_send = args_.in_place ? in_place_copy_.data() : static_cast<const char*>(args_.sendbuf);
    char* old_recv = static_cast<char*>(args_.recvbuf);
    args_.move_buffers(sendbuf, recvbuf);
    const char* new_send = args_.in_place ? in_place_copy_.data() : static_cast<const char*>(args_.sendbuf);
    char* new_recv = static_cast<char*>(args_.recvbuf);
    if (new_send == old_send && new_recv == old_recv) return;
    const std::ptrdiff_t send_shift = new_send - old_send, recv_shift = new_recv - old_recv;
    for (NodeChannel::Outgoing& m : outgoing_) m.data += send_shift;
    for (NodeChannel::Incoming& m : incoming_) m.data += recv_shift;
    self_from_ += send_shift;
    self_to_ += recv_shift;
    if (!net_peers_.empty()) use_net(new_send, new_recv);
  }

  void start() override {
    if (!in_place_copy_.empty()) std::memcpy(in_place_copy_.data(), args_.recvbuf, in_place_copy_.size());
    std::vector<MPI_Request>& net = net_sets_.back().requests;
    if (!net.empty()) mpi_check(MPI_Startall(static_cast<int>(net.size()), net.data()), "MPI_Startall");
    net_done_ = net.empty();
    for (NodeChannel::Outgoing& m : outgoing_) m.sent = 0, m.last_chunk = 0, m.done = m.bytes == 0;
    for (NodeChannel::Incoming& m : incoming_) m.received = 0, m.done = m.bytes == 0;
    pending_out_ = outgoing_.size();
    pending_in_ = incoming_.size();
    // Off-node transfers are in flight: copy on the node meanwhile.
    if (self_bytes_ > 0) std::memcpy(self_to_, self_from_, self_bytes_);
    send_what_fits();
  }

  bool test() override { return progress(); }

  void wait() override {
    if (!channel_.channel) {
      std::vector<MPI_Request>& net = net_sets_.back().requests;
      mpi_check(MPI_Waitall(static_cast<int>(net.size()), net.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      net_done_ = true;
      return;
    }
    unsigned polls = 0;
    while (!progress()) channel_.channel->pause(polls);
  }

 private:
  // Collective over the node: every rank learns how it reaches each node
  // peer's send buffer, for blocks sent by reference. True if mine is
  // MPIX_Alloc_mem memory, which peers map and copy from by load/store (a
  // peer whose mapping fails falls back to CMA, slower but correct).
  bool publish_send_buffer(const Comm& comm, const char* send, std::size_t bytes) {
    const PeerMemory mine = PeerMemory::describe(send, bytes);
    std::vector<PeerMemory> all(static_cast<std::size_t>(comm.node_size()));
    mpi_check(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm.node()),
              "MPI_Allgather");
    send_buffers_.resize(all.size());
    for (std::size_t p = 0; p < all.size(); ++p)
      if (static_cast<int>(p) != comm.node_rank())
        send_buffers_[p] = choose_direct_path(all[p], false, NodePath::automatic);
    return mine.segment_fd >= 0;
  }

  // The persistent point-to-point requests of the off-node blocks, over
  // one pair of buffers.
  struct NetRequests {
    const char* send;
    char* recv;
    std::vector<MPI_Request> requests;
  };
  // Codes that move their buffers mostly alternate between a few pairs (an
  // FFT's two, the drop-in's callers), so the requests of the last few
  // pairs are kept: going back to one re-creates nothing.
  static constexpr std::size_t kept_net_sets = 4;

  NetRequests make_net(const char* send, char* recv) {
    NetRequests set{send, recv, {}};
    const Comm& comm = *args_.comm;
    const MPI_Aint send_extent = args_.send_layout.extent, recv_extent = args_.recv_layout.extent;
    for (const NetPeer& p : net_peers_) {
      MPI_Request& r = set.requests.emplace_back(MPI_REQUEST_NULL);
      const int rc = p.sends ? MPI_Send_init(send + args_.sdispls[p.rank] * send_extent, args_.sendcounts[p.rank],
                                             args_.sendtype, p.rank, exchange_tag, comm.global(), &r)
                             : MPI_Recv_init(recv + args_.rdispls[p.rank] * recv_extent, args_.recvcounts[p.rank],
                                             args_.recvtype, p.rank, exchange_tag, comm.global(), &r);
      if (rc != MPI_SUCCESS) {
        r = MPI_REQUEST_NULL;
        free_net(set.requests);
        mpi_check(rc, p.sends ? "MPI_Send_init" : "MPI_Recv_init");
      }
    }
    return set;
  }
  static void free_net(std::vector<MPI_Request>& requests) {
    for (MPI_Request& r : requests)
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    requests.clear();
  }
  // Makes the requests over (send, recv) the ones Start runs (the last set).
  void use_net(const char* send, char* recv) {
    const auto kept = std::find_if(net_sets_.begin(), net_sets_.end(),
                                   [&](const NetRequests& set) { return set.send == send && set.recv == recv; });
    if (kept != net_sets_.end()) {
      std::rotate(kept, kept + 1, net_sets_.end());
      return;
    }
    NetRequests made = make_net(send, recv);
    if (net_sets_.size() == kept_net_sets) {
      free_net(net_sets_.front().requests);
      net_sets_.erase(net_sets_.begin());
    }
    net_sets_.push_back(std::move(made));
  }

  void send_what_fits() {
    for (NodeChannel::Outgoing& m : outgoing_)
      if (!m.done && channel_.channel->progress(m)) --pending_out_;
  }

  bool progress() {
    send_what_fits();
    for (NodeChannel::Incoming& m : incoming_)
      if (!m.done && channel_.channel->progress(m)) --pending_in_;
    if (!net_done_) {
      int flag = 0;
      std::vector<MPI_Request>& net = net_sets_.back().requests;
      mpi_check(MPI_Testall(static_cast<int>(net.size()), net.data(), &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
      net_done_ = flag != 0;
    }
    return net_done_ && pending_out_ == 0 && pending_in_ == 0;
  }

  AlltoallvArgs args_;
  std::shared_ptr<ChannelPool> pool_;
  ChannelPool::Entry channel_;
  std::vector<char> in_place_copy_;
  const char* self_from_ = nullptr;
  char* self_to_ = nullptr;
  std::size_t self_bytes_ = 0;
  std::vector<NodeChannel::Outgoing> outgoing_;
  std::vector<NodeChannel::Incoming> incoming_;
  std::vector<DirectPath> send_buffers_;  // per node rank: how to reach its send buffer
  struct NetPeer {
    int rank;
    bool sends;  // a block to it, else one from it
  };
  std::vector<NetPeer> net_peers_;  // in the order their requests start
  std::vector<NetRequests> net_sets_;  // most recently used last: the one Start runs
  std::size_t pending_out_ = 0, pending_in_ = 0;
  bool net_done_ = true;
};

std::optional<std::string> channel_unsupported(const AlltoallvArgs& args) {
  if (auto why = contiguous_unsupported(args)) return why;
  if (args.comm->node_size() > 1) {
    const std::string why = NodeChannel::unavailable_reason();
    if (!why.empty()) return "the node channel cannot run here (" + why + ")";
  }
  return std::nullopt;
}

}  // namespace

namespace algorithms {
extern const AlltoallvAlgorithm channel{
    "channel",
    "barrier-free: on-node blocks through the node channel's rings (copy-in/copy-out; from MPIX_Alloc_mem send "
    "buffers one copy by the receiver), off-node blocks by persistent point-to-point",
    channel_unsupported, make_operation<ChannelAlltoallv>};
}  // namespace algorithms

}  // namespace mpix
