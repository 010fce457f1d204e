// One persistent request of the MPI (its own persistent collectives), owned:
// started, tested and waited for as an operation is. The rows that run
// MPI's persistent calls keep one, declared after the arguments MPI reads
// until the request is freed, so that it is freed first.
#pragma once

#include <mpi.h>

#include "src/error.hpp"
#include "src/mpi_handle.hpp"

namespace mpix {

class PersistentMpiRequest {
 public:
  MPI_Request* out() { return request_.out(); }
  void start() {
    MPI_Request r = request_.get();
    mpi_check(MPI_Start(&r), "MPI_Start");
  }
  bool test() {
    MPI_Request r = request_.get();
    int flag = 0;
    mpi_check(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    return flag != 0;
  }
  void wait() {
    MPI_Request r = request_.get();
    mpi_check(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
  }

 private:
  UniqueRequest request_;
};

}  // namespace mpix
