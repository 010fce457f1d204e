#include "intercept/nonblocking_exchanges.hpp"

#include <sched.h>

#include <cstdio>
#include <mutex>
#include <set>

#include "capi/guard.hpp"
#include "capi/handles.hpp"
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
std::set<NonblockingExchanges*> live;

int delete_state(MPI_Comm, int, void* value, void*) {
  auto* state = static_cast<NonblockingExchanges*>(value);
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    live.erase(state);
  }
  InsideDropIn guard;
  delete state;
  return MPI_SUCCESS;
}

int finalize_states(MPI_Comm, int, void*, void*) {
  NonblockingExchanges::free_all();
  return MPI_SUCCESS;
}

int verbosity() {
  try {
    return Library::get().config().verbose;
  } catch (...) {
    return 0;
  }
}

// Rank 0 of comm says why its nonblocking exchanges go to the MPI.
void report_refusal(MPI_Comm comm, const std::string& why) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank != 0 || verbosity() < 1) return;
  char name[MPI_MAX_OBJECT_NAME] = "";
  int length = 0;
  PMPI_Comm_get_name(comm, name, &length);
  std::fprintf(stderr, "mpix-rma intercept: communicator '%s': nonblocking exchanges go to the MPI: %s\n", name,
               why.c_str());
}

}  // namespace

void NonblockingExchanges::set_up(MPI_Comm comm) {
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
  // This rank's vote: whether it serves (2: off; 1: on, but its request
  // table has no room for a proxy per slot; 0: it serves), and its
  // settings, which must be every rank's.
  int reserved = 0;
  if (settings.enabled && settings.nonblocking)
    while (reserved < ClaimedCalls::slots && reserve_served_request()) ++reserved;
  const auto settings_hash = static_cast<std::int64_t>(fingerprint(settings));
  const std::int64_t refusal = !(settings.enabled && settings.nonblocking) ? 2 : reserved < ClaimedCalls::slots ? 1 : 0;
  std::int64_t votes[3] = {refusal, settings_hash, -settings_hash};
  const int rc = PMPI_Allreduce(MPI_IN_PLACE, votes, 3, MPI_INT64_T, MPI_MAX, comm);
  const auto refuse = [&](const std::string& why) {
    for (; reserved > 0; --reserved) release_served_request();
    report_refusal(comm, why);
  };
  if (rc != MPI_SUCCESS) return refuse("the set-up's vote failed");
  if (votes[0] == 2) return refuse("a rank has MPIX_INTERCEPT or MPIX_INTERCEPT_NONBLOCKING off");
  if (votes[0] == 1) return refuse("a rank has no room for more served requests");
  if (votes[1] != -votes[2]) return refuse("the ranks' MPIX_INTERCEPT* settings differ");
  // The library's communicator, over a duplicate that returns errors (a
  // failure here must not reach the program's handler; MPI's constructor
  // itself has succeeded), made while comm returns errors too.
  MPI_Errhandler users = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(comm, &users);
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm library_comm = MPI_COMM_NULL;
  int duplicated = PMPI_Comm_dup(comm, &library_comm) == MPI_SUCCESS ? 1 : 0;
  if (PMPI_Allreduce(MPI_IN_PLACE, &duplicated, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) duplicated = 0;
  PMPI_Comm_set_errhandler(comm, users);
  PMPI_Errhandler_free(&users);
  if (!duplicated) {
    if (library_comm != MPI_COMM_NULL) PMPI_Comm_free(&library_comm);
    return refuse("no duplicate of the communicator");
  }
  PMPI_Comm_set_errhandler(library_comm, MPI_ERRORS_RETURN);
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
  auto* state = new NonblockingExchanges(comm, library_comm, xcomm, std::move(calls));
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
}

NonblockingExchanges* NonblockingExchanges::of(MPI_Comm comm) {
  if (state_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL) return nullptr;
  int flag = 0;
  void* value = nullptr;
  if (PMPI_Comm_get_attr(comm, state_keyval, &value, &flag) != MPI_SUCCESS || !flag) return nullptr;
  return static_cast<NonblockingExchanges*>(value);
}

void NonblockingExchanges::free_all() {
  std::set<NonblockingExchanges*> states;
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    states = live;
  }
  for (NonblockingExchanges* s : states) PMPI_Comm_delete_attr(s->comm_, state_keyval);
  free_retired_proxies();  // theirs too, whichever finalizing callback ran first
}

NonblockingExchanges::NonblockingExchanges(MPI_Comm comm, MPI_Comm library_comm, MPIX_Comm* xcomm,
                                           std::unique_ptr<ClaimedCalls> calls)
    : comm_(comm), library_comm_(library_comm), xcomm_(xcomm), calls_(std::move(calls)) {
  PMPI_Comm_size(comm, &size_);
  send_blocks_.resize(static_cast<std::size_t>(size_));
  recv_blocks_.resize(static_cast<std::size_t>(size_));
}

NonblockingExchanges::~NonblockingExchanges() {
  int rank = 0;
  PMPI_Comm_rank(comm_, &rank);
  if (rank == 0 && verbosity() >= 1) {
    char name[MPI_MAX_OBJECT_NAME] = "";
    int length = 0;
    PMPI_Comm_get_name(comm_, name, &length);
    std::fprintf(stderr,
                 "mpix-rma intercept: communicator '%s' of %d ranks, nonblocking exchanges: %ld MPI_Ialltoallv and "
                 "%ld MPI_Ialltoall calls served (set-up %.2f ms)\n",
                 name, size_, served_ialltoallv_, served_ialltoall_, 1e3 * setup_seconds_);
  }
  for (std::unique_ptr<Shot>& shot : shots_) {
    // A call still in flight (the communicator freed before its
    // completion, as MPI allows) completes first: the peers' copies into
    // and out of this rank's buffers end with it. It keeps its proxy (the
    // program holds it), which completes at once from now on.
    const bool in_flight = shot->entry->active;
    try {
      for (unsigned polls = 0; in_flight && !shot->entry->finished && !shot->progress();)
        if (++polls > 64) sched_yield();
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

bool NonblockingExchanges::add_shot() {
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

NonblockingExchanges::Shot& NonblockingExchanges::free_shot() {
  for (std::size_t i = 0; i < shots_.size(); ++i) {
    const std::size_t k = (next_shot_ + i) % shots_.size();
    if (!shots_[k]->entry->active) {
      next_shot_ = k + 1;
      return *shots_[k];
    }
  }
  // More calls in flight, their completions unreported, than shots so far.
  if (!reserve_served_request() || !add_shot())
    throw Error(MPI_ERR_INTERN, "no room for another served request: " + std::to_string(shots_.size()) +
                                    " nonblocking exchanges of this communicator are in flight");
  next_shot_ = 0;
  return *shots_.back();
}

char* NonblockingExchanges::describe(char* buffer, const int counts[], const int displs[], int uniform_count,
                                     MPI_Datatype type, const char* argument, bool send, std::vector<char>& packed,
                                     std::vector<ClaimedCalls::Block>& blocks) {
  const DatatypeLayout layout = DatatypeLayout::of(type, argument);
  const auto count_of = [&](int r) { return static_cast<MPI_Count>(counts != nullptr ? counts[r] : uniform_count); };
  const auto displ_of = [&](int r) {
    return static_cast<MPI_Aint>(counts != nullptr ? displs[r] : static_cast<MPI_Aint>(r) * uniform_count);
  };
  if (layout.contiguous) {
    for (int r = 0; r < size_; ++r)
      blocks[static_cast<std::size_t>(r)] = {displ_of(r) * layout.extent,
                                             static_cast<std::size_t>(count_of(r) * layout.size)};
    return buffer;
  }
  // Not plain bytes: the blocks packed one after another (sent: packed now;
  // received: unpacked at completion, Shot::progress).
  MPI_Count total = 0;
  for (int r = 0; r < size_; ++r) total += count_of(r) * layout.size;
  packed.resize(static_cast<std::size_t>(total) + 1);  // never empty: a base to count from
  MPI_Count position = 0;
  for (int r = 0; r < size_; ++r) {
    const MPI_Count at = position, bytes = count_of(r) * layout.size;
    if (send && bytes > 0) {
      const int rc = PMPI_Pack_c(buffer + displ_of(r) * layout.extent, count_of(r), type, packed.data(), total,
                                 &position, library_comm_);
      if (rc != MPI_SUCCESS) throw Error(rc, std::string("packing the blocks of ") + argument + " failed");
    } else {
      position += bytes;
    }
    blocks[static_cast<std::size_t>(r)] = {static_cast<MPI_Aint>(at), static_cast<std::size_t>(position - at)};
  }
  return packed.data();
}

int NonblockingExchanges::issue(const char* function, const void* sendbuf, const int sendcounts[],
                                const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                const int rdispls[], int sendcount, int recvcount, MPI_Datatype recvtype,
                                MPI_Request* request) {
  try {
    Shot& shot = free_shot();
    const char* send_base = describe(static_cast<char*>(const_cast<void*>(sendbuf)), sendcounts, sdispls,
                                     sendcount, sendtype, "sendtype", true, shot.send_packed, send_blocks_);
    char* recv_base = describe(static_cast<char*>(recvbuf), recvcounts, rdispls, recvcount, recvtype, "recvtype",
                               false, shot.recv_packed, recv_blocks_);
    shot.unpacked = recv_base == recvbuf;
    shot.recvbuf = recvbuf;
    shot.recvcounts = recvcounts;
    shot.rdispls = rdispls;
    shot.uniform_count = recvcount;
    shot.recvtype = recvtype;
    shot.number = calls_->start(send_base, send_blocks_.data(), recv_base, recv_blocks_.data());
    if (const int rc = PMPI_Start(&shot.proxy); rc != MPI_SUCCESS) throw Error(rc, "starting the request's proxy failed");
    shot.entry->finished = false;
    shot.entry->active = true;
    *request = shot.proxy;
    return MPI_SUCCESS;
  } catch (const Error& e) {
    return mpix::raise(comm_, function, e.code(), e.what());
  }
}

bool NonblockingExchanges::Shot::progress() {
  if (!owner->calls_->progress(number)) return false;
  if (!unpacked) {
    unpacked = true;
    const DatatypeLayout layout = DatatypeLayout::of(recvtype, "recvtype");
    MPI_Count position = 0;
    const auto total = static_cast<MPI_Count>(recv_packed.size() - 1);
    for (int r = 0; r < owner->size_; ++r) {
      const int count = recvcounts != nullptr ? recvcounts[r] : uniform_count;
      const MPI_Aint displ = recvcounts != nullptr ? rdispls[r] : static_cast<MPI_Aint>(r) * uniform_count;
      if (count == 0) continue;
      const int rc = PMPI_Unpack_c(recv_packed.data(), total, &position, static_cast<char*>(recvbuf) + displ * layout.extent,
                                   count, recvtype, owner->library_comm_);
      if (rc != MPI_SUCCESS) throw Error(rc, "unpacking the received blocks failed");
    }
  }
  return true;
}

int NonblockingExchanges::ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                     MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                     const int rdispls[], MPI_Datatype recvtype, MPI_Request* request) {
  ++served_ialltoallv_;
  return issue("MPI_Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, 0, 0,
               recvtype, request);
}

int NonblockingExchanges::ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Request* request) {
  ++served_ialltoall_;
  return issue("MPI_Ialltoall", sendbuf, nullptr, nullptr, sendtype, recvbuf, nullptr, nullptr, sendcount,
               recvcount, recvtype, request);
}

}  // namespace mpix::intercept

using mpix::intercept::inside_drop_in;
using mpix::intercept::InsideDropIn;
using mpix::intercept::NonblockingExchanges;

namespace {

// Counts MPI rejects: the MPI's own call raises the error, as it would.
bool counts_valid(int size, const int counts[]) {
  if (counts == nullptr) return false;
  for (int r = 0; r < size; ++r)
    if (counts[r] < 0) return false;
  return true;
}

// After one of the MPI's constructors made *newcomm (or MPI_COMM_NULL
// here); read only once it returned.
int set_up_after(int rc, const MPI_Comm* newcomm) {
  if (rc == MPI_SUCCESS && !inside_drop_in) NonblockingExchanges::set_up(*newcomm);
  return rc;
}

}  // namespace

extern "C" int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  NonblockingExchanges* state = inside_drop_in ? nullptr : NonblockingExchanges::of(comm);
  int size = 0;
  if (state == nullptr || sendbuf == MPI_IN_PLACE || request == nullptr || PMPI_Comm_size(comm, &size) != MPI_SUCCESS ||
      !counts_valid(size, sendcounts) || !counts_valid(size, recvcounts) || sdispls == nullptr || rdispls == nullptr)
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                           request);
  InsideDropIn guard;
  return state->ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, request);
}

extern "C" int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  NonblockingExchanges* state = inside_drop_in ? nullptr : NonblockingExchanges::of(comm);
  if (state == nullptr || sendbuf == MPI_IN_PLACE || request == nullptr || sendcount < 0 || recvcount < 0)
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
  InsideDropIn guard;
  return state->ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, request);
}

// The constructors where a communicator's nonblocking exchanges are set up.

static const MPI_Comm world = MPI_COMM_WORLD;

extern "C" int MPI_Init(int* argc, char*** argv) {
  return set_up_after(PMPI_Init(argc, argv), &world);
}

extern "C" int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return set_up_after(PMPI_Init_thread(argc, argv, required, provided), &world);
}

extern "C" int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return set_up_after(PMPI_Comm_dup(comm, newcomm), newcomm);
}

extern "C" int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return set_up_after(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

extern "C" int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return set_up_after(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

extern "C" int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  return set_up_after(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm);
}

extern "C" int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return set_up_after(PMPI_Comm_create(comm, group, newcomm), newcomm);
}

#endif  // MPI_VERSION >= 4
