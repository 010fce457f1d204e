/*
 * mpix-rma public C API.
 *
 * Persistent MPI_Alltoallv: build the operation once with
 * MPIX_Alltoallv_init, then MPIX_Start / MPIX_Wait it every iteration.
 * Every function returns an MPI error code (MPI_SUCCESS on success) and, on
 * failure, invokes the error handler of the communicator involved, exactly
 * like MPI does: with MPI_ERRORS_ARE_FATAL the message is printed and the job
 * aborts; with MPI_ERRORS_RETURN the code is returned and MPIX_Error_string
 * gives the detailed message (argument, value, rank).
 */
#ifndef MPIX_MPIX_H
#define MPIX_MPIX_H

#include <mpi.h>

#include "mpix/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MPIX_Comm MPIX_Comm;
typedef struct MPIX_Info MPIX_Info;
typedef struct MPIX_Request MPIX_Request;
typedef struct MPIX_Win MPIX_Win;

#define MPIX_MAX_OBJECT_NAME 64
#define MPIX_MAX_ERROR_STRING 1024
#define MPIX_MAX_LIBRARY_VERSION_STRING 256

/* The version of the library running (which may be newer than the
 * MPIX_RMA_VERSION_* this program was compiled with), and a line naming it
 * and the MPI it was built with. Local; callable before MPI_Init. */
int MPIX_Get_version(int *major, int *minor, int *patch);
int MPIX_Get_library_version(char version[MPIX_MAX_LIBRARY_VERSION_STRING], int *resultlen);

/* Library error classes, registered with MPI_Add_error_class on first use:
 * run-time values, as every class added that way is (so not usable as a
 * `case` label). Test a code with
 *   int cls; MPI_Error_class(code, &cls); if (cls == MPIX_ERR_CONFIG) ... */
enum MPIX_Error_kind {
    MPIX_ERRKIND_CONFIG = 0,    /* invalid MPIX_* environment variable */
    MPIX_ERRKIND_ALGORITHM = 1, /* unknown or unsupported algorithm, MPIX_FALLBACK=error */
    MPIX_ERRKIND_COUNT_ = 2
};
int MPIX_Error_class_of(int kind);
#define MPIX_ERR_CONFIG (MPIX_Error_class_of(MPIX_ERRKIND_CONFIG))
#define MPIX_ERR_ALGORITHM (MPIX_Error_class_of(MPIX_ERRKIND_ALGORITHM))

/* The detailed message of the last error this thread got from the library if
 * errorcode is that error, MPI_Error_string's text otherwise. */
int MPIX_Error_string(int errorcode, char *string, int *resultlen);

/* Communicator: duplicates comm (private tag space) and splits it into nodes.
 * Collective over comm. MPIX_NODE_SIZE=k emulates nodes of k consecutive
 * ranks inside each real node. */
int MPIX_Comm_init(MPIX_Comm **xcomm, MPI_Comm comm);
int MPIX_Comm_free(MPIX_Comm **xcomm);
/* The library's private duplicate of the user's communicator. */
int MPIX_Comm_get_comm(const MPIX_Comm *xcomm, MPI_Comm *comm);
/* This rank's node id, rank inside the node, size of its node, node count. */
int MPIX_Comm_get_node(const MPIX_Comm *xcomm, int *node, int *node_rank, int *node_size,
                       int *num_nodes);

/* Hints. Keys: "mpix_alltoallv_algorithm" (registry name, overrides
 * MPIX_ALLTOALLV_ALGORITHM), "mpix_expected_iterations" and
 * "mpix_auto_settle" (for auto: N, and the iterations its tournament may take),
 * "mpix_auto_mpi_credit_ns" (for auto: nanoseconds per call that running
 * MPI's own call saves beyond its measured period, as the drop-in's
 * per-call agreement; credited to it in the tournament),
 * "mpix_buffers_move" ("true": see MPIX_Start_with_buffers). Unknown keys
 * are ignored, as MPI does. */
int MPIX_Info_init(MPIX_Info **info);
int MPIX_Info_set(MPIX_Info *info, const char *key, const char *value);
int MPIX_Info_free(MPIX_Info **info);
/* MPI_Info_get's contract: *flag says whether key is set; value gets at most
 * valuelen characters plus the terminating NUL. */
int MPIX_Info_get(const MPIX_Info *info, const char *key, int valuelen, char *value, int *flag);

/* Persistent Alltoallv. Same arguments as MPI_Alltoallv_init; the count and
 * displacement arrays are copied, the buffers must stay valid until the
 * request is freed. sendbuf may be MPI_IN_PLACE. info may be NULL.
 * Collective; an argument error on any rank is reported on every rank. */
int MPIX_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                        MPIX_Info *info, MPIX_Request **request);

/* Persistent Alltoall, shaped like MPI-4's MPI_Alltoall_init: every block
 * sendcount elements of sendtype to each rank, recvcount of recvtype from
 * each, block r at offset r * count * extent. sendbuf may be MPI_IN_PLACE
 * (then sendcount and sendtype are ignored and the blocks are taken from
 * recvbuf, as MPI defines it). The buffers must stay valid until the
 * request is freed. info may be NULL. Collective; an argument error on any
 * rank, or a block size that differs between ranks, is reported on every
 * rank; the check is one MPI_Allreduce, never O(P) data. Info keys:
 * "mpix_alltoall_algorithm", a registry name (MPIX_Alltoall_algorithm),
 * overriding MPIX_ALLTOALL_ALGORITHM, default "auto"; the others as for
 * MPIX_Alltoallv_init. */
int MPIX_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Info *info,
                       MPIX_Request **request);

/* Persistent neighbourhood Alltoallv, shaped like MPI-4's
 * MPI_Neighbor_alltoallv_init. xcomm must come from MPIX_Comm_init on a
 * distributed-graph communicator (MPI_Dist_graph_create[_adjacent],
 * MPIX_Dist_graph_create_sparse); any other is MPI_ERR_TOPOLOGY on every
 * rank. Counts and displacements are per edge, in the order
 * MPI_Dist_graph_neighbors returns them: sources for the receive side,
 * destinations for the send side. Duplicate edges and self-loops are legal.
 * MPI_IN_PLACE is not (MPI does not allow it here). The arrays are copied;
 * the buffers must stay valid until the request is freed. Arguments, memory
 * and set-up are O(degree), never O(P). Collective; an argument error on any
 * rank, or counts that do not match across an edge, is reported on every
 * rank. Info keys: "mpix_neighbor_alltoallv_algorithm", a registry name
 * (MPIX_Neighbor_alltoallv_algorithm), overriding
 * MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM, default "auto"; "mpix_auto_settle" and
 * "mpix_buffers_move", as for MPIX_Alltoallv_init. */
int MPIX_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                                 MPIX_Info *info, MPIX_Request **request);

/* Sparse pattern discovery: each rank names only the ranks of comm it sends
 * to and how many elements (outdegree edges; a destination may repeat, and
 * may be the rank itself); the library finds who sends to each rank with no
 * O(P) collective (NBX: synchronous sends and a nonblocking barrier) and
 * returns the distributed-graph communicator of that exchange, as
 * MPI_Dist_graph_create_adjacent(comm, ..., info, reorder, graph_comm) would
 * with every edge weighted by its count. MPI_Dist_graph_neighbors on it
 * gives the sources in ascending rank order with what each sends as its
 * weight (the receive counts), and the destinations with sendcounts: all
 * that MPIX_Neighbor_alltoallv_init needs. Collective over comm; a bad
 * argument on any rank fails on every rank. Free graph_comm with
 * MPI_Comm_free. */
int MPIX_Dist_graph_create_sparse(MPI_Comm comm, int outdegree, const int destinations[],
                                  const int sendcounts[], MPI_Info info, int reorder,
                                  MPI_Comm *graph_comm);

/* The sparse exchange with data, shaped like MPI Advance's
 * MPIL_Alltoallv_crs: each rank names only its send_nnz blocks (block i:
 * sendcounts[i] elements of sendtype at sendvals + sdispls[i] * extent, to
 * rank dest[i] of xcomm's communicator; a destination may repeat and may be
 * the rank itself) and gets every block sent to it: *recv_nnz blocks, block
 * j from rank (*src)[j], (*recvcounts)[j] elements of recvtype at
 * (*recvvals) + (*rdispls)[j] * extent, sources ascending, a source's
 * blocks in its order. One call, no O(P) collective (NBX: the data in
 * synchronous sends, then a nonblocking barrier). The four output arrays
 * are allocated by the library (never NULL) and freed with MPIX_Free.
 * Collective; a bad argument on any rank fails on every rank before any
 * data moves. info may be NULL, or set "mpix_crs_reuse" to "true" on every
 * rank (else MPI_ERR_INFO_VALUE on every rank): the pattern repeats. The
 * communicator then keeps what the call discovered, and a later call with
 * the key whose destinations, counts, displacements and types are the same
 * on every rank runs as a persistent neighbourhood exchange over it (no
 * discovery; sendvals may be another buffer); a pattern that changed on
 * any rank is discovered again. What is kept is freed with xcomm. */
int MPIX_Alltoallv_crs(int send_nnz, const int dest[], const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, const void *sendvals, int *recv_nnz, int **src,
                       int **recvcounts, int **rdispls, MPI_Datatype recvtype, void **recvvals,
                       MPIX_Comm *xcomm, MPIX_Info *info);
/* Frees what the library allocated for the caller (MPIX_Alltoallv_crs's
 * outputs). NULL is allowed. Local. */
int MPIX_Free(void *memory);

/* The MPI Advance entry points of the paper (persistent-alltoallv-rma,
 * Algorithms 1 and 3): MPIX_Alltoallv_init with the algorithm fixed to
 * "fence" or "lock" (an info key naming another algorithm is overridden). */
int alltoallv_rma_winfence_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                                MPIX_Info *info, MPIX_Request **request);
int alltoallv_rma_lock_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                            MPIX_Info *info, MPIX_Request **request);

/* The registered Alltoallv algorithms (the names MPIX_ALLTOALLV_ALGORITHM
 * and the info key "mpix_alltoallv_algorithm" take), in mpix_info's order,
 * and what each is and needs, as MPIX_ALGORITHM_* bits. name and
 * description point to static strings. index outside [0, count):
 * MPI_ERR_ARG. Local; callable before MPI_Init. */
#define MPIX_ALGORITHM_MPI_BASELINE 0x1     /* the MPI's own call, which auto always measures */
#define MPIX_ALGORITHM_MPI_PERSISTENT 0x2   /* MPI's persistent collective: binds the buffers */
#define MPIX_ALGORITHM_SELECTS 0x4          /* chooses another algorithm and runs it (auto) */
#define MPIX_ALGORITHM_CONTIGUOUS_TYPES 0x8 /* moves raw bytes: needs contiguous datatypes */
#define MPIX_ALGORITHM_WINDOW 0x10          /* puts every block into a window over recvbuf */
#define MPIX_ALGORITHM_WINDOW_OFF_NODE 0x20 /* puts off-node blocks into a window over recvbuf */
#define MPIX_ALGORITHM_NODE_CHANNEL 0x40    /* on-node blocks through the node channel */
int MPIX_Alltoallv_algorithm_count(int *count);
int MPIX_Alltoallv_algorithm(int index, const char **name, const char **description, int *capabilities);
/* The registered neighbourhood Alltoallv algorithms, likewise (the names
 * MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM and "mpix_neighbor_alltoallv_algorithm"
 * take), with the same MPIX_ALGORITHM_* bits. */
int MPIX_Neighbor_alltoallv_algorithm_count(int *count);
int MPIX_Neighbor_alltoallv_algorithm(int index, const char **name, const char **description,
                                      int *capabilities);
/* The registered Alltoall algorithms, likewise (MPIX_ALLTOALL_ALGORITHM,
 * "mpix_alltoall_algorithm"). */
int MPIX_Alltoall_algorithm_count(int *count);
int MPIX_Alltoall_algorithm(int index, const char **name, const char **description, int *capabilities);

/* Persistent request life cycle, with MPI's state rules: starting an active
 * request or freeing an active request is an error (MPI_ERR_REQUEST); waiting
 * on or testing an inactive request returns at once. A NULL request is
 * inactive. status may be MPI_STATUS_IGNORE. */
int MPIX_Start(MPIX_Request *request);
int MPIX_Startall(int count, MPIX_Request *requests[]);
/* MPIX_Start on other buffers, laid out as those given at init (same counts,
 * displacements and types; sendbuf MPI_IN_PLACE if and only if it was), for
 * buffers that rotate or are reallocated. Only for a request made with the
 * info key "mpix_buffers_move" = "true" (else MPI_ERR_REQUEST), which limits
 * it to algorithms whose data path does not depend on the buffers' addresses
 * (no window over recvbuf, not MPI's persistent call; auto chooses among
 * them). Local. */
int MPIX_Start_with_buffers(MPIX_Request *request, const void *sendbuf, void *recvbuf);
int MPIX_Test(MPIX_Request *request, int *flag, MPI_Status *status);
int MPIX_Wait(MPIX_Request *request, MPI_Status *status);
int MPIX_Waitall(int count, MPIX_Request *requests[], MPI_Status statuses[]);
/* Freeing a request of an RMA algorithm is collective over its communicator
 * (its window goes back to the communicator's pool, or is freed): free it on
 * every rank, in the same order. */
int MPIX_Request_free(MPIX_Request **request);
/* Registry name of the algorithm that runs this request. */
int MPIX_Request_get_algorithm(const MPIX_Request *request, char name[MPIX_MAX_OBJECT_NAME],
                               int *resultlen);
/* flag = 1 once the request runs its chosen algorithm: at once for a forced
 * one; for auto once its tournament is over (0 again while a drifting
 * period re-runs it). The same on every rank at the same Start. Local. */
int MPIX_Request_is_settled(const MPIX_Request *request, int *flag);

/*
 * RMA windows. Same semantics as MPI's, over an MPIX_Comm, with two paths:
 * targets on the caller's node are written directly (shared memory for
 * MPIX_Win_allocate memory, Linux CMA single copies for user memory; see
 * MPIX_NODE_PATH), others through MPI RMA. Every operation and
 * synchronization call checks the epoch: misuse is MPI_ERR_RMA_SYNC.
 *
 * Info keys (MPIX_Info, at creation or MPIX_Win_dup_with_info):
 *   mpi_win_scope = process | thread   thread: a flush waits only for the
 *                                      calling thread's operations
 *   mpi_win_order = false | true       true: operations from one origin to one
 *                                      target complete in issue order (in a
 *                                      program below MPI_THREAD_MULTIPLE, puts
 *                                      into a node peer's memory by CMA may
 *                                      wait, in order, for the next call that
 *                                      is not such a put: a flush, say)
 * MPIX_Win_get_info returns the effective values (and "mpix_paths").
 */
int MPIX_Win_create(void *base, MPI_Aint size, int disp_unit, MPIX_Info *info, MPIX_Comm *xcomm,
                    MPIX_Win **win);
int MPIX_Win_allocate(MPI_Aint size, int disp_unit, MPIX_Info *info, MPIX_Comm *xcomm, void *baseptr,
                      MPIX_Win **win);
int MPIX_Win_create_dynamic(MPIX_Info *info, MPIX_Comm *xcomm, MPIX_Win **win);
int MPIX_Win_attach(MPIX_Win *win, void *base, MPI_Aint size);
int MPIX_Win_detach(MPIX_Win *win, const void *base);
/* Collective for a window from create/allocate/create_dynamic (free its
 * duplicates and memory-handle windows first); local for those. */
int MPIX_Win_free(MPIX_Win **win);
/* A new MPIX_Info the caller frees. */
int MPIX_Win_get_info(const MPIX_Win *win, MPIX_Info **info_used);
/* Local: a second handle to the same window and memory with other info;
 * synchronization through either applies to both. */
int MPIX_Win_dup_with_info(MPIX_Win *parentwin, MPIX_Info *info, MPIX_Win **newwin);

int MPIX_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win *win);
int MPIX_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win *win);
int MPIX_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                    MPIX_Win *win);
/* Request completes on local completion (Rput) or remote completion (Rrput). */
int MPIX_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win *win,
              MPIX_Request **request);
int MPIX_Rrput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win *win,
               MPIX_Request **request);

int MPIX_Win_fence(int assert, MPIX_Win *win);
int MPIX_Win_post(MPI_Group group, int assert, MPIX_Win *win);
int MPIX_Win_start(MPI_Group group, int assert, MPIX_Win *win);
int MPIX_Win_complete(MPIX_Win *win);
int MPIX_Win_wait(MPIX_Win *win);
int MPIX_Win_lock(int lock_type, int rank, int assert, MPIX_Win *win);
int MPIX_Win_unlock(int rank, MPIX_Win *win);
int MPIX_Win_lock_all(int assert, MPIX_Win *win);
int MPIX_Win_unlock_all(MPIX_Win *win);
int MPIX_Win_flush(int rank, MPIX_Win *win);
int MPIX_Win_flush_all(MPIX_Win *win);
int MPIX_Win_flush_local(int rank, MPIX_Win *win);
int MPIX_Win_flush_local_all(MPIX_Win *win);
int MPIX_Win_sync(MPIX_Win *win);

/*
 * Memory handles (quo-vadis §4.2). The owner registers memory with a dynamic
 * parent window and sends the handle (at most MPIX_MAX_MEMHANDLE_SIZE bytes)
 * to peers; a peer turns it into a window whose only target is the owner,
 * without any collective call. Such windows allow put, get, accumulate and
 * flushes; lock and unlock go through the parent. After the owner's
 * MPIX_Memhandle_release, operations through windows made from the handle
 * fail with MPI_ERR_WIN on the owner and on node peers (off-node peers are
 * not told). Memory from MPIX_Alloc_mem gives node peers load/store access;
 * other memory is reached with CMA or MPI RMA.
 */
#define MPIX_MAX_MEMHANDLE_SIZE 128
int MPIX_Alloc_mem(MPI_Aint size, MPIX_Info *info, void *baseptr);
int MPIX_Free_mem(void *base);
int MPIX_Memhandle_create(void *base, MPI_Aint size, MPIX_Info *info, MPIX_Win *parentwin, void *memhandle,
                          int *memhandle_size);
int MPIX_Win_from_memhandle(const void *memhandle, MPI_Aint size, int disp_unit, MPIX_Info *info, int target,
                            MPIX_Win *parentwin, MPIX_Win **newwin);
int MPIX_Memhandle_release(void *memhandle, MPIX_Win *parentwin);

/* Nonblocking synchronization: the request completes with MPIX_Test/Wait
 * and is then freed with MPIX_Request_free (it cannot be restarted).
 * ifence, icomplete and iwait return without waiting for any peer. The
 * passive-target calls complete before they return: on this MPI, passive
 * completion never waits for a peer's participation. */
int MPIX_Win_ifence(int assert, MPIX_Win *win, MPIX_Request **request);
int MPIX_Win_icomplete(MPIX_Win *win, MPIX_Request **request);
int MPIX_Win_iwait(MPIX_Win *win, MPIX_Request **request);
int MPIX_Win_iflush(int rank, MPIX_Win *win, MPIX_Request **request);
int MPIX_Win_iflush_all(MPIX_Win *win, MPIX_Request **request);
int MPIX_Win_iflush_local(int rank, MPIX_Win *win, MPIX_Request **request);
int MPIX_Win_iunlock_all(MPIX_Win *win, MPIX_Request **request);

#ifdef __cplusplus
}
#endif

#endif /* MPIX_MPIX_H */
