/* A user program: a persistent Alltoallv and a persistent Alltoall in a
 * loop, checked every iteration. Open MPI's libmpi exports an
 * MPIX_Alltoall_init of its own: linked before the library, it must not be
 * the one called (docs/symbols.md). */
#include <mpix/mpix.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int* counts = malloc(size * sizeof(int));
    int* displs = malloc(size * sizeof(int));
    int* send = malloc(size * sizeof(int));
    int* recv = malloc(size * sizeof(int));
    int* recv_uniform = malloc(size * sizeof(int));
    for (int i = 0; i < size; ++i) counts[i] = 1, displs[i] = i;

    MPIX_Comm* xcomm;
    MPIX_Request *requests[2] = {NULL, NULL};
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    int errors = MPIX_Alltoallv_init(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, xcomm, NULL,
                                     &requests[0]) != MPI_SUCCESS;
    errors += MPIX_Alltoall_init(send, 1, MPI_INT, recv_uniform, 1, MPI_INT, xcomm, NULL, &requests[1]) != MPI_SUCCESS;
    for (int it = 0; it < 10 && errors == 0; ++it) {
        for (int i = 0; i < size; ++i) send[i] = 1000 * it + 10 * rank + i;
        MPIX_Startall(2, requests);
        MPIX_Waitall(2, requests, MPI_STATUSES_IGNORE);
        for (int i = 0; i < size; ++i) errors += recv[i] != 1000 * it + 10 * i + rank;
        for (int i = 0; i < size; ++i) errors += recv_uniform[i] != 1000 * it + 10 * i + rank;
    }
    for (int i = 0; i < 2; ++i)
        if (requests[i] != NULL) MPIX_Request_free(&requests[i]);
    MPIX_Comm_free(&xcomm);
    if (rank == 0) printf("consumer (C): %s\n", errors ? "WRONG DATA" : "ok");
    free(counts); free(displs); free(send); free(recv); free(recv_uniform);
    MPI_Finalize();
    return errors != 0;
}
