// One Alltoallv algorithm as the registry knows it: a row, like UCC's
// {name, desc} tables. Adding an algorithm = one file defining its row plus
// one line in registry.def.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "collectives/alltoallv_args.hpp"
#include "src/request.hpp"

namespace mpix {

struct AlltoallvAlgorithm {
  const char* name;         // stable: used by MPIX_ALLTOALLV_ALGORITHM and info keys
  const char* description;  // one line, shown by mpix_info
  // Why this algorithm cannot run these arguments on this rank, or nothing if
  // it can. Local; the caller agrees on the answer.
  std::optional<std::string> (*unsupported)(const AlltoallvArgs& args);
  // Collective set-up of everything Start/Wait need.
  std::unique_ptr<PersistentOperation> (*create)(const AlltoallvArgs& args);
  // The MPI's own call: the baseline auto's tournament always measures, so
  // that auto never stays with something slower than it.
  bool mpi_baseline = false;
};

// Row helpers: an algorithm that runs any valid arguments, and the factory of
// an operation constructed from the arguments.
inline std::optional<std::string> runs_any_arguments(const AlltoallvArgs&) { return std::nullopt; }

template <class Operation>
std::unique_ptr<PersistentOperation> make_operation(const AlltoallvArgs& args) {
  return std::make_unique<Operation>(args);
}

}  // namespace mpix
