// The parameters the selector uses under a configuration: the built-in ones
// with its MPIX_TUNING_FILE laid over them, read once per file and freed
// with the library at MPI_Finalize. The configuration is the communicator's
// (Comm::config()), the one source of truth auto reports and agrees on.
#pragma once

#include <cstdint>

#include "selector/cost_model.hpp"
#include "src/config.hpp"

namespace mpix {

// Throws Error(MPIX_ERR_CONFIG) naming the file, line and key when the file
// is bad (every later call throws the same).
const TuningParameters& tuning_parameters(const Config& config);
// Equal on two ranks only if their parameters are.
std::uint64_t tuning_parameters_fingerprint(const Config& config);

}  // namespace mpix
