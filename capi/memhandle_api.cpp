// The C API of memory handles and of shareable memory (MPIX_Alloc_mem).
#include <mpix/mpix.h>

#include <cstring>

#include "capi/win_api.hpp"
#include "rma/memhandle.hpp"
#include "capi/handles.hpp"

using mpix::guarded;
using mpix::require;

static_assert(sizeof(mpix::MemhandleData) <= MPIX_MAX_MEMHANDLE_SIZE, "MPIX_MAX_MEMHANDLE_SIZE is too small");

extern "C" {

int MPIX_Alloc_mem(MPI_Aint size, MPIX_Info* info, void* baseptr) {
  (void)info;  // no hints are defined yet; accepted for MPI_Alloc_mem's signature
  return guarded(__func__, MPI_COMM_NULL, [&] {
    require(baseptr != nullptr, MPI_ERR_ARG, "baseptr is NULL");
    require(size >= 0, MPI_ERR_SIZE, "size = " + std::to_string(size) + " is negative");
    *static_cast<void**>(baseptr) = mpix::NodeMemory::get().allocate(static_cast<std::size_t>(size));
  });
}

int MPIX_Free_mem(void* base) {
  return guarded(__func__, MPI_COMM_NULL, [&] {
    require(mpix::NodeMemory::get().deallocate(base), MPI_ERR_BASE,
            "base is not memory from MPIX_Alloc_mem (or was freed already)");
  });
}

int MPIX_Memhandle_create(void* base, MPI_Aint size, MPIX_Info* info, MPIX_Win* parentwin, void* memhandle,
                          int* memhandle_size) {
  (void)info;
  return guarded(__func__, mpix::comm_of(parentwin), [&] {
    mpix::WindowHandle& parent = mpix::handle_of(parentwin);
    require(memhandle != nullptr && memhandle_size != nullptr, MPI_ERR_ARG, "memhandle or memhandle_size is NULL");
    require(parent.is_original(), MPI_ERR_WIN, "parentwin is a duplicate or a memory-handle window");
    const mpix::MemhandleData h = mpix::create_memhandle(*parent.window(), base, size);
    std::memcpy(memhandle, &h, sizeof h);
    *memhandle_size = static_cast<int>(sizeof h);
  });
}

int MPIX_Win_from_memhandle(const void* memhandle, MPI_Aint size, int disp_unit, MPIX_Info* info, int target,
                            MPIX_Win* parentwin, MPIX_Win** newwin) {
  return guarded(__func__, mpix::comm_of(parentwin), [&] {
    mpix::WindowHandle& parent = mpix::handle_of(parentwin);
    require(newwin != nullptr, MPI_ERR_ARG, "newwin is NULL");
    const mpix::MemhandleData h = mpix::read_memhandle(memhandle, *parent.window());
    const mpix::WinSettings settings = mpix::apply_win_info(info ? &info->info : nullptr, {});
    *newwin = mpix::adopt(
        mpix::make_memhandle_win(parent.window(), parent.comm(), settings, h, size, disp_unit, target));
  });
}

int MPIX_Memhandle_release(void* memhandle, MPIX_Win* parentwin) {
  return guarded(__func__, mpix::comm_of(parentwin), [&] {
    mpix::WindowHandle& parent = mpix::handle_of(parentwin);
    mpix::release_memhandle(*parent.window(), mpix::read_memhandle(memhandle, *parent.window()));
  });
}

}  // extern "C"
