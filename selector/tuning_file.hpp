// The tuning file: the cost-model parameters as versioned JSON with named
// keys, written by mpix_tune and read through MPIX_TUNING_FILE on top of the
// built-in defaults (keys a file leaves out keep the defaults' values).
//
//   { "format": "mpix-rma-tuning", "version": 1, "source": "...", "mpi": "MPICH 4.0.2",
//     "calibration_ranks": 2,
//     "algorithms": { "pscw": {
//         "one_node":   { "sync_us": 0.05, "init_us": 60, "reinit_us": 7 },
//         "multi_node": { "sync_us": 0.05, "init_us": 80, "reinit_us": 60 },
//         "node_us": [[8, 0.4], [4096, 0.5], ...],
//         "node_user_us": [...], "net_us": [...],
//         "self_us": [...], "self_user_us": [...], "multi_node_self_us": [...] }, ... } }
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "selector/cost_model.hpp"

namespace mpix {

inline constexpr const char* tuning_format = "mpix-rma-tuning";
inline constexpr int tuning_version = 1;

// What is wrong and where: "<origin>: line L: key 'algorithms.pscw.sync_us': ...".
class TuningFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr long max_tuning_file_bytes = 16L << 20;

// text as read from origin (a path, or "built-in defaults"), laid over base.
// Every number is range-checked; known_algorithms, if given, are the only
// algorithm names accepted.
TuningParameters parse_tuning(const std::string& text, const std::string& origin, const TuningParameters& base,
                              const std::vector<std::string>* known_algorithms = nullptr);
TuningParameters read_tuning_file(const std::string& path, const TuningParameters& base,
                                  const std::vector<std::string>* known_algorithms = nullptr);
std::string tuning_to_json(const TuningParameters& parameters);

// The parameters compiled into the library (selector/tuning_defaults_<mpi>.json, the MPI built with).
TuningParameters builtin_tuning();

// Equal on two ranks only if their parameters are: the selection agrees on it.
std::uint64_t tuning_fingerprint(const TuningParameters& parameters);

}  // namespace mpix
