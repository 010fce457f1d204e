// What differs between the MPIs this library builds with, in one place:
// MPICH 4.0 (MPI 4.0) and Open MPI 4.1 (MPI 3.1 plus its extensions). Every
// other file is written against what both implement; a difference found by
// running the suites on both lands here, as a fact of the implementation
// with the reason it matters.
#pragma once

#include <mpi.h>

#include <string>

namespace mpix::mpi_implementation {

// "MPICH 4.0.2", "Open MPI 4.1.4": the MPI whose mpi.h the library was
// compiled with.
const char* name();

// The implementation part of such a name ("MPICH", "Open MPI"): what a
// tuning file measured with another MPI differs in.
std::string family_of(const std::string& name);

// Whether an error raised on a communicator with this handler ends the job
// (MPI_ERRORS_ARE_FATAL, and MPI-4's MPI_ERRORS_ABORT where the MPI has it).
bool is_fatal(MPI_Errhandler handler);

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
