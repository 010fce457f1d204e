// The object behind the C API's MPIX_Win, shared by the window and
// memory-handle halves of the C API.
#pragma once

#include <memory>

#include "rma/window_handle.hpp"
#include "capi/guard.hpp"
#include "src/library.hpp"

struct MPIX_Win : mpix::Resource {
  explicit MPIX_Win(std::unique_ptr<mpix::WindowHandle> h) : handle(std::move(h)) {}
  ~MPIX_Win() override {
    if (handle && !handle->is_original()) --handle->window()->dependents;
  }
  std::unique_ptr<mpix::WindowHandle> handle;
};

namespace mpix {

inline MPI_Comm comm_of(const MPIX_Win* win) {
  return is_live(win) ? win->handle->comm()->user() : MPI_COMM_NULL;
}

inline WindowHandle& handle_of(MPIX_Win* win) { return *live(win, MPI_ERR_WIN, "win", "MPIX_Win").handle; }

inline MPIX_Win* adopt(std::unique_ptr<WindowHandle> handle) {
  if (!handle->is_original()) ++handle->window()->dependents;
  return Library::get().adopt(std::make_unique<MPIX_Win>(std::move(handle)));
}

}  // namespace mpix
