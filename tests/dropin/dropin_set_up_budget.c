/* The drop-in's set-up of nonblocking exchanges, in a program that makes
 * communicators and makes no nonblocking exchange on them: 16 duplicates
 * made and freed unused (each set up where it was made), then one more,
 * named 'serve:late', on which the program makes MPI_Ialltoall calls. The
 * drop-in sets that one up no more (rank 0 says why under MPIX_VERBOSE),
 * so its calls go to the MPI; their data is checked. Rank 0 prints
 * "dropin_set_up_budget: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { unused = 16, block = 64, calls = 10 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, wrong = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < unused; ++i) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_free(&comm);
    }
    MPI_Comm late;
    MPI_Comm_dup(MPI_COMM_WORLD, &late);
    MPI_Comm_set_name(late, "serve:late");
    int *send = malloc(sizeof(int) * block * size), *recv = malloc(sizeof(int) * block * size);
    for (int it = 0; it < calls; ++it) {
        for (int d = 0; d < size; ++d)
            for (int j = 0; j < block; ++j) send[d * block + j] = rank * 100000 + d * 1000 + j + it, recv[d * block + j] = -1;
        MPI_Request request;
        MPI_Ialltoall(send, block, MPI_INT, recv, block, MPI_INT, late, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        for (int s = 0; s < size; ++s)
            for (int j = 0; j < block; ++j) wrong += recv[s * block + j] != s * 100000 + rank * 1000 + j + it;
    }
    MPI_Comm_free(&late);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("dropin_set_up_budget: %s (%d wrong)\n", wrong ? "WRONG" : "ok", wrong);
    free(send), free(recv);
    MPI_Finalize();
    return wrong != 0;
}
