/* What a persistent MPI_Alltoallv_init costs an unmodified program, with
 * and without the drop-in: the first init on MPI_COMM_WORLD (which, under
 * the drop-in, sets the communicator up), then the mean of 49 more, and
 * of init + `starts` Starts and waits + MPI_Request_free.
 *   mpicc.mpich -O2 init_cost.c -o init_cost
 *   [LD_PRELOAD=.../libmpixrma_intercept.so] mpiexec.mpich -n 2 ./init_cost BYTES STARTS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int p, r;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    const int bytes = argc > 1 ? atoi(argv[1]) : 512;
    const int starts = argc > 2 ? atoi(argv[2]) : 1;
    char *s = malloc((size_t)bytes * p), *d = malloc((size_t)bytes * p);
    int *c = malloc(sizeof(int) * p), *x = malloc(sizeof(int) * p);
    for (int i = 0; i < p; ++i) c[i] = bytes, x[i] = i * bytes;
    double first = 0, tinit = 0, tall = 0;
    const int reps = 50;
    for (int k = 0; k < reps; ++k) {
        MPI_Request q;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        MPI_Alltoallv_init(s, c, x, MPI_BYTE, d, c, x, MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
        const double t1 = MPI_Wtime();
        for (int i = 0; i < starts; ++i) {
            MPI_Start(&q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&q);
        const double t2 = MPI_Wtime();
        if (k == 0) first = t1 - t0;
        else tinit += t1 - t0, tall += t2 - t0;
    }
    if (r == 0)
        printf("%d B: first init %.1f us; then init %.1f us, init + %d starts + free %.1f us\n", bytes, 1e6 * first,
               1e6 * tinit / (reps - 1), starts, 1e6 * tall / (reps - 1));
    MPI_Finalize();
    return 0;
}
