/* What the drop-in's set-up of nonblocking exchanges costs where it runs:
 * MPI_Init (MPI_COMM_WORLD), and each MPI_Comm_dup and its MPI_Comm_free,
 * the slowest rank's, median and min..max of 20. Run plain and preloaded.
 *   setup_cost */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { rounds = 20 };

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    struct timespec before, after;
    clock_gettime(CLOCK_MONOTONIC, &before);
    MPI_Init(&argc, &argv);
    clock_gettime(CLOCK_MONOTONIC, &after);
    double init = (double)(after.tv_sec - before.tv_sec) + 1e-9 * (double)(after.tv_nsec - before.tv_nsec);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(MPI_IN_PLACE, &init, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double dup[rounds], freed[rounds];
    for (int i = 0; i < rounds; ++i) {
        MPI_Comm comm;
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        dup[i] = MPI_Wtime() - t;
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        MPI_Comm_free(&comm);
        freed[i] = MPI_Wtime() - t;
    }
    MPI_Allreduce(MPI_IN_PLACE, dup, rounds, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, freed, rounds, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    qsort(dup, rounds, sizeof(double), by_value);
    qsort(freed, rounds, sizeof(double), by_value);
    if (rank == 0)
        printf("MPI_Init %.2f ms; MPI_Comm_dup %.1f us (%.1f..%.1f); MPI_Comm_free %.1f us (%.1f..%.1f)\n", 1e3 * init,
               1e6 * dup[rounds / 2], 1e6 * dup[0], 1e6 * dup[rounds - 1], 1e6 * freed[rounds / 2], 1e6 * freed[0],
               1e6 * freed[rounds - 1]);
    MPI_Finalize();
    return 0;
}
