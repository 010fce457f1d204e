// What differs between the MPIs this library builds with, in one place:
// MPICH 4.0 (MPI 4.0), Open MPI 4.1 (MPI 3.1 plus its extensions) and
// SimGrid's SMPI (MPI 3.1, simulated: every rank an actor of one process,
// MPI_Wtime in simulated time, each simulated host a node). Every
// other file is written against what both implement; a difference found by
// running the suites on both lands here, as a fact of the implementation
// with the reason it matters.
#pragma once

#include <mpi.h>

#include <string>

namespace mpix::mpi_implementation {

// "MPICH 4.0.2", "Open MPI 4.1.4", "SimGrid 3.32 SMPI": the MPI whose
// mpi.h the library was compiled with.
const char* name();

// Why this MPI's ranks are not processes of their own, or nullptr where
// they are. SMPI runs every rank of a job as an actor inside one process,
// switching between them only in MPI calls: ranks share a pid and a
// descriptor table, and a rank that polls memory another rank writes,
// without calling MPI, never lets that rank run. What needs processes (the
// node channel, its segments and descriptor passing, single copies between
// processes) refuses to run, with this as the reason.
const char* ranks_are_not_processes();

// Whether a poll that finds nothing costs the rank time. In SMPI every
// MPI_Test or MPI_Testall that fails advances the rank's simulated clock,
// by a step that grows with every failed test of any rank of the job until
// one succeeds: a rank polling beside hundreds of others is charged far
// more than it waited. There a loop that waits blocks in MPI_Waitall on
// what it waits for. Elsewhere a failed poll costs a fraction of a
// microsecond, and polling (yielding the core between polls, which the
// MPIs' blocking waits do not) is how the library waits.
bool polls_cost_time();

// What tells this rank's node apart from others where the ranks are not
// processes: the simulated host it runs on (MPI_Get_processor_name); empty
// where they are processes (the machine's own identity does).
std::string simulated_host();
// The cores of this rank's simulated host where the ranks are not
// processes (the platform's, not this machine's: the simulated ranks run
// on them); 0 where they are processes.
int simulated_host_cores();

// A new error class and a code of it, both with text: MPI's
// MPI_Add_error_class, MPI_Add_error_code and MPI_Add_error_string. SMPI
// has none of them, and its MPI_Error_class gives any code as its own
// class: there the class and the code are one value above
// MPI_ERR_LASTCODE, numbered in the order of the calls (the same on every
// rank, as MPI's are). Throws mpix::Error where MPI refuses.
void add_error_class(const char* text, int* error_class, int* code);

// A new code of error_class (a predefined class or an added one) whose
// text MPI_Error_string gives and which MPI_Error_class maps back to
// error_class: MPI_Add_error_code, checked by setting a text and reading it
// back. False where it does not read back: SMPI has no
// MPI_Add_error_code, and MPICH 4.0 leaves its mark of an added code off a
// code of a predefined class (the code then reads back as one of MPICH's
// own messages, and with the mark, MPI_Error_class gives another class).
bool add_error_code(int error_class, int* code);

// The implementation part of such a name ("MPICH", "Open MPI"): what a
// tuning file measured with another MPI differs in.
std::string family_of(const std::string& name);

// Lets the MPI progress once, from a loop that waits on memory: a peer may
// be blocked in an MPI call (a send's rendezvous, a receive) that moves
// only inside this rank's MPI calls, as MPI's progress rule says it must
// while this rank is in one. MPI_Iprobe on MPI_COMM_WORLD, which receives
// nothing: MPICH and Open MPI progress every pending operation in it
// (MPICH 4.0 answers one on MPI_COMM_SELF without progress: a peer's
// rendezvous send to this rank then never completed).
void make_progress();
// Whether an error raised on a communicator with this handler ends the job
// (MPI_ERRORS_ARE_FATAL, and MPI-4's MPI_ERRORS_ABORT where the MPI has it).
bool is_fatal(MPI_Errhandler handler);

// MPI_Comm_call_errhandler. SMPI calls a null function for its predefined
// handlers (the process dies): there a returning handler is not called,
// which is all calling it would do, and a fatal one aborts the job.
int call_errhandler(MPI_Comm comm, int code);

// The barrier that closes an epoch of the windows on comm, begun:
// MPI_Ibarrier. Every origin has flushed its operations before it enters;
// when the barrier completes, the operations are in the targets' memory.
// SMPI lands them there only in its blocking MPI_Barrier (which completes
// the RMA of the communicator's windows; its MPI_Ibarrier, its flushes and
// MPI_Win_sync, which it does not implement, do not): there the barrier is
// blocking and *request is MPI_REQUEST_NULL, already complete.
int begin_epoch_barrier(MPI_Comm comm, MPI_Request* request);

// Why this MPI's one-sided operations between processes of one machine
// hang where the kernel refuses single copies (CMA) between them, or
// nullptr where they do not. Open MPI 4.1's osc/rdma over btl/vader moves
// puts with process_vm_writev and, refused (non-dumpable ranks, Yama
// ptrace_scope 2 and 3, a container without CAP_SYS_PTRACE), retries it
// forever ("Read -1, expected ..., errno = 1"); its point-to-point falls
// back to copy-in/copy-out and completes. MPICH's windows use no CMA.
const char* one_sided_hangs_without_cma();

// The MPI's own persistent Alltoallv: MPI-4's MPI_Alltoallv_init (MPICH),
// or Open MPI 4.1's extension of the same signature. nullptr when the MPI
// has none, with why_not saying so.
using AlltoallvInit = int (*)(const void*, const int[], const int[], MPI_Datatype, void*, const int[], const int[],
                              MPI_Datatype, MPI_Comm, MPI_Info, MPI_Request*);
AlltoallvInit persistent_alltoallv();
const char* persistent_alltoallv_why_not();
// The MPI's own persistent neighbourhood Alltoallv (MPI-4's
// MPI_Neighbor_alltoallv_init, Open MPI 4.1's extension): the same
// signature, on a distributed-graph communicator.
AlltoallvInit persistent_neighbor_alltoallv();
const char* persistent_neighbor_alltoallv_why_not();
// The MPI's own persistent Alltoall: MPI-4's MPI_Alltoall_init, or Open
// MPI 4.1's extension of the same signature.
using AlltoallInit = int (*)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm, MPI_Info,
                             MPI_Request*);
AlltoallInit persistent_alltoall();
const char* persistent_alltoall_why_not();

}  // namespace mpix::mpi_implementation
