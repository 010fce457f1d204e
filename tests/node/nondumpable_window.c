/* MPIX windows where ranks refuse each other ptrace access for real (see
 * ptrace_refused.h): argv[1] names the kind (created, allocated, dynamic);
 * argv[2] "other_nodes" says the ranks are on emulated nodes of their own.
 * Where the window can work it must: each rank puts a block into the next
 * rank's part, then adds to its first element (dynamic: the window is made
 * and freed), and the data must arrive. That is every kind on MPICH, whose
 * windows need no CMA, and on Open MPI an allocated window on one node (its
 * peers by load/store). Other Open MPI windows would retry a refused CMA
 * forever (a created window's first put does): their creation fails
 * instead, with the same error class on every rank and a message that says
 * why. Nothing may hang.
 * Prints "nondumpable_window: ok (<kind> made|refused)" on rank 0. */
#define _GNU_SOURCE
#include <mpi.h>
#include <mpix/mpix.h>
#include <stdio.h>
#include <string.h>

#include "ptrace_refused.h"

#define INTS 1024

int main(int argc, char **argv) {
    if (!init_refusing_ptrace(&argc, &argv, "nondumpable_window")) return 1;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *kind = argc > 1 ? argv[1] : "created";
#if defined(OPEN_MPI) && OPEN_MPI
    const int refused_here = strcmp(kind, "allocated") != 0 || (argc > 2 && strcmp(argv[2], "other_nodes") == 0);
#else
    const int refused_here = 0;
#endif
    MPIX_Comm *xcomm;
    if (MPIX_Comm_init(&xcomm, MPI_COMM_WORLD) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    static int user_part[INTS];
    int *part = user_part;
    MPIX_Win *win = NULL;
    int rc;
    if (strcmp(kind, "allocated") == 0)
        rc = MPIX_Win_allocate(INTS * sizeof(int), sizeof(int), NULL, xcomm, &part, &win);
    else if (strcmp(kind, "dynamic") == 0)
        rc = MPIX_Win_create_dynamic(NULL, xcomm, &win);
    else
        rc = MPIX_Win_create(part, INTS * sizeof(int), sizeof(int), NULL, xcomm, &win);

    int failures = 0;
    if (refused_here) {
        char message[MPIX_MAX_ERROR_STRING];
        int length = 0, error_class = MPI_SUCCESS;
        MPIX_Error_string(rc, message, &length);
        MPI_Error_class(rc, &error_class);
        if (error_class != MPI_ERR_UNSUPPORTED_OPERATION || strstr(message, "refuses") == NULL || win != NULL) {
            printf("rank %d: WRONG: creation returned class %d, window %p: %s\n", rank, error_class, (void *)win,
                   message);
            ++failures;
        }
    } else if (rc != MPI_SUCCESS) {
        printf("rank %d: WRONG: creation failed (%d)\n", rank, rc);
        ++failures;
    } else {
        if (strcmp(kind, "dynamic") != 0) {
            for (int i = 0; i < INTS; ++i) part[i] = -1;
            int block[INTS];
            for (int i = 0; i < INTS; ++i) block[i] = rank * 100003 + i;
            MPIX_Win_fence(0, win);
            MPIX_Put(block, INTS, MPI_INT, (rank + 1) % size, 0, INTS, MPI_INT, win);
            MPIX_Win_fence(0, win);
            MPIX_Accumulate(block, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, MPI_SUM, win);
            MPIX_Win_fence(0, win);
            const int from = (rank + size - 1) % size;
            for (int i = 0; i < INTS; ++i)
                if (part[i] != (i == 0 ? 2 : 1) * (from * 100003 + i)) ++failures;
            if (failures) printf("rank %d: WRONG: %d ints differ from rank %d's block\n", rank, failures, from);
        }
        if (MPIX_Win_free(&win) != MPI_SUCCESS) ++failures;
    }
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPIX_Comm_free(&xcomm);
    if (rank == 0 && failures == 0) printf("nondumpable_window: ok (%s %s)\n", kind, refused_here ? "refused" : "made");
    MPI_Finalize();
    return failures != 0;
}
