/* Objects the user forgets to free are destroyed when MPI_Finalize starts
 * (a window alive at finalize aborts inside UCX), and a free after finalize
 * is an error, not a crash. Written in C: it is also the C API's compile test. */
#include <mpix/mpix.h>
#include <stdio.h>

int mpix_test_live_resources(void);

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int counts[64], displs[64], send[64], recv[64];
    for (int i = 0; i < size; ++i) counts[i] = 1, displs[i] = i, send[i] = rank;

    MPIX_Comm* comm = NULL;
    MPIX_Info* info = NULL;
    MPIX_Request* request = NULL;
    MPIX_Comm_init(&comm, MPI_COMM_WORLD);
    MPIX_Info_init(&info);
    MPIX_Alltoallv_init(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, comm, info, &request);
    MPIX_Start(request);
    MPIX_Wait(request, MPI_STATUS_IGNORE);
    /* comm, info and request, and what the library made for them (the
     * selector's parameters, the node's shared memory) */
    int ok = mpix_test_live_resources() >= 3;
    for (int i = 0; i < size; ++i) ok = ok && recv[i] == i;

    MPI_Finalize(); /* comm, info and request are still alive here */

    ok = ok && mpix_test_live_resources() == 0;
    ok = ok && MPIX_Request_free(&request) != MPI_SUCCESS;
    printf("rank %d: %s\n", rank, ok ? "1 passed, 0 failed" : "0 passed, 1 failed");
    return ok ? 0 : 1;
}
