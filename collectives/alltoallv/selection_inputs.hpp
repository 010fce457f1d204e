// What auto hands the selector: the pattern summary, the expected number of
// iterations, and which candidates may run, all agreed by one MPI_Allreduce
// so that every rank selects from the same numbers.
#pragma once

#include <vector>

#include "collectives/blocks/args.hpp"
#include "selector/selector.hpp"
#include "src/config.hpp"

namespace mpix {

// Collective over args.comm. candidates: the registry rows auto may choose.
// Throws the same Error on every rank when a rank's input is bad (an unknown
// name in MPIX_ALLTOALLV_EXCLUDE, a bad mpix_expected_iterations) or the
// ranks' tuning parameters differ.
SelectionInputs agree_selection_inputs(const AlltoallvArgs& args, const Config& config,
                                       const std::vector<const AlltoallvAlgorithm*>& candidates);

}  // namespace mpix
