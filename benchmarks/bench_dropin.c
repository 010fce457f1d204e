/* The drop-in benchmark: an unmodified MPI program (it does not link
 * mpix-rma) that loops MPI_Alltoallv (or, with --collective alltoall,
 * MPI_Alltoall, as FFT transposes call it; with --collective neighbor,
 * MPI_Neighbor_alltoallv on a ring: an edge to each side, two to the one
 * peer at 2 ranks), heap buffers, uniform blocks, in one of four loops:
 * application (every cache line of the send blocks written before the
 * call, every received cache line read after it), exchange (the calls
 * alone, buffers untouched), barrier (the calls with an MPI_Barrier between
 * them, as OSU-style benchmarks run) or sweep (OSU's default run: the
 * barrier loop, but each size only 50 untimed and 200 timed calls, 20 and
 * 100 from 1 MiB: a new pattern every 250 calls, timed from its 51st)
 * or prefix (the sweep over all sizes but the last, then 1000 calls of the
 * last, timed from its first: the time per call over its first 50, 100,
 * 250 and 1000 calls, which is what a pattern's admission must repay; in
 * the persistent form the init is its first call, and counts too).
 * With --form persistent each size's exchange is MPI-4's persistent form
 * (MPI_Alltoallv_init, ...: made once per size, before its warm-up), and
 * each call is MPI_Start then MPI_Wait; with --form nonblocking each call
 * is the nonblocking form (MPI_Ialltoallv, ...) then MPI_Wait. With
 * --memory mpi the buffers come
 * from MPI_Alloc_mem (which an RMA-minded code uses for its windows), not
 * from the heap.
 * Run it plain and under LD_PRELOAD=libmpixrma_intercept.so
 * (benchmarks/dropin.py alternates the launches) and compare.
 *
 *   bench_dropin --sizes 8,512,32768 --repeats 5 --loop application --csv out.csv
 *
 * Per size, except in the sweep: warm-up calls (at least 100: what a real
 * code's first calls are, where the drop-in admits the pattern and settles
 * its choice), then repeats of a timed loop; the time per call is the
 * slowest rank's, the median over repeats is written. The data of the last
 * call is validated after timing (application loop: every call writes new
 * data). */
#include "dropin_program.h"

#define LINE 64

/* The byte written at offset b of the block from source to target. */
static unsigned char value(long iteration, int source, int target, long b) {
    return (unsigned char)(iteration * 7 + source * 11 + target * 3 + b / LINE);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const struct dropin_options o =
        dropin_parse(argc, argv, "bench_dropin", "8,64,512,4096,32768,262144,2097152", "application");
    const char *loop = o.loop;
    const int repeats = o.repeats;
    FILE *csv = o.csv;
    const int prefix = !strcmp(loop, "prefix");
    const int application = !strcmp(loop, "application"), sweep = prefix || !strcmp(loop, "sweep");
    const int barrier = sweep || !strcmp(loop, "barrier");
    if (!application && !barrier && strcmp(loop, "exchange"))
        dropin_usage_error(rank, "bench_dropin", "--loop takes application, exchange, barrier, sweep or prefix", NULL);
    const int alltoall = !strcmp(o.collective, "alltoall"), neighbor = !strcmp(o.collective, "neighbor");
    if (!alltoall && !neighbor && strcmp(o.collective, "alltoallv"))
        dropin_usage_error(rank, "bench_dropin", "--collective takes alltoallv, alltoall or neighbor", NULL);
    const int persistent = !strcmp(o.form, "persistent"), nonblocking = !strcmp(o.form, "nonblocking");
    if (!persistent && !nonblocking && strcmp(o.form, "blocking"))
        dropin_usage_error(rank, "bench_dropin", "--form takes blocking, persistent or nonblocking", NULL);
    const int mpi_memory = !strcmp(o.memory, "mpi");
    if (!mpi_memory && strcmp(o.memory, "heap"))
        dropin_usage_error(rank, "bench_dropin", "--memory takes heap or mpi", NULL);
#if MPI_VERSION < 4
    if (persistent)
        dropin_usage_error(rank, "bench_dropin", "--form persistent needs MPI-4's persistent collectives", NULL);
#endif
    /* The ring: blocks to the right, then the left neighbour; received from
     * the left, then the right. */
    MPI_Comm ring = MPI_COMM_NULL;
    const int sides[2] = {(rank + 1) % p, (rank + p - 1) % p}, from[2] = {sides[1], sides[0]};
    if (neighbor)
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, from, MPI_UNWEIGHTED, 2, sides, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &ring);
    const int peers = neighbor ? 2 : p; /* blocks each way */
    int *counts = malloc(p * sizeof(int)), *displs = malloc(p * sizeof(int));
    int failed = 0;
    char *sizes = strdup(o.sizes);
    for (char *item = strtok(sizes, ","), *next; item; item = next) {
        next = strtok(NULL, ",");
        const long bytes = atol(item);
        if (bytes < 1) continue;
        for (int i = 0; i < p; ++i) counts[i] = (int)bytes, displs[i] = (int)(i * bytes);
        unsigned char *send = NULL, *recv = NULL;
        if (mpi_memory) {
            MPI_Alloc_mem(bytes * peers, MPI_INFO_NULL, &send);
            MPI_Alloc_mem(bytes * peers, MPI_INFO_NULL, &recv);
        } else {
            send = malloc(bytes * peers), recv = malloc(bytes * peers);
        }
        /* Written, as OSU's set_buffer and any application write theirs:
         * a buffer the process never wrote is reached by MPI's kernel
         * copies (CMA) only, and on a virtual machine with shadow page
         * tables the process's own first access of each page then costs
         * microseconds, which a program that computes on its data has long
         * paid. (Zeros would let the compiler make these calloc.) */
        memset(send, 1, bytes * peers);
        memset(recv, 0xee, bytes * peers);
        /* The prefix loop's last size: cumulative times at these calls. */
        static const long checkpoints[] = {50, 100, 250, 1000};
        const int checkpoint_count = prefix && !next ? 4 : 0;
        MPI_Request request = MPI_REQUEST_NULL;
        double init_seconds = 0; /* the persistent init, where the prefix times it */
#if MPI_VERSION >= 4
        if (persistent && checkpoint_count) {
            MPI_Barrier(MPI_COMM_WORLD);
            init_seconds = -MPI_Wtime();
        }
        if (persistent && alltoall)
            MPI_Alltoall_init(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &request);
        else if (persistent && neighbor)
            MPI_Neighbor_alltoallv_init(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, ring,
                                        MPI_INFO_NULL, &request);
        else if (persistent)
            MPI_Alltoallv_init(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &request);
        if (persistent && checkpoint_count) init_seconds += MPI_Wtime();
#endif
        /* About 20 ms of calls per repeat, at least 10; the sweep's counts
         * are OSU's. */
        long iterations = 20000000 / (bytes * p + 2000);
        if (iterations < 10) iterations = 10;
        const int large = bytes >= 1048576;
        if (sweep) iterations = large ? 100 : 200;
        const int timed_repeats = sweep ? 1 : repeats;
        double at_checkpoint[4];
        double times[100];
        volatile unsigned sink = 0;
        if (checkpoint_count) iterations = checkpoints[checkpoint_count - 1];
        for (int rep = checkpoint_count ? 0 : -1; rep < timed_repeats; ++rep) {  /* rep -1: warm-up */
            long calls = rep < 0 && iterations < 100 ? 100 : iterations;
            if (sweep && rep < 0) calls = large ? 20 : 50;
            int checkpoint = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            const double begin = MPI_Wtime();
            for (long it = 0; it < calls; ++it) {
                if (application || it == 0)
                    for (int k = 0; k < peers; ++k)
                        for (long b = 0; b < bytes; b += LINE)
                            send[k * bytes + b] = value(application ? it : 0, rank, neighbor ? sides[k] : k, b);
                if (persistent) {
                    MPI_Start(&request);
                    MPI_Wait(&request, MPI_STATUS_IGNORE);
                } else if (nonblocking) {
                    if (alltoall)
                        MPI_Ialltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD, &request);
                    else if (neighbor)
                        MPI_Ineighbor_alltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, ring,
                                                &request);
                    else
                        MPI_Ialltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, MPI_COMM_WORLD,
                                       &request);
                    MPI_Wait(&request, MPI_STATUS_IGNORE);
                } else if (alltoall)
                    MPI_Alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
                else if (neighbor)
                    MPI_Neighbor_alltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, ring);
                else
                    MPI_Alltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
                if (application) {
                    unsigned s = 0;
                    for (int src = 0; src < peers; ++src)
                        for (long b = 0; b < bytes; b += LINE) s += recv[src * bytes + b];
                    sink += s;
                }
                if (barrier) MPI_Barrier(MPI_COMM_WORLD);
                if (checkpoint < checkpoint_count && it + 1 == checkpoints[checkpoint])
                    at_checkpoint[checkpoint++] = (MPI_Wtime() - begin + init_seconds) / (it + 1);
            }
            double t = (MPI_Wtime() - begin) / calls;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (rep >= 0) times[rep] = t;
        }
        /* Validation after timing: the last call's blocks, every line. */
        const long last = application ? iterations - 1 : 0;
        for (int k = 0; k < peers; ++k)
            for (long b = 0; b < bytes; b += LINE)
                if (recv[k * bytes + b] != value(last, neighbor ? from[k] : k, rank, b)) failed = 1;
        if (checkpoint_count) { /* the prefix's rows: calls, not bytes */
            MPI_Allreduce(MPI_IN_PLACE, at_checkpoint, checkpoint_count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            for (int c = 0; c < checkpoint_count; ++c) {
                if (csv) fprintf(csv, "%ld,%.9g\n", checkpoints[c], at_checkpoint[c]);
                if (rank == 0)
                    printf("bench_dropin: first %4ld calls of %ld B per peer: %10.2f us per call\n", checkpoints[c],
                           bytes, at_checkpoint[c] * 1e6);
            }
        } else {
            const double t = dropin_median(times, timed_repeats);
            if (csv && !prefix) fprintf(csv, "%ld,%.9g\n", bytes, t);
            if (rank == 0) printf("bench_dropin: %8ld B per peer: %10.2f us per call\n", bytes, t * 1e6);
        }
        if (persistent) MPI_Request_free(&request);
        if (mpi_memory)
            MPI_Free_mem(send), MPI_Free_mem(recv);
        else
            free(send), free(recv);
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("bench_dropin: %s\n", failed ? "WRONG DATA" : "data ok");
    if (csv) fclose(csv);
    free(sizes), free(counts), free(displs);
    if (ring != MPI_COMM_NULL) MPI_Comm_free(&ring);
    MPI_Finalize();
    return failed;
}
