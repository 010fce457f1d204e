/*
 * What the Fortran module cannot do itself: turn mpi_f08's handles (the
 * integer in %MPI_VAL) into the C handles mpix.h takes, with the MPI's own
 * MPI_Comm_f2c / MPI_Type_f2c (macros on MPICH, functions on Open MPI), and
 * back for the communicator the library keeps; read a buffer's address from
 * its Fortran descriptor; and stand for C's MPI_STATUS_IGNORE. Each function
 * is the C call it names, with Fortran handles; nothing else. The families'
 * inits are converted the same way in family_shims.c, which
 * family_bindings.py writes from collectives/families.def.
 */
#include <ISO_Fortran_binding.h>
#include <mpi.h>
#include <mpix/mpix.h>

/* Where an assumed-rank buffer's elements are, if they are one block of
 * memory (a persistent request keeps this address); NULL if they are not. */
void *mpix_fortran_buffer_address(const CFI_cdesc_t *buffer) {
    return CFI_is_contiguous(buffer) ? buffer->base_addr : NULL;
}

int mpix_fortran_comm_init(MPIX_Comm **xcomm, MPI_Fint comm) {
    return MPIX_Comm_init(xcomm, MPI_Comm_f2c(comm));
}

int mpix_fortran_comm_get_comm(const MPIX_Comm *xcomm, MPI_Fint *comm) {
    MPI_Comm c = MPI_COMM_NULL;
    const int rc = MPIX_Comm_get_comm(xcomm, &c);
    *comm = MPI_Comm_c2f(c);
    return rc;
}

/* The address of a Fortran variable passed by reference: how the module
 * tells mpi_f08's MPI_STATUS_IGNORE, which it may not take c_loc of. */
const void *mpix_fortran_address(const void *variable) { return variable; }

/* Waiting and testing with C's MPI_STATUS_IGNORE (not a null pointer on
 * every MPI): the module writes mpi_f08's empty status itself. */
int mpix_fortran_wait(MPIX_Request *request) { return MPIX_Wait(request, MPI_STATUS_IGNORE); }

int mpix_fortran_test(MPIX_Request *request, int *flag) { return MPIX_Test(request, flag, MPI_STATUS_IGNORE); }

int mpix_fortran_waitall(int count, MPIX_Request *requests[]) {
    return MPIX_Waitall(count, requests, MPI_STATUSES_IGNORE);
}
