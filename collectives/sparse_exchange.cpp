#include "collectives/sparse_exchange.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>

#include "collectives/argument_checks.hpp"
#include "src/datatype_layout.hpp"
#include "src/agree.hpp"
#include "src/error.hpp"
#include "src/mpi_handle.hpp"

namespace mpix {

namespace {

constexpr int sparse_tag = 0x6e6278;
// Polls that find nothing before each yield: oversubscribed ranks must let
// the rank they wait for run.
constexpr unsigned idle_polls_before_yield = 64;

struct Arrival {
  int source;
  int count;
  std::size_t offset;  // bytes into the arrival buffer
};

}  // namespace

SparseReceived sparse_exchange(MPI_Comm comm, const std::vector<SparseMessage>& messages, MPI_Datatype sendtype,
                               MPI_Datatype recvtype) {
  MPI_Aint lb = 0, extent = 0;
  mpi_check(MPI_Type_get_extent(recvtype, &lb, &extent), "MPI_Type_get_extent");
  UniqueComm own;
  mpi_check(MPI_Comm_dup(comm, own.out()), "MPI_Comm_dup");
  mpi_check(MPI_Comm_set_errhandler(own.get(), MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  std::vector<MPI_Request> sends(messages.size(), MPI_REQUEST_NULL);
  std::vector<Arrival> arrivals;
  std::vector<unsigned char> arrived_bytes;
  try {
    for (std::size_t i = 0; i < messages.size(); ++i)
      mpi_check(MPI_Issend(messages[i].data, messages[i].count, sendtype, messages[i].destination, sparse_tag,
                           own.get(), &sends[i]),
                "MPI_Issend");
    MPI_Request barrier = MPI_REQUEST_NULL;
    bool in_barrier = false;
    for (unsigned idle = 0;;) {
      int arrived = 0;
      MPI_Status status;
      mpi_check(MPI_Iprobe(MPI_ANY_SOURCE, sparse_tag, own.get(), &arrived, &status), "MPI_Iprobe");
      if (arrived) {
        int count = 0;
        mpi_check(MPI_Get_count(&status, recvtype, &count), "MPI_Get_count");
        if (count == MPI_UNDEFINED)
          throw Error(MPI_ERR_TRUNCATE, "rank " + std::to_string(status.MPI_SOURCE) +
                                            " sends a block that is not a whole number of recvtype elements");
        const std::size_t offset = arrived_bytes.size();
        arrived_bytes.resize(offset + static_cast<std::size_t>(count) * static_cast<std::size_t>(extent));
        mpi_check(MPI_Recv(arrived_bytes.data() + offset - lb, count, recvtype, status.MPI_SOURCE, sparse_tag,
                           own.get(), MPI_STATUS_IGNORE),
                  "MPI_Recv");
        arrivals.push_back({status.MPI_SOURCE, count, offset});
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
  // Ascending source, each source's messages in arrival (= its) order.
  std::stable_sort(arrivals.begin(), arrivals.end(),
                   [](const Arrival& a, const Arrival& b) { return a.source < b.source; });
  SparseReceived out;
  out.data.resize(arrived_bytes.size());
  int at = 0;  // elements
  for (const Arrival& a : arrivals) {
    const std::size_t bytes = static_cast<std::size_t>(a.count) * static_cast<std::size_t>(extent);
    if (bytes > 0)
      std::memcpy(out.data.data() + static_cast<std::size_t>(at) * static_cast<std::size_t>(extent),
                  arrived_bytes.data() + a.offset, bytes);
    out.sources.push_back(a.source);
    out.counts.push_back(a.count);
    out.displs.push_back(at);
    at += a.count;
  }
  return out;
}

DiscoveredSources discover_sources(MPI_Comm comm, const std::vector<int>& destinations,
                                   const std::vector<int>& counts) {
  std::vector<SparseMessage> messages;
  for (std::size_t i = 0; i < destinations.size(); ++i) messages.push_back({destinations[i], &counts[i], 1});
  const SparseReceived received = sparse_exchange(comm, messages, MPI_INT, MPI_INT);
  DiscoveredSources out;
  out.sources = received.sources;
  out.counts.resize(received.sources.size());
  if (!out.counts.empty()) std::memcpy(out.counts.data(), received.data.data(), out.counts.size() * sizeof(int));
  return out;
}

std::vector<SparseMessage> checked_crs_messages(const Comm& comm, int send_nnz, const int dest[],
                                               const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                                               const void* sendvals, MPI_Datatype recvtype) {
  const int size = comm.size();
  std::vector<SparseMessage> messages;
  agreed(comm.global(), [&] {
    if (send_nnz < 0) throw Error(MPI_ERR_ARG, "send_nnz = " + std::to_string(send_nnz) + " is negative");
    if (send_nnz > 0 && dest == nullptr) throw Error(MPI_ERR_ARG, "dest is NULL");
    const std::vector<int> counts = copy_counts(sendcounts, send_nnz, "sendcounts");
    const std::vector<int> displs = copy_counts(sdispls, send_nnz, "sdispls");
    const DatatypeLayout send_layout = DatatypeLayout::of_communicable(sendtype, "sendtype", comm.self());
    DatatypeLayout::of_communicable(recvtype, "recvtype", comm.self());
    check_buffer(sendvals, counts, send_layout.size, "sendvals");
    for (int i = 0; i < send_nnz; ++i) {
      if (dest[i] == MPI_PROC_NULL) continue;  // as MPI's sends: nothing goes there
      if (dest[i] < 0 || dest[i] >= size)
        throw Error(MPI_ERR_RANK, at("dest", i) + " = " + std::to_string(dest[i]) +
                                      " is not a rank of the communicator (size " + std::to_string(size) + ")");
      messages.push_back({dest[i],
                          static_cast<const char*>(sendvals) +
                              static_cast<MPI_Aint>(displs[static_cast<std::size_t>(i)]) * send_layout.extent,
                          counts[static_cast<std::size_t>(i)]});
    }
  });
  return messages;
}

}  // namespace mpix
