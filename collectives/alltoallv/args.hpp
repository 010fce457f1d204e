// The Alltoallv family's arguments: the user's arrays checked, copied into
// AlltoallvArgs (collectives/blocks/args.hpp) and agreed over the ranks.
#pragma once

#include <memory>

#include "collectives/blocks/args.hpp"
#include "collectives/vector_user_args.hpp"
#include "collectives/family.hpp"
#include "src/comm.hpp"

namespace mpix {

// Collective, one MPI_Alltoall: checks the arguments on every rank, what each
// source sends against what its target expects, and that every rank asks
// for the same algorithm (a hint set on some ranks only would run different
// algorithms against each other); any violation becomes the same Error on
// every rank. Also agrees whether the algorithm can run on every rank.
AlltoallvArgs make_alltoallv_args(const VectorUserArgs& user, std::shared_ptr<const Comm> comm,
                                  const Requested<AlltoallvAlgorithm>& algorithm);

}  // namespace mpix
