// The shared body of the RMA Alltoallv algorithms: the plan, a window over
// the receive buffer, and the put loop. An algorithm is only its epoch:
//  - open(): when it returns, every target of this rank has called Start for
//    this iteration, so its receive buffer is free to write (the paper's
//    self-lock and fences exist for this; the user owns recvbuf between Wait
//    and the next Start);
//  - close: once it completes, the data of every source is in this rank's
//    receive buffer. begin_close() starts it without waiting for any peer,
//    poll_close() completes it when it can (MPIX_Test), finish_close() blocks.
#pragma once

#include <memory>
#include <vector>

#include "collectives/blocks/args.hpp"
#include "collectives/blocks/put_plan.hpp"
#include "rma/window_pool.hpp"

namespace mpix {

// The window over this rank's receive buffer (window_bytes of it) that an
// algorithm putting into receive buffers uses: the communicator's pooled
// one when every rank holds it, else one created now. Collective.
WindowPool::Entry receive_window(const AlltoallvArgs& args, MPI_Aint window_bytes);

class RmaAlltoallv : public PersistentOperation {
 public:
  // mpi_only: every target through MPI RMA (the paper's algorithms);
  // direct_on_node: on-node targets through the window's direct path.
  enum class Path { mpi_only, direct_on_node };

  RmaAlltoallv(const AlltoallvArgs& args, Path path);
  // Leaves the window, with no epoch open, in the communicator's pool.
  ~RmaAlltoallv() override;

  void start() final;
  bool test() final;
  void wait() final;

 protected:
  virtual void open() = 0;
  virtual void begin_close() = 0;
  virtual bool poll_close() = 0;
  virtual void finish_close() = 0;

  Window& window() { return *pooled_.window; }
  const PutPlan& plan() const { return plan_; }
  static constexpr WinSettings settings{};

 private:
  void put_all();

  AlltoallvArgs args_;
  PutPlan plan_;
  Path path_;
  std::vector<char> in_place_copy_;  // MPI_IN_PLACE: the send blocks, taken at Start
  const char* send_base_ = nullptr;
  WindowPool::Entry pooled_;
  bool closing_ = false;
};

// The registry row's factory: Epoch's algorithm over the given path.
template <class Epoch, RmaAlltoallv::Path path>
std::unique_ptr<PersistentOperation> make_rma_alltoallv(const AlltoallvArgs& args) {
  return std::make_unique<Epoch>(args, path);
}

}  // namespace mpix
