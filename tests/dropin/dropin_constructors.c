/* The constructors that set a communicator up for the drop-in's claimed
 * calls, beyond those dropin_nonblocking makes: MPI_Comm_create_group,
 * MPI_Cart_create, MPI_Cart_sub, MPI_Graph_create and MPI_Intercomm_merge
 * (over an intercommunicator between the even and the odd ranks). On
 * each, iterations MPI_Ialltoallv calls, each rank's every received block
 * checked; the communicators are freed in that order, so that their
 * reports (MPIX_VERBOSE=1) come in it. Rank 0 prints
 * "dropin_constructors: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "checked_exchanges.h"

enum { block = 100, iterations = 8, constructors = 5 };

/* Element j of the block from s to d: it * 1000003 + s * 4099 + d * 7 + j. */
static void exchange(MPI_Comm comm, const char *made_by) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    Buffers b = buffers(size, block);
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; ++r) counts[r] = block, displs[r] = r * block;
    for (int it = 0; it < iterations; ++it) {
        for (int i = 0; i < size * block; ++i) {
            const int peer = i / block, j = i % block;
            b.send[i] = it * 1000003 + rank * 4099 + peer * 7 + j;
            b.recv[i] = -1;
            b.expected[i] = it * 1000003 + peer * 4099 + rank * 7 + j;
        }
        MPI_Request request;
        const int err = MPI_Ialltoallv(b.send, counts, displs, MPI_INT, b.recv, counts, displs, MPI_INT, comm, &request);
        expect(err == MPI_SUCCESS && MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS, made_by, it);
        for (int i = 0; i < size * block; ++i)
            if (b.recv[i] != b.expected[i]) {
                expect(0, made_by, it);
                break;
            }
    }
    free(counts), free(displs);
    release(&b);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm made[constructors];
    const char *names[constructors] = {"serve:MPI_Comm_create_group", "serve:MPI_Cart_create", "serve:MPI_Cart_sub",
                                       "serve:MPI_Graph_create", "serve:MPI_Intercomm_merge"};
    MPI_Group world_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 7, &made[0]);
    MPI_Group_free(&world_group);
    const int dims[2] = {size_, 1}, periods[2] = {1, 0};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &made[1]);
    MPI_Comm plane;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &plane);
    const int remain[2] = {1, 0};
    MPI_Cart_sub(plane, remain, &made[2]);
    MPI_Comm_free(&plane);
    /* A ring: rank r's edges to r - 1 and r + 1. */
    int *index = malloc(sizeof(int) * (size_t)size_), *edges = malloc(sizeof(int) * 2 * (size_t)size_);
    for (int r = 0; r < size_; ++r) {
        index[r] = 2 * (r + 1);
        edges[2 * r] = (r + size_ - 1) % size_, edges[2 * r + 1] = (r + 1) % size_;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size_, index, edges, 0, &made[3]);
    free(index), free(edges);
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, rank_, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank_ % 2 == 0 ? 1 : 0, 11, &inter);
    MPI_Intercomm_merge(inter, rank_ % 2, &made[4]);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    for (int c = 0; c < constructors; ++c) {
        MPI_Comm_set_name(made[c], names[c]);
        exchange(made[c], names[c]);
    }
    for (int c = 0; c < constructors; ++c) MPI_Comm_free(&made[c]);
    int wrong_anywhere = 0;
    MPI_Reduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank_ == 0 && wrong_anywhere == 0) printf("dropin_constructors: ok\n");
    MPI_Finalize();
    return wrong_anywhere != 0;
}
