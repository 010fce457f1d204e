#include "collectives/neighbor_alltoallv/config.hpp"

#include <climits>

#include "collectives/excluded_algorithms.hpp"
#include "collectives/forced_algorithm.hpp"

namespace mpix {

const std::vector<VariableSpec>& neighbor_alltoallv_variables() {
  static const std::vector<VariableSpec> rows = {
    forced_algorithm_variable<NeighborConfig>(
        "MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM",
        "Forces the algorithm of every MPIX_Neighbor_alltoallv_init request, unless the request's info sets "
        "mpix_neighbor_alltoallv_algorithm. Empty or auto: a tournament among the algorithms that can run, "
        "MPI's own call first, or a node-channel algorithm where ranks outnumber cores (the default). An "
        "unknown or unsupported name follows MPIX_FALLBACK."),
    excluded_algorithms_variable<NeighborConfig>(
        "MPIX_NEIGHBOR_ALLTOALLV_EXCLUDE",
        "Algorithms auto never races, e.g. channel; MPI's own call too (auto then starts from the first other "
        "candidate). An unknown name makes MPIX_Neighbor_alltoallv_init fail with MPIX_ERR_CONFIG on every rank. "
        "A forced algorithm is not affected."),
    {"MPIX_NEIGHBOR_PACK_BYTES", "int", "4096", "0 or a positive integer",
     "channel algorithm: where a pair of ranks on one node has several non-empty edges one way (duplicate edges) "
     "that carry at most this many bytes in all, they are packed into one message (a copy in at the sender, a "
     "copy out at the receiver) instead of one ring handshake per edge. 0: never. Must be the same on every rank.",
     [](std::string_view v, Config& c) {
       c.section<NeighborConfig>().pack_bytes = static_cast<std::size_t>(parse_int(v, 0, INT_MAX));
     }},
  };
  return rows;
}

}  // namespace mpix
