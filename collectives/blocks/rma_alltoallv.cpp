#include "collectives/blocks/rma_alltoallv.hpp"

#include <cstring>

#include "src/library.hpp"

namespace mpix {

WindowPool::Entry receive_window(const AlltoallvArgs& args, MPI_Aint window_bytes) {
  // One window per buffer serves every path: MPICH slows its RMA into a
  // buffer to ~1 GB/s while a second window over it lives, so the MPI-only
  // algorithms force the MPI path per put instead of owning a window of
  // their own.
  const PooledWindowKey key = PooledWindowKey::of(args.recvbuf, window_bytes);
  const std::shared_ptr<WindowPool> pool = args.comm->component<WindowPool>();
  WindowPool::Entry pooled = pool->take(key, args.comm->global());
  if (pooled.window) return pooled;
  void* base = args.recvbuf;
  pooled.key = key;
  pooled.id = pool->next_id();
  pooled.window = std::make_shared<Window>(Window::Kind::created, &base, window_bytes, 1, 1, args.comm,
                                           args.comm->config());
  return pooled;
}

RmaAlltoallv::RmaAlltoallv(const AlltoallvArgs& args, Path path)
    : args_(args), plan_(PutPlan::make(args_)), path_(path), send_base_(static_cast<const char*>(args_.sendbuf)) {
  if (args_.in_place) {
    // Peers write into recvbuf while this rank still sends from it: the
    // send blocks are copied out at Start, before the epoch opens.
    in_place_copy_.resize(static_cast<std::size_t>(plan_.send_extent_bytes));
    send_base_ = in_place_copy_.data();
  }
  pooled_ = receive_window(args_, plan_.window_bytes);
}

RmaAlltoallv::~RmaAlltoallv() { args_.comm->component<WindowPool>()->give_back(std::move(pooled_)); }

void RmaAlltoallv::start() {
  if (!in_place_copy_.empty()) std::memcpy(in_place_copy_.data(), args_.recvbuf, in_place_copy_.size());
  open();
  put_all();
  closing_ = false;
}

bool RmaAlltoallv::test() {
  if (!closing_) begin_close();
  closing_ = true;
  if (!poll_close()) return false;
  closing_ = false;
  return true;
}

void RmaAlltoallv::wait() {
  if (!closing_) begin_close();
  finish_close();
  closing_ = false;
}

void RmaAlltoallv::put_all() {
  for (const PlannedPut& p : plan_.puts) {
    // Both datatypes are contiguous: the target block is count elements of
    // the send type at a byte displacement (disp_unit 1).
    const Transfer t{const_cast<char*>(send_base_ + p.send_offset), p.count, args_.sendtype, p.target,
                     p.target_disp, p.count, args_.sendtype};
    if (path_ == Path::mpi_only)
      pooled_.window->move(Window::Direction::put, settings, t, DirectRoute{});
    else
      pooled_.window->put(settings, t);
  }
}

}  // namespace mpix
