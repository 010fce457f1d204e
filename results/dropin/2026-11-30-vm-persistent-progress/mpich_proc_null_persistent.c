#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm, graph; MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const int ring[2] = {(rank + size - 1) % size, (rank + 1) % size};
    MPI_Dist_graph_create_adjacent(comm, 2, ring, MPI_UNWEIGHTED, 2, ring, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    enum { block = 4096 };
    int *s = calloc(block * size * 2, sizeof(int)), *r = calloc(block * size * 2, sizeof(int));
    int mode = argc > 1 ? atoi(argv[1]) : 0;
    if (mode == 4) { MPI_Request p2; MPI_Send_init(s, 1, MPI_INT, (rank+1)%size, 0, comm, &p2); MPI_Request_free(&p2); }
    if (mode && mode != 4) {
        MPI_Request proxy, own;
        MPI_Send_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, comm, &proxy);
        if (mode != 3) MPI_Alltoall_init(s, block, MPI_INT, r, block, MPI_INT, comm, MPI_INFO_NULL, &own); else own = MPI_REQUEST_NULL;
        if (mode == 2) { MPI_Start(&proxy); MPI_Wait(&proxy, MPI_STATUS_IGNORE); }
        if (own != MPI_REQUEST_NULL) MPI_Request_free(&own);
        MPI_Request_free(&proxy);
    }
    MPI_Request req;
    int counts[2] = {block, block}, displs[2] = {0, block};
    double one = 1, out;
    if (getenv("ALLREDUCE")) /* the same with a persistent collective that is not an exchange */
        MPI_Allreduce_init(&one, &out, 1, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &req);
    else
        MPI_Neighbor_alltoallv_init(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, graph, MPI_INFO_NULL, &req);
    for (int it = 0; it < 10; ++it) { MPI_Start(&req); MPI_Wait(&req, MPI_STATUS_IGNORE); }
    MPI_Request_free(&req);
    if (rank == 0) printf("done\n");
    MPI_Finalize();
    return 0;
}
