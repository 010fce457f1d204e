// libmpixrma_intercept.so: MPI_Alltoallv and MPI_Neighbor_alltoallv through
// the MPI profiling interface, for programs that were not written for
// mpix-rma. Preload it (LD_PRELOAD=.../libmpixrma_intercept.so) or link it
// before MPI.
//
// Each intracommunicator of more than one rank (for MPI_Neighbor_alltoallv:
// each with a distributed-graph topology) gets a ServedExchanges per
// collective, hung on it with an attribute whose delete callback frees it,
// so that MPI_Comm_free (and MPI_Finalize, through an attribute on
// MPI_COMM_SELF) cleans up. Every call it does not serve is passed on: to
// a claimed call on a one-node communicator set up for them
// (claimed_exchanges.hpp), else to MPI's own call (PMPI_), as is every
// call the library itself makes while serving one.
#include <mpi.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "intercept/claimed_exchanges.hpp"
#include "intercept/inside_drop_in.hpp"
#include "intercept/served_exchanges.hpp"
#include "intercept/served_requests.hpp"
#include "src/library.hpp"

using mpix::InterceptConfig;
using mpix::intercept::algorithm_info_key;
using mpix::intercept::Collective;
using mpix::intercept::PersistentPlan;
using mpix::intercept::ServedExchanges;

namespace mpix::intercept {
__attribute__((tls_model("initial-exec"))) thread_local bool inside_drop_in = false;
}  // namespace mpix::intercept

namespace {

using mpix::intercept::inside_drop_in;
using mpix::intercept::InsideDropIn;

// Per collective, the last communicator this thread called it on and its
// state, valid while no state has been deleted since (a freed
// communicator's handle may come back for another one): calls that pass
// straight through cost no attribute lookup.
std::atomic<unsigned long> states_deleted{0};
struct LastCall {
  MPI_Comm comm = MPI_COMM_NULL;
  ServedExchanges* state = nullptr;
  unsigned long deletions = 0;
};
// By Collective.
__attribute__((tls_model("initial-exec"))) thread_local LastCall last_call[mpix::intercept::collectives];

int state_keyval[mpix::intercept::collectives] = {MPI_KEYVAL_INVALID, MPI_KEYVAL_INVALID,
                                                  MPI_KEYVAL_INVALID};  // by Collective: a communicator's state
int finalize_keyval = MPI_KEYVAL_INVALID;  // on MPI_COMM_SELF: frees them all at MPI_Finalize
std::once_flag keyvals_made;
std::mutex live_mutex;
std::set<ServedExchanges*> live;  // every state, for MPI_Finalize

// With MPIX_VERBOSE, rank 0 of the communicator says what the drop-in did
// on it: when the state goes, so that a communicator freed before
// MPI_Finalize (a library's duplicate, freed with its plan) reports too.
void report(ServedExchanges* s) {
  int verbose = 0;
  try {
    verbose = mpix::Library::get().config().verbose;
  } catch (...) {
  }
  if (verbose < 1) return;
  int rank = 0, size = 0;
  PMPI_Comm_rank(s->comm(), &rank);
  if (rank != 0) return;
  PMPI_Comm_size(s->comm(), &size);
  const ServedExchanges::Counters& c = s->counters();
  char name[MPI_MAX_OBJECT_NAME] = "";
  int length = 0;
  PMPI_Comm_get_name(s->comm(), name, &length);
  // Per pattern: the first few, then how many more.
  std::string uses;
  for (const ServedExchanges::PatternUse& use : s->pattern_uses())
    uses += (uses.empty() ? "" : ", ") + std::to_string(use.served) + "/" + std::to_string(use.agreements);
  if (s->patterns_unreported() > 0) uses += " and " + std::to_string(s->patterns_unreported()) + " more";
  std::fprintf(stderr,
               "mpix-rma intercept: communicator '%s' of %d ranks, %s: %ld calls, %ld served, %ld patterns "
               "(%ld back to MPI, faster there, %ld of them to the claimed calls, faster still), %ld agreement "
               "misses, %ld agreements (%.2f us each with their "
               "check, %s), %ld carried in the exchange (%ld missed); per pattern, served calls/agreements: %s; "
               "one-time: set-up %.2f ms, admissions %.2f ms, searches %ld (%.2f ms beyond MPI's calls), "
               "node-channel rings made %ld, persistent requests %ld (%ld on the library's request, the rest on "
               "MPI's own), uniform patterns as Alltoall %ld\n",
               name, size, name_of(s->collective()), c.calls, c.served, c.patterns, c.returned, c.passed_on_faster,
               c.agreement_misses,
               c.agreements, c.agreements ? 1e6 * c.check_seconds / static_cast<double>(c.agreements) : 0.0,
               s->agreement_path(), c.carried, c.carried_misses, uses.empty() ? "none" : uses.c_str(),
               1e3 * c.setup_seconds, 1e3 * c.admission_seconds, c.searches, 1e3 * c.search_seconds,
               s->rings_made(), c.persistent, c.persistent_on_library, c.as_alltoall);
}

// A communicator's attribute going away (MPI_Comm_free, MPI_Comm_delete_attr).
int delete_state(MPI_Comm, int, void* value, void*) {
  auto* state = static_cast<ServedExchanges*>(value);
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    live.erase(state);
  }
  states_deleted.fetch_add(1, std::memory_order_release);
  InsideDropIn guard;
  report(state);
#if MPI_VERSION >= 4
  mpix::intercept::forget_state(state);
#endif
  delete state;
  return MPI_SUCCESS;
}

// MPI_Finalize begins by deleting MPI_COMM_SELF's attributes, newest first:
// this one was set after the library's own, so the states go (and report)
// before the library frees what is left.
int finalize_states(MPI_Comm, int, void*, void*) {
  std::set<ServedExchanges*> states;
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    states = live;
  }
  for (ServedExchanges* s : states)
    PMPI_Comm_delete_attr(s->comm(), state_keyval[static_cast<int>(s->collective())]);
#if MPI_VERSION >= 4
  mpix::intercept::free_retired_proxies();
#endif
  return MPI_SUCCESS;
}

void make_keyvals() {
  for (int& keyval : state_keyval) PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &keyval, nullptr);
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_states, &finalize_keyval, nullptr);
}

InterceptConfig settings() {
  InterceptConfig s;
  try {
    s = mpix::Library::get().config().section<InterceptConfig>();
  } catch (...) {
    // An unusable MPIX_* setting: this rank serves nothing, and its
    // fingerprint (disabled) tells the others at the first agreement.
    s.enabled = false;
  }
  return s;
}

ServedExchanges* lookup_state(MPI_Comm comm, Collective collective);

// comm's state for the collective if comm is the last communicator this
// thread called it on and no state has gone since; nullptr otherwise.
inline ServedExchanges* last_state(MPI_Comm comm, Collective collective) {
  const LastCall& last = last_call[static_cast<int>(collective)];
  return comm == last.comm && states_deleted.load(std::memory_order_acquire) == last.deletions ? last.state
                                                                                                : nullptr;
}

// comm's state for the collective, made at its first call; nullptr: pass
// every call through.
ServedExchanges* state_of(MPI_Comm comm, Collective collective) {
  LastCall& last = last_call[static_cast<int>(collective)];
  const unsigned long deletions = states_deleted.load(std::memory_order_acquire);
  if (comm == last.comm && deletions == last.deletions && last.state != nullptr) return last.state;
  ServedExchanges* state = lookup_state(comm, collective);
  last = {comm, state, deletions};
  return state;
}

ServedExchanges* lookup_state(MPI_Comm comm, Collective collective) {
  if (comm == MPI_COMM_NULL) return nullptr;
  InsideDropIn guard;  // making the state (and the library) calls MPI
  const int keyval = state_keyval[static_cast<int>(collective)];
  int flag = 0;
  void* value = nullptr;
  if (keyval != MPI_KEYVAL_INVALID && PMPI_Comm_get_attr(comm, keyval, &value, &flag) == MPI_SUCCESS && flag)
    return static_cast<ServedExchanges*>(value);
  int inter = 0, size = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return nullptr;
  if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size < 2) return nullptr;
  // Cartesian and graph topologies have neighbourhood collectives too; the
  // library serves distributed graphs (MPIX_Neighbor_alltoallv_init).
  int topology = MPI_UNDEFINED;
  if (collective == Collective::neighbor_alltoallv &&
      (PMPI_Topo_test(comm, &topology) != MPI_SUCCESS || topology != MPI_DIST_GRAPH))
    return nullptr;
  const InterceptConfig s = settings();  // creates the library (its MPI_COMM_SELF attribute) first
  std::call_once(keyvals_made, [] {
    make_keyvals();
    PMPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, nullptr);
  });
  auto* state = new ServedExchanges(comm, collective, s);
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    live.insert(state);
  }
  PMPI_Comm_set_attr(comm, state_keyval[static_cast<int>(collective)], state);
  return state;
}

// A call that passes straight through (pass_on), the state's choice if any.
inline bool to_mpi(const ServedExchanges* state) { return state != nullptr && state->passes_to_mpi(); }

// The drop-in's side of each entry point: the calls that are not known at
// once to pass straight through (the state is not the last one, or the
// call is near an agreement). Out of line, with the entry point's own
// arguments, so that the entry point reaches it, as it reaches MPI's own
// call, by a tail call, and the pass-through path keeps only a small frame
// (no call, a few saved registers).
__attribute__((noinline)) int drop_in_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  ServedExchanges* state = state_of(comm, Collective::alltoallv);
  if (state == nullptr || state->passes_straight_through())
    return pass_on(Collective::alltoallv, to_mpi(state), comm, {sendbuf, sendcounts, sdispls, 0, sendtype},
                   {recvbuf, recvcounts, rdispls, 0, recvtype});
  InsideDropIn guard;
  return state->call(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
}

__attribute__((noinline)) int drop_in_neighbor_alltoallv(const void* sendbuf, const int sendcounts[],
                                                         const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                                         const int recvcounts[], const int rdispls[],
                                                         MPI_Datatype recvtype, MPI_Comm comm) {
  ServedExchanges* state = state_of(comm, Collective::neighbor_alltoallv);
  if (state == nullptr || state->passes_straight_through())
    return pass_on(Collective::neighbor_alltoallv, to_mpi(state), comm, {sendbuf, sendcounts, sdispls, 0, sendtype},
                   {recvbuf, recvcounts, rdispls, 0, recvtype});
  InsideDropIn guard;
  return state->call(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
}

__attribute__((noinline)) int drop_in_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  ServedExchanges* state = state_of(comm, Collective::alltoall);
  if (state == nullptr || state->passes_straight_through(recvcount, recvtype))
    return pass_on(Collective::alltoall, to_mpi(state), comm, {sendbuf, nullptr, nullptr, sendcount, sendtype},
                   {recvbuf, nullptr, nullptr, recvcount, recvtype});
  InsideDropIn guard;
  return state->call_uniform(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
}

}  // namespace

// Each entry point: MPI's own call for the library's calls underneath, at
// once; calls on the last communicator that pass straight through, passed
// on (claimed_exchanges.hpp: a claimed call where the communicator is set
// up for them, else MPI's own); the rest to the drop-in's side, which
// passes on what it does not serve. All are tail calls with the caller's
// arguments. (A call that
// passes straight through counts in passes_straight_through(), so the
// drop-in's side asks again only where it answered no, which counts
// nothing.)
extern "C" int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm) {
  if (!inside_drop_in) {
    ServedExchanges* state = last_state(comm, Collective::alltoallv);
    if (state == nullptr || !state->passes_straight_through())
      return drop_in_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    return pass_on(Collective::alltoallv, to_mpi(state), comm, {sendbuf, sendcounts, sdispls, 0, sendtype},
                   {recvbuf, recvcounts, rdispls, 0, recvtype});
  }
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

extern "C" int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (!inside_drop_in) {
    ServedExchanges* state = last_state(comm, Collective::neighbor_alltoallv);
    if (state == nullptr || !state->passes_straight_through())
      return drop_in_neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                        recvtype, comm);
    return pass_on(Collective::neighbor_alltoallv, to_mpi(state), comm, {sendbuf, sendcounts, sdispls, 0, sendtype},
                   {recvbuf, recvcounts, rdispls, 0, recvtype});
  }
  return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                 comm);
}

extern "C" int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  if (!inside_drop_in) {
    ServedExchanges* state = last_state(comm, Collective::alltoall);
    if (state == nullptr || !state->passes_straight_through(recvcount, recvtype))
      return drop_in_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return pass_on(Collective::alltoall, to_mpi(state), comm, {sendbuf, nullptr, nullptr, sendcount, sendtype},
                   {recvbuf, nullptr, nullptr, recvcount, recvtype});
  }
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

#if MPI_VERSION >= 4
namespace {

// An MPI-4 persistent collective: the library's request under a proxy the
// program holds (intercept/served_requests.hpp), where every rank can have
// one (agreed); otherwise the MPI's own init, on every rank. An init the
// library refuses (bad arguments: refused on every rank alike) goes to the
// MPI's own init too, which reports its own error.
template <class Arguments, class LibraryInit, class MpiInit>
int persistent_init(MPI_Comm comm, Collective collective, MPI_Request* request, Arguments arguments,
                    LibraryInit library_init, MpiInit mpi_init) {
  ServedExchanges* state = inside_drop_in ? nullptr : state_of(comm, collective);
  if (state == nullptr) return mpi_init(request);
  InsideDropIn guard;
  const PersistentPlan plan = state->plan_persistent(arguments(*state));
  if (!plan.proxied) return mpi_init(request);
  MPIX_Request* served = nullptr;
  long rent_starts = plan.rent_starts;
  MPI_Request proxy = MPI_REQUEST_NULL, mpi_own = MPI_REQUEST_NULL;
  // The library's init agrees its outcome on every rank, and so whether it
  // runs the row asked for (a row that refuses the arguments falls back to
  // auto alike, which keeps no progress rule: the MPI's own then, for
  // good); the proxy and the MPI's own request (what the first Starts run,
  // served_requests.hpp) are this rank's: they fail only where the MPI
  // would fail its own init too, which then reports it.
  int rc = MPI_SUCCESS;
  if (plan.library != nullptr) {
    MPIX_Info* info = nullptr;
    if (plan.algorithm != nullptr) {
      MPIX_Info_init(&info);
      MPIX_Info_set(info, algorithm_info_key(collective), plan.algorithm);
    }
    rc = library_init(plan.library, info, &served);
    if (info != nullptr) MPIX_Info_free(&info);
    char running[MPIX_MAX_OBJECT_NAME] = {};
    int length = 0;
    if (rc == MPI_SUCCESS && plan.algorithm != nullptr &&
        (MPIX_Request_get_algorithm(served, running, &length) != MPI_SUCCESS ||
         std::strcmp(running, plan.algorithm) != 0)) {
      MPIX_Request_free(&served);
      rent_starts = LONG_MAX;
    }
  }
  if (rc != MPI_SUCCESS || mpix::intercept::make_proxy(&proxy) != MPI_SUCCESS || mpi_init(&mpi_own) != MPI_SUCCESS) {
    if (served != nullptr) MPIX_Request_free(&served);
    if (proxy != MPI_REQUEST_NULL) mpix::intercept::retire_proxy(&proxy);
    mpix::intercept::release_served_request();
    return mpi_init(request);
  }
  mpix::intercept::ServedRequest adopted;
  adopted.request = served;
  adopted.mpi_own = mpi_own;
  adopted.comm = comm;
  adopted.state = state;
  adopted.search_at = rent_starts;
  mpix::intercept::adopt_served_request(proxy, adopted);
  *request = proxy;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persistent_init(
      comm, Collective::alltoallv, request,
      [&](ServedExchanges& state) {
        return state.arguments(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
      },
      [&](MPIX_Comm* xcomm, MPIX_Info* info, MPIX_Request** served) {
        return MPIX_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                   xcomm, info, served);
      },
      [&](MPI_Request* made) {
        return PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                   comm, info, made);
      });
}

extern "C" int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  return persistent_init(
      comm, Collective::alltoall, request,
      [&](ServedExchanges& state) {
        return state.uniform_arguments(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
      },
      [&](MPIX_Comm* xcomm, MPIX_Info* info, MPIX_Request** served) {
        return MPIX_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, xcomm, info, served);
      },
      [&](MPI_Request* made) {
        return PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, made);
      });
}

extern "C" int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           MPI_Request* request) {
  return persistent_init(
      comm, Collective::neighbor_alltoallv, request,
      [&](ServedExchanges& state) {
        return state.arguments(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
      },
      [&](MPIX_Comm* xcomm, MPIX_Info* info, MPIX_Request** served) {
        return MPIX_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                            recvtype, xcomm, info, served);
      },
      [&](MPI_Request* made) {
        return PMPI_Neighbor_alltoallv_init(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                            recvtype, comm, info, made);
      });
}
#endif  // MPI_VERSION >= 4
