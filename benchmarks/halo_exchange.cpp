#include "benchmarks/halo_exchange.hpp"

#include <algorithm>
#include <numeric>

namespace {

// x_j as every rank knows it: validation needs no communication.
double x_value(long column) { return 0.5 * static_cast<double>(column) + 1.0; }

// First index of each of `parts` contiguous blocks of n, plus n.
std::vector<long> block_starts(long n, int parts) {
  std::vector<long> starts(parts + 1);
  for (int k = 0; k <= parts; ++k) starts[k] = n * k / parts;
  return starts;
}

int owner(const std::vector<long>& starts, long index) {
  return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), index) - starts.begin()) - 1;
}

std::vector<int> prefix(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size(), 0);
  std::partial_sum(counts.begin(), counts.end() - 1, displs.begin() + 1);
  return displs;
}

std::size_t doubles(const std::vector<int>& counts) {
  return static_cast<std::size_t>(std::max(1L, std::accumulate(counts.begin(), counts.end(), 0L))) * sizeof(double);
}

}  // namespace

HaloExchange::HaloExchange(const SparsePattern& matrix, int iterations, bool mpix_memory)
    : iterations_(iterations) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  const std::vector<long> row_starts = block_starts(matrix.rows, size_);
  const std::vector<long> col_starts = block_starts(matrix.cols, size_);

  // The columns my rows reference that other ranks own, ascending, so they
  // come grouped by owner.
  std::vector<char> referenced(static_cast<std::size_t>(matrix.cols), 0);
  for (long j = 0; j < matrix.cols; ++j)
    for (long k = matrix.col_start[j]; k < matrix.col_start[j + 1]; ++k) {
      const long row = matrix.row_index[k];
      if (row >= row_starts[rank_] && row < row_starts[rank_ + 1]) referenced[j] = 1;
    }
  recvcounts_.assign(size_, 0);
  for (long j = 0; j < matrix.cols; ++j) {
    const int from = owner(col_starts, j);
    if (!referenced[j] || from == rank_) continue;
    needed_.push_back(j);
    ++recvcounts_[from];
  }
  rdispls_ = prefix(recvcounts_);

  // Each owner learns which of its entries to send.
  sendcounts_.assign(size_, 0);
  MPI_Alltoall(recvcounts_.data(), 1, MPI_INT, sendcounts_.data(), 1, MPI_INT, MPI_COMM_WORLD);
  sdispls_ = prefix(sendcounts_);
  std::vector<long> to_send(static_cast<std::size_t>(std::accumulate(sendcounts_.begin(), sendcounts_.end(), 0L)));
  MPI_Alltoallv(needed_.data(), recvcounts_.data(), rdispls_.data(), MPI_LONG, to_send.data(), sendcounts_.data(),
                sdispls_.data(), MPI_LONG, MPI_COMM_WORLD);

  send_ = std::make_unique<mpix_timing::Buffer>(doubles(sendcounts_), mpix_memory);
  recv_ = std::make_unique<mpix_timing::Buffer>(doubles(recvcounts_), mpix_memory);
  auto* x = reinterpret_cast<double*>(send_->data());
  for (std::size_t k = 0; k < to_send.size(); ++k) x[k] = x_value(to_send[k]);
}

bool HaloExchange::received_correctly() const {
  const auto* x = reinterpret_cast<const double*>(recv_->data());
  for (std::size_t k = 0; k < needed_.size(); ++k)
    if (x[k] != x_value(needed_[k])) return false;
  return true;
}

long HaloExchange::bytes_sent() const {
  return std::accumulate(sendcounts_.begin(), sendcounts_.end(), 0L) * static_cast<long>(sizeof(double));
}

long HaloExchange::bytes_received() const {
  return std::accumulate(recvcounts_.begin(), recvcounts_.end(), 0L) * static_cast<long>(sizeof(double));
}

int HaloExchange::targets() const {
  return static_cast<int>(std::count_if(sendcounts_.begin(), sendcounts_.end(), [](int c) { return c > 0; }));
}

int HaloExchange::sources() const {
  return static_cast<int>(std::count_if(recvcounts_.begin(), recvcounts_.end(), [](int c) { return c > 0; }));
}

HaloGraph::HaloGraph(const HaloExchange& halo) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> sources, destinations;
  for (int r = 0; r < size; ++r) {
    if (halo.recvcounts()[r] > 0) {
      sources.push_back(r);
      recvcounts_.push_back(halo.recvcounts()[r]);
      rdispls_.push_back(halo.rdispls()[r]);
    }
    if (halo.sendcounts()[r] > 0) {
      destinations.push_back(r);
      sendcounts_.push_back(halo.sendcounts()[r]);
      sdispls_.push_back(halo.sdispls()[r]);
    }
  }
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(sources.size()), sources.data(), MPI_UNWEIGHTED,
                                 static_cast<int>(destinations.size()), destinations.data(), MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &comm_);
}

int HaloGraph::init(const HaloExchange& halo, MPIX_Comm* comm, MPIX_Info* info, MPIX_Request** request) const {
  return MPIX_Neighbor_alltoallv_init(halo.send(), sendcounts_.data(), sdispls_.data(), halo.type(), halo.recv(),
                                      recvcounts_.data(), rdispls_.data(), halo.type(), comm, info, request);
}
