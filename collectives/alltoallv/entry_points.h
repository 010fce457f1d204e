/* The Alltoallv family's C functions. mpix.h declares them by including this
 * file (as mpix/families/alltoallv.h, through the generated mpix/families.h:
 * one include per row of collectives/families.def) after its handle
 * types; capi/api.cpp defines them over the family's row, whose parameter
 * list is the init's. */

/**
 * \ingroup collectives
 * \brief Persistent MPI_Alltoallv: the same arguments as MPI_Alltoallv_init.
 *
 * Block r of sendbuf (sendcounts[r] elements of sendtype at sdispls[r]
 * extents) goes to rank r; block r of recvbuf comes from it. sendbuf may be
 * MPI_IN_PLACE on every rank (then the blocks are taken from recvbuf). The
 * arguments are checked on every rank and agreed: a negative count, a NULL
 * buffer with data, an uncommitted or freed datatype, a source sending more
 * or less than its target expects, MPI_IN_PLACE on some ranks only, ranks
 * asking for different algorithms, all return the same error on every rank
 * before any algorithm hands anything to MPI, and leave the communicator
 * usable. Info keys: "mpix_alltoallv_algorithm", "mpix_expected_iterations",
 * "mpix_auto_settle", "mpix_auto_mpi_credit_ns", "mpix_auto_mpi_period_ns",
 * "mpix_buffers_move".
 * \param[in] sendbuf the send buffer, or MPI_IN_PLACE
 * \param[in] sendcounts elements sent to each rank (comm size entries)
 * \param[in] sdispls where each send block starts, in extents of sendtype
 * \param[in] sendtype the send datatype
 * \param[out] recvbuf the receive buffer
 * \param[in] recvcounts elements received from each rank
 * \param[in] rdispls where each receive block starts, in extents of recvtype
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
int MPIX_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPIX_Comm *xcomm,
                        MPIX_Info *info, MPIX_Request **request) MPIX_SYMBOL(Alltoallv_init);

/**
 * \ingroup listing
 * \brief How many Alltoallv algorithms are registered.
 * \param[out] count the number of names MPIX_ALLTOALLV_ALGORITHM and
 *             "mpix_alltoallv_algorithm" take
 * \return MPI_SUCCESS; MPI_ERR_ARG if count is NULL.
 * \local_before_init
 * \threadsafe_always
 */
int MPIX_Alltoallv_algorithm_count(int *count) MPIX_SYMBOL(Alltoallv_algorithm_count);

/**
 * \ingroup listing
 * \brief One registered Alltoallv algorithm: its name, what it is, what it
 * needs.
 * \param[in] index 0 .. MPIX_Alltoallv_algorithm_count - 1
 * \param[out] name its registry name (a static string)
 * \param[out] description one line (a static string)
 * \param[out] capabilities MPIX_ALGORITHM_* bits
 * \return MPI_SUCCESS; MPI_ERR_ARG for an index out of range or a NULL pointer.
 * \local_before_init
 * \threadsafe_always
 */
int MPIX_Alltoallv_algorithm(int index, const char **name, const char **description, int *capabilities) MPIX_SYMBOL(Alltoallv_algorithm);
