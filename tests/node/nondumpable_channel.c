/* The node channel where ranks refuse each other ptrace access: every rank
 * makes itself non-dumpable before MPI_Init (as hardened daemons and some
 * container runtimes do), and the test is launched as an unprivileged user
 * (tests/node/run_unprivileged.sh), so the kernel refuses CMA and pidfd_getfd
 * between them. The program first proves the refusal (a CMA read of a peer
 * fails with EPERM), then checks that every iteration delivers
 * MPI_Alltoallv's data:
 *   no argument: auto starts on the node channel and runs long enough for
 *     its tournament to race every mechanism it may (on Open MPI, whose
 *     windows retry a refused CMA forever, a window row that entered would
 *     hang the job); "auto": the same, wherever auto starts;
 *   "window": the first registered row that puts every block into a window,
 *     forced: it runs on MPICH, and on Open MPI it is refused, so the
 *     request falls back to auto;
 *   another name: that algorithm forced (channel_cma: its CMA pulls fall
 *     back to staging).
 * Prints "nondumpable_channel: ok (ran <algorithm>)" on rank 0. */
#define _GNU_SOURCE
#include <mpi.h>
#include <mpix/mpix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptrace_refused.h"

int main(int argc, char **argv) {
    if (!init_refusing_ptrace(&argc, &argv, "nondumpable_channel")) return 1;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPIX_Comm *xcomm;
    if (MPIX_Comm_init(&xcomm, MPI_COMM_WORLD) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    MPIX_Info *info = NULL;
    const char *forced = argc > 1 ? argv[1] : NULL;
    const int window_mode = forced != NULL && strcmp(forced, "window") == 0;
    if (window_mode) {
        int count = 0, capabilities = 0;
        const char *description = NULL;
        MPIX_Alltoallv_algorithm_count(&count);
        for (int i = 0; i < count && (capabilities & MPIX_ALGORITHM_WINDOW) == 0; ++i)
            MPIX_Alltoallv_algorithm(i, &forced, &description, &capabilities);
        if ((capabilities & MPIX_ALGORITHM_WINDOW) == 0) {
            if (rank == 0) printf("nondumpable_channel: WRONG: no registered row puts into a window\n");
            MPI_Finalize();
            return 1;
        }
    }
    if (forced != NULL) {
        MPIX_Info_init(&info);
        MPIX_Info_set(info, "mpix_alltoallv_algorithm", forced);
    }
#if defined(OPEN_MPI) && OPEN_MPI
    const int windows_refused = 1;
#else
    const int windows_refused = 0;
#endif
    /* auto's tournament takes at most MPIX_AUTO_SETTLE (100) iterations. */
    const int runs_auto = forced == NULL || strcmp(forced, "auto") == 0;
    const int iterations = runs_auto ? 250 : 20;
    int failures = 0;
    char algorithm[MPIX_MAX_OBJECT_NAME] = "";
    /* 8 B blocks, then blocks large enough for single copies where allowed. */
    const int blocks[2] = {2, 65536};
    for (int b = 0; b < 2; ++b) {
        const int n = blocks[b];
        int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
        int *send = malloc((size_t)size * n * sizeof(int)), *recv = malloc((size_t)size * n * sizeof(int));
        int *expected = malloc((size_t)size * n * sizeof(int));
        for (int i = 0; i < size; ++i) sc[i] = n, sd[i] = i * n;
        MPIX_Request *request;
        if (MPIX_Alltoallv_init(send, sc, sd, MPI_INT, recv, sc, sd, MPI_INT, xcomm, info, &request) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        int length = 0;
        MPIX_Request_get_algorithm(request, algorithm, &length);
        if (window_mode) {
            /* Forced where it runs; refused (auto instead) on Open MPI. */
            if ((strcmp(algorithm, forced) == 0) == windows_refused) ++failures;
        } else if (forced == NULL && strstr(algorithm, "channel") == NULL) {
            ++failures;
        }
        for (int it = 0; it < iterations; ++it) {
            for (int i = 0; i < size * n; ++i) send[i] = rank * 7919 + it * 31 + i;
            MPI_Alltoallv(send, sc, sd, MPI_INT, expected, sc, sd, MPI_INT, MPI_COMM_WORLD);
            memset(recv, 0xA5, (size_t)size * n * sizeof(int));
            if (MPIX_Start(request) != MPI_SUCCESS || MPIX_Wait(request, MPI_STATUS_IGNORE) != MPI_SUCCESS) ++failures;
            if (memcmp(recv, expected, (size_t)size * n * sizeof(int)) != 0) ++failures;
        }
        if (failures) printf("rank %d: WRONG: %d failures at %d ints per block (algorithm '%s')\n", rank, failures, n,
                             algorithm);
        MPIX_Request_free(&request);
        free(sc), free(sd), free(send), free(recv), free(expected);
    }
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (info) MPIX_Info_free(&info);
    MPIX_Comm_free(&xcomm);
    if (rank == 0 && failures == 0) printf("nondumpable_channel: ok (ran %s)\n", algorithm);
    MPI_Finalize();
    return failures != 0;
}
