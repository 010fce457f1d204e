// auto: the selector's algorithm, settled by a tournament in the request's
// first iterations.
//
// At init it agrees on the pattern summary and predicts every candidate's
// T_init and T_iter from the measured parameters (selector/): the cheapest
// T_init + N * T_iter is the prior, and it runs first. Then the tournament
// (rules in selector/tournament.hpp) runs each entrant in turn -- the prior,
// MPI's own call, the others predicted close -- and times it by its
// iteration period, from one Start to the next: what the application does
// with the data between Wait and the next Start counts, as it should (a
// block pushed into the receiver's memory is read from another core's cache;
// a block the receiver copied itself is already in its own).
//
// The schedule (collectives/auto/tournament.hpp) is the same for every
// collective family; this file is what is Alltoallv's: its selector inputs,
// its cost model's prior and its candidates.
#include <mpix/mpix.h>

#include <optional>
#include <string>

#include "collectives/alltoallv/config.hpp"
#include "collectives/alltoallv/family.hpp"
#include "collectives/auto/tournament.hpp"
#include "collectives/registry.hpp"
#include "collectives/alltoallv/selection_inputs.hpp"
#include "collectives/alltoallv/tuning_parameters.hpp"
#include "src/library.hpp"

namespace mpix {

namespace {

std::vector<const AlltoallvAlgorithm*> candidate_rows() {
  std::vector<const AlltoallvAlgorithm*> rows;
  for (const AlltoallvAlgorithm* row : alltoallv_algorithms())
    if (std::string_view(row->name) != default_algorithm) rows.push_back(row);
  return rows;
}

class AutoAlltoallv final : public AutoOperation<AlltoallvArgs> {
 public:
  explicit AutoAlltoallv(const AlltoallvArgs& args) : AutoOperation(args) {
    const Config& config = args_.comm->config();
    const bool verbose = args_.comm->rank() == 0 && config.verbose >= 1;
    const std::vector<const AlltoallvAlgorithm*> rows = candidate_rows();
    const SelectionInputs inputs = agree_selection_inputs(args_, config, rows);
    Selection selection;
    try {
      selection = select_algorithm(inputs, tuning_parameters(config));
    } catch (const std::invalid_argument& e) {
      throw Error(error_code(MPIX_ERRKIND_CONFIG), std::string("auto: ") + e.what() + "; see MPIX_ALLTOALLV_EXCLUDE");
    }
    int baseline = -1;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      selection.predictions[i].mpi_call = rows[i]->is_mpi_call();
      selection.predictions[i].mechanism = rows[i]->mechanism();
      if (rows[i]->has(capability::mpi_baseline) && selection.predictions[i].eligible) baseline = static_cast<int>(i);
    }
    if (verbose) {
      const TuningParameters& tuning = tuning_parameters(config);
      const std::string& tuning_file = config.section<AlltoallvConfig>().tuning_file;
      std::fprintf(stderr,
                   "mpix-rma: auto selection (parameters timed as the %s loop, receive buffers in %s memory "
                   "priced by its own curves; %s)\n%s\n",
                   tuning.loop.c_str(), inputs.pattern.library_memory ? "MPIX_Alloc_mem" : "user (heap)",
                   tuning_file.empty() ? "built-in" : tuning_file.c_str(),
                   describe_selection(inputs, selection).c_str());
    }
    const TournamentRule rule =
        tournament_rule(config, inputs.settle_within, inputs.pattern.max_peer_bytes, inputs.mpi_credit_ns,
                        inputs.mpi_period_ns);
    begin(rows, std::move(selection), baseline, inputs.expected_iterations, rule, verbose);
  }
};

}  // namespace

namespace alltoallv_rows {
extern const AlltoallvAlgorithm auto_{
    "auto",
    "the selector: lowest predicted T_init + N*T_iter as the prior, then a tournament timing the application's "
    "own iterations",
    runs_any_arguments, make_operation<AutoAlltoallv>};
}  // namespace alltoallv_rows

}  // namespace mpix
