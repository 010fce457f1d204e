// One Alltoallv algorithm as the registry knows it: a row, like UCC's
// {name, desc} tables. Adding an algorithm = one file defining its row plus
// one line in alltoallv/registry.def, which also declares what the row can
// do (its capabilities): the registry, CMake's test lists and the public
// listing (MPIX_Alltoallv_algorithm) all read them from that one line.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "collectives/alltoallv_args.hpp"
#include "src/request.hpp"

namespace mpix {

// What an algorithm is and needs, as bits. The values are the public
// MPIX_ALGORITHM_* constants of mpix.h (checked where the C API lists them).
namespace capability {
inline constexpr unsigned none = 0;                   // registry.def: a row with no capability
inline constexpr unsigned mpi_baseline = 1u << 0;      // the MPI's own call: auto always measures it
inline constexpr unsigned mpi_persistent = 1u << 1;    // MPI's persistent collective: binds the buffers at init
inline constexpr unsigned selects = 1u << 2;           // chooses another row and runs it (auto)
inline constexpr unsigned contiguous_types = 1u << 3;  // moves raw bytes: both datatypes contiguous
inline constexpr unsigned window = 1u << 4;            // every block put into a window over recvbuf
inline constexpr unsigned window_off_node = 1u << 5;   // off-node blocks put into a window over recvbuf
inline constexpr unsigned node_channel = 1u << 6;      // on-node blocks through the node channel
}  // namespace capability

// The capability names, as registry.def, CMake and mpix_info spell them.
struct CapabilityName {
  unsigned bit;
  const char* name;
};
inline constexpr CapabilityName capability_names[] = {
    {capability::mpi_baseline, "mpi_baseline"},         {capability::mpi_persistent, "mpi_persistent"},
    {capability::selects, "selects"},                   {capability::contiguous_types, "contiguous_types"},
    {capability::window, "window"},                     {capability::window_off_node, "window_off_node"},
    {capability::node_channel, "node_channel"},
};

struct AlltoallvAlgorithm {
  const char* name;         // stable: used by MPIX_ALLTOALLV_ALGORITHM and info keys
  const char* description;  // one line, shown by mpix_info
  // Why this algorithm cannot run these arguments on this rank, beyond what
  // its capabilities already say (see refusal()), or nothing. Local.
  std::optional<std::string> (*unsupported)(const AlltoallvArgs& args);
  // Collective set-up of everything Start/Wait need.
  std::unique_ptr<PersistentOperation> (*create)(const AlltoallvArgs& args);
  // Set by the registry from the row's registry.def line.
  unsigned capabilities = 0;

  bool has(unsigned bits) const { return (capabilities & bits) == bits; }
  // Whether starts may point it at other buffers (mpix_buffers_move) on a
  // communicator of num_nodes nodes: nothing it set up at init may hold
  // the buffers' addresses.
  bool buffers_may_move(int num_nodes) const {
    return !has(capability::mpi_persistent) && !has(capability::window) &&
           !(has(capability::window_off_node) && num_nodes > 1);
  }
};

// Why row cannot run args on this rank, or nothing: first what its
// capabilities rule out (moving buffers, non-contiguous types), then its own
// check. Local; the caller agrees on the answer.
std::optional<std::string> refusal(const AlltoallvAlgorithm& row, const AlltoallvArgs& args);

// Row helpers: an algorithm that runs any valid arguments, and the factory of
// an operation constructed from the arguments.
inline std::optional<std::string> runs_any_arguments(const AlltoallvArgs&) { return std::nullopt; }

template <class Operation>
std::unique_ptr<PersistentOperation> make_operation(const AlltoallvArgs& args) {
  return std::make_unique<Operation>(args);
}

}  // namespace mpix
