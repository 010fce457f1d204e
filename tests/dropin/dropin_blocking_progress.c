/* MPI's progress inside a blocking exchange, under the drop-in: a rank
 * blocked in MPI_Alltoallv (MPI_Alltoall, MPI_Neighbor_alltoallv) must
 * move its own earlier requests, because a peer may need them before it
 * makes its own call. Ranks in pairs (even rank A, odd rank B; a rank
 * without a partner only makes the calls):
 *   A: MPI_Irecv of a large message from B, the exchange, MPI_Wait;
 *   B: MPI_Send of that message to A, the exchange.
 * B reaches its exchange only once its send has matched A's receive, and
 * a large message's rendezvous moves on the receiver's side only inside
 * the receiver's MPI calls: A's exchange, which waits for B's. The
 * exchanges are small (the drop-in's claimed calls run them on one node,
 * MPIX_INTERCEPT_BLOCKING) and their data is checked.
 * Then the other way round (run_ahead): after a blocking MPI_Alltoallv,
 * B makes sixteen MPI_Ialltoallv and only then its send, which A receives
 * before making its own. A nonblocking call is local: B's must wait for
 * nothing of A's, the blocking call's note to A included (sixteen in
 * flight wait for nothing under the drop-in; collectives/claimed_calls.hpp).
 * A hang is what a failure looks like: a watchdog ends the rank after
 * watchdog_seconds and names the call and iteration it hung in. Rank 0
 * prints "dropin_blocking_progress: ok". */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checked_exchanges.h"

enum { block = 64, message_ints = 1 << 20, iterations = 16, watchdog_seconds = 10 };

static const char *volatile where = "start";
static volatile int iteration = -1;

static void watchdog(int signal) {
    (void)signal;
    char line[160];
    const int n = snprintf(line, sizeof line, "rank %d: WRONG: hung in %s, iteration %d\n", rank_, where, iteration);
    if (write(STDOUT_FILENO, line, (size_t)n) < 0) _exit(3);
    _exit(2);
}

/* The exchange of this iteration, every block of it checked. */
static void exchange(int form, MPI_Comm comm, MPI_Comm ring, Buffers *b, int it) {
    const int peers = form == 2 ? 2 : size_;
    int sc[4096], sd[4096];
    for (int r = 0; r < peers; ++r) sc[r] = block, sd[r] = r * block;
    for (int i = 0; i < peers * block; ++i) {
        /* The ring's block 0 goes to the left neighbour, block 1 to the right. */
        const int peer = form == 2 ? (rank_ + (i / block == 0 ? size_ - 1 : 1)) % size_ : i / block;
        b->send[i] = it * 1000003 + rank_ * 4099 + peer * 7 + i % block;
        b->recv[i] = -1;
        /* What peer sends this rank: its block for this rank. */
        b->expected[i] = it * 1000003 + peer * 4099 + rank_ * 7 + i % block;
    }
    if (form == 2) { /* from the ring's sources: left then right */
        const int left = (rank_ + size_ - 1) % size_, right = (rank_ + 1) % size_;
        for (int i = 0; i < block; ++i) b->expected[i] = it * 1000003 + left * 4099 + rank_ * 7 + i;
        for (int i = 0; i < block; ++i) b->expected[block + i] = it * 1000003 + right * 4099 + rank_ * 7 + i;
    }
    int err = MPI_SUCCESS;
    if (form == 0) {
        where = "MPI_Alltoallv";
        err = MPI_Alltoallv(b->send, sc, sd, MPI_INT, b->recv, sc, sd, MPI_INT, comm);
    } else if (form == 1) {
        where = "MPI_Alltoall";
        err = MPI_Alltoall(b->send, block, MPI_INT, b->recv, block, MPI_INT, comm);
    } else {
        where = "MPI_Neighbor_alltoallv";
        err = MPI_Neighbor_alltoallv(b->send, sc, sd, MPI_INT, b->recv, sc, sd, MPI_INT, ring);
    }
    expect(err == MPI_SUCCESS, where, it);
    for (int i = 0; i < peers * block; ++i)
        if (b->recv[i] != b->expected[i]) {
            expect(0, "received block", it);
            break;
        }
}

static void run_ahead(MPI_Comm comm, MPI_Comm ring, Buffers *b, int partner, int paired) {
    enum { in_flight = 16 };
    const int it = iterations;
    iteration = it;
    exchange(0, comm, ring, b, it);
    const int ints = size_ * block;
    int *send = malloc(sizeof(int) * in_flight * ints), *recv = malloc(sizeof(int) * in_flight * ints);
    int *counts = malloc(sizeof(int) * size_), *displs = malloc(sizeof(int) * size_);
    for (int r = 0; r < size_; ++r) counts[r] = block, displs[r] = r * block;
    MPI_Request requests[in_flight];
    int token = it;
    if (paired && rank_ % 2 == 0) {
        where = "MPI_Recv (run ahead)";
        MPI_Recv(&token, 1, MPI_INT, partner, it, comm, MPI_STATUS_IGNORE);
    }
    for (int k = 0; k < in_flight; ++k) {
        for (int i = 0; i < ints; ++i) send[k * ints + i] = k * 1000003 + rank_ * 4099 + i / block * 7 + i % block;
        where = "MPI_Ialltoallv (run ahead)";
        MPI_Ialltoallv(send + k * ints, counts, displs, MPI_INT, recv + k * ints, counts, displs, MPI_INT, comm,
                       &requests[k]);
    }
    if (paired && rank_ % 2 == 1) {
        where = "MPI_Send (run ahead)";
        MPI_Send(&token, 1, MPI_INT, partner, it, comm);
    }
    where = "MPI_Waitall (run ahead)";
    MPI_Status statuses[in_flight];
    MPI_Waitall(in_flight, requests, statuses);
    for (int k = 0; k < in_flight; ++k)
        for (int i = 0; i < ints; ++i)
            if (recv[k * ints + i] != k * 1000003 + i / block * 4099 + rank_ * 7 + i % block) {
                expect(0, "received block (run ahead)", it);
                k = in_flight;
                break;
            }
    free(send), free(recv), free(counts), free(displs);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm comm, ring;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_name(comm, "serve:blocking progress");
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    /* The ring's neighbourhood call (at 2 ranks it lists its one peer twice). */
    {
        const int sources[2] = {(rank_ + size_ - 1) % size_, (rank_ + 1) % size_};
        const int weights[2] = {1, 1};
        MPI_Dist_graph_create_adjacent(comm, 2, sources, weights, 2, sources, weights, MPI_INFO_NULL, 0, &ring);
        MPI_Comm_set_name(ring, "serve:blocking progress ring");
    }
    signal(SIGALRM, watchdog);
    alarm(watchdog_seconds);
    Buffers b = buffers(size_ > 2 ? size_ : 2, block);
    int *message = malloc(sizeof(int) * message_ints);
    const int partner = rank_ % 2 == 0 ? rank_ + 1 : rank_ - 1;
    const int paired = partner < size_;
    for (int form = 0; form < 3; ++form)
        for (int it = 0; it < iterations; ++it) {
            iteration = it;
            if (paired && rank_ % 2 == 0) {
                MPI_Request received;
                MPI_Irecv(message, message_ints, MPI_INT, partner, it, comm, &received);
                exchange(form, comm, ring, &b, it);
                where = "MPI_Wait";
                MPI_Wait(&received, MPI_STATUS_IGNORE);
                expect(message[0] == it && message[message_ints - 1] == it + message_ints - 1, "message", it);
            } else {
                if (paired) {
                    for (int i = 0; i < message_ints; ++i) message[i] = it + i;
                    where = "MPI_Send";
                    MPI_Send(message, message_ints, MPI_INT, partner, it, comm);
                }
                exchange(form, comm, ring, &b, it);
            }
        }
    run_ahead(comm, ring, &b, partner, paired);
    alarm(0);
    free(message);
    release(&b);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&comm);
    int wrong_anywhere = 0;
    MPI_Reduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank_ == 0 && wrong_anywhere == 0) printf("dropin_blocking_progress: ok\n");
    MPI_Finalize();
    return wrong_anywhere != 0;
}
