/* For the tests that run ranks which refuse each other ptrace access (each
 * makes itself non-dumpable before MPI_Init, launched as an unprivileged
 * user by tests/node/run_unprivileged.sh): whether the refusal is real, so
 * that a test run as root, whose CAP_SYS_PTRACE passes every check, fails
 * instead of proving nothing. */
#ifndef MPIX_TESTS_PTRACE_REFUSED_H
#define MPIX_TESTS_PTRACE_REFUSED_H

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

static char ptrace_refused_probe = 42;

/* Collective over MPI_COMM_WORLD: 1 on every rank where a CMA read of the
 * next rank's memory fails with EPERM on every rank. */
static int ptrace_refused_between_ranks(void) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long mine[2] = {getpid(), (long)&ptrace_refused_probe}, *all = malloc(2 * size * sizeof(long));
    MPI_Allgather(mine, 2, MPI_LONG, all, 2, MPI_LONG, MPI_COMM_WORLD);
    const int peer = (rank + 1) % size;
    char byte = 0;
    struct iovec l = {&byte, 1}, r = {(void *)all[2 * peer + 1], 1};
    int refused = process_vm_readv((pid_t)all[2 * peer], &l, 1, &r, 1, 0) < 0 && errno == EPERM;
    MPI_Allreduce(MPI_IN_PLACE, &refused, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    free(all);
    return refused;
}

/* MPI_Init for a rank that refuses ptrace access: the process makes itself
 * non-dumpable first. 0 where the refusal is not real: rank 0 has said so,
 * naming program, MPI is finalized, and main returns 1. */
static int init_refusing_ptrace(int *argc, char ***argv, const char *program) {
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    MPI_Init(argc, argv);
    if (ptrace_refused_between_ranks()) return 1;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("%s: ptrace access between ranks was not refused (run as root?)\n", program);
    MPI_Finalize();
    return 0;
}

#endif
