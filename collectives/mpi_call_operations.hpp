// MPI's own collective as an operation: the baseline rows of every family
// (native, native_persistent) are one of these over the family's arguments
// and one function that makes the MPI call.
//   BlockingMpiCall<Args, call>    call(args) in every Start, blocking, as
//                                  applications call it today; Wait has
//                                  nothing left to do.
//   PersistentMpiCall<Args, init>  init(args, &request) once (MPI-4's
//                                  persistent collectives, or Open MPI
//                                  4.1's extensions of them), then
//                                  MPI_Start / MPI_Test / MPI_Wait.
// MPI reads the count and displacement arrays of a persistent call until
// its request is freed: they point into the operation's own copy of the
// arguments, which is destroyed after the request.
#pragma once

#include <mpi.h>

#include "src/error.hpp"
#include "src/mpi_handle.hpp"
#include "src/request.hpp"

namespace mpix {

template <class Args, void (*call)(const Args&)>
class BlockingMpiCall final : public PersistentOperation {
 public:
  explicit BlockingMpiCall(const Args& args) : args_(args) {}

  void start() override { call(args_); }
  bool test() override { return true; }
  void wait() override {}
  void rebind(const void* sendbuf, void* recvbuf) override { args_.move_buffers(sendbuf, recvbuf); }

 private:
  Args args_;
};

template <class Args, void (*init)(const Args&, MPI_Request*)>
class PersistentMpiCall final : public PersistentOperation {
 public:
  explicit PersistentMpiCall(const Args& args) : args_(args) { init(args_, request_.out()); }

  void start() override {
    MPI_Request r = request_.get();
    mpi_check(MPI_Start(&r), "MPI_Start");
  }
  bool test() override {
    MPI_Request r = request_.get();
    int flag = 0;
    mpi_check(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    return flag != 0;
  }
  void wait() override {
    MPI_Request r = request_.get();
    mpi_check(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
  }

 private:
  Args args_;
  UniqueRequest request_;  // freed before args_, whose arrays MPI reads
};

}  // namespace mpix
