// The node channel: the on-node transport of persistent exchanges, built for
// the application loop (send data written just before Start, received data
// read just after Wait), where what can be saved is synchronization, not
// data movement.
//
// Every rank owns one shared segment (memfd) that holds one ring per node
// peer: the chunks that peer sends it. Its descriptor reaches the peers over
// a Unix-domain socket (node/descriptor_passing.hpp), which needs no ptrace
// permission between the ranks; once they have mapped it, every descriptor
// is closed, so a live channel holds mappings but no file descriptor. A ring is a
// single-producer single-consumer queue:
//  - slots of a fixed stride; a slot's first cache line carries its sequence
//    number next to the first bytes of its payload, so a small block and its
//    "arrived" flag travel in one line (NCCL's LL idea);
//  - a `consumed` counter on its own cache line, written only by the owner
//    (the receiver), read by the sender for flow control.
// The sender writes chunk i into slot i % slots once consumed > i - slots,
// then publishes sequence i + 1 (release); the receiver waits for that
// sequence (acquire), copies the payload out and advances consumed. There is
// no barrier and no epoch of the whole node: a pair that exchanges nothing
// never touches the other's memory, and flow control is the only wait.
//
// Blocks stream through the slots in chunks (copy-in/copy-out: the staging
// memory stays bounded however large the block), or, sent by reference,
// the sender posts one descriptor (where the block is in its send buffer
// and the length) and the receiver copies the block once, straight into its
// receive buffer, through the path it chose at init for that sender's
// buffer (load/store from a mapped MPIX_Alloc_mem segment, or CMA), so the
// data lands in the cache of the core that reads it next. Those two paths
// need ptrace permission; a sender sends by reference only to receivers
// that reported a path to its buffer, and stages for the others. The sender's
// buffer is free again once the receiver's consumed counter passes the
// descriptor. The caller decides per block which way it goes.
//
// Pacing. A sender may run ahead of its receiver by as many chunks as the
// ring holds, which an uneven pair lives on: the rank that sends more
// copies its next round in while its peer still copies the last one out.
// In an even pair the same overlap buys nothing (each rank has as much to
// copy in as out) and can cost much: each core takes lines for writing
// while the other pulls lines out of its cache, and the pair can settle
// into a phase in which every copy is slower, for thousands of rounds. A
// message in lockstep therefore goes to its peer only once the peer has
// consumed every chunk of the rounds before (a round: what one Start
// sends, begun by begin_round), which keeps both ranks in phase. That
// costs a read of the peer's counter every round, more than it saves for
// small blocks, and nothing is gained where the ranks stay in phase by
// themselves; so the caller chooses per message, and pacing_for says when
// lockstep pays: an even pair with blocks of at least
// MPIX_CHANNEL_LOCKSTEP_BYTES. Both ends of a pair see the same two sizes,
// so they pace alike; if they do not, nothing waits on it.
//
// Each ring's geometry is its owner's (exchanged once), so ranks need not
// agree on the settings. Waiting spins a bounded number of polls, then
// yields the core, so oversubscribed ranks make progress.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "node/direct_copy.hpp"
#include "node/shared_segment.hpp"
#include "src/comm.hpp"
#include "node/node_config.hpp"

namespace mpix {

struct ChannelSettings {
  std::size_t chunk_bytes = 0;        // payload of one slot
  std::size_t staging_bytes = 0;      // per rank: every inbound ring together
  std::size_t single_copy_bytes = 0;  // mapped send blocks from this size up go by reference; 0: never
  std::size_t cma_bytes = 0;          // other send blocks from this size up go by reference; 0: never
  std::size_t lockstep_bytes = 0;     // even pairs whose blocks are at least this large: lockstep; 0: never
  int spin_polls = 0;                 // polls before a waiting rank yields its core

  // Spinning while the machine's ranks have a core each: a few microseconds,
  // longer than a peer's copy of a small block takes.
  static constexpr int default_spin_polls = 4096;
  // The communicator's configuration; MPIX_CHANNEL_SPIN=auto decided by
  // whether its machine is oversubscribed.
  static ChannelSettings of(const Comm& comm);
  // For mpix_info and MPIX_VERBOSE: the machine's ranks and cores, and how
  // waiting ranks behave on this communicator.
  static std::string waiting_summary(const Comm& comm);
};

class NodeChannel {
 public:
  // How far a round's first chunk to a peer may run ahead of that peer.
  enum class Pacing {
    run_ahead,  // as far as the ring has free slots
    lockstep,   // not before the peer has consumed every chunk of earlier rounds
  };
  // The pacing of a pair that sends bytes_to the peer and receives
  // bytes_from it per round: lockstep where both are at least
  // settings.lockstep_bytes and neither is more than uneven_ratio times
  // the other.
  static constexpr double uneven_ratio = 1.15;
  static Pacing pacing_for(const ChannelSettings& settings, std::size_t bytes_to, std::size_t bytes_from);

  // One message: a block to a node peer, or a block from one. The channel
  // cuts it into chunks; the caller keeps these between progress calls.
  struct Outgoing {
    int peer = -1;  // node rank
    const char* data = nullptr;
    std::size_t bytes = 0;
    std::size_t offset = 0;  // by reference: where data is in the sender's published send buffer
    std::size_t sent = 0;          // bytes in the ring so far
    std::uint64_t last_chunk = 0;  // by reference: the descriptor's sequence
    Pacing pacing = Pacing::run_ahead;
    bool by_reference = false;
    bool done = false;
  };
  struct Incoming {
    int peer = -1;  // node rank
    char* data = nullptr;
    std::size_t bytes = 0;
    const DirectTarget* source = nullptr;  // the sender's send buffer, for blocks sent by reference
    std::size_t received = 0;
    bool done = false;
  };

  // The shape of the rings a rank owns: slot stride and slots per ring.
  struct Geometry {
    std::size_t stride = 0;
    std::uint64_t slots = 0;
    bool operator==(const Geometry& o) const { return stride == o.stride && slots == o.slots; }
  };
  // Rings sized for the blocks they will carry: a slot holds one chunk
  // (the largest block, up to chunk_bytes and to what lets two slots per
  // peer fit the staging budget), a ring two blocks' chunks (a sender runs
  // at most one iteration ahead), within the staging budget.
  // Small blocks thus cycle through a few cache lines that stay hot.
  static Geometry geometry_for(const ChannelSettings& settings, int node_size, std::size_t largest_block);

  // Collective over comm.node(): creates this rank's segment, with rings
  // for inbound blocks of at most largest_block bytes (larger ones only
  // take more chunks), and maps every node peer's. Throws (MPI_ERR_OTHER,
  // naming the reason) where the kernel refuses the mappings.
  NodeChannel(const Comm& comm, const ChannelSettings& settings, std::size_t largest_block);
  const Geometry& inbound_geometry() const { return geometry_[static_cast<std::size_t>(node_rank_)]; }
  ~NodeChannel();
  NodeChannel(const NodeChannel&) = delete;
  NodeChannel& operator=(const NodeChannel&) = delete;

  // A message of bytes from data to node peer `peer`, ready for progress;
  // by reference: data is at offset in the send buffer the receiver reaches
  // through its `source`.
  Outgoing outgoing(int peer, const void* data, std::size_t bytes, bool by_reference, std::size_t offset,
                    Pacing pacing) const;
  Incoming incoming(int peer, void* data, std::size_t bytes, const DirectTarget* source) const;

  // A caller with messages in lockstep calls this at every Start, before
  // its first progress: the messages made progress on until the next call
  // are one round. Messages that run ahead never consult it.
  void begin_round();

  // Move as much as the ring allows without waiting; true once the message
  // is complete (outgoing: the send buffer may be reused; incoming: every
  // byte is in the receive buffer).
  bool progress(Outgoing& m);
  bool progress(Incoming& m);

  // Whether comm's ranks may run this transport: MPIX_CHANNEL is not off,
  // and memfd segments and Unix-domain sockets work in this process. Empty
  // if they can; otherwise why not.
  static std::string unavailable_reason(const Comm& comm);

 private:
  struct Ring;  // a view of one ring: control line and slots
  Ring inbound(int peer) const;
  Ring outbound(int peer) const;

  ChannelSettings settings_;
  int node_rank_ = 0;
  int node_size_ = 1;
  std::unique_ptr<SharedSegment> segment_;            // my inbound rings
  std::vector<std::unique_ptr<PeerMapping>> peers_;   // per node rank: its segment (null for me)
  std::vector<Geometry> geometry_;  // per node rank: its rings' geometry
  // Per node peer: chunks I have put into its ring, and the last consumed
  // count I read there (refreshed only when the ring looks full); chunks I
  // have taken from its ring into mine.
  std::vector<std::uint64_t> sent_chunks_, seen_consumed_, received_chunks_;
  // Per node peer: the chunks sent before this round, which it must have
  // consumed before a message in lockstep sends it any.
  std::vector<std::uint64_t> round_start_;
};

// One poll of a wait loop: spin_polls polls spin, later ones yield the core
// (oversubscribed ranks must let the peer they wait for run).
void spin_then_yield(unsigned& polls, int spin_polls);

// Channels kept by a communicator after their request is freed, so that a
// re-init creates nothing. One pool per MPIX_Comm. A channel carries ring
// positions that every node peer must resume together, so one is reused only
// when all node peers offer the same one (ids are handed out in creation
// order, which is the same on every rank); each rank offers its oldest idle
// channel whose rings have the geometry it wants now. Requests are freed
// collectively, in the same order on every rank, so their pools agree.
//
// Shared channels: where the communicator's owner promises that its
// requests never run at once (the drop-in, whose every call starts and
// completes one; share_between_requests), the pool keeps one channel, of
// the staging budget's geometry (any block fits any ring: a larger one
// takes more chunks), and every request takes it. Its rings carry one
// request's messages after the other's, in the same order on every rank
// (the requests run in the same order everywhere, as MPI requires), which
// is how one request uses them from one Start to the next. Creating rings
// costs milliseconds for the largest (node_channel.cpp: every page of
// every mapping is touched), which a new pattern would otherwise pay
// inside the calls an application times, once per block size.
class ChannelPool final : public Component {
 public:
  static constexpr std::size_t capacity = 4;

  struct Entry {
    std::uint64_t id = 0;
    std::shared_ptr<NodeChannel> channel;
  };
  // Collective over comm.node() (local where the shared channel exists);
  // largest_block: as for NodeChannel.
  Entry take(const Comm& comm, const ChannelSettings& settings, std::size_t largest_block);
  // Local.
  void give_back(Entry entry);
  // Local: frees every pooled channel (no MPI call).
  void close() override;
  // Collective over comm.node(), before any take(): this communicator's
  // requests never run at once, so they share one channel, of the
  // budget's geometry, made now. Throws as NodeChannel does (on every node
  // rank alike); sharing holds either way, and a later take() makes it.
  void share_between_requests(const Comm& comm, const ChannelSettings& settings);
  // Local: how many channels this pool has created (MPIX_VERBOSE, tests).
  long created() const { return created_; }

 private:
  // Collective over comm.node(): a new channel, counted.
  std::shared_ptr<NodeChannel> make(const Comm& comm, const ChannelSettings& settings, std::size_t largest_block);

  std::vector<Entry> idle_;  // oldest first
  Entry shared_;             // while sharing: the one channel every request takes
  std::uint64_t next_id_ = 1;
  long created_ = 0;
  bool closed_ = false;
  bool sharing_ = false;
};

}  // namespace mpix
