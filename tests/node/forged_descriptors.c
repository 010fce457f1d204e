/* Another user of the machine attacks the node channel's descriptor passing.
 *
 * Every rank forks, before MPI_Init, a forger: a process outside the job,
 * running as `nobody` where the test runs as root (as the calling user
 * otherwise). The program interposes bind(): when the library binds a
 * socket to an abstract name (which any user can see in /proc/net/unix),
 * the forger is handed the name and, before the library goes on, tries to
 * queue datagrams at it. Two attacks (the first argument):
 *  - memfd: one datagram per node rank, each naming that rank and carrying
 *    a memfd of the forger's own (a forged segment);
 *  - linger: a flood of datagrams carrying a loopback TCP socket with
 *    SO_LINGER set and a full, unread send queue, the forger's own copy
 *    closed: whoever closes the last copy waits until the forger lets go,
 *    which it does only when the rank's test is over.
 *  - inherited: a child the rank forks inside the library's sendmsg, holding
 *    the library's own sending socket (the only one the peer's receiving
 *    socket accepts), sends a memfd of the rank's own in the rank's name
 *    just before the rank does: it passes the source-address check and must
 *    fail the credentials' pid (the library reports it dropped).
 * The library's sockets must refuse every forged datagram from the other
 * user (none queued).
 * A library call that does not return within stall_seconds (a set-up that
 * waits on the attacker, an exchange over a forged segment) prints WRONG
 * and ends the job.
 *
 * Usage: forged_descriptors memfd|linger|inherited ALGORITHM... (node-channel
 * algorithms). For each, MPIX_Alltoallv_init must succeed on every rank
 * (the genuine peers' segments mapped) or fail on every rank, and a request
 * that exists must deliver MPI_Alltoallv's data. At the end the forger
 * checks that no byte of its memfd was written (and each rank, of the one
 * its forked children sent). Rank 0 prints
 * "forged_descriptors: ok (...)" with the datagrams refused and the longest
 * set-up; anything wrong prints WRONG and ends with a non-zero status. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <mpi.h>
#include <mpix/mpix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

enum { forged_bytes = 1 << 20, marker = 0x5A, block = 1024, flood = 64, stall_seconds = 15 };

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
static long refused_total; /* datagrams the kernel refused */
static int lingering;     /* the attack: lingering sockets, not memfds */
static int inherited;     /* the attack: a forked child with the library's socket */
static int child_memory = -1; /* the memfd the forked children send */
static unsigned char *child_bytes;
static long inherited_sent; /* datagrams the forked children queued */
static int node_size = 4; /* claims while the node is not known yet */
static pid_t forger_pid;

/* A library call that has not returned after stall_seconds: the set-up
 * waits on the forger. */
static void stalled(int signal) {
    (void)signal;
    static const char message[] = "WRONG: a library call stalled for 15 s\n";
    if (write(STDOUT_FILENO, message, sizeof message - 1) < 0) _exit(3);
    kill(forger_pid, SIGKILL);
    _exit(3);
}

static double seconds_now(void) {
    struct timeval now;
    gettimeofday(&now, NULL);
    return (double)now.tv_sec + 1e-6 * (double)now.tv_usec;
}

/* Brackets a library call under attack: the forger answers every bind, a
 * stall ends the job, and the call's duration counts in the longest. */
static double attack_started, longest_call;
static void attack_begin(void) {
    forging = 1;
    alarm(stall_seconds);
    attack_started = seconds_now();
}
static void attack_end(void) {
    const double took = seconds_now() - attack_started;
    alarm(0);
    forging = 0;
    if (took > longest_call) longest_call = took;
}

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

/* Room for one descriptor in a message's control data. */
typedef union {
    char buffer[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
} OneDescriptor;

/* Makes m carry fd (SCM_RIGHTS) in control. */
static void carry(struct msghdr *m, OneDescriptor *control, int fd) {
    memset(control, 0, sizeof *control);
    m->msg_control = control->buffer;
    m->msg_controllen = sizeof control->buffer;
    struct cmsghdr *c = CMSG_FIRSTHDR(m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
}

/* A loopback TCP socket whose close waits: SO_LINGER for an hour and a
 * send queue its peer (kept open, never read, in *held) does not drain. */
static int lingering_socket(int *held) {
    const int listener = socket(AF_INET, SOCK_STREAM, 0), s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof a;
    const int small = 4096;
    if (listener < 0 || s < 0 || bind(listener, (struct sockaddr *)&a, sizeof a) != 0 || listen(listener, 1) != 0 ||
        getsockname(listener, (struct sockaddr *)&a, &length) != 0 ||
        setsockopt(s, SOL_SOCKET, SO_SNDBUF, &small, sizeof small) != 0 ||
        connect(s, (struct sockaddr *)&a, sizeof a) != 0)
        return -1;
    *held = accept(listener, NULL, NULL);
    close(listener);
    if (*held < 0 || setsockopt(*held, SOL_SOCKET, SO_RCVBUF, &small, sizeof small) != 0) return -1;
    static char junk[4096];
    while (send(s, junk, sizeof junk, MSG_DONTWAIT | MSG_NOSIGNAL) > 0) {
    }
    const struct linger wait_long = {1, 3600};
    return setsockopt(s, SOL_SOCKET, SO_LINGER, &wait_long, sizeof wait_long) == 0 ? s : -1;
}

/* The forger: runs outside the job until the rank closes its pipe, then
 * reports whether anything wrote into the memory it offered. For every
 * name it is handed it answers how many datagrams were queued and how many
 * the kernel refused. */
static int forger(void) {
    if (getuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) return 2;
    const int memory = memfd_create("forged-segment", 0);
    if (memory < 0 || ftruncate(memory, forged_bytes) != 0) return 2;
    unsigned char *bytes = mmap(NULL, forged_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0);
    if (bytes == MAP_FAILED) return 2;
    memset(bytes, marker, forged_bytes);
    const int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int held[256], holding = 0;
    Target t;
    while (read_all(to_forger, &t, sizeof t) == 0) {
        struct sockaddr_un a;
        memset(&a, 0, sizeof a);
        a.sun_family = AF_UNIX;
        memcpy(a.sun_path, t.path, t.length - offsetof(struct sockaddr_un, sun_path));
        int carried = memory;
        if (lingering) {
            if (holding == (int)(sizeof held / sizeof *held)) return 2;
            carried = lingering_socket(&held[holding++]);
            if (carried < 0) return 2;
        }
        long outcome[2] = {0, 0}; /* queued, refused */
        const int attempts = lingering ? flood : t.claims;
        for (int attempt = 0; attempt < attempts; ++attempt) {
            int claim = attempt % t.claims;
            struct iovec payload = {&claim, sizeof claim};
            OneDescriptor control;
            struct msghdr m;
            memset(&m, 0, sizeof m);
            m.msg_name = &a;
            m.msg_namelen = t.length;
            m.msg_iov = &payload;
            m.msg_iovlen = 1;
            carry(&m, &control, carried);
            if (sendmsg(s, &m, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof claim)
                ++outcome[0];
            else if (errno == EPERM || errno == EPIPE || errno == ECONNREFUSED)
                ++outcome[1];
        }
        if (write_all(from_forger, outcome, sizeof outcome) != 0) return 2;
        if (lingering) {
            /* A queued copy is now the last one; with none queued, this
             * close would be the one to wait: reset the connection. */
            const struct linger reset = {1, 0};
            if (outcome[0] == 0) setsockopt(carried, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
            close(carried);
        }
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
    long outcome[2];
    if (write_all(to_forger, &t, sizeof t) == 0 && read_all(from_forger, outcome, sizeof outcome) == 0)
        forged_total += outcome[0], refused_total += outcome[1];
    return rc;
}

/* The library's sendmsg passes through here. In the inherited attack, for
 * each descriptor the library sends, a forked child sends first, from the
 * same socket to the same address, the same payload with child_memory. */
ssize_t sendmsg(int fd, const struct msghdr *m, int flags) {
    static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
    if (real_sendmsg == NULL) real_sendmsg = (ssize_t(*)(int, const struct msghdr *, int))dlsym(RTLD_NEXT, "sendmsg");
    Dl_info caller;
    if (inherited && forging && m->msg_controllen > 0 && dladdr(__builtin_return_address(0), &caller) != 0 &&
        caller.dli_fname != NULL && strstr(caller.dli_fname, "libmpixrma") != NULL) {
        const pid_t child = fork();
        if (child == 0) {
            OneDescriptor control;
            struct msghdr copy = *m;
            carry(&copy, &control, child_memory);
            _exit(real_sendmsg(fd, &copy, flags) >= 0 ? 0 : 1);
        }
        int status = 0;
        if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0)
            ++inherited_sent;
    }
    return real_sendmsg(fd, m, flags);
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "memfd") != 0 && strcmp(argv[1], "linger") != 0 &&
                      strcmp(argv[1], "inherited") != 0)) {
        fprintf(stderr, "usage: forged_descriptors memfd|linger|inherited ALGORITHM...\n");
        return 2;
    }
    lingering = strcmp(argv[1], "linger") == 0;
    inherited = strcmp(argv[1], "inherited") == 0;
    if (inherited) {
        child_memory = memfd_create("forged-by-a-child", 0);
        if (child_memory < 0 || ftruncate(child_memory, forged_bytes) != 0) return 2;
        child_bytes = mmap(NULL, forged_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, child_memory, 0);
        if (child_bytes == MAP_FAILED) return 2;
        memset(child_bytes, marker, forged_bytes);
    }
    signal(SIGALRM, stalled);
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0) return 2;
    const pid_t child = fork();
    if (child < 0) return 2;
    forger_pid = child;
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
    /* An init the attack makes fail returns its error on every rank. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPIX_Comm *xcomm;
    attack_begin();
    if (MPIX_Comm_init(&xcomm, MPI_COMM_WORLD) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    attack_end();
    MPIX_Comm_get_node(xcomm, NULL, NULL, &node_size, NULL);

    int failures = 0;
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int *send = malloc((size_t)size * block * sizeof(int)), *recv = malloc((size_t)size * block * sizeof(int));
    int *expected = malloc((size_t)size * block * sizeof(int));
    for (int i = 0; i < size; ++i) counts[i] = block, displs[i] = i * block;
    for (int a = 2; a < argc; ++a) {
        MPIX_Info *info;
        MPIX_Info_init(&info);
        MPIX_Info_set(info, "mpix_alltoallv_algorithm", argv[a]);
        MPIX_Request *request = NULL;
        attack_begin();
        const int rc = MPIX_Alltoallv_init(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, xcomm, info,
                                           &request);
        attack_end();
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
        alarm(stall_seconds); /* a forged segment mapped would leave the exchange waiting */
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
        alarm(0);
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
    if (inherited) {
        long changed = 0;
        for (long i = 0; i < forged_bytes; ++i) changed += child_bytes[i] != marker;
        if (changed != 0) {
            printf("rank %d: WRONG: %ld bytes of the memory a forked child passed were written\n", rank, changed);
            ++failures;
        }
        if (inherited_sent == 0 && node_size > 1) {
            printf("rank %d: WRONG: no forked child's datagram was queued\n", rank);
            ++failures;
        }
    }
    if (forged_total != 0) {
        printf("rank %d: WRONG: %ld forged datagrams were queued at the library's sockets\n", rank, forged_total);
        ++failures;
    }
    if (refused_total == 0 && node_size > 1) {
        printf("rank %d: WRONG: the forger tried no socket of the library's\n", rank);
        ++failures;
    }
    long refused_all = refused_total;
    double longest = longest_call;
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &refused_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPIX_Comm_free(&xcomm);
    if (rank == 0 && failures == 0)
        printf("forged_descriptors: ok (%s: %ld forged datagrams refused, none queued, forger uid %d; longest "
               "set-up call %.3f s)\n",
               argv[1], refused_all, getuid() == 0 ? 65534 : (int)getuid(), longest);
    MPI_Finalize();
    return failures != 0;
}
