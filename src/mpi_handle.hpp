// RAII owners for MPI handles: one owner per handle, freed in the destructor.
// Traits rather than template values, because Open MPI's null handles are
// addresses of globals and not constant expressions.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <utility>

namespace mpix {

template <class Traits>
class UniqueHandle {
 public:
  using Handle = typename Traits::Handle;

  UniqueHandle() = default;
  explicit UniqueHandle(Handle h) : h_(h) {}
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  UniqueHandle(UniqueHandle&& o) noexcept : h_(std::exchange(o.h_, Traits::null())) {}
  UniqueHandle& operator=(UniqueHandle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, Traits::null());
    }
    return *this;
  }
  ~UniqueHandle() { reset(); }

  Handle get() const { return h_; }
  // For MPI calls that create the handle: MPI_Comm_dup(c, owner.out()).
  Handle* out() {
    reset();
    return &h_;
  }
  explicit operator bool() const { return h_ != Traits::null(); }

  void reset() {
    if (h_ == Traits::null()) return;
    // A destructor cannot return a code; a failed free means MPI is already
    // unusable, so say so rather than drop it silently.
    if (Traits::free(&h_) != MPI_SUCCESS) std::fprintf(stderr, "mpix-rma: %s failed\n", Traits::free_name);
    h_ = Traits::null();
  }

 private:
  Handle h_ = Traits::null();
};

struct CommTraits {
  using Handle = MPI_Comm;
  static Handle null() { return MPI_COMM_NULL; }
  static int free(Handle* h) { return MPI_Comm_free(h); }
  static constexpr const char* free_name = "MPI_Comm_free";
};
struct RequestTraits {
  using Handle = MPI_Request;
  static Handle null() { return MPI_REQUEST_NULL; }
  static int free(Handle* h) { return MPI_Request_free(h); }
  static constexpr const char* free_name = "MPI_Request_free";
};
struct ErrhandlerTraits {
  using Handle = MPI_Errhandler;
  static Handle null() { return MPI_ERRHANDLER_NULL; }
  static int free(Handle* h) { return MPI_Errhandler_free(h); }
  static constexpr const char* free_name = "MPI_Errhandler_free";
};

struct WinTraits {
  using Handle = MPI_Win;
  static Handle null() { return MPI_WIN_NULL; }
  static int free(Handle* h) { return MPI_Win_free(h); }
  static constexpr const char* free_name = "MPI_Win_free";
};
struct InfoTraits {
  using Handle = MPI_Info;
  static Handle null() { return MPI_INFO_NULL; }
  static int free(Handle* h) { return MPI_Info_free(h); }
  static constexpr const char* free_name = "MPI_Info_free";
};
struct GroupTraits {
  using Handle = MPI_Group;
  static Handle null() { return MPI_GROUP_NULL; }
  static int free(Handle* h) { return MPI_Group_free(h); }
  static constexpr const char* free_name = "MPI_Group_free";
};

using UniqueComm = UniqueHandle<CommTraits>;
using UniqueWin = UniqueHandle<WinTraits>;
using UniqueInfo = UniqueHandle<InfoTraits>;
using UniqueGroup = UniqueHandle<GroupTraits>;
using UniqueRequest = UniqueHandle<RequestTraits>;
using UniqueErrhandler = UniqueHandle<ErrhandlerTraits>;

}  // namespace mpix
