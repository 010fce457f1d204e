// Windows for the RMA tests: every kind the library creates, with memory the
// test can read back.
#pragma once

#include <string>
#include <vector>

#include "tests/mpi_test.hpp"

namespace mpix_test {

enum class WinKind { created, allocated, dynamic };

inline const char* kind_name(WinKind k) {
  switch (k) {
    case WinKind::created: return "created";
    case WinKind::allocated: return "allocated";
    case WinKind::dynamic: return "dynamic";
  }
  return "?";
}

// A window of `ints` ints per rank. For dynamic windows the memory is
// attached and its address published, so disp() gives every rank's target
// displacement of element i.
class TestWindow {
 public:
  TestWindow(WinKind kind, int ints, const std::vector<std::pair<std::string, std::string>>& hints = {})
      : kind_(kind), ints_(ints) {
    MPIX_Comm_init(&comm_, MPI_COMM_WORLD);
    MPIX_Info* info = nullptr;
    MPIX_Info_init(&info);
    for (const auto& [k, v] : hints) MPIX_Info_set(info, k.c_str(), v.c_str());
    const MPI_Aint bytes = static_cast<MPI_Aint>(ints) * sizeof(int);
    if (kind == WinKind::allocated) {
      rc_ = MPIX_Win_allocate(bytes, sizeof(int), info, comm_, &base_, &win_);
    } else {
      own_.assign(ints, 0);
      base_ = own_.data();
      if (kind == WinKind::created) {
        rc_ = MPIX_Win_create(base_, bytes, sizeof(int), info, comm_, &win_);
      } else {
        rc_ = MPIX_Win_create_dynamic(info, comm_, &win_);
        if (rc_ == MPI_SUCCESS) rc_ = MPIX_Win_attach(win_, base_, bytes);
      }
    }
    MPIX_Info_free(&info);
    MPI_Aint mine = 0;
    MPI_Get_address(base_, &mine);
    addresses_.resize(world_size());
    MPI_Allgather(&mine, 1, MPI_AINT, addresses_.data(), 1, MPI_AINT, MPI_COMM_WORLD);
  }
  ~TestWindow() {
    if (kind_ == WinKind::dynamic && win_ != nullptr) MPIX_Win_detach(win_, base_);
    MPIX_Win_free(&win_);
    MPIX_Comm_free(&comm_);
  }

  int status() const { return rc_; }
  MPIX_Win* win() const { return win_; }
  MPIX_Comm* comm() const { return comm_; }
  int* memory() const { return static_cast<int*>(base_); }
  int ints() const { return ints_; }
  // Displacement of element i of rank's window in MPIX_Put's terms.
  MPI_Aint disp(int rank, int i) const {
    return kind_ == WinKind::dynamic ? addresses_[rank] + static_cast<MPI_Aint>(i) * sizeof(int) : i;
  }
  // Reads element i of this rank's window as other processes wrote it.
  int load(int i) const { return __atomic_load_n(&memory()[i], __ATOMIC_ACQUIRE); }

 private:
  WinKind kind_;
  int ints_;
  MPIX_Comm* comm_ = nullptr;
  MPIX_Win* win_ = nullptr;
  void* base_ = nullptr;
  std::vector<int> own_;
  std::vector<MPI_Aint> addresses_;
  int rc_ = MPI_SUCCESS;
};

}  // namespace mpix_test
