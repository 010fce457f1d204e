/* For dropin_fortran: a communicator made in C, as a program that mixes
 * bindings may make one (a C library's duplicate). MPI_Comm_dup in C is
 * where the drop-in sets up a communicator's nonblocking exchanges, which
 * mpi_f08's own constructors never reach. Returned as a Fortran handle. */
#include <mpi.h>

MPI_Fint dropin_c_dup_world(void) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_name(comm, "serve:nonblocking from C");
    return MPI_Comm_c2f(comm);
}
