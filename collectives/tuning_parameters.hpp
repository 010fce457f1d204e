// The parameters the selector uses in this process: the built-in ones with
// MPIX_TUNING_FILE laid over them, read once and freed with the library at
// MPI_Finalize.
#pragma once

#include <cstdint>

#include "selector/cost_model.hpp"

namespace mpix {

// Throws Error(MPIX_ERR_CONFIG) naming the file, line and key when the file
// is bad (every later call throws the same).
const TuningParameters& tuning_parameters();
// Equal on two ranks only if their parameters are.
std::uint64_t tuning_parameters_fingerprint();

}  // namespace mpix
