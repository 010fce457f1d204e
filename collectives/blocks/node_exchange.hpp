// The on-node half of the barrier-free Alltoallv algorithms (channel,
// channel_put_flag): every block between ranks of one node travels through
// the node channel (node/node_channel.hpp), pair by pair, and the block to
// itself is one local copy. The algorithms differ only in how their
// off-node blocks travel, which they run next to this.
//
// The user's guarantees hold without a barrier: nothing is written into
// this rank's receive buffer except by this rank, inside its own Start..Wait
// (on-node receivers copy out); the send buffer is only read inside
// Start..Wait (chunks are copied into the ring; a block sent by reference is
// released by the receiver's consumed counter, which the sender waits for).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/blocks/args.hpp"
#include "node/node_channel.hpp"
#include "node/peer_memory.hpp"

namespace mpix {

// How blocks in heap memory (not MPIX_Alloc_mem) travel: staged through
// the rings, or, from MPIX_CHANNEL_CMA_BYTES up, pulled by the receiver with
// one CMA copy straight from the sender's buffer. Which is faster depends on
// the machine and on how the application reads the data, so the two are
// separate algorithms that auto's tournament times.
enum class HeapBlocks { staged, pulled };

class NodeExchange {
 public:
  // Collective over the node (when it has other ranks): takes a channel from
  // the communicator's pool and learns how to reach each node peer's send
  // buffer. args must outlive this object; its buffers are read at Start.
  explicit NodeExchange(const AlltoallvArgs& args, HeapBlocks heap = HeapBlocks::staged);
  // Why these arguments cannot travel this way, or nothing: a kernel that
  // lets node peers reach each other (contiguous datatypes: the rows'
  // capability).
  static std::optional<std::string> unsupported(const AlltoallvArgs& args);
  ~NodeExchange();
  NodeExchange(const NodeExchange&) = delete;
  NodeExchange& operator=(const NodeExchange&) = delete;

  // Where this rank's send blocks are during an iteration: the send buffer,
  // or with MPI_IN_PLACE the copy taken at Start (sources write into
  // recvbuf while this rank still sends from it).
  const char* send_base() const;
  // After args' buffers moved (buffers_move): every path is a pointer this
  // rank set up itself, so moving them is local.
  void buffers_moved(const char* old_send_base, char* old_recv);

  // Start, in two steps so that the caller can put its off-node transfers
  // in flight between them: take the in-place copy of the send blocks; then
  // the self copy and the first chunks for node peers.
  void take_send_blocks();
  void start();
  // Moves what it can without waiting; true once every on-node block of
  // this iteration has left and arrived.
  bool progress();
  // One poll of a wait loop: spins a while, then yields the core.
  void pause(unsigned& polls) const;
  bool has_node_peers() const { return channel_.channel != nullptr; }

 private:
  // What a receiver reports about a sender's buffer at init.
  enum Reach { unreachable = 0, mapped = 1, by_cma = 2 };
  bool publish_send_buffer(const char* send, std::size_t bytes, std::vector<int>& reaches_mine);

  const AlltoallvArgs& args_;
  std::shared_ptr<ChannelPool> pool_;
  ChannelPool::Entry channel_;
  ChannelSettings settings_;
  std::vector<char> in_place_copy_;
  const char* self_from_ = nullptr;
  char* self_to_ = nullptr;
  std::size_t self_bytes_ = 0;
  std::vector<NodeChannel::Outgoing> outgoing_;
  std::vector<NodeChannel::Incoming> incoming_;
  std::vector<DirectPath> send_buffers_;  // per node rank: how to reach its send buffer
  std::size_t pending_out_ = 0, pending_in_ = 0;
};

}  // namespace mpix
