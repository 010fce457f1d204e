#include "collectives/sparse_discovery.hpp"

#include <algorithm>
#include <numeric>
#include <thread>

#include "src/error.hpp"
#include "src/mpi_handle.hpp"

namespace mpix {

namespace {

constexpr int discovery_tag = 0x6e6278;
// Polls that find nothing before each yield: oversubscribed ranks must let
// the rank they wait for run.
constexpr unsigned idle_polls_before_yield = 64;

}  // namespace

DiscoveredSources discover_sources(MPI_Comm comm, const std::vector<int>& destinations,
                                   const std::vector<int>& counts) {
  UniqueComm own;
  mpi_check(MPI_Comm_dup(comm, own.out()), "MPI_Comm_dup");
  mpi_check(MPI_Comm_set_errhandler(own.get(), MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  std::vector<MPI_Request> sends(destinations.size(), MPI_REQUEST_NULL);
  std::vector<int> found_sources, found_counts;
  try {
    for (std::size_t i = 0; i < destinations.size(); ++i)
      mpi_check(MPI_Issend(&counts[i], 1, MPI_INT, destinations[i], discovery_tag, own.get(), &sends[i]),
                "MPI_Issend");
    MPI_Request barrier = MPI_REQUEST_NULL;
    bool in_barrier = false;
    for (unsigned idle = 0;;) {
      int arrived = 0;
      MPI_Status status;
      mpi_check(MPI_Iprobe(MPI_ANY_SOURCE, discovery_tag, own.get(), &arrived, &status), "MPI_Iprobe");
      if (arrived) {
        int count = 0;
        mpi_check(MPI_Recv(&count, 1, MPI_INT, status.MPI_SOURCE, discovery_tag, own.get(), MPI_STATUS_IGNORE),
                  "MPI_Recv");
        found_sources.push_back(status.MPI_SOURCE);
        found_counts.push_back(count);
        idle = 0;
        continue;
      }
      int done = 0;
      if (in_barrier) {
        mpi_check(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (done) break;
      } else {
        mpi_check(MPI_Testall(static_cast<int>(sends.size()), sends.data(), &done, MPI_STATUSES_IGNORE),
                  "MPI_Testall");
        if (done) {
          mpi_check(MPI_Ibarrier(own.get(), &barrier), "MPI_Ibarrier");
          in_barrier = true;
        }
      }
      if (++idle >= idle_polls_before_yield) {
        idle = 0;
        std::this_thread::yield();
      }
    }
  } catch (...) {
    for (MPI_Request& r : sends)
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
      }
    throw;
  }
  // Ascending source, each source's edges in arrival (= its) order.
  std::vector<std::size_t> order(found_sources.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return found_sources[a] < found_sources[b]; });
  DiscoveredSources out;
  for (std::size_t i : order) {
    out.sources.push_back(found_sources[i]);
    out.counts.push_back(found_counts[i]);
  }
  return out;
}

}  // namespace mpix
