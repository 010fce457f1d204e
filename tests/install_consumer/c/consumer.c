/* A user program: a persistent Alltoallv in a loop, checked every iteration. */
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
    for (int i = 0; i < size; ++i) counts[i] = 1, displs[i] = i;

    MPIX_Comm* xcomm;
    MPIX_Request* request;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    MPIX_Alltoallv_init(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, xcomm, NULL, &request);
    int errors = 0;
    for (int it = 0; it < 10; ++it) {
        for (int i = 0; i < size; ++i) send[i] = 1000 * it + 10 * rank + i;
        MPIX_Start(request);
        MPIX_Wait(request, MPI_STATUS_IGNORE);
        for (int i = 0; i < size; ++i) errors += recv[i] != 1000 * it + 10 * i + rank;
    }
    MPIX_Request_free(&request);
    MPIX_Comm_free(&xcomm);
    if (rank == 0) printf("consumer (C): %s\n", errors ? "WRONG DATA" : "ok");
    free(counts); free(displs); free(send); free(recv);
    MPI_Finalize();
    return errors != 0;
}
