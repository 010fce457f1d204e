#include "collectives/neighbor_alltoallv_config.hpp"

namespace mpix {

const std::vector<VariableSpec>& neighbor_alltoallv_variables() {
  static const std::vector<VariableSpec> rows = {
    {"MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM", "string", "", "a registry name (see mpix_info)",
     "Forces the algorithm of every MPIX_Neighbor_alltoallv_init request, unless the request's info sets "
     "mpix_neighbor_alltoallv_algorithm. Empty or auto: a tournament among the algorithms that can run, "
     "MPI's own call first (the default). An unknown or unsupported name follows MPIX_FALLBACK.",
     [](std::string_view v, Config& c) { c.section<NeighborAlltoallvConfig>().algorithm = std::string(v); }},
  };
  return rows;
}

}  // namespace mpix
