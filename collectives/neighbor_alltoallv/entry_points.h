/* The Neighbor_alltoallv family's C functions. mpix.h declares them by including this
 * file (as mpix/families/neighbor_alltoallv.h, through the generated mpix/families.h:
 * one include per row of collectives/families.def) after its handle
 * types; capi/api.cpp defines them over the family's row, whose parameter
 * list is the init's. */

/**
 * \ingroup collectives
 * \brief Persistent neighbourhood Alltoallv, shaped like MPI-4's
 * MPI_Neighbor_alltoallv_init.
 *
 * xcomm must come from MPIX_Comm_init on a distributed-graph communicator
 * (MPI_Dist_graph_create[_adjacent], MPIX_Dist_graph_create_sparse); any
 * other is MPI_ERR_TOPOLOGY on every rank. Counts and displacements are per
 * edge, in the order MPI_Dist_graph_neighbors returns them: sources for the
 * receive side, destinations for the send side. Duplicate edges and
 * self-loops are legal. MPI_IN_PLACE is not (MPI does not allow it here).
 * Arguments, memory and set-up are O(degree), never O(P). An argument error
 * on any rank, or counts that do not match across an edge, is reported on
 * every rank. Info keys: "mpix_neighbor_alltoallv_algorithm" (listed by
 * MPIX_Neighbor_alltoallv_algorithm), overriding
 * MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM, default "auto"; "mpix_auto_settle" and
 * "mpix_buffers_move", as for MPIX_Alltoallv_init.
 * \param[in] sendbuf the send buffer
 * \param[in] sendcounts elements sent along each out-edge
 * \param[in] sdispls where each send block starts, in extents of sendtype
 * \param[in] sendtype the send datatype
 * \param[out] recvbuf the receive buffer
 * \param[in] recvcounts elements received along each in-edge
 * \param[in] rdispls where each receive block starts, in extents of recvtype
 * \param[in] recvtype the receive datatype
 * \param[in] xcomm the communicator, over a distributed graph
 * \param[in] info hints, or NULL
 * \param[out] request the new inactive request; free it with MPIX_Request_free
 * \return MPI_SUCCESS; MPI_ERR_TOPOLOGY, MPI_ERR_COMM, MPI_ERR_INFO,
 *         MPI_ERR_ARG, MPI_ERR_COUNT, MPI_ERR_BUFFER, MPI_ERR_TYPE,
 *         MPI_ERR_TRUNCATE, MPIX_ERR_ALGORITHM, MPIX_ERR_CONFIG.
 * \collective{xcomm}
 * \threadsafe
 */
int MPIX_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                                 MPIX_Info *info, MPIX_Request **request) MPIX_SYMBOL(Neighbor_alltoallv_init);

/**
 * \ingroup listing
 * \brief How many neighbourhood Alltoallv algorithms are registered.
 * \param[out] count the number of names MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM
 *             and "mpix_neighbor_alltoallv_algorithm" take
 * \return MPI_SUCCESS; MPI_ERR_ARG if count is NULL.
 * \local_before_init
 * \threadsafe_always
 */
int MPIX_Neighbor_alltoallv_algorithm_count(int *count) MPIX_SYMBOL(Neighbor_alltoallv_algorithm_count);

/**
 * \ingroup listing
 * \brief One registered neighbourhood Alltoallv algorithm.
 * \param[in] index 0 .. MPIX_Neighbor_alltoallv_algorithm_count - 1
 * \param[out] name its registry name (a static string)
 * \param[out] description one line (a static string)
 * \param[out] capabilities MPIX_ALGORITHM_* bits
 * \return MPI_SUCCESS; MPI_ERR_ARG for an index out of range or a NULL pointer.
 * \local_before_init
 * \threadsafe_always
 */
int MPIX_Neighbor_alltoallv_algorithm(int index, const char **name, const char **description,
                                      int *capabilities) MPIX_SYMBOL(Neighbor_alltoallv_algorithm);
