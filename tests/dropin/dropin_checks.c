/* An unmodified MPI program (it does not know mpix-rma) for the drop-in:
 * run under LD_PRELOAD=libmpixrma_intercept.so, it calls MPI_Alltoallv the
 * ways real codes do and checks every call against PMPI_Alltoallv (MPI's own,
 * never intercepted) on poisoned receive buffers:
 *   fixed pattern and buffers; buffers rotating among three; free + malloc
 *   every call; forward/backward with the roles of the buffers swapped;
 *   counts changing every few calls; one rank whose arguments change while
 *   the others' do not; one rank whose receive displacements alone change;
 *   MPI_IN_PLACE; a derived contiguous type and a non-contiguous one; a communicator freed and a new one made; two threads
 *   on two communicators; an exchange too small to serve; an
 *   intercommunicator and a one-rank communicator, which pass through;
 *   exchanges that each run six calls, too few to repay their admission;
 *   two large exchanges alternating call by call (a forward and a backward
 *   transpose), whose requests share the node channel's rings; a uniform
 *   exchange (an Alltoall's blocks), served by the Alltoall family.
 * With --long-patterns L R, instead: a pattern of a hundred calls and
 * one of L (none if 0; each call's check carried by its exchange, not
 * agreed apart: the report counts the agreements), and R calls in which
 * some rank's displacements change on calls drawn at random.
 * With --grown S [L], instead: S calls below the served size, then L
 * (8 unless given) in which rank 0's block to rank 1 alone has grown to it
 * (every call checked; a watchdog ends a hang in watchdog_seconds).
 * With --uniform N, instead: N calls of a uniform exchange of 32 KiB
 * blocks.
 * Communicators are named for the drop-in's report at MPI_Finalize
 * (MPIX_VERBOSE=1): "serve:..." ones must have had calls served,
 * "short:..." ones none, and "pass:..." ones must not appear at all (the
 * drop-in keeps no state there).
 * The scenarios' patterns run tens of calls: the tests admit them as soon
 * as they repeat (MPIX_INTERCEPT_ADMISSION=repeats). With
 * --admission-by-rent, under the default rule, only the scenarios it
 * decides run: a fixed pattern of two thousand calls, served, and the
 * six-call patterns, never served.
 * Prints "dropin_checks: ok" on rank 0 when every call delivered MPI's data,
 * and before it how many of the node channel's segments the rank that maps
 * most maps at the end ("dropin_checks: N node-channel segments mapped"). */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../node/channel_segments.h"

#define POISON 0xA5
#define CALLS 40

static int rank_, size_;
static long wrong_calls;
static pthread_mutex_t wrong_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Bytes a buffer needs for these blocks of this type. */
static size_t span(const int counts[], const int displs[], MPI_Datatype type, int n) {
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    size_t end = 0;
    for (int i = 0; i < n; ++i)
        if (counts[i] > 0) {
            size_t e = (size_t)(displs[i] + counts[i] - 1) * extent + true_lb + true_extent;
            if (e > end) end = e;
        }
    return end > 0 ? end : 1;
}

/* One MPI_Alltoallv call, checked: recvbuf is poisoned first, and must then
 * hold byte for byte what PMPI_Alltoallv delivers from the same send data. */
/* The ranks a call on comm exchanges with: the remote group of an
 * intercommunicator. */
static int peers(MPI_Comm comm) {
    int inter = 0, n = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        MPI_Comm_remote_size(comm, &n);
    else
        MPI_Comm_size(comm, &n);
    return n;
}

static void checked_call(const char *scenario, int call, const void *sendbuf, const int sc[], const int sd[],
                         MPI_Datatype st, void *recvbuf, const int rc[], const int rd[], MPI_Datatype rt,
                         MPI_Comm comm) {
    int n = peers(comm);
    size_t bytes = span(rc, rd, rt, n);
    unsigned char *expected = malloc(bytes);
    if (sendbuf == MPI_IN_PLACE) {
        memcpy(expected, recvbuf, bytes);
    } else {
        memset(recvbuf, POISON, bytes);
        memset(expected, POISON, bytes);
    }
    PMPI_Alltoallv(sendbuf, sc, sd, st, expected, rc, rd, rt, comm);
    if (MPI_Alltoallv(sendbuf, sc, sd, st, recvbuf, rc, rd, rt, comm) != MPI_SUCCESS ||
        memcmp(recvbuf, expected, bytes) != 0) {
        pthread_mutex_lock(&wrong_mutex);
        if (wrong_calls++ < 10) fprintf(stderr, "rank %d: %s: call %d delivered wrong data\n", rank_, scenario, call);
        pthread_mutex_unlock(&wrong_mutex);
    }
    free(expected);
}

/* A pattern of `block` elements from every rank to every rank, with each
 * block's displacement shifted by one element so that buffers are not
 * uniform, and send data that changes every call. */
typedef struct {
    int *sc, *sd, *rc, *rd;
    size_t send_elements, recv_elements;
} Pattern;

static Pattern pattern(int n, int me, int block, int skew) {
    Pattern p;
    p.sc = malloc(n * sizeof(int)), p.sd = malloc(n * sizeof(int));
    p.rc = malloc(n * sizeof(int)), p.rd = malloc(n * sizeof(int));
    int s = 0, r = 0;
    for (int i = 0; i < n; ++i) {
        p.sc[i] = block + skew * ((me + 2 * i) % 3);  /* what I send i */
        p.rc[i] = block + skew * ((i + 2 * me) % 3);  /* what i sends me */
        p.sd[i] = s + 1, s += p.sc[i] + 1;
        p.rd[i] = r + 1, r += p.rc[i] + 1;
    }
    p.send_elements = s + 1, p.recv_elements = r + 1;
    return p;
}

static void free_pattern(Pattern *p) { free(p->sc), free(p->sd), free(p->rc), free(p->rd); }

static void fill(int *buf, size_t n, int call) {
    for (size_t i = 0; i < n; ++i) buf[i] = call * 100003 + rank_ * 1009 + (int)i;
}

static void fixed(MPI_Comm comm, const char *name, int block, int calls) {
    int n = peers(comm), me;
    MPI_Comm_rank(comm, &me);
    Pattern p = pattern(n, me, block, 0);
    int *send = malloc(p.send_elements * sizeof(int)), *recv = malloc(p.recv_elements * sizeof(int));
    for (int call = 0; call < calls; ++call) {
        fill(send, p.send_elements, call);
        checked_call(name, call, send, p.sc, p.sd, MPI_INT, recv, p.rc, p.rd, MPI_INT, comm);
    }
    free(send), free(recv), free_pattern(&p);
}

/* An MPI_Alltoallv whose blocks are an Alltoall's: block elements to and
 * from every rank, block r at r * block (served by the Alltoall family). */
static void uniform(MPI_Comm comm, int block, int calls) {
    const int n = peers(comm);
    int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
    for (int r = 0; r < n; ++r) counts[r] = block, displs[r] = r * block;
    int *send = malloc((size_t)n * block * sizeof(int)), *recv = malloc((size_t)n * block * sizeof(int));
    for (int call = 0; call < calls; ++call) {
        fill(send, n * block, call);
        checked_call("uniform", call, send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, comm);
    }
    free(send), free(recv), free(counts), free(displs);
}

/* Patterns of six calls each, every one new: repeating (three repeats are
 * enough to be admitted) but never for as many calls as the trials of a
 * tournament alone would cost (selector/admission.hpp: nine calls of the
 * pattern), so under the default rule none may be admitted, whatever the
 * calls take. */
static void short_lived(MPI_Comm comm) {
    for (int phase = 0; phase < 8; ++phase) {
        Pattern p = pattern(size_, rank_, 1000 + 16 * phase, 0);
        int *send = malloc(p.send_elements * sizeof(int)), *recv = malloc(p.recv_elements * sizeof(int));
        for (int call = 0; call < 6; ++call) {
            fill(send, p.send_elements, call);
            checked_call("short-lived", call, send, p.sc, p.sd, MPI_INT, recv, p.rc, p.rd, MPI_INT, comm);
        }
        free(send), free(recv), free_pattern(&p);
    }
}

/* Blocks of 40 and 48 KB, each more than a ring slot: the second request
 * takes the rings the first still holds (node/node_channel.hpp, shared
 * channels) and their messages alternate in them. */
static void alternating_large(MPI_Comm comm) {
    Pattern p[2] = {pattern(size_, rank_, 10000, 0), pattern(size_, rank_, 12000, 0)};
    int *send[2], *recv[2];
    for (int i = 0; i < 2; ++i)
        send[i] = malloc(p[i].send_elements * sizeof(int)), recv[i] = malloc(p[i].recv_elements * sizeof(int));
    for (int call = 0; call < 3 * CALLS; ++call) {
        const int k = call % 2;
        fill(send[k], p[k].send_elements, call);
        checked_call("alternating large", call, send[k], p[k].sc, p[k].sd, MPI_INT, recv[k], p[k].rc, p[k].rd,
                     MPI_INT, comm);
    }
    for (int i = 0; i < 2; ++i) free(send[i]), free(recv[i]), free_pattern(&p[i]);
}

static void rotating(MPI_Comm comm) {
    Pattern p = pattern(size_, rank_, 700, 64);
    int *send[3], *recv[3];
    for (int i = 0; i < 3; ++i)
        send[i] = malloc(p.send_elements * sizeof(int)), recv[i] = malloc(p.recv_elements * sizeof(int));
    for (int call = 0; call < CALLS; ++call) {
        fill(send[call % 3], p.send_elements, call);
        checked_call("rotating", call, send[call % 3], p.sc, p.sd, MPI_INT, recv[(call + 1) % 3], p.rc, p.rd,
                     MPI_INT, comm);
    }
    for (int i = 0; i < 3; ++i) free(send[i]), free(recv[i]);
    free_pattern(&p);
}

static void reallocated(MPI_Comm comm) {
    Pattern p = pattern(size_, rank_, 900, 16);
    for (int call = 0; call < CALLS; ++call) {
        int *send = malloc(p.send_elements * sizeof(int)), *recv = malloc(p.recv_elements * sizeof(int));
        fill(send, p.send_elements, call);
        checked_call("free+malloc", call, send, p.sc, p.sd, MPI_INT, recv, p.rc, p.rd, MPI_INT, comm);
        free(send), free(recv);
    }
    free_pattern(&p);
}

/* Forward A -> B, backward B -> A with the transposed counts, alternating. */
static void role_swap(MPI_Comm comm) {
    Pattern f = pattern(size_, rank_, 600, 100);
    size_t a_elements = f.send_elements > f.recv_elements ? f.send_elements : f.recv_elements;
    int *a = malloc(a_elements * sizeof(int)), *b = malloc(a_elements * sizeof(int));
    for (int call = 0; call < CALLS; ++call) {
        if (call % 2 == 0) {
            fill(a, f.send_elements, call);
            checked_call("forward", call, a, f.sc, f.sd, MPI_INT, b, f.rc, f.rd, MPI_INT, comm);
        } else {
            fill(b, f.recv_elements, call);
            checked_call("backward", call, b, f.rc, f.rd, MPI_INT, a, f.sc, f.sd, MPI_INT, comm);
        }
    }
    free(a), free(b), free_pattern(&f);
}

/* Two patterns, switching every 7 calls. */
static void changing_counts(MPI_Comm comm) {
    Pattern p[2] = {pattern(size_, rank_, 500, 0), pattern(size_, rank_, 800, 32)};
    int *send = malloc(p[1].send_elements * 2 * sizeof(int)), *recv = malloc(p[1].recv_elements * 2 * sizeof(int));
    for (int call = 0; call < 3 * CALLS; ++call) {
        Pattern *q = &p[(call / 7) % 2];
        fill(send, q->send_elements, call);
        checked_call("changing counts", call, send, q->sc, q->sd, MPI_INT, recv, q->rc, q->rd, MPI_INT,
                     comm);
    }
    free(send), free(recv), free_pattern(&p[0]), free_pattern(&p[1]);
}

/* After the pattern is served, rank 1 sends rank 0 one block of another size
 * (and rank 0 expects it): their arguments change, rank 2's do not. */
static void one_rank_changes(MPI_Comm comm) {
    Pattern p = pattern(size_, rank_, 600, 0);
    int *send = malloc((p.send_elements + 64) * sizeof(int)), *recv = malloc((p.recv_elements + 64) * sizeof(int));
    for (int call = 0; call < 2 * CALLS; ++call) {
        const int changed = call >= CALLS && call % 3 != 0;
        int sc0 = p.sc[0], rc1 = p.rc[1];
        if (changed && rank_ == 1) p.sc[0] += 64;
        if (changed && rank_ == 0) p.rc[1] += 64;
        /* Displacements after the changed block move along. */
        int sd_shift = changed && rank_ == 1 ? 64 : 0, rd_shift = changed && rank_ == 0 ? 64 : 0;
        for (int i = 1; i < size_; ++i) p.sd[i] += sd_shift;
        for (int i = 2; i < size_; ++i) p.rd[i] += rd_shift;
        fill(send, p.send_elements + 64, call);
        checked_call("one rank changes", call, send, p.sc, p.sd, MPI_INT, recv, p.rc, p.rd, MPI_INT, comm);
        for (int i = 1; i < size_; ++i) p.sd[i] -= sd_shift;
        for (int i = 2; i < size_; ++i) p.rd[i] -= rd_shift;
        p.sc[0] = sc0, p.rc[1] = rc1;
    }
    free(send), free(recv), free_pattern(&p);
}

/* After the pattern is served, the last rank receives its blocks 32
 * elements further on, and nothing else changes on any rank: only its
 * rdispls tell the calls apart. */
/* One side's displacements alone change, on the last rank, in most calls
 * after the first CALLS (send_side: sdispls, else rdispls): an exchange
 * keyed without them would read from, or deliver to, the old places. */
static void only_displs_change(MPI_Comm comm, int send_side) {
    Pattern p = pattern(size_, rank_, 700, 0);
    int *send = malloc((p.send_elements + 32) * sizeof(int)), *recv = malloc((p.recv_elements + 32) * sizeof(int));
    int *moved = send_side ? p.sd : p.rd;
    for (int call = 0; call < 2 * CALLS; ++call) {
        const int shift = call >= CALLS && call % 3 != 0 && rank_ == size_ - 1 ? 32 : 0;
        for (int i = 0; i < size_; ++i) moved[i] += shift;
        fill(send, p.send_elements + 32, call);
        checked_call(send_side ? "only sdispls change" : "only rdispls change", call, send, p.sc, p.sd, MPI_INT, recv,
                     p.rc, p.rd, MPI_INT, comm);
        for (int i = 0; i < size_; ++i) moved[i] -= shift;
    }
    free(send), free(recv), free_pattern(&p);
}

static void in_place(MPI_Comm comm) {
    Pattern p = pattern(size_, rank_, 700, 0);  /* symmetric: what I send i is what i sends me */
    int *buf = malloc(p.recv_elements * sizeof(int));
    for (int call = 0; call < CALLS; ++call) {
        fill(buf, p.recv_elements, call);
        checked_call("in place", call, MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, p.rc, p.rd, MPI_INT,
                     comm);
    }
    free(buf), free_pattern(&p);
}

static void derived_types(MPI_Comm comm) {
    MPI_Datatype contiguous, strided;
    MPI_Type_contiguous(4, MPI_INT, &contiguous);
    MPI_Type_commit(&contiguous);
    MPI_Type_vector(3, 1, 2, MPI_INT, &strided);  /* holes: passed to MPI */
    MPI_Type_commit(&strided);
    Pattern p = pattern(size_, rank_, 200, 0);
    int *send = malloc(p.send_elements * 8 * sizeof(int)), *recv = malloc(p.recv_elements * 8 * sizeof(int));
    for (int call = 0; call < CALLS; ++call) {
        fill(send, p.send_elements * 8, call);
        const int holes = call >= 30;  /* served first, then passed to MPI */
        MPI_Datatype t = holes ? strided : contiguous;
        checked_call(holes ? "strided type" : "contiguous type", call, send, p.sc, p.sd, t, recv, p.rc, p.rd, t,
                     comm);
    }
    MPI_Type_free(&contiguous), MPI_Type_free(&strided);
    free(send), free(recv), free_pattern(&p);
}

/* A communicator used, freed, and a new one (often at the same handle) used
 * with another pattern. */
static void freed_communicator(void) {
    for (int round = 0; round < 3; ++round) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        fixed(comm, "new communicator", 400 + 100 * round, CALLS);
        MPI_Comm_free(&comm);
    }
}

static void *thread_body(void *arg) {
    fixed(*(MPI_Comm *)arg, "thread", 512, CALLS);
    return NULL;
}

static void two_threads(MPI_Comm first, MPI_Comm second) {
    pthread_t t;
    pthread_create(&t, NULL, thread_body, &second);
    thread_body(&first);
    pthread_join(t, NULL);
}

/* Some rank's receive or send displacements change on calls no rank can
 * foresee (a quarter of them, the rank and side drawn per call from a hash
 * every rank computes alike, so that the program stays a correct MPI
 * program): a call the drop-in carries must still deliver MPI's data. */
static void changes_at_random(MPI_Comm comm, int calls) {
    Pattern p = pattern(size_, rank_, 700, 0);
    int *send = malloc((p.send_elements + 32) * sizeof(int)), *recv = malloc((p.recv_elements + 32) * sizeof(int));
    for (int call = 0; call < calls; ++call) {
        const unsigned h = (unsigned)call * 2654435761u;
        const int changes = (h >> 8) % 4 == 0 && rank_ == (int)((h >> 12) % (unsigned)size_);
        int *moved = (h >> 20) % 2 ? p.sd : p.rd;
        const int shift = changes ? 32 : 0;
        for (int i = 0; i < size_; ++i) moved[i] += shift;
        fill(send, p.send_elements + 32, call);
        checked_call("changes at random", call, send, p.sc, p.sd, MPI_INT, recv, p.rc, p.rd, MPI_INT, comm);
        for (int i = 0; i < size_; ++i) moved[i] -= shift;
    }
    free(send), free(recv), free_pattern(&p);
}

/* S calls whose blocks (200 ints each way, or none) the drop-in passes
 * on, to the claimed calls, looking at them only every few hundred calls;
 * then grown_calls (eight, say) in which rank 0's block to rank 1 alone is
 * 32 KiB, above what the claimed calls stage, which the drop-in serves
 * from a request. The calls
 * passed on tell every rank, those that move no large block included, the
 * largest block any rank moved, so every rank's next call agrees, and the
 * grown exchange is admitted within its eight calls (MPIX_INTERCEPT_ADMISSION
 * =repeats: at its third repeat) and served, where otherwise its next
 * agreement would come hundreds of calls later. A rank that did not learn
 * it would not agree with the others: a hang, which the watchdog ends. */
static void grown(MPI_Comm comm, int small_calls, int grown_calls) {
    const int n = peers(comm);
    int me;
    MPI_Comm_rank(comm, &me);
    int *sc = malloc(n * sizeof(int)), *sd = malloc(n * sizeof(int));
    int *rc = malloc(n * sizeof(int)), *rd = malloc(n * sizeof(int));
    const int grown_block = 8192;
    if (grown_calls < 0) grown_calls = 0;
    /* Every block 200 ints, but each rank's to the next, which is empty
     * while the blocks are small (the claimed calls tell its receiver the
     * sender's largest block by a line of its own, not with the block),
     * and rank 0's to rank 1, which then grows to grown_block. */
    int *send = malloc(((size_t)n * 200 + grown_block) * sizeof(int));
    int *recv = malloc(((size_t)n * 200 + grown_block) * sizeof(int));
    for (int phase = 0; phase < 2; ++phase) {
        int s = 0, r = 0;
        for (int i = 0; i < n; ++i) {
            sc[i] = phase == 1 && me == 0 && i == 1 ? grown_block : phase == 0 && i == (me + 1) % n ? 0 : 200;
            rc[i] = phase == 1 && me == 1 && i == 0 ? grown_block : phase == 0 && me == (i + 1) % n ? 0 : 200;
            sd[i] = s, s += sc[i];
            rd[i] = r, r += rc[i];
        }
        const int calls = phase == 0 ? small_calls : grown_calls;
        for (int call = 0; call < calls; ++call) {
            fill(send, (size_t)s, call);
            checked_call("grown", call, send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, comm);
        }
    }
    free(send), free(recv), free(sc), free(sd), free(rc), free(rd);
}

enum { watchdog_seconds = 30 };

static void watchdog(int signal) {
    (void)signal;
    static const char message[] = "dropin_checks: WRONG: still running after the watchdog's limit\n";
    if (write(2, message, sizeof message - 1) < 0) _exit(3);
    _exit(2);
}

/* A communicator of its own for a scenario, named for the drop-in's report
 * at MPI_Finalize (MPIX_VERBOSE=1): "serve:..." ones must have had calls
 * served. Kept until MPI_Finalize. */
static MPI_Comm scenario_comm(const char *name) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_name(comm, (char *)name);
    return comm;
}

/* Every rank's wrong calls counted, the verdict printed, MPI finalized. */
static int finish(void) {
    long wrong = wrong_calls;
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) printf("dropin_checks: %s (%ld wrong calls)\n", wrong ? "WRONG DATA" : "ok", wrong);
    MPI_Finalize();
    return wrong != 0;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    const int by_rent = argc > 1 && !strcmp(argv[1], "--admission-by-rent");
    /* Under the default rule, the fixed pattern runs long enough to repay
     * the set-up's search several times over. */
    fixed(scenario_comm("serve:fixed"), "fixed", 1000, by_rent ? 50 * CALLS : CALLS);
    fixed(scenario_comm("small"), "small", 2, CALLS);
    if (argc > 3 && !strcmp(argv[1], "--long-patterns")) {
        /* Each communicator freed after its scenario: the reports come in order. */
        MPI_Comm comm = scenario_comm("serve:a hundred");
        fixed(comm, "a hundred", 1000, 103);
        MPI_Comm_free(&comm);
        const int long_calls = atoi(argv[2]);
        if (long_calls > 0) {
            comm = scenario_comm("serve:long");
            fixed(comm, "long", 1000, long_calls);
            MPI_Comm_free(&comm);
        }
        comm = scenario_comm("serve:changes at random");
        changes_at_random(comm, atoi(argv[3]));
        MPI_Comm_free(&comm);
        return finish();
    }
    if (argc > 2 && !strcmp(argv[1], "--grown")) {
        signal(SIGALRM, watchdog);
        alarm(watchdog_seconds);  /* through MPI_Finalize */
        grown(scenario_comm("serve:grown"), atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 8);
        return finish();
    }
    if (argc > 2 && !strcmp(argv[1], "--uniform")) {
        uniform(scenario_comm("serve:uniform"), 8192, atoi(argv[2]));
        return finish();
    }
    if (by_rent) {
        short_lived(scenario_comm("short:six calls each"));
        return finish();
    }
    alternating_large(scenario_comm("serve:alternating large"));
    uniform(scenario_comm("serve:uniform"), 1000, CALLS);
    rotating(scenario_comm("serve:rotating"));
    reallocated(scenario_comm("serve:free+malloc"));
    role_swap(scenario_comm("serve:role swap"));
    changing_counts(scenario_comm("serve:changing counts"));
    if (size_ >= 3) one_rank_changes(scenario_comm("serve:one rank changes"));
    only_displs_change(scenario_comm("serve:only rdispls change"), 0);
    only_displs_change(scenario_comm("serve:only sdispls change"), 1);
    in_place(scenario_comm("serve:in place"));
    derived_types(scenario_comm("serve:derived types"));
    freed_communicator();
    if (provided == MPI_THREAD_MULTIPLE) two_threads(scenario_comm("serve:thread 1"), scenario_comm("serve:thread 2"));
    fixed(MPI_COMM_WORLD, "world", 300, CALLS);
    /* Passed through: an intercommunicator between the two halves of the
     * ranks, and a communicator of one rank. */
    MPI_Comm half, inter, alone;
    MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, rank_, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank_ % 2 == 0 ? 1 : 0, 99, &inter);
    MPI_Comm_set_name(inter, "pass:intercommunicator");
    fixed(inter, "intercommunicator", 1000, CALLS);
    MPI_Comm_dup(MPI_COMM_SELF, &alone);
    MPI_Comm_set_name(alone, "pass:one rank");
    fixed(alone, "one rank", 1000, CALLS);
    int segments = channel_segments_mapped();
    MPI_Allreduce(MPI_IN_PLACE, &segments, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank_ == 0) printf("dropin_checks: %d node-channel segments mapped\n", segments);
    return finish();
}
