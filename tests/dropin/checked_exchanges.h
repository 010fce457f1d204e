/* What the drop-in's request tests share: a check that prints what went
 * wrong on which rank and counts it, and one exchange's buffers (what it
 * sends, what it receives, what it must receive). */
#ifndef MPIX_TESTS_DROPIN_CHECKED_EXCHANGES_H
#define MPIX_TESTS_DROPIN_CHECKED_EXCHANGES_H

#include <stdio.h>
#include <stdlib.h>

static int rank_, size_, wrong;

static void expect(int ok, const char *what, int it) {
    if (!ok) {
        printf("rank %d: WRONG: %s (iteration %d)\n", rank_, what, it);
        ++wrong;
    }
}

typedef struct {
    int *send, *recv, *expected;
    int ints;
} Buffers;

/* blocks blocks of block_ints ints each way. */
static Buffers buffers(int blocks, int block_ints) {
    const size_t bytes = sizeof(int) * (size_t)blocks * (size_t)block_ints;
    Buffers b = {malloc(bytes), malloc(bytes), malloc(bytes), blocks * block_ints};
    return b;
}

static void release(Buffers *b) { free(b->send), free(b->recv), free(b->expected); }

#endif
