// Node-aware aggregation (single leader), for Alltoallv and Alltoall: at
// scale every small-message win comes from sending one message per pair of
// nodes instead of one per pair of ranks (MPICH's multi-leader composition,
// Open MPI's HAN, MPI Advance's node-aware Alltoall). The leader of a node
// is its lowest rank.
//
// Protocol, per Start (all point-to-point on the library's communicator,
// one tag per phase, so the phases of one request never match each other;
// several live requests are started in the same order on every rank, so
// theirs match in order):
//   1. up: every rank but the leader sends the leader, in one message, its
//      blocks for every other node (nodes ascending, ranks ascending in
//      each), read from sendbuf through a datatype (no packing copy); the
//      leader copies its own such blocks into its staging buffer;
//   2. across: once all have arrived, the leader sends each other node's
//      leader one message: for each of its node's ranks, that rank's blocks
//      for the node; it receives one such message from each;
//   3. down: once those have arrived, the leader sends each of its node's
//      ranks, in one message, every block the other nodes sent it (nodes,
//      then their ranks, ascending), which lands in recvbuf through a
//      datatype (no unpacking copy); its own blocks it copies;
//   on the node, blocks between two ranks go directly (one message each),
//   the block to itself is copied.
// So a rank sends at most (nodes - 1) messages off its node per call, and
// only leaders send any. Sizes are agreed at init (each node's ranks give
// their leader their counts), so every message's layout is known to both
// ends. Nothing lands in recvbuf outside Start..Wait, and sendbuf is read
// only inside it. Datatypes are relative to the buffers, which may move
// between Starts. With MPI_IN_PLACE the send blocks are copied aside at
// Start (an arriving block could overwrite one before it leaves), as MPI's
// own implementations do.
#include "collectives/alltoall/node_aggregated.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "collectives/blocks/args.hpp"
#include "src/error.hpp"
#include "src/mpi_handle.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

std::atomic<std::uint64_t> off_node_messages{0};

constexpr int up_tag = 0x6e61, across_tag = 0x6e62, down_tag = 0x6e63, direct_tag = 0x6e64;

// A byte span of some buffer: offset from its base, length.
struct Segment {
  MPI_Aint offset;
  int bytes;
};

// An hindexed datatype of MPI_BYTE over segments (empty ones left out),
// committed; MPI_DATATYPE_NULL for none.
MPI_Datatype segments_type(const std::vector<Segment>& segments) {
  std::vector<int> lengths;
  std::vector<MPI_Aint> displacements;
  for (const Segment& s : segments)
    if (s.bytes > 0) {
      lengths.push_back(s.bytes);
      displacements.push_back(s.offset);
    }
  if (lengths.empty()) return MPI_DATATYPE_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), displacements.data(),
                                     MPI_BYTE, &type),
            "MPI_Type_create_hindexed");
  mpi_check(MPI_Type_commit(&type), "MPI_Type_commit");
  return type;
}

class OwnedType {
 public:
  OwnedType() = default;
  explicit OwnedType(MPI_Datatype type) : type_(type) {}
  OwnedType(OwnedType&& o) noexcept : type_(std::exchange(o.type_, MPI_DATATYPE_NULL)) {}
  OwnedType& operator=(OwnedType&& o) noexcept {
    std::swap(type_, o.type_);
    return *this;
  }
  ~OwnedType() {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  }
  MPI_Datatype get() const { return type_; }
  bool empty() const { return type_ == MPI_DATATYPE_NULL; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

class NodeAggregated final : public PersistentOperation {
 public:
  explicit NodeAggregated(const AlltoallvArgs& args) : args_(args) {
    const Comm& comm = *args_.comm;
    const int p = comm.size(), me = comm.rank();
    for (int r = 0; r < p; ++r) {
      if (comm.same_node(r)) local_.push_back(r);
      if (comm.node_rank_of(r) == 0) leaders_.push_back(r);  // ascending node ids: nodes are numbered by first rank
    }
    leader_ = local_.front();
    is_leader_ = leader_ == me;
    const MPI_Aint send_extent = args_.send_layout.extent, recv_extent = args_.recv_layout.extent;
    // This rank's blocks for the other nodes, in protocol order.
    std::vector<Segment> up;
    std::vector<long> bytes_for_node(leaders_.size(), 0);
    for (std::size_t m = 0; m < leaders_.size(); ++m)
      for (int j = 0; j < p; ++j)
        if (comm.node_of(j) == comm.node_of(leaders_[m]) && !comm.same_node(j)) {
          up.push_back({args_.sdispls[j] * send_extent, static_cast<int>(args_.send_bytes(j))});
          bytes_for_node[m] += args_.send_bytes(j);
        }
    up_type_ = OwnedType(segments_type(up));
    up_segments_ = up;
    // What this rank receives from the other nodes, in protocol order.
    std::vector<Segment> down;
    std::vector<int> recv_from(p, 0);
    for (int leader : leaders_)
      for (int i = 0; i < p; ++i)
        if (comm.node_of(i) == comm.node_of(leader) && !comm.same_node(i)) {
          down.push_back({args_.rdispls[i] * recv_extent, static_cast<int>(args_.recv_bytes(i))});
          recv_from[i] = static_cast<int>(args_.recv_bytes(i));
        }
    down_type_ = OwnedType(segments_type(down));
    down_segments_ = down;
    // The leader learns its node's sizes: what each rank sends each other
    // node, and what each receives from each other rank.
    const int nodes = static_cast<int>(leaders_.size()), l_count = static_cast<int>(local_.size());
    std::vector<long> all_bytes_for_node(is_leader_ ? static_cast<std::size_t>(nodes * l_count) : 0);
    mpi_check(MPI_Gather(bytes_for_node.data(), nodes, MPI_LONG, all_bytes_for_node.data(), nodes, MPI_LONG, 0,
                         comm.node()),
              "MPI_Gather");
    std::vector<int> all_recv_from(is_leader_ ? static_cast<std::size_t>(p * l_count) : 0);
    mpi_check(MPI_Gather(recv_from.data(), p, MPI_INT, all_recv_from.data(), p, MPI_INT, 0, comm.node()), "MPI_Gather");
    if (is_leader_) plan_leader(all_bytes_for_node, all_recv_from);
    // On the node: one message per pair with data, the self block copied.
    for (int r : local_) {
      if (r == me) continue;
      if (args_.send_bytes(r) > 0) direct_sends_.push_back({r, args_.sdispls[r] * send_extent});
      if (args_.recv_bytes(r) > 0) direct_recvs_.push_back({r, args_.rdispls[r] * recv_extent});
    }
    self_bytes_ = static_cast<std::size_t>(args_.send_bytes(me));
    if (args_.in_place) {
      MPI_Aint span = 0;
      for (int j = 0; j < p; ++j)
        if (args_.send_bytes(j) > 0)
          span = std::max<MPI_Aint>(span,
                                    args_.sdispls[j] * send_extent + static_cast<MPI_Aint>(args_.send_bytes(j)));
      in_place_copy_.resize(static_cast<std::size_t>(span));
    }
  }

  void rebind(const void* sendbuf, void* recvbuf) override { args_.move_buffers(sendbuf, recvbuf); }

  void start() override {
    const Comm& comm = *args_.comm;
    char* recv = static_cast<char*>(args_.recvbuf);
    if (args_.in_place && !in_place_copy_.empty())
      std::memcpy(in_place_copy_.data(), recv, in_place_copy_.size());
    const char* send = args_.in_place ? in_place_copy_.data() : static_cast<const char*>(args_.sendbuf);
    requests_.clear();
    phase_requests_.clear();
    // What comes down from the leader (or, on the leader, up from its node
    // and across from the other leaders) is posted first.
    if (!is_leader_) {
      if (!down_type_.empty()) post_recv(recv, 1, down_type_.get(), leader_, down_tag, requests_);
    } else {
      for (std::size_t l = 1; l < local_.size(); ++l)
        if (!staging_[l].empty())
          post_recv(staging_[l].data(), static_cast<int>(staging_[l].size()), MPI_BYTE, local_[l], up_tag,
                    phase_requests_);
      for (std::size_t m = 0; m < leaders_.size(); ++m)
        if (!incoming_[m].empty())
          post_recv(incoming_[m].data(), static_cast<int>(incoming_[m].size()), MPI_BYTE, leaders_[m], across_tag,
                    across_requests_);
    }
    for (const Direct& d : direct_recvs_)
      post_recv(recv + d.offset, static_cast<int>(args_.recv_bytes(d.peer)), MPI_BYTE, d.peer, direct_tag, requests_);
    // Up, direct, self.
    if (!is_leader_) {
      if (!up_type_.empty()) post_send(send, 1, up_type_.get(), leader_, up_tag, requests_);
    } else {
      pack_own(send);
    }
    for (const Direct& d : direct_sends_)
      post_send(send + d.offset, static_cast<int>(args_.send_bytes(d.peer)), MPI_BYTE, d.peer, direct_tag, requests_);
    const int me = comm.rank();
    if (self_bytes_ > 0)
      std::memmove(recv + args_.rdispls[me] * args_.recv_layout.extent,
                   send + args_.sdispls[me] * args_.send_layout.extent, self_bytes_);
    phase_ = is_leader_ ? Phase::up : Phase::finishing;
  }

  bool test() override { return progress(); }

  void wait() override {
    for (unsigned polls = 0; !progress();) {
      if (mpi_implementation::polls_cost_time()) {
        std::vector<MPI_Request>& pending = phase_ == Phase::up       ? phase_requests_
                                            : phase_ == Phase::across ? across_requests_
                                                                      : requests_;
        mpi_check(MPI_Waitall(static_cast<int>(pending.size()), pending.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      } else if (++polls % 64 == 0) {
        std::this_thread::yield();
      }
    }
  }

 private:
  enum class Phase { up, across, finishing, done };
  struct Direct {
    int peer;
    MPI_Aint offset;
  };

  // The leader's plan: staging buffers for its node's ranks' blocks, the
  // messages across (one per other node, through a datatype over the
  // staging buffers at their fixed addresses) and down (one per rank of
  // its node, over the incoming buffers).
  void plan_leader(const std::vector<long>& bytes_for_node, const std::vector<int>& recv_from) {
    const Comm& comm = *args_.comm;
    const int p = comm.size();
    const std::size_t nodes = leaders_.size(), locals = local_.size();
    staging_.resize(locals);
    std::vector<std::vector<MPI_Aint>> node_offset(locals, std::vector<MPI_Aint>(nodes + 1, 0));
    for (std::size_t l = 0; l < locals; ++l) {
      for (std::size_t m = 0; m < nodes; ++m) node_offset[l][m + 1] = node_offset[l][m] + bytes_for_node[l * nodes + m];
      staging_[l].resize(static_cast<std::size_t>(node_offset[l][nodes]));
    }
    across_types_.resize(nodes);
    for (std::size_t m = 0; m < nodes; ++m) {
      if (comm.node_of(leaders_[m]) == comm.node_id()) continue;
      std::vector<Segment> segments;
      for (std::size_t l = 0; l < locals; ++l) {
        MPI_Aint base = 0;
        mpi_check(MPI_Get_address(staging_[l].data(), &base), "MPI_Get_address");
        segments.push_back({base + node_offset[l][m], static_cast<int>(bytes_for_node[l * nodes + m])});
      }
      across_types_[m] = OwnedType(segments_type(segments));
    }
    // What arrives from node m: for each of its ranks i, i's blocks for
    // each rank j of this node, j ascending.
    incoming_.resize(nodes);
    std::vector<std::vector<Segment>> down(locals);
    for (std::size_t m = 0; m < nodes; ++m) {
      if (comm.node_of(leaders_[m]) == comm.node_id()) continue;
      std::size_t at = 0;
      std::vector<std::pair<std::size_t, std::size_t>> spans;  // (local rank index, bytes) in arrival order
      for (int i = 0; i < p; ++i) {
        if (comm.node_of(i) != comm.node_of(leaders_[m])) continue;
        for (std::size_t j = 0; j < locals; ++j) {
          const int bytes = recv_from[j * static_cast<std::size_t>(p) + static_cast<std::size_t>(i)];
          spans.push_back({j, static_cast<std::size_t>(bytes)});
          at += static_cast<std::size_t>(bytes);
        }
      }
      incoming_[m].resize(at);
      MPI_Aint base = 0;
      mpi_check(MPI_Get_address(incoming_[m].data(), &base), "MPI_Get_address");
      MPI_Aint offset = 0;
      for (const auto& [j, bytes] : spans) {
        down[j].push_back({base + offset, static_cast<int>(bytes)});
        if (j == 0) own_down_.push_back({m, offset, bytes});
        offset += static_cast<MPI_Aint>(bytes);
      }
    }
    down_types_.resize(locals);
    for (std::size_t j = 1; j < locals; ++j) down_types_[j] = OwnedType(segments_type(down[j]));
  }

  // The leader's own blocks for the other nodes into its staging buffer,
  // in protocol order (the segments worked out at init).
  void pack_own(const char* send) {
    char* to = staging_[0].data();
    for (const Segment& segment : up_segments_) {
      if (segment.bytes > 0) std::memcpy(to, send + segment.offset, static_cast<std::size_t>(segment.bytes));
      to += segment.bytes;
    }
  }

  // The leader's own blocks from the other nodes, out of the incoming
  // buffers: own_down_ and down_segments_ list them in the same order.
  void unpack_own(char* recv) {
    for (std::size_t k = 0; k < own_down_.size(); ++k)
      if (own_down_[k].bytes > 0)
        std::memcpy(recv + down_segments_[k].offset, incoming_[own_down_[k].node].data() + own_down_[k].offset,
                    own_down_[k].bytes);
  }

  void post_recv(void* buffer, int count, MPI_Datatype type, int peer, int tag, std::vector<MPI_Request>& into) {
    MPI_Request r = MPI_REQUEST_NULL;
    mpi_check(MPI_Irecv(buffer, count, type, peer, tag, args_.comm->global(), &r), "MPI_Irecv");
    into.push_back(r);
  }
  void post_send(const void* buffer, int count, MPI_Datatype type, int peer, int tag, std::vector<MPI_Request>& into) {
    MPI_Request r = MPI_REQUEST_NULL;
    mpi_check(MPI_Isend(buffer, count, type, peer, tag, args_.comm->global(), &r), "MPI_Isend");
    if (!args_.comm->same_node(peer)) off_node_messages.fetch_add(1, std::memory_order_relaxed);
    into.push_back(r);
  }
  static bool all_done(std::vector<MPI_Request>& requests) {
    int done = 0;
    mpi_check(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
    return done != 0;
  }

  bool progress() {
    if (phase_ == Phase::up && all_done(phase_requests_)) {
      // Every rank's blocks are staged: one message to each other leader.
      for (std::size_t m = 0; m < leaders_.size(); ++m)
        if (!across_types_[m].empty())
          post_send(MPI_BOTTOM, 1, across_types_[m].get(), leaders_[m], across_tag, requests_);
      phase_ = Phase::across;
    }
    if (phase_ == Phase::across && all_done(across_requests_)) {
      // Everything for this node has arrived: one message down to each rank.
      for (std::size_t j = 1; j < local_.size(); ++j)
        if (!down_types_[j].empty()) post_send(MPI_BOTTOM, 1, down_types_[j].get(), local_[j], down_tag, requests_);
      unpack_own(static_cast<char*>(args_.recvbuf));
      across_requests_.clear();
      phase_ = Phase::finishing;
    }
    if (phase_ == Phase::finishing && all_done(requests_)) phase_ = Phase::done;
    return phase_ == Phase::done;
  }

  struct OwnDown {
    std::size_t node;
    MPI_Aint offset;
    std::size_t bytes;
  };

  AlltoallvArgs args_;
  std::vector<int> local_, leaders_;
  int leader_ = 0;
  bool is_leader_ = false;
  OwnedType up_type_, down_type_;
  // This rank's blocks for and from the other nodes, in protocol order:
  // offsets into sendbuf and recvbuf.
  std::vector<Segment> up_segments_, down_segments_;
  std::vector<Direct> direct_sends_, direct_recvs_;
  std::size_t self_bytes_ = 0;
  std::vector<char> in_place_copy_;  // MPI_IN_PLACE: the send blocks, taken at Start
  // The leader's.
  std::vector<std::vector<char>> staging_, incoming_;
  std::vector<OwnedType> across_types_, down_types_;
  std::vector<OwnDown> own_down_;  // its blocks from other nodes, in arrival order
  std::vector<MPI_Request> requests_, phase_requests_, across_requests_;
  Phase phase_ = Phase::done;
};

}  // namespace

std::uint64_t node_aggregated_off_node_messages() { return off_node_messages.load(std::memory_order_relaxed); }

namespace alltoall_rows {
extern const AlltoallvAlgorithm node_aggregated{
    "node_aggregated",
    "node-aware aggregation, one leader per node: a node's blocks for each other node travel as one message "
    "between leaders (gathered up and scattered down through datatypes)",
    runs_any_arguments, make_operation<NodeAggregated>};
}  // namespace alltoall_rows

}  // namespace mpix
