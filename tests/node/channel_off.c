/* MPIX_CHANNEL=off keeps every family off the node channel (docs/security.md):
 * for each family, auto and every registered algorithm forced in turn (with
 * MPIX_FALLBACK=error) run an exchange whose data is checked against MPI's
 * own call, and while each request is alive every rank counts the node
 * channel's segments mapped in its process (/proc/self/maps, the memfd's
 * name). Argument:
 *   "none": MPIX_CHANNEL=off is set; no rank ever maps a segment, and each
 *     algorithm that needs the channel fails at init with MPIX_ERR_ALGORITHM
 *     naming the switch;
 *   "some": the control, without the switch: the algorithms that need the
 *     channel run, and segments are mapped (so the count can see them).
 * Prints "channel_off: ok (R requests, S segments seen)" on rank 0. */
#include <mpi.h>
#include <mpix/mpix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel_segments.h"

static int rank, size;

struct family {
    const char *name;     /* as in the info key mpix_<name>_algorithm */
    int (*count)(int *);
    int (*algorithm)(int, const char **, const char **, int *);
};

/* Buffers of one exchange: every rank sends `block` ints to each peer (the
 * neighbourhood family: along each edge of a ring, both ways). */
struct exchange {
    int peers, block;
    int *counts, *displs, *send, *recv, *expected;
    MPI_Comm graph;
    MPIX_Comm *xcomm, *xgraph;
};

static int init_request(const struct family *f, struct exchange *x, MPIX_Info *info, MPIX_Request **request) {
    if (strcmp(f->name, "alltoallv") == 0)
        return MPIX_Alltoallv_init(x->send, x->counts, x->displs, MPI_INT, x->recv, x->counts, x->displs, MPI_INT,
                                   x->xcomm, info, request);
    if (strcmp(f->name, "alltoall") == 0)
        return MPIX_Alltoall_init(x->send, x->block, MPI_INT, x->recv, x->block, MPI_INT, x->xcomm, info, request);
    return MPIX_Neighbor_alltoallv_init(x->send, x->counts, x->displs, MPI_INT, x->recv, x->counts, x->displs,
                                        MPI_INT, x->xgraph, info, request);
}

static void mpi_exchange(const struct family *f, struct exchange *x) {
    if (strcmp(f->name, "alltoall") == 0)
        MPI_Alltoall(x->send, x->block, MPI_INT, x->expected, x->block, MPI_INT, MPI_COMM_WORLD);
    else if (strcmp(f->name, "alltoallv") == 0)
        MPI_Alltoallv(x->send, x->counts, x->displs, MPI_INT, x->expected, x->counts, x->displs, MPI_INT,
                      MPI_COMM_WORLD);
    else
        MPI_Neighbor_alltoallv(x->send, x->counts, x->displs, MPI_INT, x->expected, x->counts, x->displs, MPI_INT,
                               x->graph);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* refusals are checked, not fatal */
    const int expect_none = argc > 1 && strcmp(argv[1], "none") == 0;
    const struct family families[] = {
        {"alltoallv", MPIX_Alltoallv_algorithm_count, MPIX_Alltoallv_algorithm},
        {"alltoall", MPIX_Alltoall_algorithm_count, MPIX_Alltoall_algorithm},
        {"neighbor_alltoallv", MPIX_Neighbor_alltoallv_algorithm_count, MPIX_Neighbor_alltoallv_algorithm},
    };

    struct exchange x = {0};
    x.block = 512; /* 2 KiB: staged through the rings, and sent by reference where allowed */
    const int ring[2] = {(rank + size - 1) % size, (rank + 1) % size};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, ring, MPI_UNWEIGHTED, 2, ring, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                   0, &x.graph);
    if (MPIX_Comm_init(&x.xcomm, MPI_COMM_WORLD) != MPI_SUCCESS || MPIX_Comm_init(&x.xgraph, x.graph) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);

    int failures = 0, requests = 0, most_segments = 0, channel_algorithms = 0;
    for (size_t f = 0; f < sizeof families / sizeof families[0]; ++f) {
        const struct family *fam = &families[f];
        x.peers = strcmp(fam->name, "neighbor_alltoallv") == 0 ? 2 : size;
        const size_t ints = (size_t)x.peers * x.block;
        x.counts = malloc(x.peers * sizeof(int)), x.displs = malloc(x.peers * sizeof(int));
        x.send = malloc(ints * sizeof(int)), x.recv = malloc(ints * sizeof(int)), x.expected = malloc(ints * sizeof(int));
        for (int i = 0; i < x.peers; ++i) x.counts[i] = x.block, x.displs[i] = i * x.block;
        int rows = 0;
        fam->count(&rows);
        for (int row = -1; row < rows; ++row) { /* -1: auto */
            const char *algorithm = "auto", *description = NULL;
            int capabilities = 0;
            if (row >= 0) fam->algorithm(row, &algorithm, &description, &capabilities);
            const int needs_channel = (capabilities & MPIX_ALGORITHM_NODE_CHANNEL) != 0;
            channel_algorithms += needs_channel;
            char key[64];
            snprintf(key, sizeof key, "mpix_%s_algorithm", fam->name);
            MPIX_Info *info = NULL;
            MPIX_Info_init(&info);
            MPIX_Info_set(info, key, algorithm);
            MPIX_Request *request = NULL;
            const int rc = init_request(fam, &x, info, &request);
            MPIX_Info_free(&info);
            if (rc != MPI_SUCCESS) {
                int cls = rc;
                char message[MPIX_MAX_ERROR_STRING];
                int length = 0;
                MPI_Error_class(rc, &cls);
                MPIX_Error_string(rc, message, &length);
                /* Refused for another reason (a window algorithm where the MPI
                 * cannot run it, say) is fine; refused for the channel only
                 * where it is off. */
                const int for_the_switch = strstr(message, "MPIX_CHANNEL=off") != NULL;
                if (cls != MPIX_ERR_ALGORITHM || for_the_switch != (expect_none && needs_channel) ||
                    (needs_channel && !expect_none)) {
                    printf("rank %d: WRONG: %s %s: %s\n", rank, fam->name, algorithm, message);
                    ++failures;
                }
                continue;
            }
            if (expect_none && needs_channel) {
                printf("rank %d: WRONG: %s %s ran with MPIX_CHANNEL=off\n", rank, fam->name, algorithm);
                ++failures;
            }
            ++requests;
            const int iterations = row < 0 ? 120 : 12; /* auto: past its tournament */
            for (int it = 0; it < iterations; ++it) {
                for (size_t i = 0; i < ints; ++i) x.send[i] = rank * 7919 + it * 31 + (int)i;
                mpi_exchange(fam, &x);
                memset(x.recv, 0xA5, ints * sizeof(int));
                if (MPIX_Start(request) != MPI_SUCCESS || MPIX_Wait(request, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
                    memcmp(x.recv, x.expected, ints * sizeof(int)) != 0) {
                    printf("rank %d: WRONG: %s %s: iteration %d\n", rank, fam->name, algorithm, it);
                    ++failures;
                    break;
                }
            }
            const int segments = channel_segments_mapped();
            if (segments < 0) ++failures;
            if (segments > most_segments) most_segments = segments;
            if (expect_none && segments > 0)
                printf("rank %d: WRONG: %d node-channel segment(s) mapped after %s %s\n", rank, segments, fam->name,
                       algorithm);
            MPIX_Request_free(&request);
        }
        free(x.counts), free(x.displs), free(x.send), free(x.recv), free(x.expected);
    }
    MPI_Allreduce(MPI_IN_PLACE, &most_segments, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (expect_none ? most_segments != 0 : most_segments == 0 || channel_algorithms == 0) ++failures;
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPIX_Comm_free(&x.xgraph);
    MPIX_Comm_free(&x.xcomm);
    MPI_Comm_free(&x.graph);
    if (rank == 0) {
        if (failures == 0)
            printf("channel_off: ok (%d requests, %d segments seen)\n", requests, most_segments);
        else
            printf("channel_off: WRONG: %d failures, at most %d segments mapped\n", failures, most_segments);
    }
    MPI_Finalize();
    return failures != 0;
}
