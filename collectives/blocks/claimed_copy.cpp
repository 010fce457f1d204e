// Persistent Alltoallv whose every on-node block is copied by whichever of
// its two ranks claims it first, straight from the sender's buffer into the
// receiver's (CMA) or, when small, through the sender's board
// (collectives/claimed_copies.hpp: the protocol, and why it keeps MPI's
// progress rule); off-node blocks go by persistent point-to-point
// (collectives/persistent_edges.hpp).
//
// Start: the block to itself after one pass (a peer in its wait pulls this
// rank's blocks meanwhile), the off-node messages before it.
// With MPI_IN_PLACE, Start copies the send blocks aside first and the
// boards name the copy: peers write into the buffer this rank sends from.
#include <cstring>
#include <memory>
#include <vector>

#include "collectives/blocks/args.hpp"
#include "collectives/blocks/put_plan.hpp"
#include "collectives/claimed_copies.hpp"
#include "collectives/persistent_edges.hpp"
#include "node/node_channel.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

constexpr int exchange_tag = 0x6d79;

class ClaimedCopyAlltoallv final : public PersistentOperation {
 public:
  explicit ClaimedCopyAlltoallv(const AlltoallvArgs& args)
      : args_(args),
        spin_polls_(ChannelSettings::of(*args_.comm).spin_polls),
        in_place_copy_(args_.in_place ? static_cast<std::size_t>(PutPlan::make(args_).send_extent_bytes) : 0),
        net_(args_.comm->global(), exchange_tag, args_.sendtype, args_.recvtype, off_node_point_to_point(args_),
             send_base(), args_.recvbuf),
        node_(*args_.comm, "claimed_copy", node_transfers(args_)) {}

  void rebind(const void* sendbuf, void* recvbuf) override {
    args_.move_buffers(sendbuf, recvbuf);
    net_.use(send_base(), args_.recvbuf);
  }

  void start() override {
    if (!in_place_copy_.empty()) std::memcpy(in_place_copy_.data(), args_.recvbuf, in_place_copy_.size());
    net_.start();
    net_done_ = net_.empty();
    node_.start(send_base(), static_cast<char*>(args_.recvbuf));
    const int me = args_.comm->rank();
    if (const MPI_Count bytes = args_.send_bytes(me); bytes > 0 && !args_.in_place)  // in place: there already
      std::memcpy(static_cast<char*>(args_.recvbuf) + args_.rdispls[me] * args_.recv_layout.extent,
                  send_base() + args_.sdispls[me] * args_.send_layout.extent, static_cast<std::size_t>(bytes));
  }

  bool test() override { return progress(); }

  void wait() override {
    unsigned polls = 0;
    while (!progress()) spin_then_yield(polls, spin_polls_);
  }

 private:
  // Where this rank's send blocks are during an iteration: the send buffer,
  // or with MPI_IN_PLACE the copy taken at Start.
  const char* send_base() const {
    return args_.in_place ? in_place_copy_.data() : static_cast<const char*>(args_.sendbuf);
  }

  // Collective over the communicator: this rank's blocks to and from its
  // node peers, one transfer each, with where each peer's block for this
  // rank starts in its send buffer (the offsets this rank reads from).
  static std::vector<ClaimedTransfer> node_transfers(const AlltoallvArgs& args) {
    const Comm& comm = *args.comm;
    const int n = comm.size(), me = comm.rank();
    std::vector<MPI_Aint> my_send_offsets(static_cast<std::size_t>(n)), their_send_offsets(my_send_offsets.size());
    for (int r = 0; r < n; ++r)
      my_send_offsets[static_cast<std::size_t>(r)] = args.sdispls[r] * args.send_layout.extent;
    mpi_check(MPI_Alltoall(my_send_offsets.data(), 1, MPI_AINT, their_send_offsets.data(), 1, MPI_AINT,
                           comm.global()),
              "MPI_Alltoall");
    std::vector<ClaimedTransfer> transfers;
    for (int k = 1; k < n; ++k) {
      const int target = (me + k) % n, source = (me - k + n) % n;
      if (comm.same_node(target) && args.send_bytes(target) > 0)
        transfers.push_back({comm.node_rank_of(target), true,
                             {{args.sdispls[target] * args.send_layout.extent,
                               args.block_at_target[static_cast<std::size_t>(target)],
                               static_cast<std::size_t>(args.send_bytes(target))}}});
      if (comm.same_node(source) && args.recv_bytes(source) > 0)
        transfers.push_back({comm.node_rank_of(source), false,
                             {{args.rdispls[source] * args.recv_layout.extent,
                               their_send_offsets[static_cast<std::size_t>(source)],
                               static_cast<std::size_t>(args.recv_bytes(source))}}});
    }
    return transfers;
  }

  bool progress() {
    const bool node_done = node_.progress();
    if (!net_done_) net_done_ = net_.test();
    return net_done_ && node_done;
  }

  AlltoallvArgs args_;
  int spin_polls_;
  std::vector<char> in_place_copy_;
  PersistentEdges net_;  // after in_place_copy_: over send_base()
  ClaimedCopies node_;
  bool net_done_ = true;
};

std::optional<std::string> claimed_copy_unsupported(const AlltoallvArgs& args) {
  return ClaimedCopies::unavailable(*args.comm);
}

std::unique_ptr<PersistentOperation> make_claimed_copy(const AlltoallvArgs& args) {
  return std::make_unique<ClaimedCopyAlltoallv>(args);
}

}  // namespace

namespace block_rows {
extern const AlltoallvAlgorithm claimed_copy{
    "claimed_copy",
    "every on-node block copied by whichever of its sender and receiver claims it first, straight between the "
    "user's buffers (CMA) or, when small, through the sender's board: no rank waits in Start, a wait needs only the "
    "peers' Starts (MPI's progress rule); off-node blocks by persistent point-to-point",
    claimed_copy_unsupported, make_claimed_copy};
}  // namespace block_rows

}  // namespace mpix
