// The SpMV halo exchange of a row-partitioned sparse matrix as one
// Alltoallv (the paper's irregular pattern, §5.1): rows and the x vector
// (over the columns) split in contiguous blocks over the ranks; each rank
// receives, from every other rank, the x entries its rows reference there.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "benchmarks/sparse_pattern.hpp"
#include "tools/alltoallv_timing.hpp"

class HaloExchange final : public mpix_timing::Exchange {
 public:
  // Collective over MPI_COMM_WORLD (exchanges which entries each rank needs).
  HaloExchange(const SparsePattern& matrix, int iterations, bool mpix_memory);

  void* send() const override { return send_->data(); }
  void* recv() const override { return recv_->data(); }
  const int* sendcounts() const override { return sendcounts_.data(); }
  const int* sdispls() const override { return sdispls_.data(); }
  const int* recvcounts() const override { return recvcounts_.data(); }
  const int* rdispls() const override { return rdispls_.data(); }
  MPI_Datatype type() const override { return MPI_DOUBLE; }
  int iterations() const override { return iterations_; }
  int warmup() const override { return std::max(3, iterations_ / 10); }
  void clear_recv() const override { recv_->fill(0xA5); }
  bool received_correctly() const override;

  long bytes_sent() const;
  long bytes_received() const;
  int targets() const;
  int sources() const;

 private:
  int rank_ = 0, size_ = 0, iterations_ = 0;
  std::vector<int> sendcounts_, sdispls_, recvcounts_, rdispls_;
  std::vector<long> needed_;  // global column of each received entry, by source
  std::unique_ptr<mpix_timing::Buffer> send_, recv_;  // sized once the counts are known
};
