/* The drop-in benchmark: an unmodified MPI program (it does not link
 * mpix-rma) that loops MPI_Alltoallv, heap buffers, uniform blocks, in one of
 * three loops: application (every cache line of the send blocks written
 * before the call, every received cache line read after it), exchange (the
 * calls alone, buffers untouched) or barrier (the calls with an MPI_Barrier
 * between them, as OSU-style benchmarks run). Run it plain and under
 * LD_PRELOAD=libmpixrma_intercept.so (benchmarks/dropin.py
 * alternates the launches) and compare.
 *
 *   bench_dropin --sizes 8,512,32768 --repeats 5 --loop application --csv out.csv
 *
 * Per size: warm-up calls (at least 100: what a real code's first calls
 * are, where the drop-in admits the pattern and settles its choice), then
 * repeats of a timed loop; the time per call is the slowest rank's, the
 * median over repeats is written. The data of the last call is validated
 * after timing (application loop: every call writes new data). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 64

/* The byte written at offset b of the block from source to target. */
static unsigned char value(long iteration, int source, int target, long b) {
    return (unsigned char)(iteration * 7 + source * 11 + target * 3 + b / LINE);
}

static double median(double *v, int n) {
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && v[j - 1] > v[j]; --j) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const char *sizes_arg = "8,64,512,4096,32768,262144,2097152", *csv_path = NULL;
    const char *loop = "application";
    int repeats = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sizes")) sizes_arg = argv[i + 1];
        else if (!strcmp(argv[i], "--loop")) loop = argv[i + 1];
        else if (!strcmp(argv[i], "--repeats")) repeats = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--csv")) csv_path = argv[i + 1];
        else {
            if (rank == 0) fprintf(stderr, "bench_dropin: unknown option %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (repeats < 1 || repeats > 100) repeats = 5;
    const int application = !strcmp(loop, "application"), barrier = !strcmp(loop, "barrier");
    if (!application && !barrier && strcmp(loop, "exchange")) {
        if (rank == 0) fprintf(stderr, "bench_dropin: --loop takes application, exchange or barrier\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    FILE *csv = NULL;
    if (rank == 0 && csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "bench_dropin: cannot write %s\n", csv_path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        fprintf(csv, "bytes_per_peer,seconds\n");
    }
    int *counts = malloc(p * sizeof(int)), *displs = malloc(p * sizeof(int));
    int failed = 0;
    char *sizes = strdup(sizes_arg);
    for (char *item = strtok(sizes, ","); item; item = strtok(NULL, ",")) {
        const long bytes = atol(item);
        if (bytes < 1) continue;
        for (int i = 0; i < p; ++i) counts[i] = (int)bytes, displs[i] = (int)(i * bytes);
        unsigned char *send = malloc(bytes * p), *recv = malloc(bytes * p);
        memset(send, 0, bytes * p);
        memset(recv, 0, bytes * p);
        /* About 20 ms of calls per repeat, at least 10. */
        long iterations = 20000000 / (bytes * p + 2000);
        if (iterations < 10) iterations = 10;
        double times[100];
        volatile unsigned sink = 0;
        for (int rep = -1; rep < repeats; ++rep) {  /* rep -1: warm-up */
            const long calls = rep < 0 && iterations < 100 ? 100 : iterations;
            MPI_Barrier(MPI_COMM_WORLD);
            const double begin = MPI_Wtime();
            for (long it = 0; it < calls; ++it) {
                if (application || it == 0)
                    for (int t = 0; t < p; ++t)
                        for (long b = 0; b < bytes; b += LINE) send[t * bytes + b] = value(application ? it : 0, rank, t, b);
                MPI_Alltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
                if (application) {
                    unsigned s = 0;
                    for (int src = 0; src < p; ++src)
                        for (long b = 0; b < bytes; b += LINE) s += recv[src * bytes + b];
                    sink += s;
                }
                if (barrier) MPI_Barrier(MPI_COMM_WORLD);
            }
            double t = (MPI_Wtime() - begin) / calls;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (rep >= 0) times[rep] = t;
        }
        /* Validation after timing: the last call's blocks, every line. */
        const long last = application ? iterations - 1 : 0;
        for (int src = 0; src < p; ++src)
            for (long b = 0; b < bytes; b += LINE)
                if (recv[src * bytes + b] != value(last, src, rank, b)) failed = 1;
        const double t = median(times, repeats);
        if (csv) fprintf(csv, "%ld,%.9g\n", bytes, t);
        if (rank == 0) printf("bench_dropin: %8ld B per peer: %10.2f us per call\n", bytes, t * 1e6);
        free(send), free(recv);
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("bench_dropin: %s\n", failed ? "WRONG DATA" : "data ok");
    if (csv) fclose(csv);
    free(sizes), free(counts), free(displs);
    MPI_Finalize();
    return failed;
}
