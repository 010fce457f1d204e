/* An unmodified MPI-4 program for the drop-in: persistent collectives
 * (MPI_Alltoallv_init, MPI_Alltoall_init, MPI_Neighbor_alltoallv_init on a
 * ring), started and completed every way MPI allows, with requests of the
 * MPI's own in the same arrays:
 *   MPI_Start + MPI_Wait; MPI_Start + MPI_Test polled; MPI_Startall of the
 *   three + MPI_Waitall with an Isend/Irecv pair; MPI_Testall polled;
 *   MPI_Waitany and MPI_Testany until all are done; MPI_Waitsome and
 *   MPI_Testsome until all are done; MPI_Request_get_status polled, then
 *   MPI_Wait.
 * Every iteration's data is checked against what the exchange must deliver,
 * and the point-to-point pair's too. Then MPI's rules, under
 * MPI_ERRORS_RETURN: starting an active request is MPI_ERR_REQUEST;
 * waiting on an inactive one returns at once with an empty status; freeing
 * an inactive one sets the handle to MPI_REQUEST_NULL.
 * Run with and without LD_PRELOAD=libmpixrma_intercept.so: the program
 * cannot tell them apart. Without --every-way it keeps to the ways
 * MPICH 4.0.2's own persistent collectives complete correctly (below).
 * Rank 0 prints which library each init and MPI_Alltoallv come from (the
 * drop-in's or the MPI's), then "dropin_persistent: ok". */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
/* Open MPI 4.1 has the same calls under its own MPIX_ names, which the
 * drop-in passes through untouched: the program runs on them there. */
#if MPI_VERSION < 4 && defined(OPEN_MPI)
#define PRE_STANDARD_FORMS 1
#include <mpi-ext.h>
#if !defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) || !OMPI_HAVE_MPI_EXT_PCOLLREQ
#error "Open MPI without its persistent collectives (mpi-ext.h's pcollreq)"
#endif
#define MPI_Alltoallv_init MPIX_Alltoallv_init
#define MPI_Alltoall_init MPIX_Alltoall_init
#define MPI_Neighbor_alltoallv_init MPIX_Neighbor_alltoallv_init
#endif
#include <stdlib.h>
#include <string.h>

#include "checked_exchanges.h"

enum { block = 256, iterations = 42, ways = 7, long_run = 10000 };

static void print_origin(const char *name, void (*function)(void)) {
    Dl_info info;
    printf("%s from %s\n", name, dladdr((void *)function, &info) && info.dli_fname ? info.dli_fname : "?");
}

/* All-to-all: block d to rank d is rank*1000 + d*10 + j + it; the ring's
 * edges: out-edge k carries rank*1000 + k*100 + j + it, and in-edge k comes
 * from the source's out-edge to this rank (with 2 ranks, edge k's). */
static void fill(Buffers *all, Buffers *ring, int it) {
    for (int d = 0; d < size_; ++d)
        for (int j = 0; j < block; ++j) {
            all->send[d * block + j] = rank_ * 1000 + d * 10 + j + it;
            all->expected[d * block + j] = d * 1000 + rank_ * 10 + j + it;
        }
    const int source[2] = {(rank_ + size_ - 1) % size_, (rank_ + 1) % size_};
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < block; ++j) {
            ring->send[k * block + j] = rank_ * 1000 + k * 100 + j + it;
            const int out_edge = size_ == 2 ? k : 1 - k;
            ring->expected[k * block + j] = source[k] * 1000 + out_edge * 100 + j + it;
        }
    memset(all->recv, 0xA5, sizeof(int) * all->ints);
    memset(ring->recv, 0xA5, sizeof(int) * ring->ints);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    const int every_way = argc > 1 && strcmp(argv[1], "--every-way") == 0;
    if (rank_ == 0) {
/* The name the program calls, after the aliases above. */
#define NAME_OF(function) #function
#define PRINT_ORIGIN(function) print_origin(NAME_OF(function), (void (*)(void))function)
        PRINT_ORIGIN(MPI_Alltoallv);
        PRINT_ORIGIN(MPI_Alltoallv_init);
        PRINT_ORIGIN(MPI_Alltoall_init);
        PRINT_ORIGIN(MPI_Neighbor_alltoallv_init);
    }
    MPI_Comm comm, graph;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_name(comm, "serve:persistent");
    /* MPICH raises a request's errors on MPI_COMM_WORLD's handler. */
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int ring[2] = {(rank_ + size_ - 1) % size_, (rank_ + 1) % size_};
    MPI_Dist_graph_create_adjacent(comm, 2, ring, MPI_UNWEIGHTED, 2, ring, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    MPI_Comm_set_name(graph, "serve:persistent ring");

    Buffers v = buffers(size_, block), a = buffers(size_, block), n = buffers(2, block);
    int *counts = malloc(sizeof(int) * size_), *displs = malloc(sizeof(int) * size_);
    for (int d = 0; d < size_; ++d) counts[d] = block, displs[d] = d * block;
    const int ring_counts[2] = {block, block}, ring_displs[2] = {0, block};
    MPI_Request persistent[3];
    MPI_Alltoallv_init(v.send, counts, displs, MPI_INT, v.recv, counts, displs, MPI_INT, comm, MPI_INFO_NULL,
                       &persistent[0]);
    MPI_Alltoall_init(a.send, block, MPI_INT, a.recv, block, MPI_INT, comm, MPI_INFO_NULL, &persistent[1]);
    MPI_Neighbor_alltoallv_init(n.send, ring_counts, ring_displs, MPI_INT, n.recv, ring_counts, ring_displs, MPI_INT,
                                graph, MPI_INFO_NULL, &persistent[2]);

    /* A persistent point-to-point pair of the MPI's own around the ring,
     * started with the three (MPI_Startall over served and unserved). */
    int p2p_out = 0, p2p_in = -1;
    MPI_Request pair[2];
    MPI_Recv_init(&p2p_in, 1, MPI_INT, ring[0], 0, comm, &pair[0]);
    MPI_Send_init(&p2p_out, 1, MPI_INT, ring[1], 0, comm, &pair[1]);
    for (int it = 0; it < iterations; ++it) {
        fill(&v, &n, it);
        memcpy(a.send, v.send, sizeof(int) * v.ints);
        memcpy(a.expected, v.expected, sizeof(int) * v.ints);
        memset(a.recv, 0xA5, sizeof(int) * a.ints);
        /* Five requests: the three served, and a point-to-point pair of
         * the MPI's own around the ring. */
        MPI_Request all[5];
        memcpy(all, persistent, sizeof persistent);
        memcpy(&all[3], pair, sizeof pair);
        p2p_out = rank_ * 31 + it;
        MPI_Status statuses[5];
        int flag = 0, index = 0, done = 0, outcount = 0, indices[5];
        /* MPICH 4.0.2 itself misreports persistent collectives in its
         * -all, -any and -some test forms (MPI_Testany reports an active
         * one complete before its data has arrived, MPI_Testall returns
         * MPI_ERR_IN_STATUS with no error in any status): run without the
         * drop-in, the program keeps to the calls it gets right. */
        static const int plain_ways[] = {0, 1, 2, 6};
        const int way = every_way ? it % ways : plain_ways[it % 4];
        switch (way) {
            case 0:
                for (int r = 0; r < 5; ++r) MPI_Start(&all[r]);
                for (int r = 0; r < 5; ++r) MPI_Wait(&all[r], &statuses[r]);
                break;
            case 1:
                MPI_Startall(5, all);
                for (int r = 0; r < 5; ++r)
                    for (flag = 0; !flag;) MPI_Test(&all[r], &flag, &statuses[r]);
                break;
            case 2:
                MPI_Startall(5, all);
                MPI_Waitall(5, all, statuses);
                break;
            case 3:
                MPI_Startall(5, all);
                for (flag = 0; !flag;) MPI_Testall(5, all, &flag, statuses);
                break;
            case 4:
                MPI_Startall(5, all);
                for (done = 0; done < 5; ++done) {
                    if (it % 2)
                        MPI_Waitany(5, all, &index, &statuses[0]);
                    else
                        for (flag = 0; !flag;) MPI_Testany(5, all, &index, &flag, &statuses[0]);
                    expect(index >= 0 && index < 5, "an index out of the array", it);
                    /* The MPI's own leave MPI_REQUEST_NULL; a completed
                     * persistent one is inactive (it is not returned again). */
                }
                break;
            case 5:
                MPI_Startall(5, all);
                for (done = 0; done < 5; done += outcount) {
                    if (it % 2)
                        MPI_Waitsome(5, all, &outcount, indices, statuses);
                    else
                        MPI_Testsome(5, all, &outcount, indices, statuses);
                    expect(outcount != MPI_UNDEFINED, "no active request left early", it);
                    if (outcount == MPI_UNDEFINED) break;
                }
                break;
            default:
                MPI_Startall(5, all);
                for (int r = 0; r < 3; ++r) {
                    for (flag = 0; !flag;) MPI_Request_get_status(all[r], &flag, MPI_STATUS_IGNORE);
                    MPI_Wait(&all[r], &statuses[r]);
                }
                MPI_Waitall(2, &all[3], &statuses[3]);
                break;
        }
        for (int r = 0; r < 3; ++r) expect(all[r] == persistent[r], "a persistent handle changed", it);
        for (int r = 0; r < 2; ++r) expect(all[3 + r] == pair[r], "a point-to-point handle changed", it);
        expect(memcmp(v.recv, v.expected, sizeof(int) * v.ints) == 0, "MPI_Alltoallv_init's data", it);
        expect(memcmp(a.recv, a.expected, sizeof(int) * a.ints) == 0, "MPI_Alltoall_init's data", it);
        expect(memcmp(n.recv, n.expected, sizeof(int) * n.ints) == 0, "MPI_Neighbor_alltoallv_init's data", it);
        expect(p2p_in == ring[0] * 31 + it, "the point-to-point pair's data", it);
    }

    /* One request started 10^4 times, every call's data checked: under the
     * drop-in's default rule it runs the MPI's own request first and the
     * library's once its search is repaid. */
    for (int it = 0; it < long_run; ++it) {
        for (int j = 0; j < v.ints; ++j) v.send[j] = rank_ * 1000 + j + it;
        MPI_Start(&persistent[0]);
        MPI_Wait(&persistent[0], MPI_STATUS_IGNORE);
        for (int d = 0; d < size_ && !wrong; ++d)
            for (int j = 0; j < block; ++j)
                if (v.recv[d * block + j] != d * 1000 + rank_ * block + j + it) {
                    expect(0, "the long run's data", it);
                    break;
                }
    }

    /* MPI's rules. Open MPI's pre-standard forms do not check them (a
     * second start of an active request succeeds, and its free then
     * crashes the MPI). */
#ifndef PRE_STANDARD_FORMS
    int cls = MPI_SUCCESS;
    MPI_Start(&persistent[0]);
    MPI_Error_class(MPI_Start(&persistent[0]), &cls);
    expect(cls == MPI_ERR_REQUEST, "starting an active request is not MPI_ERR_REQUEST", iterations);
    MPI_Wait(&persistent[0], MPI_STATUS_IGNORE);
    MPI_Status status;
    status.MPI_SOURCE = 12345;
    expect(MPI_Wait(&persistent[0], &status) == MPI_SUCCESS && status.MPI_SOURCE == MPI_ANY_SOURCE &&
               status.MPI_TAG == MPI_ANY_TAG,
           "waiting on an inactive request does not give an empty status", iterations);
#endif
    for (int r = 0; r < 3; ++r) {
        MPI_Request_free(&persistent[r]);
        expect(persistent[r] == MPI_REQUEST_NULL, "a freed request is not MPI_REQUEST_NULL", iterations);
    }
    for (int r = 0; r < 2; ++r) MPI_Request_free(&pair[r]);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&comm);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) printf("dropin_persistent: %s (%d wrong)\n", wrong ? "WRONG" : "ok", wrong);
    release(&v), release(&a), release(&n);
    free(counts), free(displs);
    MPI_Finalize();
    return wrong != 0;
}
