// Barrier-free persistent Alltoallv (two rows: channel stages blocks in heap
// memory, channel_cma pulls the large ones with one CMA copy). On-node blocks travel through the node
// channel (collectives/blocks/node_exchange.hpp): the sender's copy-in and the
// receiver's copy-out (or the receiver's single copy straight from the
// sender's MPIX_Alloc_mem buffer) are the only synchronization, pair by
// pair, so Start never waits for the whole node and Wait waits only for this
// rank's own sources and for its send blocks to be free again. Off-node
// blocks go by persistent point-to-point (collectives/persistent_edges.hpp,
// started every iteration), which carries its own notification; receives
// are posted at Start, so nothing lands in recvbuf outside Start..Wait.
// Persistent requests on one communicator are started in the same order on
// every rank (MPI's rule for persistent collectives), so the point-to-point
// messages of several live requests match in order under one tag.
#include <algorithm>
#include <vector>

#include "collectives/blocks/args.hpp"
#include "collectives/blocks/node_exchange.hpp"
#include "collectives/persistent_edges.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

constexpr int exchange_tag = 0x6d78;

class ChannelAlltoallv final : public PersistentOperation {
 public:
  ChannelAlltoallv(const AlltoallvArgs& args, HeapBlocks heap)
      : args_(args),
        node_(args_, heap),
        net_(args_.comm->global(), exchange_tag, args_.sendtype, args_.recvtype, off_node_point_to_point(args_),
             node_.send_base(), args_.recvbuf) {}

  void rebind(const void* sendbuf, void* recvbuf) override {
    const char* old_send = node_.send_base();
    char* old_recv = static_cast<char*>(args_.recvbuf);
    args_.move_buffers(sendbuf, recvbuf);
    if (node_.send_base() == old_send && args_.recvbuf == old_recv) return;
    node_.buffers_moved(old_send, old_recv);
    net_.use(node_.send_base(), args_.recvbuf);
  }

  void start() override {
    node_.take_send_blocks();
    net_.start();
    net_done_ = net_.empty();
    // Off-node transfers are in flight: copy on the node meanwhile.
    node_.start();
  }

  bool test() override { return progress(); }

  void wait() override {
    if (!node_.has_node_peers()) {
      net_.wait();
      net_done_ = true;
      return;
    }
    unsigned polls = 0;
    while (!progress()) node_.pause(polls);
  }

 private:
  bool progress() {
    const bool node_done = node_.progress();
    if (!net_done_) net_done_ = net_.test();
    return net_done_ && node_done;
  }

  AlltoallvArgs args_;
  NodeExchange node_;
  PersistentEdges net_;  // after node_: over its send base
  bool net_done_ = true;
};

template <HeapBlocks heap>
std::unique_ptr<PersistentOperation> make_channel(const AlltoallvArgs& args) {
  return std::make_unique<ChannelAlltoallv>(args, heap);
}

}  // namespace

namespace block_rows {
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
}  // namespace block_rows

}  // namespace mpix
