#include "intercept/claimed_exchanges.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "intercept/errors_return_duplicate.hpp"
#include "intercept/inside_drop_in.hpp"
#include "intercept/intercept_config.hpp"
#include "intercept/served_exchanges.hpp"
#include "src/datatype_layout.hpp"
#include "src/error.hpp"
#include "src/library.hpp"

// Without MPI-4's persistent collectives the drop-in stands in for no
// completion call (served_requests.cpp), so it serves no nonblocking call.
#if MPI_VERSION >= 4

namespace mpix::intercept {

namespace {

int state_keyval = MPI_KEYVAL_INVALID;     // a communicator's state
int finalize_keyval = MPI_KEYVAL_INVALID;  // on MPI_COMM_SELF: frees them all at MPI_Finalize
std::once_flag keyvals_made;
std::mutex live_mutex;
std::set<ClaimedExchanges*> live;
// A communicator's set-up costs its making about half a millisecond (its
// boards made and mapped): a program that makes communicators and never
// makes a nonblocking exchange on them, or makes and frees them in a
// loop, stops paying it once it has freed this many set up for nothing.
constexpr long unused_set_ups_limit = 16;
std::atomic<long> unused_set_ups{0};  // this process's, so far

// The state of the communicator this thread last called on, valid while no
// state has been made or deleted since (a communicator's handle may come
// back for another one): a call costs no attribute lookup.
std::atomic<unsigned long> states_changed{0};
struct LastComm {
  MPI_Comm comm = MPI_COMM_NULL;
  ClaimedExchanges* state = nullptr;
  unsigned long changes = ~0ul;
};
__attribute__((tls_model("initial-exec"))) thread_local LastComm last_comm;

int delete_state(MPI_Comm, int, void* value, void*) {
  auto* state = static_cast<ClaimedExchanges*>(value);
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    live.erase(state);
  }
  states_changed.fetch_add(1, std::memory_order_release);
  InsideDropIn guard;
  delete state;
  return MPI_SUCCESS;
}

int finalize_states(MPI_Comm, int, void*, void*) {
  ClaimedExchanges::free_all();
  return MPI_SUCCESS;
}

int verbosity() {
  try {
    return Library::get().config().verbose;
  } catch (...) {
    return 0;
  }
}

// Rank 0 of comm says why what (its nonblocking exchanges, or some of
// them) goes to the MPI, naming where it was made (a new communicator has
// no name yet).
void report_refusal(MPI_Comm comm, const char* made_by, const std::string& why,
                    const char* what = "nonblocking exchanges go") {
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank != 0 || verbosity() < 1) return;
  PMPI_Comm_size(comm, &size);
  std::fprintf(stderr, "mpix-rma intercept: %s: the communicator of %d ranks it made: %s to the MPI: %s\n", made_by,
               size, what, why.c_str());
}

}  // namespace

void ClaimedExchanges::set_up(MPI_Comm comm, const char* made_by) {
  if (comm == MPI_COMM_NULL) return;
  int inter = 0, size = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return;
  if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size < 2) return;
  InsideDropIn guard;  // the library's calls underneath are the MPI's own
  const double begin = MPI_Wtime();
  InterceptConfig settings;
  try {
    settings = Library::get().config().section<InterceptConfig>();
  } catch (...) {
    settings.enabled = false;  // an unusable MPIX_* setting: this rank votes no
  }
  // This rank's vote: whether it serves (Refusal: the largest any rank
  // has decides), and its settings, which must be every rank's.
  enum Refusal : std::int64_t { none, no_room, unused, off };
  int reserved = 0;
  Refusal refusal = none;
  if (!(settings.enabled && settings.nonblocking)) {
    refusal = off;
  } else if (unused_set_ups.load(std::memory_order_relaxed) >= unused_set_ups_limit) {
    refusal = unused;
  } else {
    while (reserved < ClaimedCalls::slots && reserve_served_request()) ++reserved;
    if (reserved < ClaimedCalls::slots) refusal = no_room;
  }
  const auto settings_hash = static_cast<std::int64_t>(fingerprint(settings));
  std::int64_t votes[3] = {refusal, settings_hash, -settings_hash};
  const int rc = PMPI_Allreduce(MPI_IN_PLACE, votes, 3, MPI_INT64_T, MPI_MAX, comm);
  const auto refuse = [&](const std::string& why) {
    for (; reserved > 0; --reserved) release_served_request();
    report_refusal(comm, made_by, why);
  };
  if (rc != MPI_SUCCESS) return refuse("the set-up's vote failed");
  if (votes[0] == off) return refuse("a rank has MPIX_INTERCEPT or MPIX_INTERCEPT_NONBLOCKING off");
  if (votes[0] == unused)
    return refuse("a rank has freed " + std::to_string(unused_set_ups_limit) +
                  " communicators set up for them without a nonblocking exchange, and sets up no more");
  if (votes[0] == no_room) return refuse("a rank has no room for more served requests");
  if (votes[1] != -votes[2]) return refuse("the ranks' MPIX_INTERCEPT* settings differ");
  // The library's communicator, over a duplicate that returns errors.
  MPI_Comm library_comm = errors_return_duplicate(comm);
  if (library_comm == MPI_COMM_NULL) return refuse("no duplicate of the communicator");
  MPIX_Comm* xcomm = nullptr;
  if (MPIX_Comm_init(&xcomm, library_comm) != MPI_SUCCESS) {  // fails on every rank alike
    PMPI_Comm_free(&library_comm);
    return refuse("the library's communicator failed");
  }
  std::unique_ptr<ClaimedCalls> calls;
  std::string why;
  if (xcomm->comm->num_nodes() != 1) {
    why = "its ranks span nodes";
  } else {
    try {
      calls = std::make_unique<ClaimedCalls>(xcomm->comm);  // fails on every rank alike
    } catch (const std::exception& e) {
      why = e.what();
    }
  }
  if (calls == nullptr) {
    MPIX_Comm_free(&xcomm);
    PMPI_Comm_free(&library_comm);
    return refuse(why);
  }
  auto* state = new ClaimedExchanges(comm, library_comm, xcomm, std::move(calls), Graph::of(comm),
                                     settings.blocking == BlockingPath::claimed);
  for (; reserved > 0; --reserved) state->add_shot();
  state->setup_seconds_ = MPI_Wtime() - begin;
  std::call_once(keyvals_made, [] {
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &state_keyval, nullptr);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_states, &finalize_keyval, nullptr);
    PMPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, nullptr);
  });
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    live.insert(state);
  }
  PMPI_Comm_set_attr(comm, state_keyval, state);
  states_changed.fetch_add(1, std::memory_order_release);
}

ClaimedExchanges* ClaimedExchanges::of(MPI_Comm comm) {
  if (state_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL) return nullptr;
  const unsigned long changes = states_changed.load(std::memory_order_acquire);
  if (comm == last_comm.comm && changes == last_comm.changes) return last_comm.state;
  int flag = 0;
  void* value = nullptr;
  ClaimedExchanges* state = nullptr;
  if (PMPI_Comm_get_attr(comm, state_keyval, &value, &flag) == MPI_SUCCESS && flag)
    state = static_cast<ClaimedExchanges*>(value);
  last_comm = {comm, state, changes};
  return state;
}

void ClaimedExchanges::free_all() {
  std::set<ClaimedExchanges*> states;
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    states = live;
  }
  for (ClaimedExchanges* s : states) PMPI_Comm_delete_attr(s->comm_, state_keyval);
  free_retired_proxies();  // theirs too, whichever finalizing callback ran first
}

ClaimedExchanges::ClaimedExchanges(MPI_Comm comm, MPI_Comm library_comm, MPIX_Comm* xcomm,
                                   std::unique_ptr<ClaimedCalls> calls, Graph graph, bool serves_blocking)
    : comm_(comm),
      library_comm_(library_comm),
      xcomm_(xcomm),
      calls_(std::move(calls)),
      serves_blocking_(serves_blocking),
      graph_(std::move(graph)) {
  PMPI_Comm_size(comm, &size_);
  send_blocks_.resize(static_cast<std::size_t>(size_));
  recv_blocks_.resize(static_cast<std::size_t>(size_));
  packing_at_.resize(static_cast<std::size_t>(size_));
  listed_.resize(static_cast<std::size_t>(size_));
}

ClaimedExchanges::Graph ClaimedExchanges::Graph::of(MPI_Comm comm) {
  Graph graph;
  int topology = MPI_UNDEFINED, indegree = 0, outdegree = 0, weighted = 0;
  if (PMPI_Topo_test(comm, &topology) != MPI_SUCCESS || topology != MPI_DIST_GRAPH ||
      PMPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted) != MPI_SUCCESS)
    return graph;
  graph.sources.resize(static_cast<std::size_t>(indegree));
  graph.destinations.resize(static_cast<std::size_t>(outdegree));
  std::vector<int> source_weights(graph.sources.size() + 1), destination_weights(graph.destinations.size() + 1);
  if (PMPI_Dist_graph_neighbors(comm, indegree, graph.sources.data(), source_weights.data(), outdegree,
                                graph.destinations.data(), destination_weights.data()) != MPI_SUCCESS)
    return {};
  graph.served = true;
  return graph;
}

ClaimedExchanges::~ClaimedExchanges() {
  long calls = 0;
  for (const Served* served : {&alltoallv_, &alltoall_, &neighbor_alltoallv_})
    calls += served->nonblocking_calls + served->blocking_calls;
  int rank = 0;
  PMPI_Comm_rank(comm_, &rank);
  // A communicator whose exchanges never came here (a Cartesian one whose
  // neighbourhood calls go to the MPI) has nothing to report.
  if (rank == 0 && verbosity() >= 1 && calls > 0) {
    char name[MPI_MAX_OBJECT_NAME] = "";
    int length = 0;
    PMPI_Comm_get_name(comm_, name, &length);
    std::fprintf(stderr,
                 "mpix-rma intercept: communicator '%s' of %d ranks, claimed calls: %ld MPI_Ialltoallv, "
                 "%ld MPI_Ialltoall and %ld MPI_Ineighbor_alltoallv calls served; %ld MPI_Alltoallv, %ld "
                 "MPI_Alltoall and %ld MPI_Neighbor_alltoallv calls the agreed path passed on (set-up %.2f ms)\n",
                 name, size_, alltoallv_.nonblocking_calls, alltoall_.nonblocking_calls,
                 neighbor_alltoallv_.nonblocking_calls, alltoallv_.blocking_calls, alltoall_.blocking_calls,
                 neighbor_alltoallv_.blocking_calls, 1e3 * setup_seconds_);
  }
  if (calls == 0)
    unused_set_ups.fetch_add(1, std::memory_order_relaxed);
  for (std::unique_ptr<Shot>& shot : shots_) {
    // A call still in flight (the communicator freed before its
    // completion, as MPI allows) completes first: the peers' copies into
    // and out of this rank's buffers end with it. It keeps its proxy (the
    // program holds it), which completes at once from now on.
    const bool in_flight = shot->entry->active;
    try {
      if (in_flight && !shot->entry->finished) {
        calls_->wait(shot->number);
        shot->progress();  // its unpacking
      }
    } catch (const Error&) {
      // Its error was the peer's too; nothing more moves.
    }
    forget_served_request(shot->proxy);
    if (!in_flight) retire_proxy(&shot->proxy);
  }
  calls_.reset();
  MPIX_Comm_free(&xcomm_);
  PMPI_Comm_free(&library_comm_);
}

bool ClaimedExchanges::add_shot() {
  auto shot = std::make_unique<Shot>();
  shot->owner = this;
  if (make_proxy(&shot->proxy) != MPI_SUCCESS) {
    release_served_request();
    return false;
  }
  ServedRequest entry;
  entry.once = shot.get();
  entry.comm = comm_;
  shot->entry = adopt_served_request(shot->proxy, entry);
  shots_.push_back(std::move(shot));
  return true;
}

ClaimedExchanges::Shot& ClaimedExchanges::free_shot() {
  // The first free one: a program with one call in flight at a time reuses
  // one shot, whose packed blocks stay in its cache.
  for (std::unique_ptr<Shot>& shot : shots_)
    if (!shot->entry->active) return *shot;
  // More calls in flight, their completions unreported, than shots so far.
  if (!reserve_served_request() || !add_shot())
    throw Error(MPI_ERR_INTERN, "no room for another served request: " + std::to_string(shots_.size()) +
                                    " nonblocking exchanges of this communicator are in flight");
  return *shots_.back();
}

namespace {

// Counts MPI accepts: none negative, and none positive over a NULL buffer.
bool counts_valid(int entries, const int counts[], const void* buffer) {
  if (entries == 0) return true;
  if (counts == nullptr) return false;
  for (int k = 0; k < entries; ++k)
    if (counts[k] < 0 || (counts[k] > 0 && buffer == nullptr)) return false;
  return true;
}

// MPI_IN_PLACE, and a receive buffer that is the send buffer, MPI asks of
// every rank or none.
bool buffers_valid(const void* sendbuf, const void* recvbuf) {
  return sendbuf != MPI_IN_PLACE && sendbuf != recvbuf;
}

}  // namespace

bool ClaimedExchanges::servable(const void* sendbuf, const int sendcounts[], const int sdispls[], const void* recvbuf,
                                const int recvcounts[], const int rdispls[]) const {
  return buffers_valid(sendbuf, recvbuf) && counts_valid(size_, sendcounts, sendbuf) &&
         counts_valid(size_, recvcounts, recvbuf) && sdispls != nullptr && rdispls != nullptr;
}

bool ClaimedExchanges::servable(const void* sendbuf, int sendcount, const void* recvbuf, int recvcount) const {
  return buffers_valid(sendbuf, recvbuf) && sendcount >= 0 && recvcount >= 0 &&
         (sendcount == 0 || sendbuf != nullptr) && (recvcount == 0 || recvbuf != nullptr);
}

bool ClaimedExchanges::servable_on_graph(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                         const void* recvbuf, const int recvcounts[], const int rdispls[]) const {
  return graph() && buffers_valid(sendbuf, recvbuf) &&
         (outdegree() == 0 || (counts_valid(outdegree(), sendcounts, sendbuf) && sdispls != nullptr)) &&
         (indegree() == 0 || (counts_valid(indegree(), recvcounts, recvbuf) && rdispls != nullptr));
}

MPI_Count ClaimedExchanges::Direction::count(int k) const {
  return counts != nullptr ? counts[k] : uniform_count;
}
MPI_Aint ClaimedExchanges::Direction::displ(int k) const {
  return counts != nullptr ? displs[k] : static_cast<MPI_Aint>(k) * uniform_count;
}

char* ClaimedExchanges::describe(const Direction& d, const char* argument, bool send, std::vector<char>& packed,
                                 std::vector<MPI_Count>& packed_at, std::vector<ClaimedCalls::Block>& blocks) {
  const DatatypeLayout layout = DatatypeLayout::of(d.type, argument);
  for (ClaimedCalls::Block& b : blocks) b = {};
  // A rank listed more than once (a graph's repeated neighbour) gets one
  // block, its segments in the order listed: MPI matches the k-th message
  // between two ranks with the k-th (non-overtaking), so the sender's
  // segments, end to end, are the receiver's. Where they lie end to end
  // in the buffer already (a ring of two ranks, with consecutive
  // displacements), the block is read in place.
  bool in_place = layout.contiguous;
  for (int k = 0; k < d.blocks && in_place; ++k) {
    ClaimedCalls::Block& b = blocks[static_cast<std::size_t>(d.rank(k))];
    const MPI_Aint offset = d.displ(k) * layout.extent;
    const auto bytes = static_cast<std::size_t>(d.count(k) * layout.size);
    if (b.bytes == 0)
      b = {offset, bytes};
    else if (bytes > 0 && offset == b.offset + static_cast<MPI_Aint>(b.bytes))
      b.bytes += bytes;
    else if (bytes > 0)
      in_place = false;
  }
  if (in_place) {
    note_splits(d, layout, blocks);
    return d.buffer;
  }
  // Packed, each rank's segments end to end, ranks in order; sent blocks
  // packed now, received ones unpacked at completion (Shot::progress, from
  // packed_at).
  for (ClaimedCalls::Block& b : blocks) b = {};
  for (int k = 0; k < d.blocks; ++k)
    blocks[static_cast<std::size_t>(d.rank(k))].bytes += static_cast<std::size_t>(d.count(k) * layout.size);
  MPI_Count total = 0;
  for (std::size_t r = 0; r < blocks.size(); ++r) {
    blocks[r].offset = static_cast<MPI_Aint>(total);
    packing_at_[r] = total;
    total += static_cast<MPI_Count>(blocks[r].bytes);
  }
  packed.resize(static_cast<std::size_t>(total) + 1);  // never empty: a base to count from
  packed_at.resize(static_cast<std::size_t>(d.blocks));
  for (int k = 0; k < d.blocks; ++k) {
    MPI_Count& next = packing_at_[static_cast<std::size_t>(d.rank(k))];
    MPI_Count position = next;
    packed_at[static_cast<std::size_t>(k)] = position;
    next += d.count(k) * layout.size;
    if (send && d.count(k) > 0) {
      const int rc = PMPI_Pack_c(d.buffer + d.displ(k) * layout.extent, d.count(k), d.type, packed.data(), total,
                                 &position, library_comm_);
      if (rc != MPI_SUCCESS) throw Error(rc, std::string("packing the blocks of ") + argument + " failed");
    }
  }
  note_splits(d, layout, blocks);
  return packed.data();
}

void ClaimedExchanges::note_splits(const Direction& d, const DatatypeLayout& layout,
                                   std::vector<ClaimedCalls::Block>& blocks) {
  if (d.ranks == nullptr) return;  // every rank listed once
  std::fill(listed_.begin(), listed_.end(), 0);
  for (int k = 0; k < d.blocks; ++k) {
    const auto r = static_cast<std::size_t>(d.rank(k));
    ++listed_[r];
    const auto bytes = static_cast<std::uint64_t>(d.count(k) * layout.size);
    blocks[r].split = (blocks[r].split ^ bytes) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;  // order counts
  }
  for (std::size_t r = 0; r < blocks.size(); ++r)
    blocks[r].split = listed_[r] > 1 ? blocks[r].split | 1 : 0;  // never 0 where split
}

int ClaimedExchanges::issue(const char* function, const Direction& send, const Direction& recv, MPI_Request* request) {
  try {
    Shot& shot = free_shot();
    const char* send_base = describe(send, "sendtype", true, shot.send_packed, packed_at_, send_blocks_);
    char* recv_base = describe(recv, "recvtype", false, shot.recv_packed, shot.recv_packed_at, recv_blocks_);
    shot.unpacked = recv_base == recv.buffer;
    shot.recv = recv;
    shot.number = calls_->start(send_base, send_blocks_.data(), recv_base, recv_blocks_.data());
    if (const int rc = PMPI_Start(&shot.proxy); rc != MPI_SUCCESS) throw Error(rc, "starting the request's proxy failed");
    served_call_started(*shot.entry);
    *request = shot.proxy;
    return MPI_SUCCESS;
  } catch (const Error& e) {
    return mpix::raise(comm_, function, e.code(), e.what());
  }
}

bool ClaimedExchanges::Shot::progress() {
  if (!owner->calls_->progress(number)) return false;
  if (!unpacked) {
    unpacked = true;
    owner->unpack(recv, recv_packed, recv_packed_at);
  }
  return true;
}

void ClaimedExchanges::unpack(const Direction& recv, const std::vector<char>& packed,
                              const std::vector<MPI_Count>& packed_at) const {
  const DatatypeLayout layout = DatatypeLayout::of(recv.type, "recvtype");
  const auto total = static_cast<MPI_Count>(packed.size() - 1);
  for (int k = 0; k < recv.blocks; ++k) {
    if (recv.count(k) == 0) continue;
    MPI_Count position = packed_at[static_cast<std::size_t>(k)];
    const int rc = PMPI_Unpack_c(packed.data(), total, &position, recv.buffer + recv.displ(k) * layout.extent,
                                 recv.count(k), recv.type, library_comm_);
    if (rc != MPI_SUCCESS) throw Error(rc, "unpacking the received blocks failed");
  }
}

int ClaimedExchanges::run(Served& served, const Direction& send, const Direction& recv) {
  try {
    const char* send_base = describe(send, "sendtype", true, send_packed_, packed_at_, send_blocks_);
    char* recv_base = describe(recv, "recvtype", false, recv_packed_, recv_packed_at_, recv_blocks_);
    std::uint64_t largest = 0;
    for (const std::vector<ClaimedCalls::Block>* blocks : {&send_blocks_, &recv_blocks_})
      for (const ClaimedCalls::Block& b : *blocks) largest = std::max<std::uint64_t>(largest, b.bytes);
    const std::uint64_t number = calls_->start(send_base, send_blocks_.data(), recv_base, recv_blocks_.data(),
                                               served.notes_largest_block ? &largest : nullptr);
    // The peers' calls are all this one waits for; the MPI progresses
    // between polls, as it would inside its own call: a peer may sit in an
    // MPI call that needs this rank's progress before it makes its own.
    // Counted on every rank alike, also where the call fails on this rank:
    // an MPI_ERR_TRUNCATE is raised once the call is complete (every note
    // read); a copy that failed ends the call sooner, with the notes read
    // so far (the program has the error, on both ranks of the transfer).
    const auto noted = [&] {
      if (served.notes_largest_block) served.largest = {served.largest.calls + 1, calls_->most_noted(number)};
    };
    try {
      calls_->wait(number);
    } catch (const Error&) {
      noted();
      throw;
    }
    noted();
    if (recv_base != recv.buffer) unpack(recv, recv_packed_, recv_packed_at_);
    return MPI_SUCCESS;
  } catch (const Error& e) {
    return mpix::raise(comm_, served.blocking, e.code(), e.what());
  }
}

int ClaimedExchanges::exchange(Served& served, const Direction& send, const Direction& recv, MPI_Request* request) {
  if (request == nullptr) {
    ++served.blocking_calls;
    return run(served, send, recv);
  }
  ++served.nonblocking_calls;
  return issue(served.nonblocking, send, recv, request);
}

int ClaimedExchanges::alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                                void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                                MPI_Request* request) {
  return exchange(alltoallv_,
                  {static_cast<char*>(const_cast<void*>(sendbuf)), sendcounts, sdispls, 0, sendtype, nullptr, size_},
                  {static_cast<char*>(recvbuf), recvcounts, rdispls, 0, recvtype, nullptr, size_}, request);
}

int ClaimedExchanges::alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Request* request) {
  return exchange(
      alltoall_,
      {static_cast<char*>(const_cast<void*>(sendbuf)), nullptr, nullptr, sendcount, sendtype, nullptr, size_},
      {static_cast<char*>(recvbuf), nullptr, nullptr, recvcount, recvtype, nullptr, size_}, request);
}

int ClaimedExchanges::neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                         MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                         const int rdispls[], MPI_Datatype recvtype, MPI_Request* request) {
  return exchange(neighbor_alltoallv_,
                  {static_cast<char*>(const_cast<void*>(sendbuf)), sendcounts, sdispls, 0, sendtype,
                   graph_.destinations.data(), outdegree()},
                  {static_cast<char*>(recvbuf), recvcounts, rdispls, 0, recvtype, graph_.sources.data(), indegree()},
                  request);
}

}  // namespace mpix::intercept

using mpix::intercept::inside_drop_in;
using mpix::intercept::InsideDropIn;
using mpix::intercept::ClaimedExchanges;
using mpix::intercept::set_up_after;

int mpix::intercept::set_up_after(int rc, const MPI_Comm* newcomm, const char* made_by) {
  if (rc == MPI_SUCCESS && !inside_drop_in) ClaimedExchanges::set_up(*newcomm, made_by);
  return rc;
}

extern "C" int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  ClaimedExchanges* state = inside_drop_in ? nullptr : ClaimedExchanges::of(comm);
  if (state == nullptr || request == nullptr ||
      !state->servable(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls))
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                           request);
  InsideDropIn guard;
  return state->alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, request);
}

extern "C" int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  ClaimedExchanges* state = inside_drop_in ? nullptr : ClaimedExchanges::of(comm);
  if (state == nullptr || request == nullptr || !state->servable(sendbuf, sendcount, recvbuf, recvcount))
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  InsideDropIn guard;
  return state->alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, request);
}

extern "C" int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                       MPI_Request* request) {
  ClaimedExchanges* state = inside_drop_in ? nullptr : ClaimedExchanges::of(comm);
  if (state == nullptr || request == nullptr ||
      !state->servable_on_graph(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls))
    return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                    comm, request);
  InsideDropIn guard;
  return state->neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                   request);
}

namespace mpix::intercept {

int unserved_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm) {
  ClaimedExchanges* state = ClaimedExchanges::of(comm);
  if (state == nullptr || !state->serves_blocking() ||
      !state->servable(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls))
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  InsideDropIn guard;
  return state->alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, nullptr);
}

int unserved_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm) {
  ClaimedExchanges* state = ClaimedExchanges::of(comm);
  if (state == nullptr || !state->serves_blocking() || !state->servable(sendbuf, sendcount, recvbuf, recvcount))
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  InsideDropIn guard;
  return state->alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, nullptr);
}

int unserved_neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm) {
  ClaimedExchanges* state = ClaimedExchanges::of(comm);
  if (state == nullptr || !state->serves_blocking() ||
      !state->servable_on_graph(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls))
    return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                   comm);
  InsideDropIn guard;
  return state->neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                   nullptr);
}

}  // namespace mpix::intercept

// The constructors where a communicator's nonblocking exchanges are set up.

static const MPI_Comm world = MPI_COMM_WORLD;

extern "C" int MPI_Init(int* argc, char*** argv) {
  return set_up_after(PMPI_Init(argc, argv), &world, "MPI_Init");
}

extern "C" int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return set_up_after(PMPI_Init_thread(argc, argv, required, provided), &world, "MPI_Init_thread");
}

extern "C" int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return set_up_after(PMPI_Comm_dup(comm, newcomm), newcomm, "MPI_Comm_dup");
}

extern "C" int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return set_up_after(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm, "MPI_Comm_dup_with_info");
}

extern "C" int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return set_up_after(PMPI_Comm_split(comm, color, key, newcomm), newcomm, "MPI_Comm_split");
}

extern "C" int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  return set_up_after(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm, "MPI_Comm_split_type");
}

extern "C" int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return set_up_after(PMPI_Comm_create(comm, group, newcomm), newcomm, "MPI_Comm_create");
}

extern "C" int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  return set_up_after(PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm, "MPI_Comm_create_group");
}

extern "C" int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  return set_up_after(PMPI_Intercomm_merge(intercomm, high, newintracomm), newintracomm, "MPI_Intercomm_merge");
}

extern "C" int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                               MPI_Comm* comm_cart) {
  return set_up_after(PMPI_Cart_create(comm, ndims, dims, periods, reorder, comm_cart), comm_cart, "MPI_Cart_create");
}

extern "C" int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  return set_up_after(PMPI_Cart_sub(comm, remain_dims, newcomm), newcomm, "MPI_Cart_sub");
}

extern "C" int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                                MPI_Comm* comm_graph) {
  return set_up_after(PMPI_Graph_create(comm, nnodes, index, edges, reorder, comm_graph), comm_graph,
                      "MPI_Graph_create");
}

extern "C" int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                              const int sourceweights[], int outdegree, const int destinations[],
                                              const int destweights[], MPI_Info info, int reorder,
                                              MPI_Comm* newcomm) {
  return set_up_after(PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations,
                                                      destweights, info, reorder, newcomm),
                      newcomm, "MPI_Dist_graph_create_adjacent");
}

extern "C" int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                                     const int destinations[], const int weights[], MPI_Info info, int reorder,
                                     MPI_Comm* newcomm) {
  return set_up_after(
      PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder, newcomm), newcomm,
      "MPI_Dist_graph_create");
}

#endif  // MPI_VERSION >= 4
