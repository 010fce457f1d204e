/* An unmodified MPI program with erroneous MPI_Alltoallv calls, for the
 * drop-in: run once plainly and once under LD_PRELOAD, it must behave the
 * same (the same error class at every call on every rank, no hang).
 *
 * With MPI_ERRORS_RETURN, the program first calls one exchange often enough
 * for the drop-in to serve it, then makes the faulty call, then the good one
 * again. The faulty call fails on one rank only:
 *   truncate:  rank 1 expects fewer elements from rank 0 than rank 0 sends
 *              (MPI_ERR_TRUNCATE where MPI detects it);
 *   mismatch:  rank 1 expects more elements from rank 0 than rank 0 sends
 *              (erroneous, but MPI need not detect it);
 *   null:      every rank passes a NULL receive buffer with nonzero counts
 *              (MPI_ERR_BUFFER, rejected before any data moves);
 *   aliased:   every rank passes NULL for both buffers with all counts zero,
 *              in many calls in a row (MPICH rejects the aliased buffers
 *              with MPI_ERR_BUFFER, Open MPI accepts them): the drop-in,
 *              which could serve the repeated pattern, must leave every
 *              such call to MPI (run with MPIX_INTERCEPT_MIN_BYTES=0);
 *   split:     MPI_Neighbor_alltoallv on a graph that lists every rank twice
 *              each way: rank 1 receives from rank 0 as many elements as
 *              it sends, but split 1:3 where rank 0 sends 1:1 (MPI_ERR_
 *              TRUNCATE: MPI matches the first message with the first
 *              receive, which is too small).
 * A faulty call on one rank is, for the drop-in, a call like any other: its
 * calls clock and bookkeeping must stay those of the other ranks, or the
 * next call meets them in a different collective and hangs.
 *
 * Prints one line per rank and call, "rank R call C class K", sorted by the
 * test's script, another, "rank R call C: MPI_ERR_TRUNCATE", where that is
 * the class, and "dropin_errors: done" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 512    /* ints per block: above MPIX_INTERCEPT_MIN_BYTES=1024 */
#define BEFORE 12    /* good calls before the faulty one: served by then */
#define AFTER 12     /* good calls after it */
#define FAULTY 3     /* faulty calls in a row */
#define REPEATED 60  /* aliased calls in a row: enough to admit and serve them */

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: dropin_errors truncate|mismatch|null|aliased|split\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[1];
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm;
    /* split: edge e is rank e / 2's, each way (every rank listed twice). */
    const int split = strcmp(mode, "split") == 0, edges = split ? 2 * size : size;
    if (split) {
        int *neighbours = malloc(edges * sizeof(int));
        for (int e = 0; e < edges; ++e) neighbours[e] = e / 2;
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, edges, neighbours, MPI_UNWEIGHTED, edges, neighbours,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm);
        free(neighbours);
    } else {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    int *sc = malloc(edges * sizeof(int)), *sd = malloc(edges * sizeof(int));
    int *rc = malloc(edges * sizeof(int)), *rd = malloc(edges * sizeof(int));
    int *send = malloc((size_t)size * 2 * BLOCK * sizeof(int)), *recv = malloc((size_t)size * 2 * BLOCK * sizeof(int));
    long wrong = 0;
    const int faulty_calls = strcmp(mode, "aliased") == 0 ? REPEATED : FAULTY;
    for (int call = 0; call < BEFORE + faulty_calls + AFTER; ++call) {
        const int faulty = call >= BEFORE && call < BEFORE + faulty_calls;
        for (int i = 0; i < size; ++i) {
            sc[i] = rc[i] = BLOCK;
            sd[i] = rd[i] = 2 * i * BLOCK;
        }
        /* split: half a block per edge, edge e at e * BLOCK. */
        for (int e = 0; split && e < edges; ++e) sc[e] = rc[e] = BLOCK / 2, sd[e] = rd[e] = e * BLOCK;
        if (faulty && split && rank == 1) rc[0] = BLOCK / 4, rc[1] = 3 * BLOCK / 4;
        void *recvbuf = recv;
        if (faulty && strcmp(mode, "truncate") == 0 && rank == 1) rc[0] = BLOCK / 2;
        if (faulty && strcmp(mode, "mismatch") == 0 && rank == 1) rc[0] = BLOCK + 8;
        if (faulty && strcmp(mode, "null") == 0) recvbuf = NULL;
        const void *sendbuf = send;
        if (faulty && strcmp(mode, "aliased") == 0) {
            for (int i = 0; i < size; ++i) sc[i] = rc[i] = sd[i] = rd[i] = 0;
            sendbuf = recvbuf = NULL;
        }
        for (int i = 0; i < size * 2 * BLOCK; ++i) send[i] = rank * 1000003 + call * 7 + i, recv[i] = -1;
        /* The aliased calls pass one counts and one displacements array for
         * both sides, as MPICH's alias check requires. */
        const int aliased = faulty && strcmp(mode, "aliased") == 0;
        int err = split ? MPI_Neighbor_alltoallv(sendbuf, sc, sd, MPI_INT, recvbuf, rc, rd, MPI_INT, comm)
                        : MPI_Alltoallv(sendbuf, sc, sd, MPI_INT, recvbuf, aliased ? sc : rc, aliased ? sd : rd,
                                        MPI_INT, comm);
        int cls = MPI_SUCCESS;
        if (err != MPI_SUCCESS) MPI_Error_class(err, &cls);
        printf("rank %d call %d class %d\n", rank, call, cls);
        if (cls == MPI_ERR_TRUNCATE) printf("rank %d call %d: MPI_ERR_TRUNCATE\n", rank, call);
        /* Edge e comes from rank e / 2, which sent it from its edge
         * 2 * rank + e % 2, at that edge's displacement. */
        if (!faulty && err == MPI_SUCCESS && split)
            for (int e = 0; e < edges; ++e)
                for (int k = 0; k < BLOCK / 2; ++k)
                    if (recv[rd[e] + k] != e / 2 * 1000003 + call * 7 + (2 * rank + e % 2) * BLOCK + k) ++wrong;
        if (!faulty && err == MPI_SUCCESS && !split)
            for (int i = 0; i < size; ++i)
                for (int k = 0; k < BLOCK; ++k)
                    if (recv[rd[i] + k] != i * 1000003 + call * 7 + 2 * rank * BLOCK + k) ++wrong;
    }
    if (wrong) printf("rank %d: WRONG data in %ld elements of good calls\n", rank, wrong);
    fflush(stdout);
    free(sc), free(sd), free(rc), free(rd), free(send), free(recv);
    /* Kept until MPI_Finalize, where the drop-in reports its served calls
     * (MPIX_VERBOSE=1). */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("dropin_errors: done\n");
    MPI_Finalize();
    return 0;
}
