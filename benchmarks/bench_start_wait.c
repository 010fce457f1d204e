/*
 * What one Start + Wait costs in C, for the Python binding's overhead
 * (benchmarks/python_start_wait.py times the same loops in Python):
 * an mpix-rma Alltoall request of 8 B per peer (MPIX_Start, MPIX_Wait)
 * and an MPI persistent send/receive pair of 8 B to the next rank
 * (MPI_Startall, MPI_Waitall), each looped --iterations times after as
 * many untimed, in --rounds interleaved rounds. Prints per round and loop
 * the time per iteration in microseconds (max over ranks):
 *   start_wait <loop> <round> <us>
 */
#include <mpi.h>
#include <mpix/mpix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double timed(void (*iteration)(void *), void *state, int iterations) {
    for (int i = 0; i < iterations; ++i) iteration(state);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < iterations; ++i) iteration(state);
    double elapsed = (MPI_Wtime() - start) / iterations * 1e6;
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return elapsed;
}

static void mpix_iteration(void *request) {
    MPIX_Start(request);
    MPIX_Wait(request, MPI_STATUS_IGNORE);
}

static void mpi_iteration(void *requests) {
    /* Statuses written, not ignored: GCC reads MPICH's MPI_STATUSES_IGNORE
     * ((MPI_Status *)1) as a buffer of size 0 and warns. */
    MPI_Status statuses[2];
    MPI_Startall(2, requests);
    MPI_Waitall(2, requests, statuses);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int iterations = 10000, rounds = 5;
    const char *algorithm = "auto";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--iterations") == 0) iterations = atoi(argv[i + 1]);
        if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
        if (strcmp(argv[i], "--algorithm") == 0) algorithm = argv[i + 1];
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *send = calloc((size_t)size, sizeof(double)), *recv = calloc((size_t)size, sizeof(double));
    double peer_send = 0, peer_recv = 0;
    MPIX_Comm *xcomm;
    MPIX_Info *info;
    MPIX_Request *request;
    MPIX_Comm_init(&xcomm, MPI_COMM_WORLD);
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "mpix_alltoall_algorithm", algorithm);
    MPIX_Alltoall_init(send, 1, MPI_DOUBLE, recv, 1, MPI_DOUBLE, xcomm, info, &request);
    MPI_Request pair[2];
    MPI_Send_init(&peer_send, 1, MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD, &pair[0]);
    MPI_Recv_init(&peer_recv, 1, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &pair[1]);
    for (int round = 0; round < rounds; ++round) {
        const double mpix = timed(mpix_iteration, request, iterations);
        const double mpi = timed(mpi_iteration, pair, iterations);
        if (rank == 0) printf("start_wait mpixrma %d %.4f\nstart_wait mpi %d %.4f\n", round, mpix, round, mpi);
    }
    MPI_Request_free(&pair[0]);
    MPI_Request_free(&pair[1]);
    MPIX_Request_free(&request);
    MPIX_Info_free(&info);
    MPIX_Comm_free(&xcomm);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
