// auto for the neighbourhood family: a tournament (collectives/
// auto_tournament.hpp) among every algorithm that can run these arguments,
// timed by the application's own iteration periods, with MPI's own call as
// the prior: it runs first, is always measured, and keeps its place unless
// another beats it by more than the tournament's margin. This family has no
// cost model yet, so nothing is predicted: the candidates are few, and each
// costs the tournament one trial.
#include <mpix/mpix.h>

#include <optional>
#include <string>

#include "collectives/alltoallv_config.hpp"
#include "collectives/alltoallv_init.hpp"
#include "collectives/argument_checks.hpp"
#include "collectives/auto_tournament.hpp"
#include "collectives/neighbor_alltoallv_init.hpp"
#include "collectives/registry.hpp"
#include "src/agree.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

std::vector<const NeighborAlgorithm*> candidate_rows() {
  std::vector<const NeighborAlgorithm*> rows;
  for (const NeighborAlgorithm* row : neighbor_alltoallv_algorithms())
    if (!row->has(capability::selects)) rows.push_back(row);
  return rows;
}

// Every candidate that no rank refuses, the bound on the tournament
// (mpix_auto_settle, or MPIX_AUTO_SETTLE), the credit of MPI's own call
// (mpix_auto_mpi_credit_ns) and the largest block any rank sends, agreed by
// one MPI_Allreduce; the prior is MPI's own call. A bad
// hint on any rank fails on every rank.
Selection agreed_selection(const NeighborArgs& args, const std::vector<const NeighborAlgorithm*>& rows,
                           int& baseline, long& settle_within, long long& largest_block, long& mpi_credit_ns) {
  const std::size_t n = rows.size();
  enum Field { settle, largest, mpi_credit, failed, fields };
  std::vector<long> values(fields + n, 0);
  std::vector<std::optional<std::string>> why(n);
  std::optional<Error> local_error;
  try {
    values[settle] = parse_count_hint(info_key_auto_settle, args.auto_settle_hint, 0,
                                      args.comm->config().section<AlltoallvConfig>().auto_settle);
    values[mpi_credit] = parse_count_hint(info_key_auto_mpi_credit, args.auto_mpi_credit_hint, 0, 0);
  } catch (const Error& e) {
    local_error = e;
    values[failed] = 1;
  }
  for (int edge = 0; edge < args.outdegree(); ++edge)
    values[largest] = std::max<long>(values[largest], static_cast<long>(args.send_bytes(edge)));
  for (std::size_t i = 0; i < n; ++i) {
    why[i] = refusal(*rows[i], args);
    values[fields + i] = why[i] ? 1 : 0;
  }
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_LONG, MPI_MAX,
                          args.comm->global()),
            "MPI_Allreduce");
  if (values[failed]) agree_on_error(args.comm->global(), local_error);  // throws on every rank
  settle_within = values[settle];
  largest_block = values[largest];
  mpi_credit_ns = values[mpi_credit];
  Selection selection;
  baseline = -1;
  for (std::size_t i = 0; i < n; ++i) {
    CandidatePrediction& p = selection.predictions.emplace_back();
    p.name = rows[i]->name;
    p.eligible = values[fields + i] == 0;
    if (!p.eligible) p.why_not = why[i] ? *why[i] : "another rank cannot run it";
    p.mpi_call = rows[i]->is_mpi_call();
    p.mechanism = rows[i]->mechanism();
    if (p.eligible && rows[i]->has(capability::mpi_baseline)) baseline = static_cast<int>(i);
  }
  if (baseline < 0) throw Error(MPI_ERR_INTERN, "auto: MPI's own neighbourhood call cannot run these arguments");
  selection.chosen = baseline;
  selection.reason = "MPI's own call first; the tournament decides";
  return selection;
}

class AutoNeighborAlltoallv final : public AutoOperation<NeighborArgs> {
 public:
  explicit AutoNeighborAlltoallv(const NeighborArgs& args) : AutoOperation(args) {
    const Config& config = args_.comm->config();
    const bool verbose = args_.comm->rank() == 0 && config.verbose >= 1;
    const std::vector<const NeighborAlgorithm*> rows = candidate_rows();
    int baseline = -1;
    long settle_within = 0;
    long long largest_block = 0;
    long mpi_credit_ns = 0;
    Selection selection = agreed_selection(args_, rows, baseline, settle_within, largest_block, mpi_credit_ns);
    if (verbose) {
      std::string listing;
      for (const CandidatePrediction& p : selection.predictions)
        listing += "\n  " + p.name + (p.eligible ? ": a candidate" : ": cannot run (" + p.why_not + ")");
      std::fprintf(stderr, "mpix-rma: neighbourhood auto (%s)%s\n", selection.reason.c_str(), listing.c_str());
    }
    begin(rows, std::move(selection), baseline, config.section<AlltoallvConfig>().expected_iterations,
          tournament_rule(config, settle_within, largest_block, mpi_credit_ns), verbose);
  }
};

}  // namespace

namespace neighbor_algorithms {
extern const NeighborAlgorithm auto_{
    "auto",
    "a tournament timing the application's own iterations among the algorithms that can run, MPI's own call "
    "first",
    runs_any_arguments, make_operation<AutoNeighborAlltoallv>};
}  // namespace neighbor_algorithms

}  // namespace mpix
