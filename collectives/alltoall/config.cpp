#include "collectives/alltoall/config.hpp"

#include "collectives/excluded_algorithms.hpp"
#include "collectives/forced_algorithm.hpp"

namespace mpix {

const std::vector<VariableSpec>& alltoall_variables() {
  static const std::vector<VariableSpec> rows = {
      forced_algorithm_variable<AlltoallConfig>(
          "MPIX_ALLTOALL_ALGORITHM",
          "Forces the algorithm of every MPIX_Alltoall_init request, unless the request's info sets "
          "mpix_alltoall_algorithm. Empty or auto: a tournament among the algorithms that can run, MPI's own "
          "call first, or a node-channel algorithm where ranks outnumber cores (the default). An unknown or "
          "unsupported name follows MPIX_FALLBACK."),
      excluded_algorithms_variable<AlltoallConfig>(
          "MPIX_ALLTOALL_EXCLUDE",
          "Algorithms auto never races, e.g. fence,lock,pscw; MPI's own call too (auto then starts from the first "
          "other candidate). An unknown name makes MPIX_Alltoall_init fail with MPIX_ERR_CONFIG on every rank. A "
          "forced algorithm is not affected.")};
  return rows;
}

}  // namespace mpix
