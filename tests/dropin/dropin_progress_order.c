/* MPI's progress rule for nonblocking and persistent collectives, under the
 * drop-in: starting one (MPI_Ialltoallv, MPI_Ialltoall,
 * MPI_Ineighbor_alltoallv, MPI_Start of MPI-4's persistent forms) is local,
 * and a rank's wait needs its peers to have started the exchange, not to
 * have reached their own wait. Two orders that MPI programs may use, with
 * ranks in pairs (even rank A, odd rank B; a rank without a partner only
 * starts and waits), the pair's dependency made by a synchronous send:
 *   start, then send:  A starts, MPI_Ssend to B, waits;
 *                      B receives from A, then starts, waits.
 *                      A start that waited for B would never reach the send.
 *   wait, then send:   B starts, MPI_Ssend to A, receives from A, waits;
 *                      A receives from B, then starts, waits, MPI_Ssend
 *                      to B. A's wait must complete while B, which
 *                      started first, sits in MPI_Recv: only the MPI's
 *                      progress inside that receive moves B's part.
 * The same exchange repeats, above the served size, so that a drop-in
 * that served it would serve it here; every exchange's data is checked.
 * Then, the served requests freed, a persistent collective the drop-in
 * does not stand in for (MPI_Allreduce_init): MPICH 4.0.2 hangs one that
 * gets the request object of a freed persistent request to MPI_PROC_NULL,
 * which is what the drop-in's handles are (it keeps them).
 * A hang is what a failure looks like: a watchdog ends the rank after
 * watchdog_seconds (the whole program takes about a second, oversubscribed
 * ranks included) and names the form and iteration it hung in. Rank 0
 * prints "dropin_progress_order: ok". */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checked_exchanges.h"

enum { block = 4096, iterations = 24, watchdog_seconds = 30 };

typedef enum {
    ialltoallv,
    ialltoall,
    ineighbor,
    persistent_alltoallv,
    persistent_alltoall,
    persistent_neighbor,
    allreduce_init /* not an exchange: the one after them */
} Form;
static const char *const form_names[] = {"MPI_Ialltoallv",     "MPI_Ialltoall",     "MPI_Ineighbor_alltoallv",
                                         "MPI_Alltoallv_init", "MPI_Alltoall_init", "MPI_Neighbor_alltoallv_init",
                                         "MPI_Allreduce_init"};

/* Where the rank is, for the watchdog's message. */
static volatile sig_atomic_t now_form, now_iteration;

static void hung(int signal) {
    (void)signal;
    char line[160];
    const int n = snprintf(line, sizeof line, "rank %d: WRONG: hung for %d s in %s, iteration %d\n", rank_,
                           (int)watchdog_seconds, form_names[now_form], (int)now_iteration);
    if (n > 0) (void)!write(STDOUT_FILENO, line, (size_t)n);
    _exit(3);
}

/* Element j of the block from s to d: s*100000 + d*1000 + j + it (on the
 * ring, d is the sender's out-edge to this rank, as in dropin_nonblocking). */
static void fill(Buffers *b, int peers, const int *sources, const int *out_edge, int it) {
    for (int k = 0; k < peers; ++k)
        for (int j = 0; j < block; ++j) {
            b->send[k * block + j] = rank_ * 100000 + k * 1000 + j + it;
            b->expected[k * block + j] = sources[k] * 100000 + out_edge[k] * 1000 + j + it;
        }
    memset(b->recv, 0xA5, sizeof(int) * (size_t)b->ints);
}

typedef struct {
    MPI_Comm comm, graph;
    int *counts, *displs;
    int ring_counts[2], ring_displs[2];
} Exchange;

static void start(Form form, const Exchange *x, Buffers *b, MPI_Request *request) {
    switch (form) {
        case ialltoallv:
            MPI_Ialltoallv(b->send, x->counts, x->displs, MPI_INT, b->recv, x->counts, x->displs, MPI_INT, x->comm,
                           request);
            break;
        case ialltoall:
            MPI_Ialltoall(b->send, block, MPI_INT, b->recv, block, MPI_INT, x->comm, request);
            break;
        case ineighbor:
            MPI_Ineighbor_alltoallv(b->send, x->ring_counts, x->ring_displs, MPI_INT, b->recv, x->ring_counts,
                                    x->ring_displs, MPI_INT, x->graph, request);
            break;
        default:
            MPI_Start(request);
            break;
    }
}

/* The persistent forms' requests, made once (MPI-4); MPI_REQUEST_NULL where
 * the MPI has none, and the form is then skipped. */
static MPI_Request persistent_request(Form form, const Exchange *x, Buffers *b) {
    MPI_Request request = MPI_REQUEST_NULL;
#if MPI_VERSION >= 4
    if (form == persistent_alltoallv)
        MPI_Alltoallv_init(b->send, x->counts, x->displs, MPI_INT, b->recv, x->counts, x->displs, MPI_INT, x->comm,
                           MPI_INFO_NULL, &request);
    else if (form == persistent_alltoall)
        MPI_Alltoall_init(b->send, block, MPI_INT, b->recv, block, MPI_INT, x->comm, MPI_INFO_NULL, &request);
    else if (form == persistent_neighbor)
        MPI_Neighbor_alltoallv_init(b->send, x->ring_counts, x->ring_displs, MPI_INT, b->recv, x->ring_counts,
                                    x->ring_displs, MPI_INT, x->graph, MPI_INFO_NULL, &request);
#else
    (void)form, (void)x, (void)b;
#endif
    return request;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    signal(SIGALRM, hung);
    alarm(watchdog_seconds);
    const int partner = (rank_ ^ 1) < size_ ? rank_ ^ 1 : MPI_PROC_NULL;
    const int first = rank_ % 2 == 0; /* A (even); its partner is B */

    Exchange x;
    MPI_Comm_dup(MPI_COMM_WORLD, &x.comm);
    MPI_Comm_set_name(x.comm, "serve:progress order");
    const int ring[2] = {(rank_ + size_ - 1) % size_, (rank_ + 1) % size_};
    MPI_Dist_graph_create_adjacent(x.comm, 2, ring, MPI_UNWEIGHTED, 2, ring, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &x.graph);
    MPI_Comm_set_name(x.graph, "serve:progress order ring");
    x.counts = malloc(sizeof(int) * (size_t)size_), x.displs = malloc(sizeof(int) * (size_t)size_);
    for (int d = 0; d < size_; ++d) x.counts[d] = block, x.displs[d] = d * block;
    x.ring_counts[0] = x.ring_counts[1] = block, x.ring_displs[0] = 0, x.ring_displs[1] = block;
    int *all_sources = malloc(sizeof(int) * (size_t)size_), *all_edges = malloc(sizeof(int) * (size_t)size_);
    for (int s = 0; s < size_; ++s) all_sources[s] = s, all_edges[s] = rank_;
    const int ring_edges[2] = {size_ == 2 ? 0 : 1, size_ == 2 ? 1 : 0};

    for (int form = ialltoallv; form <= persistent_neighbor; ++form) {
        const int on_ring = form == ineighbor || form == persistent_neighbor;
        const int peers = on_ring ? 2 : size_;
        Buffers b = buffers(peers, block);
        MPI_Request request = MPI_REQUEST_NULL;
        now_form = form, now_iteration = -1; /* -1: its init */
        if (form >= persistent_alltoallv) {
            request = persistent_request(form, &x, &b);
            if (request == MPI_REQUEST_NULL) {
                release(&b);
                continue;
            }
        }
        for (int it = 0; it < iterations; ++it) {
            now_form = form, now_iteration = it;
            fill(&b, peers, on_ring ? ring : all_sources, on_ring ? ring_edges : all_edges, it);
            const int send_after_wait = it % 2;
            int token = it;
            MPI_Request running = request;
            if (!send_after_wait) {
                if (first) {
                    start(form, &x, &b, &running);
                    MPI_Ssend(&token, 1, MPI_INT, partner, 0, MPI_COMM_WORLD);
                } else {
                    MPI_Recv(&token, 1, MPI_INT, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    start(form, &x, &b, &running);
                }
                MPI_Wait(&running, MPI_STATUS_IGNORE);
            } else if (first) {
                MPI_Recv(&token, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                start(form, &x, &b, &running);
                MPI_Wait(&running, MPI_STATUS_IGNORE);
                MPI_Ssend(&token, 1, MPI_INT, partner, 0, MPI_COMM_WORLD);
            } else {
                start(form, &x, &b, &running);
                MPI_Ssend(&token, 1, MPI_INT, partner, 1, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_INT, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Wait(&running, MPI_STATUS_IGNORE);
            }
            char what[96];
            snprintf(what, sizeof what, "%s's data (%s)", form_names[form],
                     send_after_wait ? "wait, then send" : "start, then send");
            expect(memcmp(b.recv, b.expected, sizeof(int) * (size_t)b.ints) == 0, what, it);
            expect(partner == MPI_PROC_NULL || token == it, "the pair's token", it);
        }
        if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
        release(&b);
    }
#if MPI_VERSION >= 4
    now_form = allreduce_init, now_iteration = -1;
    MPI_Request sum_request = MPI_REQUEST_NULL;
    int one = 1, sum = 0;
    MPI_Allreduce_init(&one, &sum, 1, MPI_INT, MPI_SUM, x.comm, MPI_INFO_NULL, &sum_request);
    for (int it = 0; it < 3; ++it) {
        now_iteration = it, sum = 0;
        MPI_Start(&sum_request);
        MPI_Wait(&sum_request, MPI_STATUS_IGNORE);
        expect(sum == size_, "MPI_Allreduce_init's sum", it);
    }
    MPI_Request_free(&sum_request);
#endif
    MPI_Comm_free(&x.graph);
    MPI_Comm_free(&x.comm);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) printf("dropin_progress_order: %s (%d wrong)\n", wrong ? "WRONG" : "ok", wrong);
    free(x.counts), free(x.displs), free(all_sources), free(all_edges);
    MPI_Finalize();
    return wrong != 0;
}
