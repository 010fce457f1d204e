// The MPI-4 persistent collectives the drop-in serves (MPI_Alltoallv_init,
// MPI_Alltoall_init, MPI_Neighbor_alltoallv_init): the handles it gave the
// program, and the MPI calls that start, complete and free them.
//
// Only where the program asks (MPIX_INTERCEPT_PERSISTENT=library, agreed
// at each init): MPI makes MPI_Start local and a rank's completion depend
// only on the other ranks' Starts, but the library's request may wait in
// Start (its search's agreements, a window's epoch) and in completion (the
// node channel drains as receivers copy out) for what the other ranks do
// in theirs. A program that sends after its Start to a peer that receives
// before its own hangs under it (tests/dropin/dropin_progress_order.c);
// by default every init goes to the MPI's own.
//
// Protocol. The handle the program holds is a request of the MPI's own: a
// persistent send of nothing to MPI_PROC_NULL on the call's communicator
// (the proxy), which the MPI accepts in every call, so a call the drop-in
// does not stand in for sees an inactive persistent request. Underneath
// runs the library's request, made by MPIX_*_init (auto, its tournament
// and agreement, as in the C API). MPI_Start and MPI_Startall start both;
// starting an active one is MPI_ERR_REQUEST raised on the communicator, as
// the MPI raises it. A served request runs the MPI's own request (made
// beside it at init) until its Starts have paid the rent of its search,
// rent or buy as for the drop-in's blocking calls, counted in Starts
// agreed at init (ServedExchanges::library_comm_for_persistent): it then
// switches to the library's for good, at the same Start on every rank and
// with no agreement at any Start, so a request started a few hundred times,
// as a benchmark's sweep does, never pays a search it cannot repay. Every
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

// One served persistent collective.
struct ServedRequest {
  MPIX_Request* request = nullptr;      // the library's
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

// Holds a slot for one more served request, or false where the table is
// full (the init then goes to the MPI). Every rank's answer is agreed
// before any serves; release() gives the slot back unused.
bool reserve_served_request();
void release_served_request();
// Adopts a reserved slot: proxy is the handle the program gets.
void adopt_served_request(MPI_Request proxy, const ServedRequest& served);
// The communicator of state is being freed: its requests stay on the
// MPI's own from now on.
void forget_state(const ServedExchanges* state);

}  // namespace mpix::intercept
