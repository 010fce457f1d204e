// The MPI-4 persistent collectives the drop-in serves (MPI_Alltoallv_init,
// MPI_Alltoall_init, MPI_Neighbor_alltoallv_init) and its nonblocking
// exchanges (claimed_exchanges.hpp): the handles it gave the program,
// and the MPI calls that start, complete and free them.
//
// Which request runs behind the handle is agreed at the init
// (ServedExchanges::plan_persistent, MPIX_INTERCEPT_PERSISTENT). MPI makes
// MPI_Start local and a rank's completion depend only on the other ranks'
// Starts; auto's request may wait in Start (its search's agreements, a
// window's epoch) and in completion (the node channel drains as receivers
// copy out) for what the other ranks do in theirs, so a program that sends
// after its Start to a peer that receives before its own would hang under
// it (tests/dropin/dropin_progress_order.c). By default the request is a
// row that keeps the rule (capability mpi_progress), from the first Start,
// or the MPI's own for good; auto only under library.
//
// Protocol. The handle the program holds is a request of the MPI's own: a
// persistent send of nothing to MPI_PROC_NULL (the proxy, make_proxy), which the MPI accepts in every call, so a call the drop-in
// does not stand in for sees an inactive persistent request. Underneath
// runs the library's request, made by MPIX_*_init (the row the plan names,
// or auto), and the MPI's own, made beside it. MPI_Start and MPI_Startall
// start both; starting an active one is MPI_ERR_REQUEST raised on the
// communicator, as the MPI raises it. A served request runs the MPI's own
// request for the Starts agreed at init (ServedExchanges::plan_persistent:
// none for a row that keeps the progress rule; under library until they
// have paid the rent of auto's search, rent or buy as for the drop-in's
// blocking calls): it then switches to the library's for good, at the same
// Start on every rank and with no agreement at any Start, so a request
// started a few hundred times, as a benchmark's sweep does, never pays a
// search it cannot repay. Every
// completion call (MPI_Wait, MPI_Test and their -all, -any and -some
// forms, MPI_Request_get_status) polls the running requests and makes the
// MPI progress between polls (MPI_Testsome on the MPI's own requests of
// the array, or the status of a proxy), so no rank
// waits inside the library while a peer waits for this rank's MPI
// progress; a completed served request completes its proxy too (at once:
// it moves nothing) and gets an empty status, as a collective does.
// MPI_Request_free frees both (an active one is completed first, as MPICH
// accepts freeing an active persistent collective).
//
// Invariants: a proxy is in the table from its init to its
// MPI_Request_free; it is active exactly while its served request is
// (started and not yet reported complete). The table is read without a
// lock (every completion call of the program looks its requests up) and
// written under one (init and free); with no served request alive, every
// entry point goes to the MPI at once.
#pragma once

#include <mpi.h>
#include <mpix/mpix.h>

#include "intercept/served_exchanges.hpp"

namespace mpix::intercept {

// A served nonblocking call (claimed_exchanges.hpp): it runs once, and
// the completion that reports it leaves MPI_REQUEST_NULL in the program's
// handle; its proxy stays the drop-in's, for the communicator's next call.
struct OnceCall {
  virtual ~OnceCall() = default;
  // One pass; true once the call is complete. Throws Error.
  virtual bool progress() = 0;
};

// One served persistent collective, or one nonblocking call (once).
struct ServedRequest {
  OnceCall* once = nullptr;             // a nonblocking call's; nullptr: a persistent collective

  MPIX_Request* request = nullptr;      // the library's; nullptr: the MPI's own for good
  MPI_Request mpi_own = MPI_REQUEST_NULL;  // the MPI's own, over the same arguments
  MPI_Comm comm = MPI_COMM_NULL;        // the program's, for errors
  // Its communicator's drop-in state (the rent rule); null once the
  // communicator is freed, and the request then stays on the MPI's own.
  ServedExchanges* state = nullptr;
  bool active = false;    // started, completion not yet reported
  bool finished = false;  // the running request has completed (its proxy still active)
  bool searched = false;  // agreed: its Starts run the library's request (its search bought)
  long starts = 0;        // Starts so far: a clock every rank shares
  long search_at = 0;     // agreed: the Start that switches to the library's request
  double first_start = 0; // MPI_Wtime of its first Start (its rent's periods)
  // Once searched, until its tournament settles: the search's Start-to-
  // Start periods against MPI's (this rank's, while it rented), which price
  // the communicator's next (ServedExchanges::persistent_search_measured).
  bool search_settled = false;
  double last_start = 0;
  SearchCost search;
};

// The proxies: persistent sends of nothing to MPI_PROC_NULL on
// MPI_COMM_SELF. A freed one is kept and handed out again, never given back
// to the MPI before MPI_Finalize: MPICH 4.0.2 hangs the persistent
// collective that next gets the request object of a freed persistent
// request to MPI_PROC_NULL (a program's MPI_Allreduce_init after it freed a
// served request would wait for ever; tests/dropin/dropin_progress_order.c).
int make_proxy(MPI_Request* proxy);
// proxy is inactive; it reads MPI_REQUEST_NULL afterwards.
void retire_proxy(MPI_Request* proxy);
// At MPI_Finalize: the kept proxies go back to the MPI.
void free_retired_proxies();

// Holds a slot for one more served request, or false where the table is
// full (the init then goes to the MPI). Every rank's answer is agreed
// before any serves; release() gives the slot back unused.
bool reserve_served_request();
void release_served_request();
// Adopts a reserved slot: proxy is the handle the program gets. Returns
// the table's entry, which lives until proxy is freed (MPI_Request_free)
// or forgotten (forget_served_request).
ServedRequest* adopt_served_request(MPI_Request proxy, const ServedRequest& served);
// A nonblocking call's proxy leaves the table (its communicator's state
// goes); its entry goes with it.
void forget_served_request(MPI_Request proxy);
// A nonblocking call's entry is active from now until a completion call
// reports it (the entry points look requests up only while some is).
void served_call_started(ServedRequest& entry);
// The communicator of state is being freed: its requests stay on the
// MPI's own from now on.
void forget_state(const ServedExchanges* state);

}  // namespace mpix::intercept
