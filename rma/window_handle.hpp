// What an MPIX_Win handle is: a table of operations (as Open MPI's osc
// components are), implemented by windows over a communicator and their
// duplicates (window_handle_comm.cpp) and by memory-handle windows, which allow
// only data movement and flushes.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rma/window.hpp"
#include "src/info.hpp"
#include "src/request.hpp"

namespace mpix {

inline constexpr const char* info_key_scope = "mpi_win_scope";
inline constexpr const char* info_key_order = "mpi_win_order";

// Applies the scope/order keys of info on top of base; MPI_ERR_INFO_VALUE on
// a value that is not accepted.
WinSettings apply_win_info(const Info* info, WinSettings base);

class WindowHandle {
 public:
  virtual ~WindowHandle() = default;

  virtual void put(const Transfer& t) = 0;
  virtual void get(const Transfer& t) = 0;
  virtual void accumulate(const Transfer& t, MPI_Op op) = 0;
  // Local completion (remote = false) or remote completion (true).
  virtual std::unique_ptr<Request> rput(const Transfer& t, bool remote) = 0;
  virtual void flush(int target, bool local) = 0;
  virtual void flush_all(bool local) = 0;

  virtual void fence(int assert) = 0;
  virtual void post(MPI_Group group, int assert) = 0;
  virtual void start(MPI_Group group, int assert) = 0;
  virtual void complete() = 0;
  virtual void wait() = 0;
  virtual void lock(int lock_type, int target, int assert) = 0;
  virtual void unlock(int target) = 0;
  virtual void lock_all(int assert) = 0;
  virtual void unlock_all() = 0;
  virtual void sync() = 0;

  virtual std::unique_ptr<Request> ifence(int assert) = 0;
  virtual std::unique_ptr<Request> icomplete() = 0;
  virtual std::unique_ptr<Request> iwait() = 0;

  virtual void attach(void* base, MPI_Aint size) = 0;
  virtual void detach(const void* base) = 0;

  // The effective info: what the window really does, not what was asked.
  virtual Info info() const = 0;
  virtual const std::shared_ptr<Window>& window() const = 0;
  virtual std::shared_ptr<const Comm> comm() const = 0;
  // Collective windows: freeing the original frees the MPI windows.
  virtual bool is_original() const = 0;
};

// A window over a communicator, or a duplicate of one (same Window, own
// settings).
std::unique_ptr<WindowHandle> make_comm_window_handle(std::shared_ptr<Window> window, std::shared_ptr<const Comm> comm,
                                               WinSettings settings, bool original);

// A request already complete (operations that went the direct path).
std::unique_ptr<Request> completed_request(std::shared_ptr<const Comm> comm, const char* name);
// A request that completes when every MPI request does, then runs finish.
std::unique_ptr<Request> mpi_requests(std::shared_ptr<const Comm> comm, const char* name,
                                      std::vector<MPI_Request> requests, std::function<void()> finish);
// A request completed by test() returning true or by wait().
std::unique_ptr<Request> activation_request(std::shared_ptr<const Comm> comm, const char* name,
                                            std::function<bool()> test, std::function<void()> wait);

}  // namespace mpix
