#include "collectives/neighbor_alltoallv_init.hpp"

#include <mpix/mpix.h>

#include <cstdio>
#include <string>

#include "collectives/alltoallv_config.hpp"
#include "collectives/alltoallv_init.hpp"
#include "collectives/neighbor_alltoallv_config.hpp"
#include "collectives/registry.hpp"
#include "src/agree.hpp"
#include "src/library.hpp"

namespace mpix {

namespace {

struct Choice {
  const NeighborAlgorithm* algorithm;
  std::string reason;
};

// The name the user asked for, and who asked: the request's info wins over
// the process-wide environment variable.
Choice requested_algorithm(const Info* info, const Config& config, std::string& name) {
  const auto& rows = neighbor_alltoallv_algorithms();
  if (auto hint = info ? info->get(info_key_neighbor_alltoallv_algorithm) : std::nullopt) {
    name = *hint;
    return {find_row(rows, name), std::string("info key ") + info_key_neighbor_alltoallv_algorithm};
  }
  if (!config.section<NeighborAlltoallvConfig>().algorithm.empty()) {
    name = config.section<NeighborAlltoallvConfig>().algorithm;
    return {find_row(rows, name), "MPIX_NEIGHBOR_ALLTOALLV_ALGORITHM"};
  }
  name = default_neighbor_alltoallv_algorithm;
  return {find_row(rows, name), "library default"};
}

// What the user asked for, or, as MPIX_FALLBACK says, the default. Local:
// the name and whether any rank refuses it were agreed with the arguments.
Choice choose_algorithm(const NeighborArgs& args, const std::string& name, Choice choice, const Config& config) {
  std::optional<Error> why;
  if (choice.algorithm == nullptr)
    why.emplace(error_code(MPIX_ERRKIND_ALGORITHM), "unknown neighbourhood Alltoallv algorithm '" + name + "' (from " +
                                                        choice.reason +
                                                        "); registered: " + row_names(neighbor_alltoallv_algorithms()));
  else if (args.algorithm_refused)
    why.emplace(error_code(MPIX_ERRKIND_ALGORITHM),
                "algorithm '" + name + "' cannot run these arguments " + *args.algorithm_refused);
  if (!why) return choice;
  const FallbackPolicy policy = config.section<AlltoallvConfig>().fallback;
  if (policy == FallbackPolicy::error) throw *why;
  const NeighborAlgorithm* fallback = find_row(neighbor_alltoallv_algorithms(), default_neighbor_alltoallv_algorithm);
  if (policy == FallbackPolicy::warn && args.comm->rank() == 0)
    std::fprintf(stderr, "mpix-rma warning: %s; using %s (MPIX_FALLBACK=warn)\n", why->what(), fallback->name);
  return {fallback, std::string("fallback: ") + why->what()};
}

}  // namespace

std::unique_ptr<Request> neighbor_alltoallv_init(const NeighborUserArgs& user, std::shared_ptr<const Comm> comm,
                                                 const Info* info) {
  const Config& config = comm->config();
  std::string name;
  const Choice requested = requested_algorithm(info, config, name);
  NeighborUserArgs asked = user;
  // Any other value is ignored, as MPI ignores info values it cannot use.
  if (auto moves = info ? info->get(info_key_buffers_move) : std::nullopt) asked.buffers_move = *moves == "true";
  NeighborArgs args = make_neighbor_args(asked, comm, {name, requested.algorithm});
  if (info) args.auto_settle_hint = info->get(info_key_auto_settle);
  if (info) args.auto_mpi_credit_hint = info->get(info_key_auto_mpi_credit);
  const Choice choice = choose_algorithm(args, name, requested, config);

  std::unique_ptr<PersistentOperation> operation;
  agreed(comm->global(), [&] { operation = choice.algorithm->create(args); });
  if (config.verbose >= 1 && comm->rank() == 0)
    std::fprintf(stderr,
                 "mpix-rma: neighbourhood Alltoallv request on %d ranks (%d nodes), degree %d in, %d out: %s (%s)\n",
                 comm->size(), comm->num_nodes(), args.indegree(), args.outdegree(), choice.algorithm->name,
                 choice.reason.c_str());
  return std::make_unique<Request>(std::move(comm), choice.algorithm->name, std::move(operation), args.buffers_move);
}

}  // namespace mpix
