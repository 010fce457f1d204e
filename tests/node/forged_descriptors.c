/* Another user of the machine forges the node channel's descriptor passing.
 *
 * Every rank forks, before MPI_Init, a forger: a process outside the job,
 * running as `nobody` where the test runs as root (as the calling user
 * otherwise). The program interposes bind(): when the library binds its
 * descriptor-passing socket (an abstract name, which any user can see in
 * /proc/net/unix), the forger is handed the name and, before the library
 * goes on, queues at it one datagram per node rank, each naming that rank
 * and carrying a memfd of the forger's own. Every forged datagram is thus
 * queued ahead of the genuine ones, in every set-up.
 *
 * Usage: forged_descriptors ALGORITHM... (node-channel algorithms). For each,
 * MPIX_Alltoallv_init must succeed on every rank (the genuine peers'
 * segments mapped, the forged ones dropped) or fail on every rank, and a
 * request that exists must deliver MPI_Alltoallv's data. At the end the
 * forger checks that no byte of its memfd was written. Rank 0 prints
 * "forged_descriptors: ok (N forged datagrams queued, uid U)"; anything
 * wrong prints WRONG and ends with a non-zero status. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <grp.h>
#include <mpi.h>
#include <mpix/mpix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

enum { forged_bytes = 1 << 20, marker = 0x5A, block = 1024 };

/* What a rank hands its forger: the socket's name and how many node ranks
 * to impersonate. */
typedef struct {
    int claims;
    socklen_t length;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
} Target;

static int to_forger = -1, from_forger = -1;
static int forging;       /* set around the library calls under attack */
static long forged_total; /* datagrams the forger queued at this rank */
static int node_size = 1;

/* All n bytes through the pipe fd, in either direction; -1 on EOF or error. */
static int pipe_all(int fd, void *p, size_t n, int writing) {
    char *c = p;
    while (n > 0) {
        ssize_t done = writing ? write(fd, c, n) : read(fd, c, n);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) return -1;
        c += done, n -= (size_t)done;
    }
    return 0;
}
static int read_all(int fd, void *p, size_t n) { return pipe_all(fd, p, n, 0); }
static int write_all(int fd, const void *p, size_t n) { return pipe_all(fd, (void *)p, n, 1); }

/* The forger: runs outside the job until the rank closes its pipe, then
 * reports whether anything wrote into the memory it offered. */
static int forger(void) {
    if (getuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) return 2;
    const int memory = memfd_create("forged-segment", 0);
    if (memory < 0 || ftruncate(memory, forged_bytes) != 0) return 2;
    unsigned char *bytes = mmap(NULL, forged_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0);
    if (bytes == MAP_FAILED) return 2;
    memset(bytes, marker, forged_bytes);
    const int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    Target t;
    while (read_all(to_forger, &t, sizeof t) == 0) {
        struct sockaddr_un a;
        memset(&a, 0, sizeof a);
        a.sun_family = AF_UNIX;
        memcpy(a.sun_path, t.path, t.length - offsetof(struct sockaddr_un, sun_path));
        long queued = 0;
        for (int claim = 0; claim < t.claims; ++claim) {
            struct iovec payload = {&claim, sizeof claim};
            union {
                char buffer[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
            } control;
            memset(&control, 0, sizeof control);
            struct msghdr m;
            memset(&m, 0, sizeof m);
            m.msg_name = &a;
            m.msg_namelen = t.length;
            m.msg_iov = &payload;
            m.msg_iovlen = 1;
            m.msg_control = control.buffer;
            m.msg_controllen = sizeof control.buffer;
            struct cmsghdr *c = CMSG_FIRSTHDR(&m);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &memory, sizeof memory);
            if (sendmsg(s, &m, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof claim) ++queued;
        }
        if (write_all(from_forger, &queued, sizeof queued) != 0) return 2;
    }
    long written = 0;
    for (long i = 0; i < forged_bytes; ++i) written += bytes[i] != marker;
    return write_all(from_forger, &written, sizeof written) == 0 ? 0 : 2;
}

/* The library's bind() passes through here. Its descriptor-passing socket
 * (an autobound abstract name, bound from libmpixrma) is handed to the
 * forger, and the bind returns once the forgeries are queued. */
int bind(int fd, const struct sockaddr *address, socklen_t length) {
    static int (*real_bind)(int, const struct sockaddr *, socklen_t);
    if (real_bind == NULL) real_bind = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
    const int rc = real_bind(fd, address, length);
    Dl_info caller;
    if (rc != 0 || !forging || address->sa_family != AF_UNIX || length != sizeof(sa_family_t) ||
        dladdr(__builtin_return_address(0), &caller) == 0 || caller.dli_fname == NULL ||
        strstr(caller.dli_fname, "libmpixrma") == NULL)
        return rc;
    struct sockaddr_un a;
    socklen_t bound = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &bound) != 0) return rc;
    Target t;
    memset(&t, 0, sizeof t);
    t.claims = node_size;
    t.length = bound;
    memcpy(t.path, a.sun_path, bound - offsetof(struct sockaddr_un, sun_path));
    long queued = 0;
    if (write_all(to_forger, &t, sizeof t) == 0 && read_all(from_forger, &queued, sizeof queued) == 0)
        forged_total += queued;
    return rc;
}

int main(int argc, char **argv) {
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0) return 2;
    const pid_t child = fork();
    if (child < 0) return 2;
    if (child == 0) {
        close(down[1]), close(up[0]);
        to_forger = down[0], from_forger = up[1];
        _exit(forger());
    }
    close(down[0]), close(up[1]);
    to_forger = down[1], from_forger = up[0];

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPIX_Comm *xcomm;
    if (MPIX_Comm_init(&xcomm, MPI_COMM_WORLD) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    MPIX_Comm_get_node(xcomm, NULL, NULL, &node_size, NULL);

    int failures = 0;
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int *send = malloc((size_t)size * block * sizeof(int)), *recv = malloc((size_t)size * block * sizeof(int));
    int *expected = malloc((size_t)size * block * sizeof(int));
    for (int i = 0; i < size; ++i) counts[i] = block, displs[i] = i * block;
    for (int a = 1; a < argc; ++a) {
        MPIX_Info *info;
        MPIX_Info_init(&info);
        MPIX_Info_set(info, "mpix_alltoallv_algorithm", argv[a]);
        MPIX_Request *request = NULL;
        forging = 1;
        const int rc = MPIX_Alltoallv_init(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, xcomm, info,
                                           &request);
        forging = 0;
        MPIX_Info_free(&info);
        int made = rc == MPI_SUCCESS, every = made, any = made;
        MPI_Allreduce(&made, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&made, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (every != any) {
            printf("rank %d: WRONG: %s: init %s here but not on every rank\n", rank, argv[a],
                   made ? "worked" : "failed");
            ++failures;
        }
        if (!made) {
            if (rank == 0) printf("forged_descriptors: %s: init failed on every rank\n", argv[a]);
            continue;
        }
        for (int it = 0; it < 10; ++it) {
            for (int i = 0; i < size * block; ++i) send[i] = rank * 7919 + it * 31 + i;
            MPI_Alltoallv(send, counts, displs, MPI_INT, expected, counts, displs, MPI_INT, MPI_COMM_WORLD);
            memset(recv, 0xA5, (size_t)size * block * sizeof(int));
            if (MPIX_Start(request) != MPI_SUCCESS || MPIX_Wait(request, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
                memcmp(recv, expected, (size_t)size * block * sizeof(int)) != 0) {
                printf("rank %d: WRONG: %s: iteration %d did not deliver MPI_Alltoallv's data\n", rank, argv[a], it);
                ++failures;
                break;
            }
        }
        MPIX_Request_free(&request);
    }
    free(counts), free(displs), free(send), free(recv), free(expected);

    /* The forger's verdict: was its memory written? */
    close(to_forger);
    long written = -1;
    if (read_all(from_forger, &written, sizeof written) != 0 || written != 0) {
        printf("rank %d: WRONG: %ld bytes of the forged segment were written\n", rank, written);
        ++failures;
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("rank %d: WRONG: the forger failed (status %d)\n", rank, status);
        ++failures;
    }
    if (forged_total == 0 && node_size > 1) {
        printf("rank %d: WRONG: no forged datagram reached the library's socket\n", rank);
        ++failures;
    }
    long forged_all = forged_total;
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &forged_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPIX_Comm_free(&xcomm);
    if (rank == 0 && failures == 0)
        printf("forged_descriptors: ok (%ld forged datagrams queued, forger uid %d)\n", forged_all,
               getuid() == 0 ? 65534 : (int)getuid());
    MPI_Finalize();
    return failures != 0;
}
