/* An unmodified MPI program (it does not know mpix-rma) for the drop-in's
 * MPI_Alltoall: run under LD_PRELOAD=libmpixrma_intercept.so, it calls
 * MPI_Alltoall the ways FFT transposes do and checks every call against
 * PMPI_Alltoall (MPI's own, never intercepted) on poisoned receive buffers:
 * an exchange too small to serve, then larger ones: fixed buffers; buffers
 * rotating among three; MPI_IN_PLACE; the count changing every few calls; a
 * derived contiguous send type against plain receive elements; and, on a
 * communicator of its own, small calls of one receive type, then served
 * ones of a larger type at a count the small ones did not reach; and, on a
 * third, blocks larger than the claimed calls stage (32 KiB), which the
 * calls the agreed path passes on copy whole (dropin.alltoall.claimed).
 * The communicators are named "serve:..." for the drop-in's report at
 * MPI_Finalize (MPIX_VERBOSE=1), which must show calls served on each.
 * Prints "dropin_alltoall: ok" on rank 0 when every call delivered MPI's
 * data. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON 0xA5
#define CALLS 40

static int rank_, size_;
static long wrong_calls;

/* Send data that differs per rank, block, element and call. */
static void fill(int *send, int ints_per_block, int call) {
    for (int t = 0; t < size_; ++t)
        for (int i = 0; i < ints_per_block; ++i)
            send[t * ints_per_block + i] = rank_ * 1000003 + t * 10007 + i * 31 + call;
}

/* One MPI_Alltoall call of ints_per_block ints per block (sendcount of
 * sendtype, recvcount of recvtype), checked: recv is poisoned first and must
 * then hold byte for byte what PMPI_Alltoall delivers from the same send
 * data. */
static void checked_call(const char *scenario, int call, int *send, int *recv, int ints_per_block,
                         MPI_Datatype sendtype, int sendcount, MPI_Datatype recvtype, int recvcount, MPI_Comm comm) {
    const size_t bytes = (size_t)size_ * ints_per_block * sizeof(int);
    int *expected = malloc(bytes > 0 ? bytes : 1);
    const int in_place = send == NULL;
    if (in_place) {
        fill(recv, ints_per_block, call);
        memcpy(expected, recv, bytes);
        PMPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, expected, recvcount, recvtype, comm);
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, recvcount, recvtype, comm);
    } else {
        fill(send, ints_per_block, call);
        memset(expected, POISON, bytes);
        PMPI_Alltoall(send, sendcount, sendtype, expected, recvcount, recvtype, comm);
        memset(recv, POISON, bytes);
        MPI_Alltoall(send, sendcount, sendtype, recv, recvcount, recvtype, comm);
    }
    if (memcmp(recv, expected, bytes) != 0) {
        ++wrong_calls;
        fprintf(stderr, "dropin_alltoall: WRONG data on rank %d in '%s', call %d\n", rank_, scenario, call);
    }
    free(expected);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_name(comm, "serve:alltoall");
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    const int large = 2048; /* ints per block: 8 KiB, served */
    int *buffers[6];
    for (int b = 0; b < 6; ++b) buffers[b] = malloc((size_t)size_ * large * sizeof(int));

    /* Too small to serve, first, as a size sweep begins: these calls pass
     * straight through (the drop-in remembers their type's counts), and the
     * larger ones below must still be served. */
    for (int call = 0; call < CALLS; ++call)
        checked_call("small", call, buffers[0], buffers[1], 2, MPI_INT, 2, MPI_INT, 2, comm);
    for (int call = 0; call < CALLS; ++call) /* fixed buffers */
        checked_call("fixed", call, buffers[0], buffers[1], large, MPI_INT, large, MPI_INT, large, comm);
    for (int call = 0; call < CALLS; ++call) /* rotating among three pairs */
        checked_call("rotating", call, buffers[2 * (call % 3)], buffers[2 * (call % 3) + 1], large, MPI_INT, large,
                     MPI_INT, large, comm);
    for (int call = 0; call < CALLS; ++call) /* in place */
        checked_call("in place", call, NULL, buffers[3], large, MPI_INT, large, MPI_INT, large, comm);
    for (int call = 0; call < CALLS; ++call) { /* the count changes every 10 calls */
        const int ints = large / (1 + (call / 10) % 2);
        checked_call("changing count", call, buffers[0], buffers[1], ints, MPI_INT, ints, MPI_INT, ints, comm);
    }
    MPI_Datatype quad;
    MPI_Type_contiguous(4, MPI_INT, &quad);
    MPI_Type_commit(&quad);
    for (int call = 0; call < CALLS; ++call) /* 4-int elements sent, ints received */
        checked_call("derived send type", call, buffers[4], buffers[5], large, quad, large / 4, MPI_INT, large, comm);
    /* The receive type matters, not only the count: after small calls of
     * 2 ints, blocks of 128 4-int elements (2 KiB, above the served size,
     * at a count the small type would not reach) are served. */
    MPI_Comm typed;
    MPI_Comm_dup(MPI_COMM_WORLD, &typed);
    MPI_Comm_set_name(typed, "serve:alltoall receive type");
    for (int call = 0; call < CALLS; ++call)
        checked_call("small ints", call, buffers[0], buffers[1], 2, MPI_INT, 2, MPI_INT, 2, typed);
    for (int call = 0; call < CALLS; ++call)
        checked_call("4-int elements received", call, buffers[0], buffers[1], 512, MPI_INT, 512, quad, 128, typed);
    MPI_Comm_free(&typed);
    MPI_Type_free(&quad);
    const int staged_above = 8192; /* ints per block: 32 KiB */
    int *wide_send = malloc((size_t)size_ * staged_above * sizeof(int));
    int *wide_recv = malloc((size_t)size_ * staged_above * sizeof(int));
    MPI_Comm wide;
    MPI_Comm_dup(MPI_COMM_WORLD, &wide);
    MPI_Comm_set_name(wide, "serve:alltoall 32 KiB blocks");
    for (int call = 0; call < CALLS; ++call)
        checked_call("32 KiB blocks", call, wide_send, wide_recv, staged_above, MPI_INT, staged_above, MPI_INT,
                     staged_above, wide);
    MPI_Comm_free(&wide);
    free(wide_send);
    free(wide_recv);

    for (int b = 0; b < 6; ++b) free(buffers[b]);
    long wrong = 0;
    PMPI_Allreduce(&wrong_calls, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&comm);
    if (rank_ == 0) printf(wrong == 0 ? "dropin_alltoall: ok\n" : "dropin_alltoall: WRONG in %ld calls\n", wrong);
    MPI_Finalize();
    return wrong == 0 ? 0 : 1;
}
