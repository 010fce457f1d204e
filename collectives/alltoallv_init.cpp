#include "collectives/alltoallv_init.hpp"
#include "collectives/alltoallv_config.hpp"

#include <cstdio>
#include <string>

#include "collectives/registry.hpp"
#include "src/agree.hpp"
#include "src/library.hpp"

#include <mpix/mpix.h>

namespace mpix {

namespace {

struct Choice {
  const AlltoallvAlgorithm* algorithm;
  std::string reason;
};

// The name the user asked for, and who asked: the request's info wins over
// the process-wide environment variable.
Choice requested_algorithm(const Info* info, const Config& config, std::string& name) {
  if (auto hint = info ? info->get(info_key_alltoallv_algorithm) : std::nullopt) {
    name = *hint;
    return {find_alltoallv_algorithm(name), std::string("info key ") + info_key_alltoallv_algorithm};
  }
  if (!config.section<AlltoallvConfig>().algorithm.empty()) {
    name = config.section<AlltoallvConfig>().algorithm;
    return {find_alltoallv_algorithm(name), "MPIX_ALLTOALLV_ALGORITHM"};
  }
  name = default_alltoallv_algorithm;
  return {find_alltoallv_algorithm(name), "library default"};
}

Choice fall_back(const Error& why, const Config& config, const Comm& comm) {
  if (config.section<AlltoallvConfig>().fallback == FallbackPolicy::error) throw why;
  const AlltoallvAlgorithm* fallback = find_alltoallv_algorithm(default_alltoallv_algorithm);
  if (config.section<AlltoallvConfig>().fallback == FallbackPolicy::warn && comm.rank() == 0)
    std::fprintf(stderr, "mpix-rma warning: %s; using %s (MPIX_FALLBACK=warn)\n", why.what(), fallback->name);
  return {fallback, std::string("fallback: ") + why.what()};
}

// What the user asked for, or the fallback. Local: the name and whether any
// rank refuses it were agreed with the arguments.
Choice choose_algorithm(const AlltoallvArgs& args, const std::string& name, Choice choice, const Config& config) {
  const int algorithm_error = error_code(MPIX_ERRKIND_ALGORITHM);
  if (choice.algorithm == nullptr)
    return fall_back(Error(algorithm_error, "unknown Alltoallv algorithm '" + name + "' (from " + choice.reason +
                                                "); registered: " + alltoallv_algorithm_names()),
                     config, *args.comm);
  if (args.algorithm_refused)
    return fall_back(Error(algorithm_error, "algorithm '" + name + "' cannot run these arguments " +
                                                *args.algorithm_refused),
                     config, *args.comm);
  return choice;
}

}  // namespace

std::unique_ptr<Request> alltoallv_init(const AlltoallvUserArgs& user, std::shared_ptr<const Comm> comm,
                                        const Info* info) {
  const Config& config = comm->config();
  std::string name;
  const Choice requested = requested_algorithm(info, config, name);
  AlltoallvUserArgs asked = user;
  // Any other value is ignored, as MPI ignores info values it cannot use.
  if (auto moves = info ? info->get(info_key_buffers_move) : std::nullopt) asked.buffers_move = *moves == "true";
  AlltoallvArgs args = make_alltoallv_args(
      asked, comm, {name, requested.algorithm});
  if (info) args.expected_iterations_hint = info->get(info_key_expected_iterations);
  if (info) args.auto_settle_hint = info->get(info_key_auto_settle);
  if (info) args.auto_mpi_credit_hint = info->get(info_key_auto_mpi_credit);
  const Choice choice = choose_algorithm(args, name, requested, config);

  std::unique_ptr<PersistentOperation> operation;
  agreed(comm->global(), [&] { operation = choice.algorithm->create(args); });
  if (config.verbose >= 1 && comm->rank() == 0)
    std::fprintf(stderr, "mpix-rma: Alltoallv request on %d ranks (%d nodes): %s (%s)\n", comm->size(),
                 comm->num_nodes(), choice.algorithm->name, choice.reason.c_str());
  return std::make_unique<Request>(std::move(comm), choice.algorithm->name, std::move(operation), args.buffers_move);
}

}  // namespace mpix
