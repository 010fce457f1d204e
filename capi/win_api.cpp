// The C API of windows: argument plumbing over WindowHandle.
#include <mpix/mpix.h>

#include <cstring>

#include "capi/win_api.hpp"
#include "src/agree.hpp"
#include "capi/guard.hpp"
#include "capi/handles.hpp"

using mpix::Error;
using mpix::guarded;
using mpix::Library;
using mpix::require;
using mpix::Transfer;
using mpix::adopt;
using mpix::comm_of;
using mpix::handle_of;

namespace {

// Creation is collective: arguments are agreed on before any MPI window is.
template <class Check, class Make>
int create_window(const char* function, mpix::Window::Kind kind, MPIX_Comm* xcomm, MPIX_Info* info, MPIX_Win** win,
                  Check&& check, Make&& make) {
  return guarded(function, mpix::is_live(xcomm) ? xcomm->comm->global() : MPI_COMM_NULL, [&] {
    mpix::live(xcomm, MPI_ERR_COMM, "xcomm", "MPIX_Comm");
    if (info != nullptr) mpix::live(info, MPI_ERR_INFO, "info", "MPIX_Info");
    const mpix::Config& config = xcomm->comm->config();
    mpix::WinSettings settings;
    // Every argument is checked and agreed before any rank enters the
    // window's collectives: a rank that bailed out of them would leave the
    // others in a creation it never joins.
    mpix::agreed(xcomm->comm->global(), [&] {
      require(win != nullptr, MPI_ERR_ARG, "win is NULL");
      check();
      mpix::Window::check_machine_allows(kind, *xcomm->comm);
      settings = mpix::apply_win_info(info ? &info->info : nullptr, settings);
    });
    const int slots = settings.thread_scope ? config.section<mpix::WindowConfig>().thread_slots : 1;
    std::shared_ptr<mpix::Window> window;
    mpix::agreed(xcomm->comm->global(), [&] { window = make(slots, config); });
    *win = adopt(mpix::make_comm_window_handle(std::move(window), xcomm->comm, settings, true));
  });
}

Transfer transfer(const void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint disp,
                  int target_count, MPI_Datatype target_type) {
  return {const_cast<void*>(origin), origin_count, origin_type, target, disp, target_count, target_type};
}

template <class Call>
int win_call(const char* function, MPIX_Win* win, Call&& call) {
  return guarded(function, [win] { return comm_of(win); }, [&] { call(handle_of(win)); });
}

template <class Call>
int request_call(const char* function, MPIX_Win* win, MPIX_Request** request, Call&& call) {
  return guarded(function, [win] { return comm_of(win); }, [&] {
    require(request != nullptr, MPI_ERR_ARG, "request is NULL");
    std::unique_ptr<mpix::Request> r = call(handle_of(win));
    *request = Library::get().adopt(std::make_unique<MPIX_Request>(std::move(r)));
  });
}

}  // namespace

extern "C" {

int MPIX_Win_create(void* base, MPI_Aint size, int disp_unit, MPIX_Info* info, MPIX_Comm* xcomm, MPIX_Win** win) {
  const auto check = [&] {
    mpix::Window::check_arguments(size, disp_unit);
    require(base != nullptr || size == 0, MPI_ERR_BUFFER, "base is NULL but size = " + std::to_string(size));
  };
  return create_window(__func__, mpix::Window::Kind::created, xcomm, info, win, check,
                       [&](int slots, const mpix::Config& config) {
    void* memory = base;
    return std::make_shared<mpix::Window>(mpix::Window::Kind::created, &memory, size, disp_unit, slots,
                                          xcomm->comm, config);
  });
}

int MPIX_Win_allocate(MPI_Aint size, int disp_unit, MPIX_Info* info, MPIX_Comm* xcomm, void* baseptr,
                      MPIX_Win** win) {
  const auto check = [&] {
    mpix::Window::check_arguments(size, disp_unit);
    require(baseptr != nullptr, MPI_ERR_ARG, "baseptr is NULL");
  };
  return create_window(__func__, mpix::Window::Kind::allocated, xcomm, info, win, check,
                       [&](int slots, const mpix::Config& config) {
    void* memory = nullptr;
    auto w = std::make_shared<mpix::Window>(mpix::Window::Kind::allocated, &memory, size, disp_unit, slots,
                                            xcomm->comm, config);
    *static_cast<void**>(baseptr) = memory;
    return w;
  });
}

int MPIX_Win_create_dynamic(MPIX_Info* info, MPIX_Comm* xcomm, MPIX_Win** win) {
  return create_window(__func__, mpix::Window::Kind::dynamic, xcomm, info, win, [] {},
                       [&](int slots, const mpix::Config& config) {
    void* none = nullptr;
    return std::make_shared<mpix::Window>(mpix::Window::Kind::dynamic, &none, 0, 1, slots, xcomm->comm, config);
  });
}

int MPIX_Win_attach(MPIX_Win* win, void* base, MPI_Aint size) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.attach(base, size); });
}

int MPIX_Win_detach(MPIX_Win* win, const void* base) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.detach(base); });
}

int MPIX_Win_free(MPIX_Win** win) {
  return guarded(__func__, win != nullptr ? comm_of(*win) : MPI_COMM_NULL, [&] {
    require(win != nullptr, MPI_ERR_ARG, "win is NULL");
    if (*win == nullptr) return;
    mpix::WindowHandle& h = handle_of(*win);
    if (h.is_original()) {
      mpix::Window& window = *h.window();
      mpix::agreed(window.comm(), [&] {
        window.epoch().check_alive();
        require(window.epoch().idle() && !window.epoch().exposed(), MPI_ERR_RMA_SYNC,
                "window is freed inside an epoch; close it first");
        require(window.dependents == 0, MPI_ERR_WIN,
                std::to_string(window.dependents.load()) +
                    " duplicate or memory-handle window(s) of it are still alive; free them first");
      });
      window.free();
    }
    Library::get().release(*win);
    *win = nullptr;
  });
}

int MPIX_Win_get_info(const MPIX_Win* win, MPIX_Info** info_used) {
  return guarded(__func__, comm_of(win), [&] {
    require(info_used != nullptr, MPI_ERR_ARG, "info_used is NULL");
    auto info = std::make_unique<MPIX_Info>();
    info->info = handle_of(const_cast<MPIX_Win*>(win)).info();
    *info_used = Library::get().adopt(std::move(info));
  });
}

int MPIX_Win_dup_with_info(MPIX_Win* parentwin, MPIX_Info* info, MPIX_Win** newwin) {
  return win_call(__func__, parentwin, [&](mpix::WindowHandle& parent) {
    require(newwin != nullptr, MPI_ERR_ARG, "newwin is NULL");
    parent.window()->epoch().check_alive();
    // The parent's info, overridden by the new keys.
    const mpix::Info current = parent.info();
    mpix::WinSettings settings = mpix::apply_win_info(&current, {});
    settings = mpix::apply_win_info(info ? &mpix::live(info, MPI_ERR_INFO, "info", "MPIX_Info").info : nullptr, settings);
    *newwin = adopt(mpix::make_comm_window_handle(parent.window(), parent.comm(), settings, false));
  });
}

int MPIX_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) {
    w.put(transfer(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                   target_datatype));
  });
}

int MPIX_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) {
    w.get(transfer(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                   target_datatype));
  });
}

int MPIX_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                    MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) {
    w.accumulate(transfer(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                          target_datatype),
                 op);
  });
}

int MPIX_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win* win,
              MPIX_Request** request) {
  return request_call(__func__, win, request, [&](mpix::WindowHandle& w) {
    return w.rput(transfer(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                           target_datatype),
                  false);
  });
}

int MPIX_Rrput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPIX_Win* win,
               MPIX_Request** request) {
  return request_call(__func__, win, request, [&](mpix::WindowHandle& w) {
    return w.rput(transfer(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                           target_datatype),
                  true);
  });
}

int MPIX_Win_fence(int assert, MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.fence(assert); });
}
int MPIX_Win_post(MPI_Group group, int assert, MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.post(group, assert); });
}
int MPIX_Win_start(MPI_Group group, int assert, MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.start(group, assert); });
}
int MPIX_Win_complete(MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.complete(); });
}
int MPIX_Win_wait(MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.wait(); });
}
int MPIX_Win_lock(int lock_type, int rank, int assert, MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.lock(lock_type, rank, assert); });
}
int MPIX_Win_unlock(int rank, MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.unlock(rank); });
}
int MPIX_Win_lock_all(int assert, MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.lock_all(assert); });
}
int MPIX_Win_unlock_all(MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.unlock_all(); });
}
int MPIX_Win_flush(int rank, MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.flush(rank, false); });
}
int MPIX_Win_flush_all(MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.flush_all(false); });
}
int MPIX_Win_flush_local(int rank, MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.flush(rank, true); });
}
int MPIX_Win_flush_local_all(MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.flush_all(true); });
}
int MPIX_Win_sync(MPIX_Win* win) {
  return win_call(__func__, win, [&](mpix::WindowHandle& w) { w.sync(); });
}

int MPIX_Win_ifence(int assert, MPIX_Win* win, MPIX_Request** request) {
  return request_call(__func__, win, request, [&](mpix::WindowHandle& w) { return w.ifence(assert); });
}
int MPIX_Win_icomplete(MPIX_Win* win, MPIX_Request** request) {
  return request_call(__func__, win, request, [&](mpix::WindowHandle& w) { return w.icomplete(); });
}
int MPIX_Win_iwait(MPIX_Win* win, MPIX_Request** request) {
  return request_call(__func__, win, request, [&](mpix::WindowHandle& w) { return w.iwait(); });
}
int MPIX_Win_iflush(int rank, MPIX_Win* win, MPIX_Request** request) {
  return request_call(__func__, win, request, [&](mpix::WindowHandle& w) {
    w.flush(rank, false);
    return mpix::completed_request(w.comm(), "iflush");
  });
}
int MPIX_Win_iflush_all(MPIX_Win* win, MPIX_Request** request) {
  return request_call(__func__, win, request, [&](mpix::WindowHandle& w) {
    w.flush_all(false);
    return mpix::completed_request(w.comm(), "iflush_all");
  });
}
int MPIX_Win_iflush_local(int rank, MPIX_Win* win, MPIX_Request** request) {
  return request_call(__func__, win, request, [&](mpix::WindowHandle& w) {
    w.flush(rank, true);
    return mpix::completed_request(w.comm(), "iflush_local");
  });
}
int MPIX_Win_iunlock_all(MPIX_Win* win, MPIX_Request** request) {
  return request_call(__func__, win, request, [&](mpix::WindowHandle& w) {
    w.unlock_all();
    return mpix::completed_request(w.comm(), "iunlock_all");
  });
}

}  // extern "C"
