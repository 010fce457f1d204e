// MPIX_Alltoallv_init behind the C API: check the arguments, choose the
// algorithm, build it; every step agreed on all ranks.
#pragma once

#include <memory>

#include "collectives/alltoallv_args.hpp"
#include "src/info.hpp"
#include "src/request.hpp"

namespace mpix {

inline constexpr const char* info_key_alltoallv_algorithm = "mpix_alltoallv_algorithm";
inline constexpr const char* default_alltoallv_algorithm = "auto";
inline constexpr const char* info_key_expected_iterations = "mpix_expected_iterations";
// Iterations auto's tournament may take (MPIX_AUTO_SETTLE for this request).
inline constexpr const char* info_key_auto_settle = "mpix_auto_settle";
// Nanoseconds per call that running MPI's own call saves beyond its
// measured period (the drop-in's per-call agreement, which a pattern back
// on MPI's call no longer pays): auto's tournament credits them to it.
inline constexpr const char* info_key_auto_mpi_credit = "mpix_auto_mpi_credit_ns";
// "true": MPIX_Start_with_buffers may point the request at other buffers.
inline constexpr const char* info_key_buffers_move = "mpix_buffers_move";

// Algorithms find the communicator's windows and node channels kept for
// reuse as its components (Comm::component).
std::unique_ptr<Request> alltoallv_init(const AlltoallvUserArgs& user, std::shared_ptr<const Comm> comm,
                                        const Info* info);

}  // namespace mpix
