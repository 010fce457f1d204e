// A collective family as the code that every family shares sees it: its
// types, names and functions, one constant per family (declared in its
// collectives/<family>/family.hpp). init_request
// (collectives/family_init.hpp) and a family's auto read it.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/algorithm.hpp"
#include "src/comm.hpp"
#include "src/config.hpp"
#include "src/error.hpp"

namespace mpix {

// What init_request and the family's auto read of a family: its types,
// names and functions.
template <class UserArgsT, class ArgsT>
struct Family {
  using UserArgs = UserArgsT;  // as the C API passes them
  using Args = ArgsT;          // checked, agreed: what the algorithms run
  using Row = CollectiveAlgorithm<ArgsT>;

  const char* title;     // the family in messages: "Alltoallv"
  const char* info_key;  // where a request asks for an algorithm
  const char* variable;  // where the process asks for one
  const std::string& (*forced)(const Config&);  // the variable's value ("" when unset)
  const char* exclude_variable;                                // where the process keeps rows out of auto
  const std::vector<std::string>& (*excluded)(const Config&);  // its names
  const std::vector<const Row*>& (*rows)();     // its registry rows
  // Collective: checks and agrees the arguments, and whether any rank
  // refuses the requested row.
  Args (*make_args)(const UserArgs&, std::shared_ptr<const Comm>, const Requested<Row>&);
  std::string (*shape)(const Args&);       // the request for MPIX_VERBOSE (", degree 2 in, ...")
  MPI_Count (*largest_block)(const Args&);  // the largest block this rank sends, in bytes
};

// The local half of a family's make_args: the arguments as check() makes
// them, or the Error it threw (which the family agrees on with the other
// ranks), and why the requested row refuses them, if it does.
template <class Args>
struct LocalArgs {
  std::optional<Args> args;
  std::optional<Error> error;
  std::optional<std::string> refused;
};
template <class Args, class Check>
LocalArgs<Args> check_locally(Check&& check, const Requested<CollectiveAlgorithm<Args>>& requested) {
  LocalArgs<Args> local;
  try {
    local.args = check();
  } catch (const Error& e) {
    local.error = e;
  }
  if (local.args && requested.row != nullptr) local.refused = refusal(*requested.row, *local.args);
  return local;
}

}  // namespace mpix
