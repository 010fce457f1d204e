#include "collectives/alltoallv/config.hpp"

#include "collectives/excluded_algorithms.hpp"
#include "collectives/alltoallv/tuning_parameters.hpp"
#include "collectives/forced_algorithm.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

AlltoallvConfig& of(Config& c) { return c.section<AlltoallvConfig>(); }

}  // namespace

const std::vector<VariableSpec>& alltoallv_variables() {
  static const std::vector<VariableSpec> rows = {
    forced_algorithm_variable<AlltoallvConfig>(
        "MPIX_ALLTOALLV_ALGORITHM",
        "Forces the Alltoallv algorithm of every request, unless the request's info sets "
        "mpix_alltoallv_algorithm. Empty or auto: the selector chooses per request (the default). "
        "A forced name runs even if MPIX_ALLTOALLV_EXCLUDE lists it. An unknown or unsupported name "
        "follows MPIX_FALLBACK."),
    excluded_algorithms_variable<AlltoallvConfig>(
        "MPIX_ALLTOALLV_EXCLUDE",
        "Algorithms the selector (auto) never chooses, e.g. fence,lock. An unknown name makes "
        "MPIX_Alltoallv_init fail with MPIX_ERR_CONFIG on every rank. A forced algorithm is not affected."),
    {"MPIX_TUNING_FILE", "path", "", "a JSON file written by mpix_tune",
     "Cost-model parameters for the selector, laid over the built-in ones (measured with mpix_tune "
     "on the development machines: 2 ranks, one node and emulated off-node). A file that cannot be "
     "read or parsed makes MPIX_Alltoallv_init fail with MPIX_ERR_CONFIG, naming the file, line and key. "
     "The path may differ between ranks; the parameters read must not (MPIX_Comm_init agrees on them).",
     [](std::string_view v, Config& c) { of(c).tuning_file = std::string(v); }, Scope::per_rank,
     // The parameters read, or the error reading them gave, which auto
     // reports later on every rank alike. Without a file they are the
     // built-in ones, the same on every rank: not parsed for this (a
     // communicator whose requests never select pays no parse).
     [](const Config& c) -> std::string {
       if (c.section<AlltoallvConfig>().tuning_file.empty()) return "built-in parameters";
       try {
         return "parameters " + std::to_string(tuning_parameters_fingerprint(c));
       } catch (const Error& e) {
         return e.what();
       }
     }},
  };
  return rows;
}

}  // namespace mpix
