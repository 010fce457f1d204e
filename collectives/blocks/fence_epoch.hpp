// Active target with fences (paper Algorithm 1): the fence at Start is a
// barrier, so every target has started before any put; the fence at Wait
// completes every put and tells each rank that its sources are done.
#pragma once

#include "collectives/blocks/rma_alltoallv.hpp"

namespace mpix {

class FenceAlltoallv final : public RmaAlltoallv {
 public:
  FenceAlltoallv(const AlltoallvArgs& args, Path path) : RmaAlltoallv(args, path) {}

 private:
  void open() override { window().fence(MPI_MODE_NOPRECEDE); }
  void begin_close() override { window().ifence_begin(MPI_MODE_NOSUCCEED); }
  bool poll_close() override { return window().test_fence(); }
  void finish_close() override { window().activate(); }
};

}  // namespace mpix
