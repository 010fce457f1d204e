// Barrier-free persistent Alltoallv (two rows: channel stages blocks in heap
// memory, channel_cma pulls the large ones with one CMA copy). On-node blocks travel through the node
// channel (collectives/node_exchange.hpp): the sender's copy-in and the
// receiver's copy-out (or the receiver's single copy straight from the
// sender's MPIX_Alloc_mem buffer) are the only synchronization, pair by
// pair, so Start never waits for the whole node and Wait waits only for this
// rank's own sources and for its send blocks to be free again. Off-node
// blocks go by persistent point-to-point (MPI_Send_init / MPI_Recv_init,
// started every iteration), which carries its own notification; receives
// are posted at Start, so nothing lands in recvbuf outside Start..Wait.
// Persistent requests on one communicator are started in the same order on
// every rank (MPI's rule for persistent collectives), so the point-to-point
// messages of several live requests match in order under one tag.
#include <algorithm>
#include <vector>

#include "collectives/alltoallv_args.hpp"
#include "collectives/node_exchange.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

constexpr int exchange_tag = 0x6d78;

class ChannelAlltoallv final : public PersistentOperation {
 public:
  ChannelAlltoallv(const AlltoallvArgs& args, HeapBlocks heap) : args_(args), node_(args_, heap) {
    const Comm& comm = *args_.comm;
    const int n = comm.size(), me = comm.rank();
    for (int k = 1; k < n; ++k) {
      const int target = (me + k) % n, source = (me - k + n) % n;
      if (!comm.same_node(target) && args_.send_bytes(target) > 0) net_peers_.push_back({target, true});
      if (!comm.same_node(source) && args_.recv_bytes(source) > 0) net_peers_.push_back({source, false});
    }
    net_sets_.push_back(make_net(node_.send_base(), static_cast<char*>(args_.recvbuf)));
  }

  ~ChannelAlltoallv() override {
    for (NetRequests& set : net_sets_) free_net(set.requests);
  }

  void rebind(const void* sendbuf, void* recvbuf) override {
    const char* old_send = node_.send_base();
    char* old_recv = static_cast<char*>(args_.recvbuf);
    args_.move_buffers(sendbuf, recvbuf);
    if (node_.send_base() == old_send && args_.recvbuf == old_recv) return;
    node_.buffers_moved(old_send, old_recv);
    if (!net_peers_.empty()) use_net(node_.send_base(), static_cast<char*>(args_.recvbuf));
  }

  void start() override {
    node_.take_send_blocks();
    std::vector<MPI_Request>& net = net_sets_.back().requests;
    if (!net.empty()) mpi_check(MPI_Startall(static_cast<int>(net.size()), net.data()), "MPI_Startall");
    net_done_ = net.empty();
    // Off-node transfers are in flight: copy on the node meanwhile.
    node_.start();
  }

  bool test() override { return progress(); }

  void wait() override {
    if (!node_.has_node_peers()) {
      std::vector<MPI_Request>& net = net_sets_.back().requests;
      mpi_check(MPI_Waitall(static_cast<int>(net.size()), net.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      net_done_ = true;
      return;
    }
    unsigned polls = 0;
    while (!progress()) node_.pause(polls);
  }

 private:
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

  bool progress() {
    const bool node_done = node_.progress();
    if (!net_done_) {
      int flag = 0;
      std::vector<MPI_Request>& net = net_sets_.back().requests;
      mpi_check(MPI_Testall(static_cast<int>(net.size()), net.data(), &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
      net_done_ = flag != 0;
    }
    return net_done_ && node_done;
  }

  AlltoallvArgs args_;
  NodeExchange node_;
  struct NetPeer {
    int rank;
    bool sends;  // a block to it, else one from it
  };
  std::vector<NetPeer> net_peers_;     // in the order their requests start
  std::vector<NetRequests> net_sets_;  // most recently used last: the one Start runs
  bool net_done_ = true;
};

template <HeapBlocks heap>
std::unique_ptr<PersistentOperation> make_channel(const AlltoallvArgs& args) {
  return std::make_unique<ChannelAlltoallv>(args, heap);
}

}  // namespace

namespace algorithms {
extern const AlltoallvAlgorithm channel{
    "channel",
    "barrier-free: on-node blocks through the node channel's rings (copy-in/copy-out; from MPIX_Alloc_mem send "
    "buffers one copy by the receiver), off-node blocks by persistent point-to-point",
    NodeExchange::unsupported, make_channel<HeapBlocks::staged>};
extern const AlltoallvAlgorithm channel_cma{
    "channel_cma",
    "channel, with on-node blocks in heap memory from MPIX_CHANNEL_CMA_BYTES up pulled by the receiver in one CMA "
    "copy (staged where CMA is not permitted)",
    NodeExchange::unsupported, make_channel<HeapBlocks::pulled>};
}  // namespace algorithms

}  // namespace mpix
