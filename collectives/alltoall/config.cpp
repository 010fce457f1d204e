#include "collectives/alltoall/config.hpp"

namespace mpix {

const std::vector<VariableSpec>& alltoall_variables() {
  static const std::vector<VariableSpec> rows = {
    {"MPIX_ALLTOALL_ALGORITHM", "string", "", "a registry name (see mpix_info)",
     "Forces the algorithm of every MPIX_Alltoall_init request, unless the request's info sets "
     "mpix_alltoall_algorithm. Empty or auto: a tournament among the algorithms that can run, MPI's own "
     "call first (the default). An unknown or unsupported name follows MPIX_FALLBACK.",
     [](std::string_view v, Config& c) { c.section<AlltoallConfig>().algorithm = std::string(v); }},
  };
  return rows;
}

}  // namespace mpix
