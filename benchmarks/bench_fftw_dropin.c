/* The FFT library benchmark: an unmodified program (it does not link
 * mpix-rma) that runs FFTW's own distributed 2D complex transform
 * (fftw_mpi_plan_dft_2d), forward and back, in a loop. FFTW moves the data
 * between its local transposes (pack and unpack) with MPI_Alltoallv when the
 * blocks are unequal and its plan is allowed to destroy its input, so the
 * transform size N is odd for 2 ranks (not a multiple of the rank count in
 * general) and the plans are out of place with FFTW_DESTROY_INPUT: what an
 * FFT code that asks FFTW for speed gets. Run it plain and under
 * LD_PRELOAD=libmpixrma_intercept.so (benchmarks/dropin.py --program fftw
 * alternates the launches) and compare.
 *
 *   bench_fftw_dropin --sizes 1048576,8388608 --loop estimate --repeats 5 --csv out.csv
 *
 * --sizes are the bytes each rank should send each peer per MPI_Alltoallv;
 * N is the smallest 7-smooth size (fast for FFTW) not divisible by the rank
 * count whose largest block reaches the size. --loop names FFTW's planner:
 * estimate (the plan is fixed, so both launches time the same code) or
 * measure (FFTW times its own candidates, MPI_Alltoallv against pairwise
 * MPI_Sendrecv, so the plan may differ under the drop-in: what a user sees).
 *
 * One iteration is forward, backward and the 1/N^2 scaling (the
 * application reading its data). Per size: warm-up iterations (at least 100
 * MPI_Alltoallv calls: a real code's first transforms, where the drop-in
 * admits the pattern and settles its choice), then repeats of a timed loop
 * of iterations; the time per iteration is the slowest rank's, the median
 * over repeats is written. After timing every element must equal its start
 * value to 1e-9: the transforms' round trip checks every byte MPI moved. */
#include <fftw3-mpi.h>
#include <math.h>

#include "dropin_program.h"

static double start_value(ptrdiff_t row, ptrdiff_t col, int part) {
    return part ? cos(0.37 * (double)row - 0.11 * (double)col) : sin(0.13 * (double)row + 0.29 * (double)col + 1.0);
}

static int seven_smooth(long n) {
    for (long f = 2; f <= 7; ++f)
        while (n % f == 0) n /= f;
    return n == 1;
}

/* The bytes of the largest block one rank sends another for an N x N
 * complex transform over p ranks (FFTW's default block: ceil(N / p) rows). */
static long largest_block(long n, int p) {
    const long rows = (n + p - 1) / p;
    return rows * rows * (long)sizeof(fftw_complex);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    fftw_mpi_init();
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const struct dropin_options o =
        dropin_parse(argc, argv, "bench_fftw_dropin", "1048576,2097152,4194304,8388608", "estimate");
    const int repeats = o.repeats;
    FILE *csv = o.csv;
    unsigned planner = FFTW_ESTIMATE;
    if (!strcmp(o.loop, "measure")) planner = FFTW_MEASURE;
    else if (strcmp(o.loop, "estimate"))
        dropin_usage_error(rank, "bench_fftw_dropin", "--loop takes estimate or measure", NULL);
    int failed = 0;
    char *sizes = strdup(o.sizes);
    for (char *item = strtok(sizes, ","); item; item = strtok(NULL, ",")) {
        const long target = atol(item);
        if (target < 1) continue;
        long n = 2;
        while (largest_block(n, p) < target || n % p == 0 || !seven_smooth(n)) ++n;
        ptrdiff_t local_rows, first_row;
        const ptrdiff_t alloc = fftw_mpi_local_size_2d(n, n, MPI_COMM_WORLD, &local_rows, &first_row);
        fftw_complex *data = fftw_alloc_complex(alloc), *spectrum = fftw_alloc_complex(alloc);
        const unsigned flags = planner | FFTW_DESTROY_INPUT;
        fftw_plan forward = fftw_mpi_plan_dft_2d(n, n, data, spectrum, MPI_COMM_WORLD, FFTW_FORWARD, flags);
        fftw_plan backward = fftw_mpi_plan_dft_2d(n, n, spectrum, data, MPI_COMM_WORLD, FFTW_BACKWARD, flags);
        if (!forward || !backward) {
            if (rank == 0) fprintf(stderr, "bench_fftw_dropin: FFTW made no plan for N = %ld\n", n);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        /* Planning with FFTW_MEASURE overwrites the arrays: fill after it. */
        for (ptrdiff_t r = 0; r < local_rows; ++r)
            for (ptrdiff_t c = 0; c < n; ++c) {
                data[r * n + c][0] = start_value(first_row + r, c, 0);
                data[r * n + c][1] = start_value(first_row + r, c, 1);
            }
        const double scale = 1.0 / ((double)n * (double)n);
        const ptrdiff_t elements = local_rows * n;
        /* About 0.2 s of iterations per repeat, at least 3. */
        long iterations = (long)(2e9 / ((double)n * (double)n * log2((double)n) * 5.0 * p));
        if (iterations < 3) iterations = 3;
        if (iterations > 1000) iterations = 1000;
        double times[100];
        for (int rep = -1; rep < repeats; ++rep) {  /* rep -1: warm-up */
            const long count = rep < 0 && iterations < 50 ? 50 : iterations;
            MPI_Barrier(MPI_COMM_WORLD);
            const double begin = MPI_Wtime();
            for (long it = 0; it < count; ++it) {
                fftw_execute(forward);
                fftw_execute(backward);
                for (ptrdiff_t i = 0; i < elements; ++i) data[i][0] *= scale, data[i][1] *= scale;
            }
            double t = (MPI_Wtime() - begin) / count;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (rep >= 0) times[rep] = t;
        }
        for (ptrdiff_t r = 0; r < local_rows; ++r)
            for (ptrdiff_t c = 0; c < n; ++c)
                if (fabs(data[r * n + c][0] - start_value(first_row + r, c, 0)) > 1e-9 ||
                    fabs(data[r * n + c][1] - start_value(first_row + r, c, 1)) > 1e-9)
                    failed = 1;
        const double t = dropin_median(times, repeats);
        const long bytes = largest_block(n, p);
        if (csv) fprintf(csv, "%ld,%.9g\n", bytes, t);
        if (rank == 0)
            printf("bench_fftw_dropin: N = %5ld, %8ld B per peer: %10.1f us per forward + backward\n", n, bytes,
                   t * 1e6);
        fftw_destroy_plan(forward), fftw_destroy_plan(backward);
        fftw_free(data), fftw_free(spectrum);
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("bench_fftw_dropin: %s\n", failed ? "WRONG DATA" : "data ok");
    if (csv) fclose(csv);
    free(sizes);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return failed;
}
