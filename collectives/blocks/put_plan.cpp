#include "collectives/blocks/put_plan.hpp"

#include <algorithm>

namespace mpix {

namespace {

// The bytes of buf a set of blocks reaches: max(displs[i] + counts[i]) * extent.
MPI_Aint reach(const std::vector<int>& counts, const std::vector<int>& displs, MPI_Aint extent) {
  MPI_Aint end = 0;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] > 0) end = std::max(end, (static_cast<MPI_Aint>(displs[i]) + counts[i]) * extent);
  return end;
}

}  // namespace

PutPlan PutPlan::make(const AlltoallvArgs& args) {
  const Comm& comm = *args.comm;
  const int n = comm.size();
  PutPlan plan;
  plan.window_bytes = reach(args.recvcounts, args.rdispls, args.recv_layout.extent);
  plan.send_extent_bytes = reach(args.sendcounts, args.sdispls, args.send_layout.extent);
  for (int peer = 0; peer < n; ++peer) {
    if (args.recv_bytes(peer) > 0) plan.sources.push_back(peer);
    if (args.send_bytes(peer) == 0) continue;
    plan.targets.push_back(peer);
    plan.puts.push_back({peer, static_cast<MPI_Aint>(args.sdispls[peer]) * args.send_layout.extent,
                         args.block_at_target[peer], args.sendcounts[peer]});
  }
  std::stable_partition(plan.puts.begin(), plan.puts.end(),
                        [&](const PlannedPut& p) { return !comm.same_node(p.target); });
  return plan;
}

}  // namespace mpix
