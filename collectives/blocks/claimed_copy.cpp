// Persistent Alltoallv whose every on-node block is copied once, straight
// from the sender's buffer into the receiver's (one CMA copy), by whichever
// of its two ranks claims it first; off-node blocks go by persistent
// point-to-point (collectives/persistent_edges.hpp).
//
// Why: MPI makes a persistent collective's Start local, and a rank's
// completion depend only on the other ranks' Starts: a program may start,
// then send to a peer that receives before its own Start, or complete, then
// send to a peer that receives before its own wait. The node channel's rows
// need the peer inside its own Start..Wait (receivers copy out of the
// rings, senders wait for ring space), and a window's epoch needs every
// rank in it. Here a rank that waits can move every block of its own, both
// ways, once its peers have started, whatever they do next: the drop-in
// serves MPI's persistent collectives with it by default (the capability
// mpi_progress).
//
// Protocol, per request, over the ranks of a node:
//  - every rank has a board, a shared segment its node peers map (passed as
//    a descriptor, node/descriptor_passing.hpp): a header line with the
//    epoch of its last Start and, written before it (release), the
//    addresses of its send and receive buffers for that epoch; then a line
//    per node source s, with claimed and done epochs of the block s sends it;
//  - Start(e): the header; the block to itself; the off-node messages; then
//    one pass;
//  - a pass: for each block s -> r of this rank not yet seen done, once
//    both s and r have started e, claim it (claimed: e - 1 -> e, compare and
//    swap in r's board); the rank that claims it copies it (s writes into
//    r's buffer, process_vm_writev; r reads s's, process_vm_readv) and sets
//    done to e (release); the other sees done;
//  - Wait: passes until every block into and out of this rank is done.
// Who copies: a pass pulls the blocks into this rank first, and pushes its
// own only after a few passes have left them to their receivers, so that
// two ranks in their waits copy side by side instead of the later one
// copying both ways; a receiver that does not come (it sits in another MPI
// call) leaves them to the sender's later passes.
// Invariants: a block's claimed and done are e - 1 when either of its ranks
// starts e (each completed e - 1, which waited for them); a peer's buffers
// are copied into or out of only for a block claimed in the epoch its
// header shows, and it cannot leave that epoch before the block is done, so
// the addresses read from its header are that epoch's; after a rank's wait
// no peer touches its buffers, so unmapping the boards frees the request
// without any rank (MPI_Request_free is local).
// With MPI_IN_PLACE, Start copies the send blocks aside first and the
// header names the copy: peers write into the buffer this rank sends from.
// Where the kernel refuses CMA between two node ranks, or descriptors
// cannot pass, the request fails at init on every rank alike.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "collectives/blocks/args.hpp"
#include "collectives/blocks/put_plan.hpp"
#include "collectives/persistent_edges.hpp"
#include "node/descriptor_passing.hpp"
#include "node/direct_copy.hpp"
#include "node/node_channel.hpp"
#include "node/shared_segment.hpp"
#include "src/error.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

constexpr int exchange_tag = 0x6d79;
constexpr std::size_t line = 64;
// Passes of an iteration before this rank pushes its blocks to receivers
// that have not pulled them.
constexpr unsigned pushes_after_passes = 16;
// Set in a done epoch: the rank that claimed the block could not copy it.
constexpr std::uint64_t failed = std::uint64_t{1} << 63;

struct Header {
  std::atomic<std::uint64_t> epoch;
  std::atomic<std::uint64_t> send_base;
  std::atomic<std::uint64_t> recv_base;
};
struct BlockClaim {
  std::atomic<std::uint64_t> claimed;
  std::atomic<std::uint64_t> done;
};
static_assert(sizeof(Header) <= line && sizeof(BlockClaim) <= line, "a header or a claim fits a line");

Header& header_of(char* board) { return *reinterpret_cast<Header*>(board); }
BlockClaim& claim_in(char* board, int source) {
  return *reinterpret_cast<BlockClaim*>(board + line * (1 + static_cast<std::size_t>(source)));
}

// Why this process cannot take part (simulated ranks are threads; a kernel
// or seccomp policy without memfd or descriptor passing), or empty.
std::string boards_unavailable() {
  if (const char* why = mpi_implementation::ranks_are_not_processes()) return why;
  return descriptor_passing_unavailable();
}

class ClaimedCopyAlltoallv final : public PersistentOperation {
 public:
  explicit ClaimedCopyAlltoallv(const AlltoallvArgs& args)
      : args_(args),
        spin_polls_(ChannelSettings::of(*args_.comm).spin_polls),
        in_place_copy_(args_.in_place ? static_cast<std::size_t>(PutPlan::make(args_).send_extent_bytes) : 0),
        net_(args_.comm->global(), exchange_tag, args_.sendtype, args_.recvtype, off_node_point_to_point(args_),
             send_base(), args_.recvbuf) {
    set_up_node();
  }

  void rebind(const void* sendbuf, void* recvbuf) override {
    args_.move_buffers(sendbuf, recvbuf);
    net_.use(send_base(), args_.recvbuf);
  }

  void start() override {
    ++epoch_;
    if (!in_place_copy_.empty()) std::memcpy(in_place_copy_.data(), args_.recvbuf, in_place_copy_.size());
    if (board_) {
      Header& mine = header_of(board_->base());
      mine.send_base.store(reinterpret_cast<std::uintptr_t>(send_base()), std::memory_order_relaxed);
      mine.recv_base.store(reinterpret_cast<std::uintptr_t>(args_.recvbuf), std::memory_order_relaxed);
      mine.epoch.store(epoch_, std::memory_order_release);
    }
    net_.start();
    net_done_ = net_.empty();
    const int me = args_.comm->rank();
    if (const MPI_Count bytes = args_.send_bytes(me); bytes > 0 && !args_.in_place)  // in place: there already
      std::memcpy(static_cast<char*>(args_.recvbuf) + args_.rdispls[me] * args_.recv_layout.extent,
                  send_base() + args_.sdispls[me] * args_.send_layout.extent, static_cast<std::size_t>(bytes));
    for (Block& b : blocks_) b.done = false;
    pending_ = blocks_.size();
    passes_ = 0;
    pass();
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

  // One on-node block of this rank's: out to a peer, or in from one.
  struct Block {
    int peer;        // node rank
    bool out;        // this rank sends it
    pid_t pid;       // the peer's process
    MPI_Aint mine;   // bytes from this rank's send (out) or receive (in) buffer
    MPI_Aint theirs; // bytes from the peer's receive (out) or send (in) buffer
    std::size_t bytes;
    bool done;
  };

  // Collective over the communicator: the boards, the peers' processes and
  // where each peer's block for this rank starts in its send buffer; fails
  // on every rank alike.
  void set_up_node() {
    const Comm& comm = *args_.comm;
    const int n = comm.size(), me = comm.rank(), node_size = comm.node_size();
    // Where my block starts in each target's send buffer, seen from the
    // target: the offsets this rank reads from.
    std::vector<MPI_Aint> my_send_offsets(static_cast<std::size_t>(n)), their_send_offsets(my_send_offsets.size());
    for (int r = 0; r < n; ++r)
      my_send_offsets[static_cast<std::size_t>(r)] = args_.sdispls[r] * args_.send_layout.extent;
    mpi_check(MPI_Alltoall(my_send_offsets.data(), 1, MPI_AINT, their_send_offsets.data(), 1, MPI_AINT,
                           comm.global()),
              "MPI_Alltoall");

    std::string why;
    if (node_size > 1) why = boards_unavailable();
    struct Process {
      std::int64_t pid;
      std::uint64_t probe;
    };
    allow_cma_from_peers(comm.config().section<NodeConfig>().ptrace_peers);
    const Process process{static_cast<std::int64_t>(getpid()), cma_probe_address()};
    std::vector<Process> processes(static_cast<std::size_t>(node_size));
    mpi_check(MPI_Allgather(&process, 2, MPI_INT64_T, processes.data(), 2, MPI_INT64_T, comm.node()),
              "MPI_Allgather");
    const std::size_t board_bytes = line * (1 + static_cast<std::size_t>(node_size));
    if (node_size > 1 && why.empty()) {
      try {
        board_ = std::make_unique<SharedSegment>(board_bytes, "mpix-claimed-copy", true);
      } catch (const Error& e) {
        why = e.what();
      }
    }
    if (node_size > 1) {
      // Collective over the node whatever happened here: a rank without a
      // board passes none, and its peers see why.
      SharedDescriptors shared = share_descriptor(comm.node(), board_ ? board_->fd() : -1);
      if (board_) board_->close_fd();
      if (why.empty() && !shared.why.empty()) why = "descriptor passing: " + shared.why;
      peers_.resize(static_cast<std::size_t>(node_size));
      for (int p = 0; p < node_size && why.empty(); ++p) {
        if (p == comm.node_rank()) continue;
        peers_[static_cast<std::size_t>(p)] =
            std::make_unique<PeerMapping>(shared.of[static_cast<std::size_t>(p)].get(), board_bytes, true);
        if (!peers_[static_cast<std::size_t>(p)]->ok()) why = peers_[static_cast<std::size_t>(p)]->why();
        else if (std::string refused;
                 !cma_reachable(static_cast<pid_t>(processes[static_cast<std::size_t>(p)].pid),
                                static_cast<std::uintptr_t>(processes[static_cast<std::size_t>(p)].probe), refused))
          why = "CMA to node rank " + std::to_string(p) + ": " + refused;
      }
    }
    int ok = why.empty() ? 1 : 0;
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm.global()), "MPI_Allreduce");
    if (!why.empty()) throw Error(MPI_ERR_OTHER, "claimed_copy: " + why);
    if (!ok) throw Error(MPI_ERR_OTHER, "claimed_copy: a rank cannot copy to or from its node peers (its own "
                                        "error names the reason)");

    for (int k = 1; k < n; ++k) {
      const int target = (me + k) % n, source = (me - k + n) % n;
      if (comm.same_node(target) && args_.send_bytes(target) > 0) {
        const int peer = comm.node_rank_of(target);
        blocks_.push_back({peer, true, static_cast<pid_t>(processes[static_cast<std::size_t>(peer)].pid),
                           args_.sdispls[target] * args_.send_layout.extent,
                           args_.block_at_target[static_cast<std::size_t>(target)],
                           static_cast<std::size_t>(args_.send_bytes(target)), false});
      }
      if (comm.same_node(source) && args_.recv_bytes(source) > 0) {
        const int peer = comm.node_rank_of(source);
        blocks_.push_back({peer, false, static_cast<pid_t>(processes[static_cast<std::size_t>(peer)].pid),
                           args_.rdispls[source] * args_.recv_layout.extent,
                           their_send_offsets[static_cast<std::size_t>(source)],
                           static_cast<std::size_t>(args_.recv_bytes(source)), false});
      }
    }
  }

  // Copies every block whose two ranks have started this epoch and that no
  // one has claimed; counts those found done.
  void pass() {
    if (pending_ == 0) return;
    const bool push = ++passes_ > pushes_after_passes;
    const int me = args_.comm->node_rank();
    for (Block& b : blocks_) {
      if (b.done) continue;
      char* peer_board = peers_[static_cast<std::size_t>(b.peer)]->base();
      // The block's claim lives in its receiver's board.
      BlockClaim& claim = b.out ? claim_in(peer_board, me) : claim_in(board_->base(), b.peer);
      if (const std::uint64_t done = claim.done.load(std::memory_order_acquire); (done & ~failed) >= epoch_) {
        if (done & failed)
          throw Error(MPI_ERR_OTHER, "claimed_copy: node rank " + std::to_string(b.peer) + " failed to copy the block " +
                                         (b.out ? "to it" : "from it") + " (its own error names the reason)");
        b.done = true;
        --pending_;
        continue;
      }
      if (b.out && !push) continue;
      const Header& peer = header_of(peer_board);
      if (peer.epoch.load(std::memory_order_acquire) < epoch_) continue;
      std::uint64_t unclaimed = epoch_ - 1;
      if (!claim.claimed.compare_exchange_strong(unclaimed, epoch_, std::memory_order_acq_rel)) continue;
      const std::uintptr_t base =
          (b.out ? peer.recv_base : peer.send_base).load(std::memory_order_relaxed) + static_cast<std::uintptr_t>(b.theirs);
      char* local = (b.out ? const_cast<char*>(send_base()) : static_cast<char*>(args_.recvbuf)) + b.mine;
      iovec here{local, b.bytes};
      iovec there{reinterpret_cast<void*>(base), b.bytes};
      try {
        cma_copy_vectors(b.pid, &here, &there, 1, b.out);
      } catch (const Error&) {
        claim.done.store(epoch_ | failed, std::memory_order_release);  // the peer's wait ends too
        throw;
      }
      claim.done.store(epoch_, std::memory_order_release);
      b.done = true;
      --pending_;
    }
  }

  bool progress() {
    pass();
    if (!net_done_) net_done_ = net_.test();
    return net_done_ && pending_ == 0;
  }

  AlltoallvArgs args_;
  int spin_polls_;
  std::vector<char> in_place_copy_;
  PersistentEdges net_;  // after in_place_copy_: over send_base()
  std::unique_ptr<SharedSegment> board_;
  std::vector<std::unique_ptr<PeerMapping>> peers_;  // per node rank; empty for this rank
  std::vector<Block> blocks_;
  std::size_t pending_ = 0;
  unsigned passes_ = 0;  // of this iteration
  std::uint64_t epoch_ = 0;
  bool net_done_ = true;
};

std::optional<std::string> claimed_copy_unsupported(const AlltoallvArgs& args) {
  if (args.comm->node_size() > 1)
    if (std::string why = boards_unavailable(); !why.empty()) return "no boards on the node (" + why + ")";
  return std::nullopt;
}

std::unique_ptr<PersistentOperation> make_claimed_copy(const AlltoallvArgs& args) {
  return std::make_unique<ClaimedCopyAlltoallv>(args);
}

}  // namespace

namespace block_rows {
extern const AlltoallvAlgorithm claimed_copy{
    "claimed_copy",
    "every on-node block copied once, straight between the user's buffers (CMA), by whichever of its sender and "
    "receiver claims it first: no rank waits in Start, a wait needs only the peers' Starts (MPI's progress rule); "
    "off-node blocks by persistent point-to-point",
    claimed_copy_unsupported, make_claimed_copy};
}  // namespace block_rows

}  // namespace mpix
