/* An unmodified MPI program (it does not know mpix-rma) for the drop-in's
 * MPI_Neighbor_alltoallv: run under LD_PRELOAD=libmpixrma_intercept.so, it
 * calls MPI_Neighbor_alltoallv the ways sparse codes do and checks every
 * call against PMPI_Neighbor_alltoallv (MPI's own, never intercepted) on
 * poisoned receive buffers:
 *   a ring (at 2 ranks, two edges to the same peer), fixed buffers; a graph
 *   with self-loops and duplicate edges, buffers rotating among three;
 *   counts changing every few calls; an exchange too small to serve; a
 *   Cartesian communicator, which passes through.
 * Communicators are named for the drop-in's report at MPI_Finalize
 * (MPIX_VERBOSE=1), and kept until then: "serve:..." ones must have had
 * calls served, and "pass:..." ones must not appear at all (the drop-in
 * keeps no state there).
 * Prints "dropin_neighbor: ok" on rank 0 when every call delivered MPI's
 * data. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON 0xA5
#define CALLS 40
#define MAX_EDGES 8

static int rank_, size_;
static long wrong_calls;

/* One rank's side of a graph: its destinations and sources in the order
 * given to MPI_Dist_graph_create_adjacent, with their counts. */
typedef struct {
    int outdegree, indegree;
    int destinations[MAX_EDGES], sources[MAX_EDGES];
    int sc[MAX_EDGES], sd[MAX_EDGES], rc[MAX_EDGES], rd[MAX_EDGES];
    int send_elements, recv_elements;
} Side;

/* Elements on the edge from `from` to `to`: the same at both ends. */
static int edge_count(int from, int to, int block, int skew) { return block + skew * ((from + 2 * to) % 3); }

static void lay_out(Side *s, int block, int skew) {
    s->send_elements = s->recv_elements = 0;
    for (int k = 0; k < s->outdegree; ++k) {
        s->sc[k] = edge_count(rank_, s->destinations[k], block, skew);
        s->sd[k] = s->send_elements + 1;  /* a gap before every block */
        s->send_elements += s->sc[k] + 1;
    }
    for (int k = 0; k < s->indegree; ++k) {
        s->rc[k] = edge_count(s->sources[k], rank_, block, skew);
        s->rd[k] = s->recv_elements + 1;
        s->recv_elements += s->rc[k] + 1;
    }
}

/* rank +- 1 out, rank -+ 1 in (each edge's other end lists it in turn). */
static Side ring(void) {
    Side s;
    s.outdegree = s.indegree = 2;
    s.destinations[0] = (rank_ + 1) % size_, s.destinations[1] = (rank_ - 1 + size_) % size_;
    s.sources[0] = (rank_ - 1 + size_) % size_, s.sources[1] = (rank_ + 1) % size_;
    return s;
}

/* A self-loop, then two edges to the next rank (duplicates), both kinds in
 * the order the other end lists them. */
static Side loops_and_duplicates(void) {
    Side s;
    s.outdegree = s.indegree = 3;
    s.destinations[0] = rank_, s.destinations[1] = (rank_ + 1) % size_, s.destinations[2] = (rank_ + 1) % size_;
    s.sources[0] = rank_, s.sources[1] = (rank_ - 1 + size_) % size_, s.sources[2] = (rank_ - 1 + size_) % size_;
    return s;
}

static MPI_Comm graph_of(const Side *s, const char *name) {
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, s->indegree, s->sources, MPI_UNWEIGHTED, s->outdegree,
                                   s->destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    MPI_Comm_set_name(graph, name);
    return graph;
}

static void fill(int *buf, int n, int call) {
    for (int i = 0; i < n; ++i) buf[i] = call * 100003 + rank_ * 1009 + i;
}

/* One call, checked: recvbuf is poisoned first, and must then hold byte for
 * byte what PMPI_Neighbor_alltoallv delivers from the same send data. */
static void checked_call(const char *scenario, int call, const int *send, const Side *s, int *recv, MPI_Comm comm) {
    size_t bytes = (size_t)(s->recv_elements > 0 ? s->recv_elements : 1) * sizeof(int);
    unsigned char *expected = malloc(bytes);
    memset(recv, POISON, bytes);
    memset(expected, POISON, bytes);
    PMPI_Neighbor_alltoallv(send, s->sc, s->sd, MPI_INT, expected, s->rc, s->rd, MPI_INT, comm);
    if (MPI_Neighbor_alltoallv(send, s->sc, s->sd, MPI_INT, recv, s->rc, s->rd, MPI_INT, comm) != MPI_SUCCESS ||
        memcmp(recv, expected, bytes) != 0) {
        if (wrong_calls++ < 10) fprintf(stderr, "rank %d: %s: call %d delivered wrong data\n", rank_, scenario, call);
    }
    free(expected);
}

/* calls with fixed buffers, or rotating among three pairs; the counts
 * change every `change_every` calls (0: never). */
static void run(const char *name, Side s, int block, int rotate, int change_every) {
    MPI_Comm graph = graph_of(&s, name);
    int *send[3], *recv[3];
    int skew = 0;
    lay_out(&s, block, skew);
    const int largest = 4 * block + 64;
    for (int i = 0; i < 3; ++i) {
        send[i] = malloc((size_t)(s.outdegree * (largest + 1) + 1) * sizeof(int));
        recv[i] = malloc((size_t)(s.indegree * (largest + 1) + 1) * sizeof(int));
    }
    for (int call = 0; call < CALLS; ++call) {
        if (change_every > 0 && call % change_every == 0) lay_out(&s, block, skew = (skew + 1) % 3);
        const int i = rotate ? call % 3 : 0;
        fill(send[i], s.send_elements, call);
        checked_call(name, call, send[i], &s, recv[rotate ? (i + 1) % 3 : 0], graph);
    }
    for (int i = 0; i < 3; ++i) free(send[i]), free(recv[i]);
    /* graph stays alive: the drop-in reports on it at MPI_Finalize */
}

/* A periodic 1-D Cartesian communicator: MPI defines neighbourhood
 * collectives there too; the drop-in leaves them to MPI. */
static void cartesian(void) {
    int dims[1] = {size_}, periods[1] = {1};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Comm_set_name(cart, "pass:cartesian");
    Side s;
    s.outdegree = s.indegree = 2;  /* MPI's order: the -1 neighbour, then the +1 one, both ways */
    s.destinations[0] = s.sources[0] = (rank_ - 1 + size_) % size_;
    s.destinations[1] = s.sources[1] = (rank_ + 1) % size_;
    s.send_elements = s.recv_elements = 0;
    for (int k = 0; k < 2; ++k) {
        s.sc[k] = s.rc[k] = 500;
        s.sd[k] = s.rd[k] = k * 501;
    }
    s.send_elements = s.recv_elements = 1002;
    int *send = malloc(1002 * sizeof(int)), *recv = malloc(1002 * sizeof(int));
    for (int call = 0; call < CALLS; ++call) {
        fill(send, 1002, call);
        checked_call("cartesian", call, send, &s, recv, cart);
    }
    free(send), free(recv);
    /* cart stays alive, as the graphs do: it must not be reported */
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    run("serve:ring", ring(), 700, 0, 0);
    run("serve:rotating", loops_and_duplicates(), 900, 1, 0);
    run("serve:changing", ring(), 800, 0, 12);
    run("small", ring(), 4, 0, 0);  /* below MPIX_INTERCEPT_MIN_BYTES: never admitted */
    cartesian();
    long wrong = 0;
    MPI_Allreduce(&wrong_calls, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) printf(wrong == 0 ? "dropin_neighbor: ok\n" : "dropin_neighbor: WRONG data in %ld calls\n", wrong);
    MPI_Finalize();
    return wrong == 0 ? 0 : 1;
}
