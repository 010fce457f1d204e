// The SpMV halo exchange of a row-partitioned sparse matrix as one
// Alltoallv (the paper's irregular pattern, §5.1): rows and the x vector
// (over the columns) split in contiguous blocks over the ranks; each rank
// receives, from every other rank, the x entries its rows reference there.
// HaloGraph is the same exchange as a sparse code writes it: a
// neighbourhood Alltoallv on the distributed graph of the ranks that
// exchange entries, over the same buffers.
#pragma once

#include <mpi.h>
#include <mpix/mpix.h>

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

// The halo's distributed graph: an edge from every rank that sends me
// entries and to every rank I send entries, in rank order (the order of the
// blocks in the buffers), with the Alltoallv's counts and displacements per
// edge. Collective over MPI_COMM_WORLD; frees the communicator.
class HaloGraph {
 public:
  explicit HaloGraph(const HaloExchange& halo);
  ~HaloGraph() { MPI_Comm_free(&comm_); }
  HaloGraph(const HaloGraph&) = delete;
  HaloGraph& operator=(const HaloGraph&) = delete;

  MPI_Comm comm() const { return comm_; }
  // An MPIX_Neighbor_alltoallv_init request over halo's buffers.
  int init(const HaloExchange& halo, MPIX_Comm* comm, MPIX_Info* info, MPIX_Request** request) const;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<int> sendcounts_, sdispls_, recvcounts_, rdispls_;  // per edge
};
