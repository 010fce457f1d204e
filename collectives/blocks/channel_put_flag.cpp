// Hierarchical, barrier-free persistent Alltoallv over the RMA layer.
// On-node blocks travel through the node channel (node_exchange.hpp), as in
// `channel`. Off-node blocks are put straight into the target's receive
// buffer through a window over it, and the notification rides behind the
// data instead of a fence or a barrier:
//  - Start e: this rank's receive buffer is free, so it tells each off-node
//    source "started e" (a flag in the source's flag window);
//  - a sender puts its block to a target as soon as it has seen that
//    target's "started e", completes the put at the target (a flush: what an
//    ordered window does before its next operation, MPI offers nothing
//    cheaper) and then sets the target's "delivered e" flag for it;
//  - Wait returns once every off-node source's "delivered e" is set (the
//    data is then in the receive buffer) and every block of this rank has
//    been delivered (the send buffer is free again).
//  - flags are pushed out at once (a local flush, which does not wait for
//    the peer): MPI completes operations only at flushes, and RMA emulated
//    over point-to-point may hold an operation back until then.
// Flags hold iteration numbers, written with MPI_Accumulate(MPI_REPLACE)
// and read with MPI_Get_accumulate(MPI_NO_OP), which MPI makes atomic with
// respect to each other, so a flag is never seen half-written. No rank waits
// for a rank it exchanges nothing with. With every rank on one node this is
// `channel` exactly, and no window is made.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "collectives/blocks/args.hpp"
#include "collectives/blocks/node_exchange.hpp"
#include "collectives/blocks/put_plan.hpp"
#include "collectives/blocks/rma_alltoallv.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

class ChannelPutFlagAlltoallv final : public PersistentOperation {
 public:
  explicit ChannelPutFlagAlltoallv(const AlltoallvArgs& args) : args_(args), node_(args_) {
    const Comm& comm = *args_.comm;
    if (comm.node_size() == comm.size()) return;  // one node: nothing goes through a window
    const int n = comm.size(), me = comm.rank();
    const PutPlan plan = PutPlan::make(args_);
    for (const PlannedPut& p : plan.puts)
      if (!comm.same_node(p.target)) net_targets_.push_back({p, false});
    for (int source : plan.sources)
      if (source != me && !comm.same_node(source)) net_sources_.push_back({source, false});
    // Both windows are collective over the communicator: every rank makes
    // them whether or not it has off-node blocks itself.
    data_ = receive_window(args_, plan.window_bytes);
    flag_memory_.assign(2 * static_cast<std::size_t>(n), 0);  // zero before any peer can write
    void* flag_base = flag_memory_.data();
    flags_ = std::make_unique<Window>(Window::Kind::created, &flag_base,
                                      static_cast<MPI_Aint>(flag_memory_.size() * sizeof(std::uint64_t)),
                                      static_cast<int>(sizeof(std::uint64_t)), 1, args_.comm, comm.config());
    seen_.assign(flag_memory_.size(), 0);
    no_op_origin_.assign(flag_memory_.size(), 0);
    data_.window->lock_all(MPI_MODE_NOCHECK);
    flags_->lock_all(MPI_MODE_NOCHECK);
  }

  ~ChannelPutFlagAlltoallv() override {
    if (!data_.window) return;
    try {
      flags_->unlock_all();
      data_.window->unlock_all();
    } catch (const Error&) {
      // Only on windows MPI already failed on; freeing them closes the epochs.
    }
    args_.comm->component<WindowPool>()->give_back(std::move(data_));
  }

  void start() override {
    node_.take_send_blocks();
    ++iteration_;
    if (flags_) {
      // The previous iteration's flag operations read flag_value_: they
      // must be done with it before it changes.
      flags_->flush_all(settings, true);
      flag_value_ = iteration_;
      const int me = args_.comm->rank();
      for (NetSource& s : net_sources_) {
        set_flag(s.rank, ready_slot(me));
        s.arrived = false;
      }
      // MPI completes an operation only at a flush: RMA emulated over
      // point-to-point (Open MPI's osc pt2pt) may not even send an
      // accumulate before one, and the peer would wait for its flag
      // forever. A local flush sends it without waiting for the peer.
      flags_->flush_all(settings, true);
      for (NetTarget& t : net_targets_) t.delivered = false;
      pending_targets_ = net_targets_.size();
      pending_sources_ = net_sources_.size();
      progress_net();  // targets that started already get their blocks now
    }
    node_.start();
  }

  // Only on one node (buffers that move are refused across nodes), where
  // every path is a pointer this rank set up itself.
  void rebind(const void* sendbuf, void* recvbuf) override {
    const char* old_send = node_.send_base();
    char* old_recv = static_cast<char*>(args_.recvbuf);
    args_.move_buffers(sendbuf, recvbuf);
    node_.buffers_moved(old_send, old_recv);
  }

  bool test() override { return progress(); }

  void wait() override {
    unsigned polls = 0;
    while (!progress()) node_.pause(polls);
  }

 private:
  struct NetTarget {
    PlannedPut put;
    bool delivered;
  };
  struct NetSource {
    int rank;
    bool arrived;
  };
  static constexpr WinSettings settings{};

  // Flag slots of a rank's flag window: "started" per receiving rank, then
  // "delivered" per sending rank.
  std::size_t ready_slot(int receiver) const { return static_cast<std::size_t>(receiver); }
  std::size_t delivered_slot(int sender) const {
    return static_cast<std::size_t>(args_.comm->size()) + static_cast<std::size_t>(sender);
  }

  void set_flag(int rank, std::size_t slot) {
    const Transfer t{&flag_value_, 1, MPI_UINT64_T, rank, static_cast<MPI_Aint>(slot), 1, MPI_UINT64_T};
    flags_->accumulate(settings, t, MPI_REPLACE);
  }

  // One atomic read of every flag of this rank's window; also drives MPI's
  // progress, which emulated RMA needs to land peers' operations here.
  void read_flags() {
    const int me = args_.comm->rank();
    const Transfer t{no_op_origin_.data(), static_cast<int>(seen_.size()), MPI_UINT64_T, me, 0,
                     static_cast<int>(seen_.size()), MPI_UINT64_T};
    flags_->get_accumulate(settings, t, seen_.data(), MPI_NO_OP);
    flags_->flush(settings, me, false);
  }

  // Delivers the blocks whose targets have started this iteration and
  // checks which sources have delivered. Never waits for a peer: the only
  // blocking calls complete operations already in flight.
  bool progress_net() {
    if (pending_targets_ == 0 && pending_sources_ == 0) return true;
    read_flags();
    const int me = args_.comm->rank();
    std::size_t now_ready = 0;
    for (NetTarget& t : net_targets_) {
      if (t.delivered || seen_[ready_slot(t.put.target)] < iteration_) continue;
      const Transfer put{const_cast<char*>(node_.send_base() + t.put.send_offset), t.put.count, args_.sendtype,
                         t.put.target, t.put.target_disp, t.put.count, args_.sendtype};
      data_.window->put(settings, put);
      ++now_ready;
    }
    if (now_ready > 0) {
      // The flags follow the data: every put completes at its target first.
      for (NetTarget& t : net_targets_) {
        if (t.delivered || seen_[ready_slot(t.put.target)] < iteration_) continue;
        data_.window->flush(settings, t.put.target, false);
        set_flag(t.put.target, delivered_slot(me));
        t.delivered = true;
        --pending_targets_;
      }
      flags_->flush_all(settings, true);  // sent now, as the "started" flags are
    }
    std::size_t arrived = 0;
    for (NetSource& s : net_sources_) {
      if (s.arrived || seen_[delivered_slot(s.rank)] < iteration_) continue;
      s.arrived = true;
      ++arrived;
    }
    pending_sources_ -= arrived;
    // The flags were read through MPI: the data they announce must be
    // visible to this rank's loads too.
    if (arrived > 0 && pending_sources_ == 0) data_.window->sync();
    return pending_targets_ == 0 && pending_sources_ == 0;
  }

  bool progress() {
    const bool net_done = !flags_ || progress_net();
    return node_.progress() && net_done;
  }

  AlltoallvArgs args_;
  NodeExchange node_;
  std::vector<NetTarget> net_targets_;  // off-node targets, in put-plan order
  std::vector<NetSource> net_sources_;
  std::vector<std::uint64_t> flag_memory_;  // outlives the window over it
  WindowPool::Entry data_;                  // over the receive buffer
  std::unique_ptr<Window> flags_;           // over flag_memory_
  std::vector<std::uint64_t> seen_;         // the last read of flag_memory_
  std::vector<std::uint64_t> no_op_origin_;  // MPI_NO_OP ignores it; MPI wants it apart from the result
  std::uint64_t iteration_ = 0, flag_value_ = 0;
  std::size_t pending_targets_ = 0, pending_sources_ = 0;
};

}  // namespace

namespace block_rows {
extern const AlltoallvAlgorithm channel_put_flag{
    "channel_put_flag",
    "barrier-free, hierarchical: on-node blocks through the node channel, off-node blocks put into the target's "
    "receive buffer, each followed by its flag once complete there",
    NodeExchange::unsupported, make_operation<ChannelPutFlagAlltoallv>};
}  // namespace block_rows

}  // namespace mpix
