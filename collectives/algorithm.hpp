// One algorithm of a collective family as the registry knows it: a row,
// like UCC's {name, desc} tables. Adding an algorithm = one file defining
// its row plus one line in its family's registry.def
// (alltoallv/registry.def, neighbor_alltoallv/registry.def), which also
// declares what the row can do (its capabilities): the registry, CMake's
// test lists and the public listings (MPIX_Alltoallv_algorithm,
// MPIX_Neighbor_alltoallv_algorithm) all read them from that one line. A
// family is its arguments type: the rows of both families are the same
// template over it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "src/comm.hpp"
#include "src/mpi_implementation.hpp"
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
inline constexpr unsigned node_aggregation = 1u << 7;  // off-node blocks through node leaders, one message a node pair
// Keeps MPI's progress rule for persistent collectives: Start waits for no
// other rank, and a rank's completion needs only the other ranks' Starts.
inline constexpr unsigned mpi_progress = 1u << 8;
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
    {capability::node_channel, "node_channel"},         {capability::node_aggregation, "node_aggregation"},
    {capability::mpi_progress, "mpi_progress"},
};

template <class Args>
struct CollectiveAlgorithm {
  const char* name;         // stable: used by the family's environment variable and info key
  const char* description;  // one line, shown by mpix_info
  // Why this algorithm cannot run these arguments on this rank, beyond what
  // its capabilities already say (see refusal() below), or nothing.
  // Local.
  std::optional<std::string> (*unsupported)(const Args& args);
  // Collective set-up of everything Start/Wait need.
  std::unique_ptr<PersistentOperation> (*create)(const Args& args);
  // Set by the registry from the row's registry.def line.
  unsigned capabilities = 0;

  bool has(unsigned bits) const { return (capabilities & bits) == bits; }
  // One of the MPI's own collective calls, plain or persistent (auto warms
  // them up alike).
  bool is_mpi_call() const { return has(capability::mpi_baseline) || has(capability::mpi_persistent); }
  // How it moves the data on one node: MPI's call, MPI's persistent call, a
  // window, or the node channel (auto tries one of each before two of any).
  unsigned mechanism() const {
    return capabilities &
           (capability::mpi_baseline | capability::mpi_persistent | capability::window | capability::node_channel);
  }
  // Whether starts may point it at other buffers (mpix_buffers_move) on a
  // communicator of num_nodes nodes: nothing it set up at init may hold
  // the buffers' addresses.
  bool buffers_may_move(int num_nodes) const {
    return !has(capability::mpi_persistent) && !has(capability::window) &&
           !(has(capability::window_off_node) && num_nodes > 1);
  }
};

// What every family's requests run unless asked otherwise: its row that
// selects.
inline constexpr const char* default_algorithm = "auto";

// The algorithm a rank asks for, and its registry row (nullptr: an unknown
// name, which every rank sees alike).
template <class Row>
struct Requested {
  std::string name;
  const Row* row;
};

// Row helpers: an algorithm that runs any valid arguments, and the factory of
// an operation constructed from the arguments (the family is deduced from
// the row's field).
template <class Args>
std::optional<std::string> runs_any_arguments(const Args&) {
  return std::nullopt;
}

template <class Operation, class Args>
std::unique_ptr<PersistentOperation> make_operation(const Args& args) {
  return std::make_unique<Operation>(args);
}

// Why row cannot run args on this rank, or nothing: what its capabilities
// rule out (buffers that move where it binds them, non-contiguous types for
// raw-byte rows), then its own check. Local; the caller agrees on the
// answer. Args has buffers_move, send_layout, recv_layout and comm.
template <class Args>
std::optional<std::string> refusal(const CollectiveAlgorithm<Args>& row, const Args& args) {
  if (args.buffers_move && !row.buffers_may_move(args.comm->num_nodes())) {
    if (row.has(capability::mpi_persistent))
      return std::string("MPI's persistent call binds the buffers, and mpix_buffers_move says they move");
    return std::string("its window is made over recvbuf's address, and mpix_buffers_move says the buffers move");
  }
  // Windows whose puts reach a process of this machine (every target of a
  // window row; other emulated nodes' for window_off_node) hang on an MPI
  // whose one-sided transport needs CMA where the kernel refuses it.
  const Comm& comm = *args.comm;
  const bool puts_reach_machine =
      row.has(capability::window) || (row.has(capability::window_off_node) && comm.machine_ranks() > comm.node_size());
  if (puts_reach_machine && !comm.machine_cma_refused().empty())
    return std::string(mpi_implementation::one_sided_hangs_without_cma()) + ", and the kernel refuses it here (" +
           comm.machine_cma_refused() + ")";
  if (row.has(capability::contiguous_types)) {
    if (!args.send_layout.contiguous) return std::string("sendtype is not contiguous (this algorithm moves raw bytes)");
    if (!args.recv_layout.contiguous) return std::string("recvtype is not contiguous (this algorithm moves raw bytes)");
  }
  return row.unsupported != nullptr ? row.unsupported(args) : std::nullopt;
}

}  // namespace mpix
