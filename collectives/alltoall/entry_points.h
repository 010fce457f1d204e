/* The Alltoall family's C functions. mpix.h declares them by including this
 * file (as mpix/families/alltoall.h, through the generated mpix/families.h:
 * one include per row of collectives/families.def) after its handle
 * types; capi/api.cpp defines them over the family's row, whose parameter
 * list is the init's. */

/**
 * \ingroup collectives
 * \brief Persistent MPI_Alltoall, shaped like MPI-4's MPI_Alltoall_init.
 *
 * Every block is sendcount elements of sendtype to each rank and recvcount
 * of recvtype from each, block r at offset r * count * extent. sendbuf may
 * be MPI_IN_PLACE (then sendcount and sendtype are ignored and the blocks are
 * taken from recvbuf, as MPI defines it). An argument error on any rank, or
 * a block size that differs between ranks, is reported on every rank; the
 * check is one MPI_Allreduce, never O(P) data. Info keys:
 * "mpix_alltoall_algorithm" (MPIX_Alltoall_algorithm lists the names),
 * overriding MPIX_ALLTOALL_ALGORITHM, default "auto"; the others as for
 * MPIX_Alltoallv_init.
 * \param[in] sendbuf the send buffer, or MPI_IN_PLACE
 * \param[in] sendcount elements sent to each rank
 * \param[in] sendtype the send datatype
 * \param[out] recvbuf the receive buffer
 * \param[in] recvcount elements received from each rank
 * \param[in] recvtype the receive datatype
 * \param[in] xcomm the communicator
 * \param[in] info hints, or NULL
 * \param[out] request the new inactive request; free it with MPIX_Request_free
 * \return MPI_SUCCESS; MPI_ERR_COMM, MPI_ERR_INFO, MPI_ERR_ARG, MPI_ERR_COUNT,
 *         MPI_ERR_BUFFER, MPI_ERR_TYPE, MPI_ERR_TRUNCATE, MPIX_ERR_ALGORITHM,
 *         MPIX_ERR_CONFIG, or what MPI returned while setting it up.
 * \collective{xcomm}
 * \threadsafe
 */
int MPIX_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPIX_Comm *xcomm, MPIX_Info *info,
                       MPIX_Request **request) MPIX_SYMBOL(Alltoall_init);

/**
 * \ingroup listing
 * \brief How many Alltoall algorithms are registered.
 * \param[out] count the number of names MPIX_ALLTOALL_ALGORITHM and
 *             "mpix_alltoall_algorithm" take
 * \return MPI_SUCCESS; MPI_ERR_ARG if count is NULL.
 * \local_before_init
 * \threadsafe_always
 */
int MPIX_Alltoall_algorithm_count(int *count) MPIX_SYMBOL(Alltoall_algorithm_count);

/**
 * \ingroup listing
 * \brief One registered Alltoall algorithm.
 * \param[in] index 0 .. MPIX_Alltoall_algorithm_count - 1
 * \param[out] name its registry name (a static string)
 * \param[out] description one line (a static string)
 * \param[out] capabilities MPIX_ALGORITHM_* bits
 * \return MPI_SUCCESS; MPI_ERR_ARG for an index out of range or a NULL pointer.
 * \local_before_init
 * \threadsafe_always
 */
int MPIX_Alltoall_algorithm(int index, const char **name, const char **description, int *capabilities) MPIX_SYMBOL(Alltoall_algorithm);
