#include "collectives/persistent_edges.hpp"

#include "src/error.hpp"

namespace mpix {

namespace {
constexpr int neighbor_tag = 0x6e62;
}  // namespace

void PersistentEdges::make(const NeighborArgs& args, const std::vector<bool>& in, const std::vector<bool>& out) {
  const MPI_Comm comm = args.comm->global();
  try {
    for (int edge = 0; edge < args.indegree(); ++edge) {
      if (!in[static_cast<std::size_t>(edge)] || args.recv_bytes(edge) == 0) continue;
      MPI_Request& r = requests_.emplace_back(MPI_REQUEST_NULL);
      mpi_check(MPI_Recv_init(args.recv_block(edge), args.recvcounts[static_cast<std::size_t>(edge)], args.recvtype,
                              args.sources[static_cast<std::size_t>(edge)], neighbor_tag, comm, &r),
                "MPI_Recv_init");
    }
    for (int edge = 0; edge < args.outdegree(); ++edge) {
      if (!out[static_cast<std::size_t>(edge)] || args.send_bytes(edge) == 0) continue;
      MPI_Request& r = requests_.emplace_back(MPI_REQUEST_NULL);
      mpi_check(MPI_Send_init(args.send_block(edge), args.sendcounts[static_cast<std::size_t>(edge)], args.sendtype,
                              args.destinations[static_cast<std::size_t>(edge)], neighbor_tag, comm, &r),
                "MPI_Send_init");
    }
  } catch (...) {
    free_requests();
    throw;
  }
}

PersistentEdges::~PersistentEdges() { free_requests(); }

void PersistentEdges::free_requests() {
  for (MPI_Request& r : requests_)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  requests_.clear();
}

void PersistentEdges::start() {
  if (!requests_.empty())
    mpi_check(MPI_Startall(static_cast<int>(requests_.size()), requests_.data()), "MPI_Startall");
}

bool PersistentEdges::test() {
  int done = 1;
  if (!requests_.empty())
    mpi_check(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
  return done != 0;
}

void PersistentEdges::wait() {
  if (!requests_.empty())
    mpi_check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace mpix
