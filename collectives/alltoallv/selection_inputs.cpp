#include "collectives/alltoallv/selection_inputs.hpp"
#include "collectives/alltoallv/config.hpp"

#include <mpix/mpix.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "collectives/alltoallv/family.hpp"
#include "collectives/argument_checks.hpp"
#include "collectives/excluded_algorithms.hpp"
#include "collectives/blocks/put_plan.hpp"
#include "rma/window_pool.hpp"
#include "collectives/alltoallv/tuning_parameters.hpp"
#include "src/agree.hpp"
#include "src/library.hpp"

namespace mpix {

namespace {


// This rank's share of the summary: maxima over ranks once reduced.
struct LocalPattern {
  std::int64_t node_bytes = 0, net_bytes = 0, node_messages = 0, net_messages = 0, max_peer_bytes = 0,
               self_bytes = 0;
};

LocalPattern local_pattern(const AlltoallvArgs& args) {
  const Comm& comm = *args.comm;
  std::int64_t sent[2] = {0, 0}, received[2] = {0, 0}, targets[2] = {0, 0}, sources[2] = {0, 0};
  LocalPattern p;
  // The block to itself is priced apart: a local copy, which some
  // algorithms make directly and MPI may not.
  p.self_bytes = args.send_bytes(comm.rank());
  for (int peer = 0; peer < comm.size(); ++peer) {
    if (peer == comm.rank()) continue;
    const int off_node = comm.same_node(peer) ? 0 : 1;
    const std::int64_t out = args.send_bytes(peer), in = args.recv_bytes(peer);
    sent[off_node] += out;
    received[off_node] += in;
    targets[off_node] += out > 0;
    sources[off_node] += in > 0;
    p.max_peer_bytes = std::max({p.max_peer_bytes, out, in});
  }
  p.node_bytes = std::max(sent[0], received[0]);
  p.net_bytes = std::max(sent[1], received[1]);
  p.node_messages = std::max(targets[0], sources[0]);
  p.net_messages = std::max(targets[1], sources[1]);
  return p;
}

// On-node blocks can be copied straight into the receive buffer.
bool receive_buffer_shared(const PooledWindowKey& window, const Config& config) {
  if (window.bytes == 0) return true;  // receives nothing: no direct copy to pay for
  const NodePath path = config.section<WindowConfig>().node_path;
  if (path == NodePath::mpi || path == NodePath::cma) return false;
  return window.allocation != 0;
}

}  // namespace

SelectionInputs agree_selection_inputs(const AlltoallvArgs& args, const Config& config,
                                       const std::vector<const AlltoallvAlgorithm*>& candidates) {
  const Comm& comm = *args.comm;
  const std::size_t n = candidates.size();
  // One MPI_MAX reduction carries everything; a minimum travels negated.
  enum Field { node_bytes, net_bytes, node_messages, net_messages, max_peer_bytes, self_bytes, foreign_memory,
               not_pooled, expected, settle, mpi_credit, mpi_period, fingerprint, minus_fingerprint, failed, fields };
  std::vector<std::int64_t> values(fields + 2 * n, 0);
  std::optional<Error> local_error;
  const AlltoallvConfig& alltoallv = config.section<AlltoallvConfig>();
  try {
    check_excluded_names(alltoallv_family.exclude_variable, alltoallv_family.excluded(config), candidates);
    const AutoSettings settings = parse_auto_settings(args.auto_hints, config);
    values[expected] = settings.expected_iterations;
    values[settle] = settings.settle_within;
    values[mpi_credit] = settings.mpi_credit_ns;
    values[mpi_period] = settings.mpi_period_ns;
    const std::int64_t mine = static_cast<std::int64_t>(tuning_parameters_fingerprint(config) >> 1);
    values[fingerprint] = mine;
    values[minus_fingerprint] = -mine;
    const LocalPattern p = local_pattern(args);
    values[node_bytes] = p.node_bytes;
    values[net_bytes] = p.net_bytes;
    values[node_messages] = p.node_messages;
    values[net_messages] = p.net_messages;
    values[max_peer_bytes] = p.max_peer_bytes;
    values[self_bytes] = p.self_bytes;
    const PooledWindowKey window = PooledWindowKey::of(args.recvbuf, PutPlan::make(args).window_bytes);
    values[foreign_memory] = receive_buffer_shared(window, config) ? 0 : 1;
    values[not_pooled] = args.comm->component<WindowPool>()->holds(window) ? 0 : 1;
    for (std::size_t i = 0; i < n; ++i) {
      const AlltoallvAlgorithm& row = *candidates[i];
      values[fields + 2 * i] = refusal(row, args) ? 1 : 0;
      values[fields + 2 * i + 1] = std::count(alltoallv.exclude.begin(), alltoallv.exclude.end(), row.name) > 0;
    }
  } catch (const Error& e) {
    local_error = e;
    values[failed] = 1;
  }
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_MAX,
                          comm.global()),
            "MPI_Allreduce");
  if (values[failed]) agree_on_error(comm.global(), local_error);  // throws on every rank
  if (values[fingerprint] != -values[minus_fingerprint])
    throw Error(error_code(MPIX_ERRKIND_CONFIG),
                "the ranks' tuning parameters differ (MPIX_TUNING_FILE must name the same file on every rank)");

  SelectionInputs inputs;
  PatternSummary& s = inputs.pattern;
  s.ranks = comm.size();
  s.nodes = comm.num_nodes();
  s.node_bytes = values[node_bytes];
  s.net_bytes = values[net_bytes];
  s.node_messages = values[node_messages];
  s.net_messages = values[net_messages];
  s.max_peer_bytes = values[max_peer_bytes];
  s.self_bytes = values[self_bytes];
  s.library_memory = values[foreign_memory] == 0;
  inputs.window_pooled = values[not_pooled] == 0;
  inputs.expected_iterations = static_cast<long>(values[expected]);
  inputs.settle_within = static_cast<long>(values[settle]);
  inputs.mpi_credit_ns = static_cast<long>(values[mpi_credit]);
  inputs.mpi_period_ns = static_cast<long>(values[mpi_period]);
  for (std::size_t i = 0; i < n; ++i)
    inputs.candidates.push_back({candidates[i]->name, values[fields + 2 * i] != 0, values[fields + 2 * i + 1] != 0});
  return inputs;
}

}  // namespace mpix
