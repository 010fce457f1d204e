/* Where the MPI cannot create a window (Open MPI over TCP without a
 * one-sided component that works there), MPIX_Win_create returns an error
 * on every rank, naming MPI's refusal: the library's communicators and
 * windows return MPI's errors instead of ending the job on the user's
 * behalf. The program then goes on with MPI (a barrier) and finalizes.
 * Prints "window_refused: error on every rank" (or "created" where the MPI
 * could make the window after all). */
#include <mpix/mpix.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPIX_Comm *xcomm = NULL;
    if (MPIX_Comm_init(&xcomm, MPI_COMM_WORLD) != MPI_SUCCESS) {
        printf("window_refused: WRONG: MPIX_Comm_init failed\n");
        return 1;
    }
    /* Only now: the library's communicators were made while the user's
     * handler was still MPI_ERRORS_ARE_FATAL, and must not have kept it;
     * the library raises its own errors on the user's communicator. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static char memory[4096];
    MPIX_Win *win = NULL;
    const int rc = MPIX_Win_create(memory, sizeof memory, 1, NULL, xcomm, &win);
    char text[MPIX_MAX_ERROR_STRING];
    int len = 0;
    if (rc != MPI_SUCCESS) {
        MPIX_Error_string(rc, text, &len);
        printf("rank %d: %s\n", rank, text);
    }
    int failed = rc != MPI_SUCCESS, everywhere = 0;
    MPI_Allreduce(&failed, &everywhere, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) MPIX_Win_free(&win);
    MPIX_Comm_free(&xcomm);
    if (rank == 0) {
        if (everywhere == size)
            printf("window_refused: error on every rank\n");
        else if (everywhere == 0)
            printf("window_refused: created\n");
        else
            printf("window_refused: WRONG: %d of %d ranks failed\n", everywhere, size);
    }
    MPI_Finalize();
    return 0;
}
