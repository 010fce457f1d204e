/* With MPI's default MPI_ERRORS_ARE_FATAL, a bad argument aborts the job, as
 * in MPI, after printing the library's full message (CTest matches it). */
#include <mpix/mpix.h>
#include <stddef.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int counts[64], displs[64], buf[64], out[64];
    for (int i = 0; i < size; ++i) counts[i] = 1, displs[i] = i, buf[i] = rank;
    if (rank == 1) counts[0] = -1;
    MPIX_Comm* comm = NULL;
    MPIX_Request* request = NULL;
    MPIX_Comm_init(&comm, MPI_COMM_WORLD);
    MPIX_Alltoallv_init(buf, counts, displs, MPI_INT, out, counts, displs, MPI_INT, comm, NULL, &request);
    MPI_Finalize();
    return 0;
}
