#include "collectives/alltoallv_init.hpp"

#include <cstdint>
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
  if (!config.alltoallv_algorithm.empty()) {
    name = config.alltoallv_algorithm;
    return {find_alltoallv_algorithm(name), "MPIX_ALLTOALLV_ALGORITHM"};
  }
  name = default_alltoallv_algorithm;
  return {find_alltoallv_algorithm(name), "library default"};
}

Choice fall_back(const Error& why, const Config& config, const Comm& comm) {
  if (config.fallback == FallbackPolicy::error) throw why;
  const AlltoallvAlgorithm* fallback = find_alltoallv_algorithm(default_alltoallv_algorithm);
  if (config.fallback == FallbackPolicy::warn && comm.rank() == 0)
    std::fprintf(stderr, "mpix-rma warning: %s; using %s (MPIX_FALLBACK=warn)\n", why.what(), fallback->name);
  return {fallback, std::string("fallback: ") + why.what()};
}

// Different names on different ranks (an info hint set on some ranks only)
// would run different algorithms against each other: refuse it on all ranks.
void check_same_name_everywhere(const std::string& name, const Comm& comm, int error) {
  std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : name) hash = (hash ^ c) * 1099511628211ULL;
  std::uint64_t range[2] = {hash, ~hash};  // min of ~hash is ~(max of hash)
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_UINT64_T, MPI_MIN, comm.global()), "MPI_Allreduce");
  if (range[0] != ~range[1])
    throw Error(error, "ranks ask for different Alltoallv algorithms (this rank: '" + name +
                           "'); the info key and MPIX_ALLTOALLV_ALGORITHM must agree on all ranks");
}

Choice choose_algorithm(const AlltoallvArgs& args, const Info* info, const Config& config) {
  const Comm& comm = *args.comm;
  const int algorithm_error = error_class(MPIX_ERRKIND_ALGORITHM);
  std::string name;
  Choice choice = requested_algorithm(info, config, name);
  check_same_name_everywhere(name, comm, algorithm_error);
  try {
    agreed(comm.global(), [&] {
      if (choice.algorithm == nullptr)
        throw Error(algorithm_error, "unknown Alltoallv algorithm '" + name + "' (from " + choice.reason +
                                         "); registered: " + alltoallv_algorithm_names());
      if (auto why = choice.algorithm->unsupported(args))
        throw Error(algorithm_error, std::string("algorithm '") + name + "' cannot run these arguments: " + *why);
    });
  } catch (const Error& e) {
    return fall_back(e, config, comm);
  }
  return choice;
}

}  // namespace

std::unique_ptr<Request> alltoallv_init(const AlltoallvUserArgs& user, std::shared_ptr<const Comm> comm,
                                        const Info* info) {
  const Config& config = Library::get().config();
  AlltoallvArgs args = make_alltoallv_args(user, comm);
  const Choice choice = choose_algorithm(args, info, config);

  std::unique_ptr<PersistentOperation> operation;
  agreed(comm->global(), [&] { operation = choice.algorithm->create(args); });
  if (config.verbose >= 1 && comm->rank() == 0)
    std::fprintf(stderr, "mpix-rma: Alltoallv request on %d ranks (%d nodes): %s (%s)\n", comm->size(),
                 comm->num_nodes(), choice.algorithm->name, choice.reason.c_str());
  return std::make_unique<Request>(std::move(comm), choice.algorithm->name, std::move(operation));
}

}  // namespace mpix
