// auto for a family without a cost model (neighbourhood Alltoallv,
// Alltoall): a tournament (collectives/auto/tournament.hpp) among every
// algorithm of the family that can run these arguments, timed by the
// application's own iteration periods, with MPI's own call as the prior:
// it runs first, is always measured, and keeps its place unless another
// beats it by more than the tournament's margin. Nothing is predicted: the
// candidates are few, and each costs the tournament one trial.
//
// Except where ranks outnumber cores (on any rank: agreed). There MPI's
// own call waits without giving up its core, so each of its periods lasts
// until the scheduler preempts the waiting rank: milliseconds, and
// scattered. A prior runs whenever the request does not race -- before
// its tournament and while another request of the loop races
// (collectives/auto/trial_turn.hpp) -- so a prior that slow would stretch
// and scatter the other request's periods until it could tell nothing
// apart. The family's first node-channel algorithm, whose waits yield the
// core, is the prior there; MPI's call still enters and is measured.
//
// A family's auto row is then make_operation<RaceAll<its Family constant>>
// (collectives/family.hpp).
#pragma once

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "collectives/algorithm.hpp"
#include "collectives/auto/settings.hpp"
#include "collectives/auto/tournament.hpp"
#include "collectives/excluded_algorithms.hpp"
#include "collectives/family.hpp"
#include "src/agree.hpp"
#include "src/error.hpp"

namespace mpix {

template <const auto& family>
class RaceAll final : public AutoOperation<typename std::decay_t<decltype(family)>::Args> {
  using Args = typename std::decay_t<decltype(family)>::Args;
  using Row = typename std::decay_t<decltype(family)>::Row;

 public:
  explicit RaceAll(const Args& args) : AutoOperation<Args>(args) {
    const Config& config = this->args_.comm->config();
    const bool verbose = this->args_.comm->rank() == 0 && config.verbose >= 1;
    std::vector<const Row*> rows;
    for (const Row* row : family.rows())
      if (!row->has(capability::selects)) rows.push_back(row);
    int baseline = -1;
    AutoSettings settings;
    long long largest_block = 0;
    Selection selection = agreed_selection(rows, baseline, settings, largest_block);
    if (verbose) {
      std::string listing;
      for (const CandidatePrediction& p : selection.predictions)
        listing += "\n  " + p.name + (p.eligible ? ": a candidate" : ": cannot run (" + p.why_not + ")");
      std::fprintf(stderr, "mpix-rma: %s auto (%s)%s\n", family.title, selection.reason.c_str(), listing.c_str());
    }
    this->begin(rows, std::move(selection), baseline, settings.expected_iterations,
                tournament_rule(config, settings.settle_within, largest_block, settings.mpi_credit_ns,
                                settings.mpi_period_ns),
                verbose);
  }

 private:
  // Aggregation across nodes, on a single node, is point-to-point between
  // the node's ranks, all blocks at once. Where a candidate over the node
  // channel runs too, that one moves the same blocks through shared memory
  // at a copy each, and aggregation's trial (new datatypes, first messages)
  // could not win. Without the channel (turned off, excluded, refused: a
  // simulator, for one) it races: it can beat an MPI whose own call sends
  // large blocks in pairwise steps. Decided on the agreed eligibility, so
  // every rank leaves out the same rows. A request that forces it still
  // runs it.
  static void leave_out_aggregation_beside_channel(const std::vector<const Row*>& rows, const Args& args,
                                                   Selection& selection) {
    if (args.comm->num_nodes() != 1) return;
    bool channel_runs = false;
    for (std::size_t i = 0; i < rows.size(); ++i)
      channel_runs |= selection.predictions[i].eligible && rows[i]->has(capability::node_channel);
    if (!channel_runs) return;
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (selection.predictions[i].eligible && rows[i]->has(capability::node_aggregation)) {
        selection.predictions[i].eligible = false;
        selection.predictions[i].why_not =
            "one node, where the node channel runs: no block leaves it, so there is nothing to aggregate";
      }
  }

  // Whether the family's MPIX_<FAMILY>_EXCLUDE names the row (the names
  // are checked to be candidates before).
  static bool is_excluded(const Row& row, const Args& args) {
    const std::vector<std::string>& names = family.excluded(args.comm->config());
    return std::find(names.begin(), names.end(), row.name) != names.end();
  }

  // Every candidate that no rank refuses, auto's settings and the largest
  // block any rank sends, agreed by one MPI_Allreduce; the prior is MPI's
  // own call (baseline; -1 where it is excluded). A bad hint on any rank
  // fails on every rank.
  Selection agreed_selection(const std::vector<const Row*>& rows, int& baseline, AutoSettings& settings,
                             long long& largest_block) const {
    const Args& args = this->args_;
    const std::size_t n = rows.size();
    enum Field { expected, settle, largest, mpi_credit, mpi_period, oversubscribed, failed, fields };
    std::vector<long> values(fields + n, 0);
    std::vector<std::optional<std::string>> why(n);
    std::optional<Error> local_error;
    try {
      check_excluded_names(family.exclude_variable, family.excluded(args.comm->config()), rows);
      const AutoSettings mine = parse_auto_settings(args.auto_hints, args.comm->config());
      values[expected] = mine.expected_iterations;
      values[settle] = mine.settle_within;
      values[mpi_credit] = mine.mpi_credit_ns;
      values[mpi_period] = mine.mpi_period_ns;
    } catch (const Error& e) {
      local_error = e;
      values[failed] = 1;
    }
    values[largest] = static_cast<long>(family.largest_block(args));
    values[oversubscribed] = args.comm->oversubscribed() ? 1 : 0;
    for (std::size_t i = 0; i < n; ++i) {
      why[i] = refusal(*rows[i], args);
      if (!why[i] && is_excluded(*rows[i], args)) why[i] = std::string("excluded by ") + family.exclude_variable;
      values[fields + i] = why[i] ? 1 : 0;
    }
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_LONG, MPI_MAX,
                            args.comm->global()),
              "MPI_Allreduce");
    if (values[failed]) agree_on_error(args.comm->global(), local_error);  // throws on every rank
    settings.expected_iterations = values[expected];
    settings.settle_within = values[settle];
    settings.mpi_credit_ns = values[mpi_credit];
    settings.mpi_period_ns = values[mpi_period];
    largest_block = values[largest];
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
    leave_out_aggregation_beside_channel(rows, args, selection);
    // MPI's own call is the prior; where it is left out (MPIX_<FAMILY>_EXCLUDE
    // names it), the first candidate that can run is, and MPI's call never
    // enters (the tournament runs without a baseline, as the cost-model
    // families' does).
    int prior = baseline;
    for (std::size_t i = 0; prior < 0 && i < n; ++i)
      if (selection.predictions[i].eligible) prior = static_cast<int>(i);
    if (prior < 0)
      throw Error(MPI_ERR_INTERN, std::string("auto: no ") + family.title + " algorithm can run these arguments");
    std::string left_out;  // why MPI's own call is not a candidate, where it is not
    for (std::size_t i = 0; i < n; ++i)
      if (rows[i]->has(capability::mpi_baseline)) left_out = selection.predictions[i].why_not;
    selection.chosen = prior;
    selection.reason = baseline >= 0 ? std::string("MPI's own call first; the tournament decides")
                                     : "MPI's own call left out (" + left_out + "): " +
                                           rows[static_cast<std::size_t>(prior)]->name +
                                           " first; the tournament decides";
    if (values[oversubscribed])
      for (std::size_t i = 0; i < n; ++i)
        if (selection.predictions[i].eligible && rows[i]->has(capability::node_channel)) {
          selection.chosen = static_cast<int>(i);
          selection.reason = std::string("ranks outnumber cores: ") + rows[i]->name +
                             " first, whose waits yield the core; the tournament decides";
          break;
        }
    return selection;
  }
};

}  // namespace mpix
