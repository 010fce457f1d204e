/**
 * \file mpix.h
 * \brief mpix-rma's public C API: persistent all-to-all exchanges, their
 * algorithms, and the RMA layer under them.
 *
 * Build an exchange once (MPIX_Alltoallv_init, MPIX_Alltoall_init,
 * MPIX_Neighbor_alltoallv_init), then MPIX_Start / MPIX_Wait it every
 * iteration. Every function returns an MPI error code (MPI_SUCCESS on
 * success) and, on failure, invokes the error handler of the communicator
 * involved, exactly as MPI does: with MPI_ERRORS_ARE_FATAL the message is
 * printed and the job aborts; with MPI_ERRORS_RETURN the code is returned and
 * MPIX_Error_string gives the detailed message (argument, value, rank).
 *
 * A collective function is called by every rank of the communicator, in the
 * same order; an argument error on any rank is returned on every rank. A
 * local function involves no other process. Under MPI_THREAD_MULTIPLE,
 * different threads may use different communicators, requests and windows at
 * the same time; one request, or collective calls on one communicator, must
 * not be used from two threads at once, as in MPI.
 */
#ifndef MPIX_MPIX_H
#define MPIX_MPIX_H

#include <mpi.h>

#include "mpix/version.h"

/* Every function below is called by a binary symbol of the library's own,
 * mpixrma_ and the name without MPIX_ (MPIX_Alltoall_init is
 * mpixrma_Alltoall_init): the MPIX_ names are the MPI implementations' own
 * prefix, and Open MPI's libmpi exports MPIX_Alltoall_init and others with
 * other signatures, which a program linked with libmpi first would call.
 * Through this header a program cannot reach those by mistake, in C, in
 * C++ or from a binding (docs/symbols.md). */
#if defined(__GNUC__) || defined(__clang__)
#define MPIX_SYMBOL(name) __asm__("mpixrma_" #name)
#else
#error "mpix.h names the library's symbols with GNU asm labels: compile with GCC, Clang, or a compiler of theirs"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** A communicator of the library: a private duplicate of an MPI
 * communicator, split into nodes (MPIX_Comm_init). */
typedef struct MPIX_Comm MPIX_Comm;
/** Hints, as MPI_Info (MPIX_Info_init). */
typedef struct MPIX_Info MPIX_Info;
/** A persistent exchange or a nonblocking RMA operation (MPIX_Start,
 * MPIX_Wait, MPIX_Request_free). */
typedef struct MPIX_Request MPIX_Request;
/** An RMA window of the library (MPIX_Win_create). */
typedef struct MPIX_Win MPIX_Win;

/** Longest algorithm name MPIX_Request_get_algorithm returns, with its NUL. */
#define MPIX_MAX_OBJECT_NAME 64
/** Longest message MPIX_Error_string returns, with its NUL. */
#define MPIX_MAX_ERROR_STRING 1024
/** Longest line MPIX_Get_library_version returns, with its NUL. */
#define MPIX_MAX_LIBRARY_VERSION_STRING 256

/** \defgroup version Version
 * Which library a program runs with.
 * @{ */

/**
 * \brief The version of the library running.
 *
 * It may be newer than the MPIX_RMA_VERSION_* this program was compiled with.
 * \param[out] major major version
 * \param[out] minor minor version
 * \param[out] patch patch level
 * \return MPI_SUCCESS; MPI_ERR_ARG if a pointer is NULL.
 * \local_before_init
 * \threadsafe_always
 */
int MPIX_Get_version(int *major, int *minor, int *patch) MPIX_SYMBOL(Get_version);

/**
 * \brief A line naming the library's version and the MPI it was built with.
 *
 * As MPI_Get_library_version: `built with MPICH 4.0.2`, say.
 * \param[out] version at least MPIX_MAX_LIBRARY_VERSION_STRING characters
 * \param[out] resultlen the length written, without the NUL
 * \return MPI_SUCCESS; MPI_ERR_ARG if a pointer is NULL.
 * \local_before_init
 * \threadsafe_always
 */
int MPIX_Get_library_version(char version[MPIX_MAX_LIBRARY_VERSION_STRING], int *resultlen) MPIX_SYMBOL(Get_library_version);
/** @} */

/** \defgroup errors Errors
 * The library's error classes and messages.
 * @{ */

/** The library's own error classes, by kind (MPIX_Error_class_of). */
enum MPIX_Error_kind {
    MPIX_ERRKIND_CONFIG = 0,    /**< invalid MPIX_* environment variable */
    MPIX_ERRKIND_ALGORITHM = 1, /**< unknown or unsupported algorithm, MPIX_FALLBACK=error */
    MPIX_ERRKIND_COUNT_ = 2     /**< the number of kinds */
};

/**
 * \brief The MPI error class of one of the library's error kinds.
 *
 * Registered with MPI_Add_error_class on first use: a run-time value, as
 * every class added that way is (so not usable as a `case` label). Test a
 * code with `MPI_Error_class(code, &cls); if (cls == MPIX_ERR_CONFIG) ...`.
 * \param[in] kind an MPIX_Error_kind below MPIX_ERRKIND_COUNT_
 * \return the class; MPI_ERR_OTHER for a kind out of range.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Error_class_of(int kind) MPIX_SYMBOL(Error_class_of);
/** Error class: an invalid MPIX_* environment variable or tuning file. */
#define MPIX_ERR_CONFIG (MPIX_Error_class_of(MPIX_ERRKIND_CONFIG))
/** Error class: an unknown, unsupported or mismatched algorithm. */
#define MPIX_ERR_ALGORITHM (MPIX_Error_class_of(MPIX_ERRKIND_ALGORITHM))

/**
 * \brief The detailed message of an error code.
 *
 * The message of the last error this thread got from the library, if
 * errorcode is that error (it names the function, the argument, its value
 * and the rank); MPI_Error_string's text otherwise.
 * \param[in] errorcode a code a function returned
 * \param[out] string at least MPIX_MAX_ERROR_STRING characters
 * \param[out] resultlen the length written, without the NUL
 * \return MPI_SUCCESS; MPI_ERR_ARG if a pointer is NULL.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Error_string(int errorcode, char *string, int *resultlen) MPIX_SYMBOL(Error_string);
/** @} */

/** \defgroup comm Communicators
 * The library's communicator: a private duplicate split into nodes.
 * @{ */

/**
 * \brief Makes the library's communicator over an MPI communicator.
 *
 * Duplicates comm (a private tag space) and splits it into nodes, and agrees
 * on every MPIX_* variable that ranks must share: ranks launched with
 * different values get MPIX_ERR_CONFIG on every rank, naming the variable.
 * MPIX_NODE_SIZE=k emulates nodes of k consecutive ranks inside each real
 * node. Errors are raised on comm's error handler, so keep comm valid while
 * the MPIX_Comm lives.
 * \param[out] xcomm the new communicator; free it with MPIX_Comm_free
 * \param[in] comm an intracommunicator
 * \return MPI_SUCCESS; MPI_ERR_ARG, MPI_ERR_COMM, MPIX_ERR_CONFIG.
 * \collective{comm}
 * \threadsafe
 */
int MPIX_Comm_init(MPIX_Comm **xcomm, MPI_Comm comm) MPIX_SYMBOL(Comm_init);

/**
 * \brief Frees the library's communicator and everything it holds.
 *
 * Pooled windows and node-channel segments go with it. Requests made on it
 * must be freed first.
 * \param[in,out] xcomm the communicator; set to NULL
 * \return MPI_SUCCESS; MPI_ERR_COMM for a freed or foreign handle.
 * \collective{xcomm}
 * \threadsafe
 */
int MPIX_Comm_free(MPIX_Comm **xcomm) MPIX_SYMBOL(Comm_free);

/**
 * \brief The library's private duplicate of the user's communicator.
 * \param[in] xcomm the communicator
 * \param[out] comm the duplicate; owned by xcomm, do not free it
 * \return MPI_SUCCESS; MPI_ERR_COMM, MPI_ERR_ARG.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Comm_get_comm(const MPIX_Comm *xcomm, MPI_Comm *comm) MPIX_SYMBOL(Comm_get_comm);

/**
 * \brief This rank's place in the node layout.
 * \param[in] xcomm the communicator
 * \param[out] node this rank's node id, 0 .. num_nodes - 1
 * \param[out] node_rank this rank's rank inside its node
 * \param[out] node_size the number of ranks on its node
 * \param[out] num_nodes the number of nodes
 * \return MPI_SUCCESS; MPI_ERR_COMM, MPI_ERR_ARG.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Comm_get_node(const MPIX_Comm *xcomm, int *node, int *node_rank, int *node_size,
                       int *num_nodes) MPIX_SYMBOL(Comm_get_node);
/** @} */

/** \defgroup info Hints
 * Info objects for the library's calls. Keys: "mpix_alltoallv_algorithm",
 * "mpix_alltoall_algorithm", "mpix_neighbor_alltoallv_algorithm" (a registry
 * name, overriding the family's MPIX_*_ALGORITHM), "mpix_expected_iterations"
 * and "mpix_auto_settle" (for auto: N, and the iterations its tournament may
 * take), "mpix_auto_mpi_credit_ns" (for auto: nanoseconds per call that
 * running MPI's own call saves beyond its measured period),
 * "mpix_auto_mpi_period_ns" (for auto: MPI's own call's period with these
 * arguments as the caller timed it: with blocks under 32 KiB judged against,
 * not raced), "mpix_buffers_move"
 * ("true": see MPIX_Start_with_buffers), "mpix_crs_reuse" (see
 * MPIX_Alltoallv_crs), and for windows "mpi_win_scope" and "mpi_win_order"
 * (see \ref windows). Unknown keys are ignored, as MPI does.
 * @{ */

/**
 * \brief Makes an empty info object.
 * \param[out] info the new object; free it with MPIX_Info_free
 * \return MPI_SUCCESS; MPI_ERR_ARG if info is NULL.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Info_init(MPIX_Info **info) MPIX_SYMBOL(Info_init);

/**
 * \brief Sets a key, replacing its value.
 * \param[in] info the object
 * \param[in] key a key of at most MPI_MAX_INFO_KEY characters
 * \param[in] value its value, at most MPI_MAX_INFO_VAL characters
 * \return MPI_SUCCESS; MPI_ERR_INFO for a bad handle, MPI_ERR_INFO_KEY,
 *         MPI_ERR_INFO_VALUE.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Info_set(MPIX_Info *info, const char *key, const char *value) MPIX_SYMBOL(Info_set);

/**
 * \brief Frees an info object.
 * \param[in,out] info the object; set to NULL
 * \return MPI_SUCCESS; MPI_ERR_INFO for a freed or foreign handle.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Info_free(MPIX_Info **info) MPIX_SYMBOL(Info_free);

/**
 * \brief Reads a key, with MPI_Info_get's contract.
 * \param[in] info the object
 * \param[in] key the key
 * \param[in] valuelen the most characters value takes, without the NUL
 * \param[out] value the value, NUL-terminated, if set
 * \param[out] flag 1 if key is set, 0 if not
 * \return MPI_SUCCESS; MPI_ERR_INFO, MPI_ERR_ARG.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Info_get(const MPIX_Info *info, const char *key, int valuelen, char *value, int *flag) MPIX_SYMBOL(Info_get);
/** @} */

/** \defgroup collectives Persistent exchanges
 * Build an exchange once, then MPIX_Start / MPIX_Wait it every iteration.
 * The count and displacement arrays are copied at init; the buffers must
 * stay valid until the request is freed, and are the library's between
 * MPIX_Start and the completing MPIX_Wait or MPIX_Test. Each family's
 * algorithm is chosen by its info key, then its MPIX_*_ALGORITHM variable,
 * by default "auto" (a cost model and a tournament over the application's
 * own iterations).
 * @{ */

/* Every family's MPIX_<Family>_init, MPIX_<Family>_algorithm_count and
 * MPIX_<Family>_algorithm (generated from collectives/families.def; each
 * family's declarations and their documentation are in its folder,
 * collectives/<family>/entry_points.h). */
#include "mpix/families.h"

/**
 * \brief Sparse pattern discovery: who sends to this rank, and how much.
 *
 * Each rank names only the ranks of comm it sends to and how many elements
 * (a destination may repeat, and may be the rank itself); the library finds
 * who sends to each rank with no O(P) collective (NBX: synchronous sends and
 * a nonblocking barrier) and returns the distributed-graph communicator of
 * that exchange, as MPI_Dist_graph_create_adjacent(comm, ..., info, reorder,
 * graph_comm) would with every edge weighted by its count.
 * MPI_Dist_graph_neighbors on it gives the sources in ascending rank order
 * with what each sends as its weight (the receive counts), and the
 * destinations with sendcounts: all that MPIX_Neighbor_alltoallv_init needs.
 * \param[in] comm an intracommunicator
 * \param[in] outdegree the number of destinations
 * \param[in] destinations ranks of comm this rank sends to
 * \param[in] sendcounts elements sent to each destination
 * \param[in] info passed to MPI_Dist_graph_create_adjacent
 * \param[in] reorder passed to MPI_Dist_graph_create_adjacent
 * \param[out] graph_comm the new communicator; free it with MPI_Comm_free
 * \return MPI_SUCCESS; MPI_ERR_COMM, MPI_ERR_ARG, MPI_ERR_RANK, MPI_ERR_COUNT.
 * \collective{comm}
 * \threadsafe
 */
int MPIX_Dist_graph_create_sparse(MPI_Comm comm, int outdegree, const int destinations[],
                                  const int sendcounts[], MPI_Info info, int reorder,
                                  MPI_Comm *graph_comm) MPIX_SYMBOL(Dist_graph_create_sparse);

/**
 * \brief The sparse exchange with data, shaped like MPI Advance's
 * MPIL_Alltoallv_crs.
 *
 * Each rank names only its send_nnz blocks (block i: sendcounts[i] elements
 * of sendtype at sendvals + sdispls[i] * extent, to rank dest[i] of xcomm's
 * communicator; a destination may repeat, may be the rank itself, and may be
 * MPI_PROC_NULL, which receives nothing, as in MPI's sends) and gets
 * every block sent to it: *recv_nnz blocks, block j from rank (*src)[j],
 * (*recvcounts)[j] elements of recvtype at (*recvvals) + (*rdispls)[j] *
 * extent, sources ascending, a source's blocks in its order. One call, no
 * O(P) collective (NBX: the data in synchronous sends, then a nonblocking
 * barrier). A bad argument on any rank fails on every rank before any data
 * moves.
 *
 * Info key "mpix_crs_reuse" = "true", set on every rank (else
 * MPI_ERR_INFO_VALUE on every rank): the pattern repeats. The communicator
 * then keeps what the call discovered, and a later call with the key whose
 * destinations, counts, displacements and types are the same on every rank
 * runs as a persistent neighbourhood exchange over it (no discovery;
 * sendvals may be another buffer); a pattern that changed on any rank is
 * discovered again. What is kept is freed with xcomm.
 * \param[in] send_nnz the number of blocks this rank sends
 * \param[in] dest the destination of each block
 * \param[in] sendcounts elements in each block
 * \param[in] sdispls where each block starts, in extents of sendtype
 * \param[in] sendtype the send datatype
 * \param[in] sendvals the send buffer
 * \param[out] recv_nnz the number of blocks received
 * \param[out] src the source of each block (allocated; MPIX_Free)
 * \param[out] recvcounts elements in each block (allocated; MPIX_Free)
 * \param[out] rdispls where each block starts in *recvvals, in extents of
 *             recvtype (allocated; MPIX_Free)
 * \param[in] recvtype the receive datatype
 * \param[out] recvvals the received blocks (allocated, never NULL; MPIX_Free)
 * \param[in] xcomm the communicator
 * \param[in] info hints, or NULL
 * \return MPI_SUCCESS; MPI_ERR_COMM, MPI_ERR_INFO, MPI_ERR_INFO_VALUE,
 *         MPI_ERR_ARG, MPI_ERR_RANK, MPI_ERR_COUNT, MPI_ERR_BUFFER,
 *         MPI_ERR_TYPE.
 * \collective{xcomm}
 * \threadsafe
 */
int MPIX_Alltoallv_crs(int send_nnz, const int dest[], const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, const void *sendvals, int *recv_nnz, int **src,
                       int **recvcounts, int **rdispls, MPI_Datatype recvtype, void **recvvals,
                       MPIX_Comm *xcomm, MPIX_Info *info) MPIX_SYMBOL(Alltoallv_crs);

/**
 * \brief Frees what the library allocated for the caller (MPIX_Alltoallv_crs's
 * outputs).
 * \param[in] memory what the library returned, or NULL
 * \return MPI_SUCCESS.
 * \local_before_init
 * \threadsafe_always
 */
int MPIX_Free(void *memory) MPIX_SYMBOL(Free);

/**
 * \brief MPI Advance's entry point for the paper's Algorithm 1:
 * MPIX_Alltoallv_init with the algorithm fixed to "fence".
 *
 * An info key naming another algorithm is overridden.
 * \param[in] sendbuf as MPIX_Alltoallv_init
 * \param[in] sendcounts as MPIX_Alltoallv_init
 * \param[in] sdispls as MPIX_Alltoallv_init
 * \param[in] sendtype as MPIX_Alltoallv_init
 * \param[out] recvbuf as MPIX_Alltoallv_init
 * \param[in] recvcounts as MPIX_Alltoallv_init
 * \param[in] rdispls as MPIX_Alltoallv_init
 * \param[in] recvtype as MPIX_Alltoallv_init
 * \param[in] xcomm as MPIX_Alltoallv_init
 * \param[in] info as MPIX_Alltoallv_init
 * \param[out] request as MPIX_Alltoallv_init
 * \return as MPIX_Alltoallv_init.
 * \collective{xcomm}
 * \threadsafe
 */
int alltoallv_rma_winfence_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                                MPIX_Info *info, MPIX_Request **request);

/**
 * \brief MPI Advance's entry point for the paper's Algorithm 3:
 * MPIX_Alltoallv_init with the algorithm fixed to "lock".
 *
 * An info key naming another algorithm is overridden.
 * \param[in] sendbuf as MPIX_Alltoallv_init
 * \param[in] sendcounts as MPIX_Alltoallv_init
 * \param[in] sdispls as MPIX_Alltoallv_init
 * \param[in] sendtype as MPIX_Alltoallv_init
 * \param[out] recvbuf as MPIX_Alltoallv_init
 * \param[in] recvcounts as MPIX_Alltoallv_init
 * \param[in] rdispls as MPIX_Alltoallv_init
 * \param[in] recvtype as MPIX_Alltoallv_init
 * \param[in] xcomm as MPIX_Alltoallv_init
 * \param[in] info as MPIX_Alltoallv_init
 * \param[out] request as MPIX_Alltoallv_init
 * \return as MPIX_Alltoallv_init.
 * \collective{xcomm}
 * \threadsafe
 */
int alltoallv_rma_lock_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                            MPIX_Info *info, MPIX_Request **request);
/** @} */

/** \defgroup listing Algorithms
 * The registered algorithms of each family, in mpix_info's order, and what
 * each is and needs, as MPIX_ALGORITHM_* bits.
 * @{ */

/** The MPI's own call, which auto always measures. */
#define MPIX_ALGORITHM_MPI_BASELINE 0x1
/** MPI's persistent collective: binds the buffers. */
#define MPIX_ALGORITHM_MPI_PERSISTENT 0x2
/** Chooses another algorithm and runs it (auto). */
#define MPIX_ALGORITHM_SELECTS 0x4
/** Moves raw bytes: needs contiguous datatypes. */
#define MPIX_ALGORITHM_CONTIGUOUS_TYPES 0x8
/** Puts every block into a window over recvbuf. */
#define MPIX_ALGORITHM_WINDOW 0x10
/** Puts off-node blocks into a window over recvbuf. */
#define MPIX_ALGORITHM_WINDOW_OFF_NODE 0x20
/** On-node blocks through the node channel. */
#define MPIX_ALGORITHM_NODE_CHANNEL 0x40
/** Off-node blocks travel through node leaders, one message per pair of
 * nodes; auto races it only across nodes. */
#define MPIX_ALGORITHM_NODE_AGGREGATION 0x80
/** Keeps MPI's progress rule for persistent collectives: Start waits for
 * no other rank, and a rank's completion needs only the other ranks'
 * Starts (the drop-in serves MPI's persistent collectives with these). */
#define MPIX_ALGORITHM_MPI_PROGRESS 0x100

/** @} */

/** \defgroup requests Requests
 * The life cycle of a persistent request, with MPI's state rules: starting
 * an active request or freeing an active request is MPI_ERR_REQUEST; waiting
 * on or testing an inactive request returns at once. A NULL request is
 * inactive.
 * @{ */

/**
 * \brief Starts a persistent request.
 * \param[in] request an inactive request
 * \return MPI_SUCCESS; MPI_ERR_REQUEST for an active, freed or foreign request.
 * \local_op
 * \threadsafe
 */
int MPIX_Start(MPIX_Request *request) MPIX_SYMBOL(Start);

/**
 * \brief Starts several persistent requests, in order.
 *
 * Every request, duplicates included, is checked before any starts.
 * \param[in] count the number of requests
 * \param[in] requests the requests
 * \return MPI_SUCCESS; MPI_ERR_COUNT, MPI_ERR_REQUEST.
 * \local_op
 * \threadsafe
 */
int MPIX_Startall(int count, MPIX_Request *requests[]) MPIX_SYMBOL(Startall);

/**
 * \brief MPIX_Start on other buffers, laid out as those given at init.
 *
 * Same counts, displacements and types; sendbuf MPI_IN_PLACE if and only if
 * it was: for buffers that rotate or are reallocated. Only for a request
 * made with the info key "mpix_buffers_move" = "true" (else
 * MPI_ERR_REQUEST), which limits it to algorithms whose data path does not
 * depend on the buffers' addresses (no window over recvbuf, not MPI's
 * persistent call; auto chooses among them).
 * \param[in] request an inactive request made with "mpix_buffers_move"
 * \param[in] sendbuf this iteration's send buffer, or MPI_IN_PLACE
 * \param[out] recvbuf this iteration's receive buffer
 * \return MPI_SUCCESS; MPI_ERR_REQUEST, MPI_ERR_BUFFER.
 * \local_op
 * \threadsafe
 */
int MPIX_Start_with_buffers(MPIX_Request *request, const void *sendbuf, void *recvbuf) MPIX_SYMBOL(Start_with_buffers);

/**
 * \brief Whether a request has completed, advancing it.
 *
 * Polling with MPIX_Test brings the exchange to completion.
 * \param[in] request the request, or NULL
 * \param[out] flag 1 once it completed (it is then inactive), else 0
 * \param[out] status its status, or MPI_STATUS_IGNORE
 * \return MPI_SUCCESS; MPI_ERR_REQUEST, MPI_ERR_ARG, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Test(MPIX_Request *request, int *flag, MPI_Status *status) MPIX_SYMBOL(Test);

/**
 * \brief Waits until a request completes.
 *
 * The receive buffer then holds the data and the send buffer may be reused.
 * \param[in] request the request, or NULL
 * \param[out] status its status, or MPI_STATUS_IGNORE
 * \return MPI_SUCCESS; MPI_ERR_REQUEST, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Wait(MPIX_Request *request, MPI_Status *status) MPIX_SYMBOL(Wait);

/**
 * \brief Waits until every request completes.
 * \param[in] count the number of requests
 * \param[in] requests the requests (NULL entries are inactive)
 * \param[out] statuses count statuses, or MPI_STATUSES_IGNORE
 * \return MPI_SUCCESS; MPI_ERR_COUNT, MPI_ERR_REQUEST, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Waitall(int count, MPIX_Request *requests[], MPI_Status *statuses) MPIX_SYMBOL(Waitall);

/**
 * \brief Frees an inactive request.
 *
 * Freeing a request of an RMA algorithm, or one whose window or node channel
 * returns to its communicator's pool, is collective over its communicator:
 * free it on every rank, in the same order. A nonblocking RMA request is
 * freed locally.
 * \param[in,out] request the request; set to NULL
 * \return MPI_SUCCESS; MPI_ERR_REQUEST for an active, freed or foreign request.
 * \collective{the request's communicator (an exchange)}
 * \threadsafe
 */
int MPIX_Request_free(MPIX_Request **request) MPIX_SYMBOL(Request_free);

/**
 * \brief The registry name of the algorithm that runs this request now.
 *
 * For auto: its current choice, or a tournament's trial.
 * \param[in] request the request
 * \param[out] name at least MPIX_MAX_OBJECT_NAME characters
 * \param[out] resultlen the length written, without the NUL
 * \return MPI_SUCCESS; MPI_ERR_REQUEST, MPI_ERR_ARG.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Request_get_algorithm(const MPIX_Request *request, char name[MPIX_MAX_OBJECT_NAME],
                               int *resultlen) MPIX_SYMBOL(Request_get_algorithm);

/**
 * \brief Whether the request runs its chosen algorithm.
 *
 * At once for a forced algorithm; for auto once its tournament is over (0
 * again while a drifting period re-runs it). The same on every rank at the
 * same Start.
 * \param[in] request the request
 * \param[out] flag 1 if settled, else 0
 * \return MPI_SUCCESS; MPI_ERR_REQUEST, MPI_ERR_ARG.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Request_is_settled(const MPIX_Request *request, int *flag) MPIX_SYMBOL(Request_is_settled);
/** @} */

/** \defgroup windows RMA windows
 * Same semantics as MPI's, over an MPIX_Comm, with two paths: targets on the
 * caller's node are written directly (shared memory for MPIX_Win_allocate
 * memory, Linux CMA single copies for user memory; see MPIX_NODE_PATH),
 * others through MPI RMA. Every operation and synchronization call checks
 * the epoch: misuse is MPI_ERR_RMA_SYNC.
 *
 * Info keys (at creation or MPIX_Win_dup_with_info):
 * - "mpi_win_scope" = "process" | "thread": with "thread", a flush waits only
 *   for the calling thread's operations;
 * - "mpi_win_order" = "false" | "true": with "true", operations from one
 *   origin to one target complete in issue order (in a program below
 *   MPI_THREAD_MULTIPLE, puts into a node peer's memory by CMA may wait, in
 *   order, for the next call that is not such a put: a flush, say). To node
 *   peers reached by CMA, the window's first 128 transfers alternate, 16 at
 *   a time, between CMA and MPI RMA with a flush per operation, and the
 *   faster (by median) takes the rest; MPIX_NODE_PATH=cma keeps CMA.
 *
 * MPIX_Win_get_info returns the effective values (and "mpix_paths"; on an
 * ordered window also "mpix_ordered_path": "measuring", or the choice with
 * each path's time per transfer).
 * @{ */

/**
 * \brief A window over memory the caller owns, as MPI_Win_create.
 * \param[in] base the window's memory (any address)
 * \param[in] size its size in bytes
 * \param[in] disp_unit the displacement unit in bytes
 * \param[in] info hints, or NULL
 * \param[in] xcomm the communicator
 * \param[out] win the new window; free it with MPIX_Win_free
 * \return MPI_SUCCESS; MPI_ERR_COMM, MPI_ERR_INFO, MPI_ERR_SIZE,
 *         MPI_ERR_DISP, MPI_ERR_ARG, MPI_ERR_UNSUPPORTED_OPERATION (Open
 *         MPI, where the kernel refuses CMA between this machine's
 *         processes: its RMA would wait forever), or what MPI returned.
 * \collective{xcomm}
 * \threadsafe
 */
int MPIX_Win_create(void *base, MPI_Aint size, int disp_unit, MPIX_Info *info, MPIX_Comm *xcomm,
                    MPIX_Win **win) MPIX_SYMBOL(Win_create);

/**
 * \brief A window over new memory node peers reach by load/store, as
 * MPI_Win_allocate.
 * \param[in] size its size in bytes
 * \param[in] disp_unit the displacement unit in bytes
 * \param[in] info hints, or NULL
 * \param[in] xcomm the communicator
 * \param[out] baseptr the address of a pointer that receives the memory
 * \param[out] win the new window; free it with MPIX_Win_free
 * \return MPI_SUCCESS; MPI_ERR_COMM, MPI_ERR_INFO, MPI_ERR_SIZE,
 *         MPI_ERR_DISP, MPI_ERR_ARG, MPI_ERR_NO_MEM,
 *         MPI_ERR_UNSUPPORTED_OPERATION (Open MPI, where the kernel refuses
 *         CMA between this machine's processes and they span emulated
 *         nodes), or what MPI returned.
 * \collective{xcomm}
 * \threadsafe
 */
int MPIX_Win_allocate(MPI_Aint size, int disp_unit, MPIX_Info *info, MPIX_Comm *xcomm, void *baseptr,
                      MPIX_Win **win) MPIX_SYMBOL(Win_allocate);

/**
 * \brief A window without memory, as MPI_Win_create_dynamic: attach memory
 * with MPIX_Win_attach.
 * \param[in] info hints, or NULL
 * \param[in] xcomm the communicator
 * \param[out] win the new window; free it with MPIX_Win_free
 * \return MPI_SUCCESS; MPI_ERR_COMM, MPI_ERR_INFO, MPI_ERR_ARG,
 *         MPI_ERR_UNSUPPORTED_OPERATION (as MPIX_Win_create).
 * \collective{xcomm}
 * \threadsafe
 */
int MPIX_Win_create_dynamic(MPIX_Info *info, MPIX_Comm *xcomm, MPIX_Win **win) MPIX_SYMBOL(Win_create_dynamic);

/**
 * \brief Attaches memory to a dynamic window, as MPI_Win_attach.
 * \param[in] win a dynamic window
 * \param[in] base the memory
 * \param[in] size its size in bytes
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_SIZE, MPI_ERR_ARG.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Win_attach(MPIX_Win *win, void *base, MPI_Aint size) MPIX_SYMBOL(Win_attach);

/**
 * \brief Detaches memory from a dynamic window, as MPI_Win_detach.
 * \param[in] win a dynamic window
 * \param[in] base what MPIX_Win_attach was given
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_ARG.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Win_detach(MPIX_Win *win, const void *base) MPIX_SYMBOL(Win_detach);

/**
 * \brief Frees a window.
 *
 * Collective for a window from create, allocate or create_dynamic (free its
 * duplicates and memory-handle windows first); local for those.
 * \param[in,out] win the window; set to NULL
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC inside an epoch.
 * \collective{the window's communicator (created windows)}
 * \threadsafe
 */
int MPIX_Win_free(MPIX_Win **win) MPIX_SYMBOL(Win_free);

/**
 * \brief The window's effective hints.
 * \param[in] win the window
 * \param[out] info_used a new MPIX_Info the caller frees
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_ARG.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Win_get_info(const MPIX_Win *win, MPIX_Info **info_used) MPIX_SYMBOL(Win_get_info);

/**
 * \brief A second handle to the same window and memory with other hints.
 *
 * Synchronization through either applies to both.
 * \param[in] parentwin the window
 * \param[in] info the new handle's hints, or NULL
 * \param[out] newwin the new handle; free it with MPIX_Win_free
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_INFO, MPI_ERR_ARG.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Win_dup_with_info(MPIX_Win *parentwin, MPIX_Info *info, MPIX_Win **newwin) MPIX_SYMBOL(Win_dup_with_info);
/** @} */

/** \defgroup rma RMA operations
 * One-sided operations on an MPIX_Win, as MPI's, inside an epoch.
 * @{ */
/**
 * \brief Puts origin data into the target window, as MPI_Put.
 *
 * \param[in] origin_addr the data
 * \param[in] origin_count elements at the origin
 * \param[in] origin_datatype the origin datatype
 * \param[in] target_rank the target's rank in the window's communicator
 * \param[in] target_disp the target offset, in its displacement units
 * \param[in] target_count elements at the target
 * \param[in] target_datatype the target datatype
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC outside an epoch, MPI_ERR_RANK,
 *         MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_DISP, MPI_ERR_ARG.
 * \local_op
 * \threadsafe
 */
int MPIX_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win *win) MPIX_SYMBOL(Put);

/**
 * \brief Gets target data into the origin buffer, as MPI_Get.
 *
 * \param[out] origin_addr where the data lands
 * \param[in] origin_count elements at the origin
 * \param[in] origin_datatype the origin datatype
 * \param[in] target_rank the target's rank in the window's communicator
 * \param[in] target_disp the target offset, in its displacement units
 * \param[in] target_count elements at the target
 * \param[in] target_datatype the target datatype
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC outside an epoch, MPI_ERR_RANK,
 *         MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_DISP, MPI_ERR_ARG.
 * \local_op
 * \threadsafe
 */
int MPIX_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win *win) MPIX_SYMBOL(Get);

/**
 * \brief Combines origin data into the target window, as MPI_Accumulate.
 *
 * \param[in] origin_addr the data
 * \param[in] origin_count elements at the origin
 * \param[in] origin_datatype the origin datatype
 * \param[in] target_rank the target's rank in the window's communicator
 * \param[in] target_disp the target offset, in its displacement units
 * \param[in] target_count elements at the target
 * \param[in] target_datatype the target datatype
 * \param[in] op a predefined reduction, or MPI_REPLACE
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC outside an epoch, MPI_ERR_RANK,
 *         MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_DISP, MPI_ERR_ARG, MPI_ERR_OP.
 * \local_op
 * \threadsafe
 */
int MPIX_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                    MPIX_Win *win) MPIX_SYMBOL(Accumulate);

/**
 * \brief MPIX_Put with a request that completes on local completion (the origin buffer may be reused).
 *
 * \param[in] origin_addr the data
 * \param[in] origin_count elements at the origin
 * \param[in] origin_datatype the origin datatype
 * \param[in] target_rank the target's rank in the window's communicator
 * \param[in] target_disp the target offset, in its displacement units
 * \param[in] target_count elements at the target
 * \param[in] target_datatype the target datatype
 * \param[in] win the window
 * \param[out] request the new request: MPIX_Wait or MPIX_Test, then MPIX_Request_free
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC outside an epoch, MPI_ERR_RANK,
 *         MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_DISP, MPI_ERR_ARG.
 * \local_op
 * \threadsafe
 */
int MPIX_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win *win,
              MPIX_Request **request) MPIX_SYMBOL(Rput);

/**
 * \brief MPIX_Put with a request that completes on remote completion (the data is at the target).
 *
 * \param[in] origin_addr the data
 * \param[in] origin_count elements at the origin
 * \param[in] origin_datatype the origin datatype
 * \param[in] target_rank the target's rank in the window's communicator
 * \param[in] target_disp the target offset, in its displacement units
 * \param[in] target_count elements at the target
 * \param[in] target_datatype the target datatype
 * \param[in] win the window
 * \param[out] request the new request: MPIX_Wait or MPIX_Test, then MPIX_Request_free
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC outside an epoch, MPI_ERR_RANK,
 *         MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_DISP, MPI_ERR_ARG.
 * \local_op
 * \threadsafe
 */
int MPIX_Rrput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win *win,
               MPIX_Request **request) MPIX_SYMBOL(Rrput);
/** @} */

/** \defgroup sync RMA synchronization
 * Epochs on an MPIX_Win, as MPI's: misuse (an operation outside an epoch,
 * an unlock without a lock) is MPI_ERR_RMA_SYNC.
 * @{ */
/**
 * \brief Ends one active-target epoch and opens the next, as MPI_Win_fence.
 * \param[in] assert MPI_MODE_* assertions, or 0
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \collective{the window's communicator}
 * \threadsafe
 */
int MPIX_Win_fence(int assert, MPIX_Win *win) MPIX_SYMBOL(Win_fence);

/**
 * \brief Exposes the window to a group of origins, as MPI_Win_post.
 * \param[in] group the origins
 * \param[in] assert MPI_MODE_* assertions, or 0
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \collective{the group and its origins}
 * \threadsafe
 */
int MPIX_Win_post(MPI_Group group, int assert, MPIX_Win *win) MPIX_SYMBOL(Win_post);

/**
 * \brief Opens an access epoch to a group of targets, as MPI_Win_start.
 * \param[in] group the targets
 * \param[in] assert MPI_MODE_* assertions, or 0
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \collective{the group and its targets}
 * \threadsafe
 */
int MPIX_Win_start(MPI_Group group, int assert, MPIX_Win *win) MPIX_SYMBOL(Win_start);

/**
 * \brief Ends the access epoch MPIX_Win_start opened, as MPI_Win_complete.
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \collective{the group and its targets}
 * \threadsafe
 */
int MPIX_Win_complete(MPIX_Win *win) MPIX_SYMBOL(Win_complete);

/**
 * \brief Ends the exposure epoch MPIX_Win_post opened, as MPI_Win_wait.
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \collective{the group and its origins}
 * \threadsafe
 */
int MPIX_Win_wait(MPIX_Win *win) MPIX_SYMBOL(Win_wait);

/**
 * \brief Opens a passive-target epoch at one target, as MPI_Win_lock.
 * \param[in] lock_type MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE
 * \param[in] rank the target's rank
 * \param[in] assert MPI_MODE_* assertions, or 0
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_lock(int lock_type, int rank, int assert, MPIX_Win *win) MPIX_SYMBOL(Win_lock);

/**
 * \brief Completes every operation to a target and ends its epoch, as MPI_Win_unlock.
 * \param[in] rank the target's rank
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_unlock(int rank, MPIX_Win *win) MPIX_SYMBOL(Win_unlock);

/**
 * \brief Opens a shared passive-target epoch at every target, as MPI_Win_lock_all.
 * \param[in] assert MPI_MODE_* assertions, or 0
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_lock_all(int assert, MPIX_Win *win) MPIX_SYMBOL(Win_lock_all);

/**
 * \brief Completes every operation and ends the epoch MPIX_Win_lock_all opened.
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_unlock_all(MPIX_Win *win) MPIX_SYMBOL(Win_unlock_all);

/**
 * \brief Completes this process's operations to one target at the target, as MPI_Win_flush (with mpi_win_scope=thread: the calling thread's).
 * \param[in] rank the target's rank
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_flush(int rank, MPIX_Win *win) MPIX_SYMBOL(Win_flush);

/**
 * \brief MPIX_Win_flush to every target.
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_flush_all(MPIX_Win *win) MPIX_SYMBOL(Win_flush_all);

/**
 * \brief Completes the operations to one target at the origin: their buffers may be reused.
 * \param[in] rank the target's rank
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_flush_local(int rank, MPIX_Win *win) MPIX_SYMBOL(Win_flush_local);

/**
 * \brief MPIX_Win_flush_local to every target.
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_flush_local_all(MPIX_Win *win) MPIX_SYMBOL(Win_flush_local_all);

/**
 * \brief Synchronizes the window's public and private copies, as MPI_Win_sync.
 * \param[in] win the window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_sync(MPIX_Win *win) MPIX_SYMBOL(Win_sync);

/** @} */

/** \defgroup memhandles Memory handles
 * The owner registers memory with a dynamic parent window and sends the
 * handle (at most MPIX_MAX_MEMHANDLE_SIZE bytes) to peers; a peer turns it
 * into a window whose only target is the owner, without any collective call.
 * Such windows allow put, get, accumulate and flushes; lock and unlock go
 * through the parent. After the owner's MPIX_Memhandle_release, operations
 * through windows made from the handle fail with MPI_ERR_WIN on the owner and
 * on node peers (off-node peers are not told). Memory from MPIX_Alloc_mem
 * gives node peers load/store access; other memory is reached with CMA or MPI
 * RMA. Every field of a handle is checked and the handle is sealed: a
 * corrupted one is MPI_ERR_ARG naming the field.
 * @{ */

/** The most bytes a memory handle takes. */
#define MPIX_MAX_MEMHANDLE_SIZE 128
/**
 * \brief Memory node peers can map, as MPI_Alloc_mem: large blocks sent from it are copied once, by their receiver.
 * \param[in] size bytes
 * \param[in] info hints, or NULL
 * \param[out] baseptr the address of a pointer that receives the memory
 * \return MPI_SUCCESS; MPI_ERR_SIZE, MPI_ERR_ARG, MPI_ERR_NO_MEM, or what MPI returned.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Alloc_mem(MPI_Aint size, MPIX_Info *info, void *baseptr) MPIX_SYMBOL(Alloc_mem);

/**
 * \brief Frees memory from MPIX_Alloc_mem.
 * \param[in] base what MPIX_Alloc_mem returned
 * \return MPI_SUCCESS; MPI_ERR_BASE, or what MPI returned.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Free_mem(void *base) MPIX_SYMBOL(Free_mem);

/**
 * \brief Registers memory with a dynamic window and writes its handle.
 * \param[in] base the memory
 * \param[in] size its size in bytes
 * \param[in] info hints, or NULL (none are read yet)
 * \param[in] parentwin a dynamic window
 * \param[out] memhandle at least MPIX_MAX_MEMHANDLE_SIZE bytes
 * \param[out] memhandle_size the bytes written
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_SIZE, MPI_ERR_ARG, or what MPI returned.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Memhandle_create(void *base, MPI_Aint size, MPIX_Info *info, MPIX_Win *parentwin, void *memhandle,
                          int *memhandle_size) MPIX_SYMBOL(Memhandle_create);

/**
 * \brief A window whose only target is the handle's owner.
 * \param[in] memhandle a handle from the owner
 * \param[in] size bytes the window covers, at most the handle's
 * \param[in] disp_unit the displacement unit in bytes
 * \param[in] info hints, or NULL
 * \param[in] target the owner's rank in parentwin's communicator
 * \param[in] parentwin the dynamic window the handle was made with
 * \param[out] newwin the new window; free it with MPIX_Win_free (local)
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_ARG for a corrupted or foreign handle (naming the field), MPI_ERR_RANK, MPI_ERR_SIZE, or what MPI returned.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Win_from_memhandle(const void *memhandle, MPI_Aint size, int disp_unit, MPIX_Info *info, int target,
                            MPIX_Win *parentwin, MPIX_Win **newwin) MPIX_SYMBOL(Win_from_memhandle);

/**
 * \brief Withdraws a handle: windows made from it fail from now on.
 * \param[in] memhandle a handle this process created
 * \param[in] parentwin its dynamic window
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_ARG, or what MPI returned.
 * \local_after_init
 * \threadsafe
 */
int MPIX_Memhandle_release(void *memhandle, MPIX_Win *parentwin) MPIX_SYMBOL(Memhandle_release);

/** @} */

/** \defgroup nonblocking Nonblocking synchronization
 * The request completes with MPIX_Test or MPIX_Wait and is then freed with
 * MPIX_Request_free (it cannot be restarted). ifence, icomplete and iwait
 * return without waiting for any peer. The passive-target calls complete
 * before they return: on this MPI, passive completion never waits for a
 * peer's participation.
 * @{ */
/**
 * \brief MPIX_Win_fence, completed by a request.
 * \param[in] assert MPI_MODE_* assertions, or 0
 * \param[in] win the window
 * \param[out] request the new request: MPIX_Wait or MPIX_Test, then MPIX_Request_free
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \collective{the window's communicator}
 * \threadsafe
 */
int MPIX_Win_ifence(int assert, MPIX_Win *win, MPIX_Request **request) MPIX_SYMBOL(Win_ifence);

/**
 * \brief MPIX_Win_complete, completed by a request.
 * \param[in] win the window
 * \param[out] request the new request: MPIX_Wait or MPIX_Test, then MPIX_Request_free
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \collective{the group and its targets}
 * \threadsafe
 */
int MPIX_Win_icomplete(MPIX_Win *win, MPIX_Request **request) MPIX_SYMBOL(Win_icomplete);

/**
 * \brief MPIX_Win_wait, completed by a request.
 * \param[in] win the window
 * \param[out] request the new request: MPIX_Wait or MPIX_Test, then MPIX_Request_free
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \collective{the group and its origins}
 * \threadsafe
 */
int MPIX_Win_iwait(MPIX_Win *win, MPIX_Request **request) MPIX_SYMBOL(Win_iwait);

/**
 * \brief MPIX_Win_flush, completed by a request.
 * \param[in] rank the target's rank
 * \param[in] win the window
 * \param[out] request the new request: MPIX_Wait or MPIX_Test, then MPIX_Request_free
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_iflush(int rank, MPIX_Win *win, MPIX_Request **request) MPIX_SYMBOL(Win_iflush);

/**
 * \brief MPIX_Win_flush_all, completed by a request.
 * \param[in] win the window
 * \param[out] request the new request: MPIX_Wait or MPIX_Test, then MPIX_Request_free
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_iflush_all(MPIX_Win *win, MPIX_Request **request) MPIX_SYMBOL(Win_iflush_all);

/**
 * \brief MPIX_Win_flush_local, completed by a request.
 * \param[in] rank the target's rank
 * \param[in] win the window
 * \param[out] request the new request: MPIX_Wait or MPIX_Test, then MPIX_Request_free
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_iflush_local(int rank, MPIX_Win *win, MPIX_Request **request) MPIX_SYMBOL(Win_iflush_local);

/**
 * \brief MPIX_Win_unlock_all, completed by a request.
 * \param[in] win the window
 * \param[out] request the new request: MPIX_Wait or MPIX_Test, then MPIX_Request_free
 * \return MPI_SUCCESS; MPI_ERR_WIN, MPI_ERR_RMA_SYNC, or what MPI returned.
 * \local_op
 * \threadsafe
 */
int MPIX_Win_iunlock_all(MPIX_Win *win, MPIX_Request **request) MPIX_SYMBOL(Win_iunlock_all);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* MPIX_MPIX_H */
