/* An unmodified program that makes MPI's nonblocking exchanges
 * (MPI_Ialltoallv, MPI_Ialltoall, MPI_Ineighbor_alltoallv on a ring, and an
 * MPI_Ialltoallv whose datatype takes every other int) on a communicator
 * whose blocking MPI_Alltoallv the drop-in serves, and completes them every
 * way MPI allows, in arrays with a point-to-point pair and, where the MPI
 * has MPI-4's persistent collectives, a persistent MPI_Alltoall that the
 * drop-in serves too:
 *   MPI_Wait each; MPI_Test polled; MPI_Waitall; MPI_Testall polled;
 *   MPI_Waitany or MPI_Testany until all are done; MPI_Waitsome or
 *   MPI_Testsome until all are done; MPI_Request_get_status polled, then
 *   MPI_Wait.
 * Each iteration also makes a served MPI_Alltoallv while the nonblocking
 * ones are in flight (every rank in the same order, as MPI requires).
 * Then more MPI_Ialltoall calls in flight at once (in_flight) than the
 * drop-in has slots for, completed by one MPI_Waitall.
 * Every exchange's data is checked, every iteration; completed nonblocking
 * requests must read MPI_REQUEST_NULL. Where the MPI has MPI-4's
 * persistent collectives, the drop-in serves all three (on communicators
 * of one node, made by MPI_Comm_dup and MPI_Dist_graph_create_adjacent:
 * their reports say how many); elsewhere it passes them to the MPI. With --no-persistent
 * the persistent request is left out: MPICH 4.0.2's own -all, -any and
 * -some test forms misreport its persistent collectives (see
 * dropin_persistent.c), so the program runs without the drop-in so.
 * A hang (a served call that never completes) ends the rank after
 * watchdog_seconds, as a failure. Rank 0 prints "dropin_nonblocking: ok". */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checked_exchanges.h"

enum { block = 300, iterations = 56, ways = 7, in_flight = 40, watchdog_seconds = 30 };

static void watchdog(int signal) {
    (void)signal;
    static const char line[] = "dropin_nonblocking: WRONG: hung\n";
    if (write(STDOUT_FILENO, line, sizeof line - 1) < 0) _exit(3);
    _exit(2);
}

/* All-to-all: element j of the block from s to d is s*100000 + d*1000 + j
 * + salt + it (salt tells the exchanges apart); the ring: out-edge k
 * carries s*100000 + k*1000 + j + salt + it, and in-edge k comes from the
 * source's out-edge to this rank (with 2 ranks, edge k's). */
static void fill_all(Buffers *b, int salt, int it) {
    for (int d = 0; d < size_; ++d)
        for (int j = 0; j < block; ++j) {
            b->send[d * block + j] = rank_ * 100000 + d * 1000 + j + salt + it;
            b->expected[d * block + j] = d * 100000 + rank_ * 1000 + j + salt + it;
        }
    memset(b->recv, 0xA5, sizeof(int) * (size_t)b->ints);
}

static void fill_ring(Buffers *b, int salt, int it) {
    const int source[2] = {(rank_ + size_ - 1) % size_, (rank_ + 1) % size_};
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < block; ++j) {
            b->send[k * block + j] = rank_ * 100000 + k * 1000 + j + salt + it;
            const int out_edge = size_ == 2 ? k : 1 - k;
            b->expected[k * block + j] = source[k] * 100000 + out_edge * 1000 + j + salt + it;
        }
    memset(b->recv, 0xA5, sizeof(int) * (size_t)b->ints);
}

/* The served exchange: rank s sends block + d elements to rank d (so
 * every rank receives block + its rank from each: not an Alltoall's
 * blocks, so the Alltoallv family serves it), element j of them
 * s*100000 + d*1000 + j + it. */
static void fill_served(Buffers *b, const int *sdispls, const int *rdispls, int it) {
    for (int d = 0; d < size_; ++d)
        for (int j = 0; j < block + d; ++j) b->send[sdispls[d] + j] = rank_ * 100000 + d * 1000 + j + it;
    memset(b->recv, 0xA5, sizeof(int) * (size_t)b->ints);
    memset(b->expected, 0xA5, sizeof(int) * (size_t)b->ints);
    for (int s = 0; s < size_; ++s)
        for (int j = 0; j < block + rank_; ++j) b->expected[rdispls[s] + j] = s * 100000 + rank_ * 1000 + j + it;
}

/* The strided exchange: block ints to each rank, every other int of its
 * 2 * block (the rest keep 0xA5 bytes), element j of them
 * s*100000 + d*1000 + j + salt + it. */
static void fill_strided(Buffers *b, int salt, int it) {
    memset(b->send, 0x5A, sizeof(int) * (size_t)b->ints);
    memset(b->recv, 0xA5, sizeof(int) * (size_t)b->ints);
    memset(b->expected, 0xA5, sizeof(int) * (size_t)b->ints);
    for (int d = 0; d < size_; ++d)
        for (int j = 0; j < block; ++j) {
            b->send[d * 2 * block + 2 * j] = rank_ * 100000 + d * 1000 + j + salt + it;
            b->expected[d * 2 * block + 2 * j] = d * 100000 + rank_ * 1000 + j + salt + it;
        }
}

static int delivered(const Buffers *b) { return memcmp(b->recv, b->expected, sizeof(int) * (size_t)b->ints) == 0; }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    signal(SIGALRM, watchdog);
    alarm(watchdog_seconds);  /* through MPI_Finalize, where the drop-in's states go */
    MPI_Comm comm, graph;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_name(comm, "serve:nonblocking");
    const int ring[2] = {(rank_ + size_ - 1) % size_, (rank_ + 1) % size_};
    MPI_Dist_graph_create_adjacent(comm, 2, ring, MPI_UNWEIGHTED, 2, ring, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    MPI_Comm_set_name(graph, "serve:nonblocking ring");

    Buffers served = buffers(2 * size_, block), v = buffers(size_, block), a = buffers(size_, block),
            n = buffers(2, block), p = buffers(size_, block), st = buffers(2 * size_, block),
            many = buffers(in_flight * size_, block);
    /* Every other int of a rank's 2 * block: one element per rank. */
    MPI_Datatype every_other, strided;
    MPI_Type_vector(block, 1, 2, MPI_INT, &every_other);
    MPI_Type_create_resized(every_other, 0, (MPI_Aint)(2 * block * sizeof(int)), &strided);
    MPI_Type_commit(&strided);
    int *ones = malloc(sizeof(int) * (size_t)size_), *ranks = malloc(sizeof(int) * (size_t)size_);
    for (int d = 0; d < size_; ++d) ones[d] = 1, ranks[d] = d;
    int *counts = malloc(sizeof(int) * (size_t)size_), *displs = malloc(sizeof(int) * (size_t)size_);
    for (int d = 0; d < size_; ++d) counts[d] = block, displs[d] = d * block;
    int *served_sendcounts = malloc(sizeof(int) * (size_t)size_),
        *served_recvcounts = malloc(sizeof(int) * (size_t)size_);
    int *served_sdispls = malloc(sizeof(int) * (size_t)size_), *served_rdispls = malloc(sizeof(int) * (size_t)size_);
    for (int d = 0, sent = 0, received = 0; d < size_; ++d) {
        served_sendcounts[d] = block + d, served_sdispls[d] = sent, sent += block + d;
        served_recvcounts[d] = block + rank_, served_rdispls[d] = received, received += block + rank_;
    }
    const int ring_counts[2] = {block, block}, ring_displs[2] = {0, block};
    /* Where the MPI has them, a persistent MPI_Alltoall in the same arrays
     * (served by the drop-in); elsewhere its slot stays MPI_REQUEST_NULL. */
    MPI_Request persistent = MPI_REQUEST_NULL;
#if MPI_VERSION >= 4
    if (!(argc > 1 && strcmp(argv[1], "--no-persistent") == 0))
        MPI_Alltoall_init(p.send, block, MPI_INT, p.recv, block, MPI_INT, comm, MPI_INFO_NULL, &persistent);
#endif
    enum { requests = 7 };
    for (int it = 0; it < iterations; ++it) {
        fill_served(&served, served_sdispls, served_rdispls, it);
        fill_all(&v, 2, it);
        fill_all(&a, 3, it);
        fill_ring(&n, 4, it);
        fill_all(&p, 5, it);
        fill_strided(&st, 6, it);
        int p2p_out = rank_ * 31 + it, p2p_in = -1;
        MPI_Request all[requests];
        MPI_Ialltoallv(v.send, counts, displs, MPI_INT, v.recv, counts, displs, MPI_INT, comm, &all[0]);
        MPI_Ialltoall(a.send, block, MPI_INT, a.recv, block, MPI_INT, comm, &all[1]);
        MPI_Ineighbor_alltoallv(n.send, ring_counts, ring_displs, MPI_INT, n.recv, ring_counts, ring_displs, MPI_INT,
                                graph, &all[2]);
        MPI_Irecv(&p2p_in, 1, MPI_INT, ring[0], 0, comm, &all[3]);
        MPI_Isend(&p2p_out, 1, MPI_INT, ring[1], 0, comm, &all[4]);
        all[5] = persistent;
        if (persistent != MPI_REQUEST_NULL) MPI_Start(&all[5]);
        MPI_Ialltoallv(st.send, ones, ranks, strided, st.recv, ones, ranks, strided, comm, &all[6]);
        /* A blocking exchange the drop-in serves, while those are in flight. */
        MPI_Alltoallv(served.send, served_sendcounts, served_sdispls, MPI_INT, served.recv, served_recvcounts,
                      served_rdispls, MPI_INT, comm);
        expect(delivered(&served), "the served MPI_Alltoallv's data", it);

        MPI_Status statuses[requests];
        int flag = 0, index = 0, outcount = 0, indices[requests];
        switch (it % ways) {
            case 0:
                for (int r = 0; r < requests; ++r) MPI_Wait(&all[r], &statuses[r]);
                break;
            case 1:
                for (int r = 0; r < requests; ++r)
                    for (flag = 0; !flag;) MPI_Test(&all[r], &flag, &statuses[r]);
                break;
            case 2:
                MPI_Waitall(requests, all, statuses);
                break;
            case 3:
                for (flag = 0; !flag;) MPI_Testall(requests, all, &flag, statuses);
                break;
            case 4:
                /* The persistent request stays active until returned once. */
                for (int done = 0; done < requests; ++done) {
                    if (it % 2)
                        MPI_Waitany(requests, all, &index, &statuses[0]);
                    else
                        for (flag = 0; !flag;) MPI_Testany(requests, all, &index, &flag, &statuses[0]);
                    if (index == MPI_UNDEFINED) break; /* no active request left (no persistent one) */
                    expect(index >= 0 && index < requests, "an index out of the array", it);
                }
                break;
            case 5:
                for (int done = 0; done < requests; done += outcount) {
                    if (it % 2)
                        MPI_Waitsome(requests, all, &outcount, indices, statuses);
                    else
                        MPI_Testsome(requests, all, &outcount, indices, statuses);
                    if (outcount == MPI_UNDEFINED) break;
                }
                break;
            default:
                for (int r = 0; r < requests; ++r) {
                    for (flag = 0; !flag;) MPI_Request_get_status(all[r], &flag, MPI_STATUS_IGNORE);
                    MPI_Wait(&all[r], &statuses[r]);
                }
                break;
        }
        for (int r = 0; r < requests; ++r)
            if (r != 5) expect(all[r] == MPI_REQUEST_NULL, "a completed request is not MPI_REQUEST_NULL", it);
        expect(all[5] == persistent, "the persistent handle changed", it);
        expect(delivered(&v), "MPI_Ialltoallv's data", it);
        expect(delivered(&a), "MPI_Ialltoall's data", it);
        expect(delivered(&n), "MPI_Ineighbor_alltoallv's data", it);
        if (persistent != MPI_REQUEST_NULL) expect(delivered(&p), "the persistent MPI_Alltoall's data", it);
        expect(delivered(&st), "the strided MPI_Ialltoallv's data", it);
        expect(p2p_in == ring[0] * 31 + it, "the point-to-point pair's data", it);
    }
    /* in_flight exchanges at once: block ints each way, exchange k's salt k. */
    MPI_Request flight[in_flight];
    for (int k = 0; k < in_flight; ++k) {
        Buffers one = {many.send + k * size_ * block, many.recv + k * size_ * block,
                       many.expected + k * size_ * block, size_ * block};
        fill_all(&one, 7 + k, iterations);
        MPI_Ialltoall(one.send, block, MPI_INT, one.recv, block, MPI_INT, comm, &flight[k]);
    }
    MPI_Status flight_statuses[in_flight];
    MPI_Waitall(in_flight, flight, flight_statuses);
    expect(delivered(&many), "the exchanges in flight at once", iterations);
    if (persistent != MPI_REQUEST_NULL) MPI_Request_free(&persistent);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&comm);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) printf("dropin_nonblocking: %s (%d wrong)\n", wrong ? "WRONG" : "ok", wrong);
    release(&served), release(&v), release(&a), release(&n), release(&p), release(&st), release(&many);
    MPI_Type_free(&strided), MPI_Type_free(&every_other);
    free(ones), free(ranks);
    free(counts), free(displs), free(served_sendcounts), free(served_recvcounts), free(served_sdispls);
    free(served_rdispls);
    MPI_Finalize();
    return wrong != 0;
}
