/* What the drop-in benchmarks' unmodified MPI programs (bench_dropin.c,
 * bench_fftw_dropin.c) share: their command line (--sizes, --loop,
 * --repeats, --csv, and bench_dropin's --collective, --form and --memory, as
 * benchmarks/dropin.py
 * passes them), the CSV rank 0
 * writes (bytes_per_peer,seconds) and the median of the repeats. Plain C,
 * no mpix-rma: these programs must stay what a user would write. */
#ifndef MPIX_BENCHMARKS_DROPIN_PROGRAM_H
#define MPIX_BENCHMARKS_DROPIN_PROGRAM_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dropin_options {
    const char *sizes; /* comma-separated */
    const char *loop;
    const char *collective; /* bench_dropin: alltoallv, alltoall or neighbor */
    const char *form;       /* bench_dropin: blocking, persistent (MPI-4's *_init) or nonblocking */
    const char *memory;     /* bench_dropin: heap (malloc) or mpi (MPI_Alloc_mem) */
    int repeats;       /* 1..100 */
    FILE *csv;         /* rank 0's, when --csv was given */
};

/* Ends the job with exit status 2 after rank 0 printed why. Every rank
 * parses the same argv and gets here together, so each finalizes: an
 * MPI_Abort from another rank could end rank 0 before its message is out. */
static void dropin_usage_error(int rank, const char *program, const char *what, const char *option) {
    if (rank == 0) fprintf(stderr, "%s: %s%s%s\n", program, what, option ? " " : "", option ? option : "");
    MPI_Finalize();
    exit(2);
}

/* Parses argv over the defaults given; --help prints the options and ends
 * the job; an unknown option, or one without its value, ends it with an
 * error. */
static struct dropin_options dropin_parse(int argc, char **argv, const char *program, const char *sizes,
                                          const char *loop) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct dropin_options o = {sizes, loop, "alltoallv", "blocking", "heap", 5, NULL};
    const char *csv_path = NULL;
    for (int i = 1; i < argc; i += 2) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            if (rank == 0)
                printf("usage: %s [--sizes BYTES,...] [--loop NAME] [--collective alltoallv|alltoall|neighbor] "
                       "[--form blocking|persistent|nonblocking] [--memory heap|mpi] [--repeats 1..100] [--csv FILE]\n"
                       "defaults: --sizes %s --loop %s --collective alltoallv --form blocking --memory heap "
                       "--repeats 5\n",
                       program, sizes, loop);
            MPI_Finalize();
            exit(0);
        }
        if (i + 1 == argc) dropin_usage_error(rank, program, "option needs a value:", argv[i]);
        if (!strcmp(argv[i], "--sizes")) o.sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--loop")) o.loop = argv[i + 1];
        else if (!strcmp(argv[i], "--collective")) o.collective = argv[i + 1];
        else if (!strcmp(argv[i], "--form")) o.form = argv[i + 1];
        else if (!strcmp(argv[i], "--memory")) o.memory = argv[i + 1];
        else if (!strcmp(argv[i], "--repeats")) o.repeats = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--csv")) csv_path = argv[i + 1];
        else dropin_usage_error(rank, program, "unknown option", argv[i]);
    }
    if (o.repeats < 1 || o.repeats > 100) o.repeats = 5;
    if (rank == 0 && csv_path) {
        o.csv = fopen(csv_path, "w");
        if (!o.csv) {
            fprintf(stderr, "%s: cannot write %s\n", program, csv_path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        fprintf(o.csv, "bytes_per_peer,seconds\n");
    }
    return o;
}

/* The median of v[0..n), sorted in place. */
static double dropin_median(double *v, int n) {
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && v[j - 1] > v[j]; --j) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
