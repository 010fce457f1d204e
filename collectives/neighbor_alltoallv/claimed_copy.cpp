// Persistent neighbourhood Alltoallv whose on-node edges of up to 64 KiB
// are copied by whichever of their two ranks claims them first, a pair's
// edges one way together, straight from the sender's buffer into the
// receiver's (CMA) or, when small, through the sender's board
// (collectives/claimed_copies.hpp: the protocol, and why it keeps MPI's
// progress rule); larger and off-node edges go by persistent
// point-to-point (collectives/neighbor_alltoallv/edge_messages.hpp),
// self-loops are copied at Start.
//
// Set-up: the two ends of each on-node edge tell each other where its
// block lies (the receiver its offset in the receive buffer, the sender in
// the send buffer), by point-to-point in edge order, so the k-th edge from
// a to b meets b's k-th source a, as MPI_Neighbor_alltoallv pairs duplicate
// edges. Edges that carry no bytes (both ends see 0, agreed at init) say
// nothing.
#include <cstring>
#include <memory>
#include <vector>

#include "collectives/claimed_copies.hpp"
#include "collectives/neighbor_alltoallv/args.hpp"
#include "collectives/neighbor_alltoallv/edge_messages.hpp"
#include "node/node_channel.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

constexpr int receiver_says_tag = 0x6e63, sender_says_tag = 0x6e64;
// Edges of more bytes go by point-to-point even on the node. The MPI's own
// neighbourhood collective is point-to-point too, and moves large messages
// about as fast as one CMA copy does, or faster where the node's memory is
// contended (results/dropin/2026-11-30-vm-claimed-staging/): claims gain
// nothing there that a program could count on.
constexpr MPI_Count claimed_at_most = 65536;

class ClaimedCopyNeighborAlltoallv final : public PersistentOperation {
 public:
  explicit ClaimedCopyNeighborAlltoallv(const NeighborArgs& args)
      : args_(args),
        spin_polls_(ChannelSettings::of(*args_.comm).spin_polls),
        net_(args_.comm->global(), neighbor_tag, args_.sendtype, args_.recvtype,
             edge_messages(args_, [this](int peer, MPI_Count bytes) { return by_point_to_point(peer, bytes); }),
             args_.sendbuf, args_.recvbuf),
        node_(*args_.comm, "claimed_copy", node_transfers()) {
    const int me = args_.comm->rank();
    std::vector<int> self_in;
    for (int e = 0; e < args_.indegree(); ++e)
      if (args_.sources[e] == me) self_in.push_back(e);
    std::size_t self = 0;
    for (int e = 0; e < args_.outdegree(); ++e)
      if (args_.destinations[e] == me) {
        const int in = self_in.at(self++);  // agreed at init: as many self sources as self destinations
        if (args_.send_bytes(e) > 0) self_loops_.push_back({e, in});
      }
  }

  void rebind(const void* sendbuf, void* recvbuf) override {
    args_.move_buffers(sendbuf, recvbuf);
    net_.use(args_.sendbuf, args_.recvbuf);
  }

  void start() override {
    net_.start();
    net_done_ = net_.empty();
    node_.start(static_cast<const char*>(args_.sendbuf), static_cast<char*>(args_.recvbuf));
    for (const SelfLoop& loop : self_loops_)
      std::memcpy(args_.recv_block(loop.in), args_.send_block(loop.out),
                  static_cast<std::size_t>(args_.send_bytes(loop.out)));
  }

  bool test() override { return progress(); }

  void wait() override {
    unsigned polls = 0;
    while (!progress()) spin_then_yield(polls, spin_polls_);
  }

 private:
  struct SelfLoop {
    int out, in;  // destination and source edges
  };

  // Whether an edge of bytes > 0 to or from peer is copied by claim (else
  // by point-to-point, or it is a self-loop); both ends answer alike.
  bool claimed(int peer, MPI_Count bytes) const {
    return peer != args_.comm->rank() && args_.comm->same_node(peer) && bytes <= claimed_at_most;
  }
  bool by_point_to_point(int peer, MPI_Count bytes) const {
    return peer != args_.comm->rank() && !claimed(peer, bytes);
  }

  // Collective over the edges: this rank's claimed edges, one transfer per
  // peer and direction in edge order, with where each block lies at the
  // other end.
  std::vector<ClaimedTransfer> node_transfers() const {
    const NeighborArgs& args = args_;
    const Comm& comm = *args.comm;
    std::vector<int> in_edges, out_edges;
    for (int e = 0; e < args.indegree(); ++e)
      if (args.recv_bytes(e) > 0 && claimed(args.sources[e], args.recv_bytes(e))) in_edges.push_back(e);
    for (int e = 0; e < args.outdegree(); ++e)
      if (args.send_bytes(e) > 0 && claimed(args.destinations[e], args.send_bytes(e))) out_edges.push_back(e);
    // Each end tells the other its block's offset: the receiver in its
    // receive buffer, the sender in its send buffer.
    std::vector<MPI_Aint> told_in(in_edges.size()), told_out(out_edges.size());
    std::vector<MPI_Aint> heard_in(in_edges.size()), heard_out(out_edges.size());
    std::vector<MPI_Request> requests;
    requests.reserve(2 * (in_edges.size() + out_edges.size()));
    auto post = [&](const std::vector<MPI_Aint>& told, std::vector<MPI_Aint>& heard, const std::vector<int>& edges,
                    const std::vector<int>& peers, int send_tag, int recv_tag) {
      for (std::size_t i = 0; i < edges.size(); ++i) {
        const int peer = peers[static_cast<std::size_t>(edges[i])];
        requests.emplace_back();
        mpi_check(MPI_Irecv(&heard[i], 1, MPI_AINT, peer, recv_tag, comm.global(), &requests.back()), "MPI_Irecv");
        requests.emplace_back();
        mpi_check(MPI_Isend(&told[i], 1, MPI_AINT, peer, send_tag, comm.global(), &requests.back()), "MPI_Isend");
      }
    };
    for (std::size_t i = 0; i < in_edges.size(); ++i) told_in[i] = args.rdispls[in_edges[i]] * args.recv_layout.extent;
    for (std::size_t i = 0; i < out_edges.size(); ++i)
      told_out[i] = args.sdispls[out_edges[i]] * args.send_layout.extent;
    post(told_in, heard_in, in_edges, args.sources, receiver_says_tag, sender_says_tag);
    post(told_out, heard_out, out_edges, args.destinations, sender_says_tag, receiver_says_tag);
    mpi_check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");

    std::vector<ClaimedTransfer> transfers;
    std::vector<int> transfer_of(2 * static_cast<std::size_t>(comm.node_size()), -1);  // per peer, in then out
    auto segment_of = [&](int peer, bool out, ClaimedSegment segment) {
      int& t = transfer_of[2 * static_cast<std::size_t>(peer) + (out ? 1 : 0)];
      if (t < 0) t = static_cast<int>(transfers.size()), transfers.push_back({peer, out, {}});
      transfers[static_cast<std::size_t>(t)].segments.push_back(segment);
    };
    for (std::size_t i = 0; i < out_edges.size(); ++i)
      segment_of(comm.node_rank_of(args.destinations[out_edges[i]]), true,
                 {told_out[i], heard_out[i], static_cast<std::size_t>(args.send_bytes(out_edges[i]))});
    for (std::size_t i = 0; i < in_edges.size(); ++i)
      segment_of(comm.node_rank_of(args.sources[in_edges[i]]), false,
                 {told_in[i], heard_in[i], static_cast<std::size_t>(args.recv_bytes(in_edges[i]))});
    return transfers;
  }

  bool progress() {
    const bool node_done = node_.progress();
    if (!net_done_) net_done_ = net_.test();
    return net_done_ && node_done;
  }

  NeighborArgs args_;
  int spin_polls_;
  PersistentEdges net_;
  ClaimedCopies node_;
  std::vector<SelfLoop> self_loops_;
  bool net_done_ = true;
};

std::optional<std::string> claimed_copy_unsupported(const NeighborArgs& args) {
  return ClaimedCopies::unavailable(*args.comm);
}

}  // namespace

namespace neighbor_alltoallv_rows {
extern const NeighborAlgorithm claimed_copy{
    "claimed_copy",
    "on-node edges up to 64 KiB copied by whichever of their sender and receiver claims them first (a pair's "
    "edges one way together), straight between the user's buffers (CMA) or, when small, through the sender's "
    "board: no rank waits in Start, a wait needs only the neighbours' Starts (MPI's progress rule); larger and "
    "off-node edges by persistent point-to-point, self-loops copied",
    claimed_copy_unsupported, make_operation<ClaimedCopyNeighborAlltoallv>};
}  // namespace neighbor_alltoallv_rows

}  // namespace mpix
