/* Many live node-channel requests on one communicator (argument 1, default
 * 1000), under a low limit on open files (the test runs it after `ulimit -n`
 * well below that count): a live channel must hold mappings, not file
 * descriptors. Every request is started, checked
 * against MPI_Alltoallv's data, and kept alive until all exist.
 * Prints "many_channel_requests: ok (N live requests, fd limit L)".
 * Then every rank uses up its descriptors and makes one more request: it
 * must fail on every rank with a message that names the limit
 * (RLIMIT_NOFILE), and work again once the descriptors are closed. */
#include <mpi.h>
#include <mpix/mpix.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>


int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const int REQUESTS = argc > 1 ? atoi(argv[1]) : 1000;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPIX_Comm *xcomm;
    if (MPIX_Comm_init(&xcomm, MPI_COMM_WORLD) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    MPIX_Info *info;
    MPIX_Info_init(&info);
    MPIX_Info_set(info, "mpix_alltoallv_algorithm", "channel");
    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    for (int i = 0; i < size; ++i) sc[i] = 4, sd[i] = 4 * i;
    int *send = malloc(64 * size * sizeof(int)), *expected = malloc(4 * size * sizeof(int));
    int *recv = malloc((size_t)REQUESTS * 4 * size * sizeof(int));
    MPIX_Request **requests = calloc(REQUESTS, sizeof *requests);
    int made = 0, wrong = 0;
    for (; made < REQUESTS; ++made) {
        int *mine = recv + (size_t)made * 4 * size;
        const int rc = MPIX_Alltoallv_init(send, sc, sd, MPI_INT, mine, sc, sd, MPI_INT, xcomm, info, &requests[made]);
        if (rc != MPI_SUCCESS) {
            char text[MPIX_MAX_ERROR_STRING];
            int length = 0;
            MPIX_Error_string(rc, text, &length);
            printf("rank %d: request %d: %s\n", rank, made, text);
            break;
        }
        for (int i = 0; i < 4 * size; ++i) send[i] = rank * 100003 + made * 13 + i;
        MPI_Alltoallv(send, sc, sd, MPI_INT, expected, sc, sd, MPI_INT, MPI_COMM_WORLD);
        if (MPIX_Start(requests[made]) != MPI_SUCCESS || MPIX_Wait(requests[made], MPI_STATUS_IGNORE) != MPI_SUCCESS ||
            memcmp(mine, expected, 4 * size * sizeof(int)) != 0)
            ++wrong;
    }
    for (int i = 0; i < made; ++i) MPIX_Request_free(&requests[i]);

    /* Out of descriptors: the error names the limit, on every rank. Blocks
     * of another size, so that no pooled channel fits and one is made. */
    for (int i = 0; i < size; ++i) sc[i] = 64, sd[i] = 64 * i;
    int *held = malloc(4096 * sizeof(int)), count = 0;
    while (count < 4096 && (held[count] = open("/dev/null", O_RDONLY)) >= 0) ++count;
    /* Two left: the segment and the socket are made, a peer's descriptor
     * cannot be received. (The error is raised once those two are closed
     * again, so UBSan's checks, which need a pipe, still work.) */
    for (int k = 0; k < 2 && count > 0; ++k) close(held[--count]);
    MPIX_Request *exhausted = NULL;
    const int rc = MPIX_Alltoallv_init(send, sc, sd, MPI_INT, recv, sc, sd, MPI_INT, xcomm, info, &exhausted);
    char text[MPIX_MAX_ERROR_STRING] = "";
    int length = 0;
    if (rc != MPI_SUCCESS) MPIX_Error_string(rc, text, &length);
    int named = rc != MPI_SUCCESS && strstr(text, "RLIMIT_NOFILE") != NULL;
    if (!named) printf("rank %d: WRONG: out of descriptors, init gave %d: '%s'\n", rank, rc, text);
    if (exhausted) MPIX_Request_free(&exhausted);
    while (count > 0) close(held[--count]);
    free(held);
    MPI_Allreduce(MPI_IN_PLACE, &named, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0 && named) printf("many_channel_requests: out of descriptors, every rank: %s\n", text);
    if (!named) ++wrong;
    if (MPIX_Alltoallv_init(send, sc, sd, MPI_INT, recv, sc, sd, MPI_INT, xcomm, info, &exhausted) != MPI_SUCCESS)
        ++wrong;
    else
        MPIX_Request_free(&exhausted);
    int all_made = made;
    MPI_Allreduce(MPI_IN_PLACE, &all_made, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    if (wrong) printf("rank %d: WRONG data in %d requests\n", rank, wrong);
    if (rank == 0 && all_made == REQUESTS && wrong == 0)
        printf("many_channel_requests: ok (%d live requests, fd limit %ld)\n", REQUESTS, (long)limit.rlim_cur);
    MPIX_Info_free(&info);
    MPIX_Comm_free(&xcomm);
    free(sc), free(sd), free(send), free(expected), free(recv), free(requests);
    MPI_Finalize();
    return all_made == REQUESTS && wrong == 0 ? 0 : 1;
}
