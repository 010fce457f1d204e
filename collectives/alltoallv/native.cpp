// Baseline: MPI_Alltoallv itself, called in Start (blocking, as applications
// call it today); Wait has nothing left to do.
#include "collectives/alltoallv_args.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

class NativeAlltoallv final : public PersistentOperation {
 public:
  explicit NativeAlltoallv(const AlltoallvArgs& args) : args_(args) {}

  void start() override {
    mpi_check(MPI_Alltoallv(args_.mpi_sendbuf(), args_.sendcounts.data(), args_.sdispls.data(), args_.sendtype,
                            args_.recvbuf, args_.recvcounts.data(), args_.rdispls.data(), args_.recvtype,
                            args_.comm->global()),
              "MPI_Alltoallv");
  }
  bool test() override { return true; }
  void wait() override {}
  void rebind(const void* sendbuf, void* recvbuf) override { args_.move_buffers(sendbuf, recvbuf); }

 private:
  AlltoallvArgs args_;
};

}  // namespace

namespace algorithms {
extern const AlltoallvAlgorithm native{
    "native", "MPI_Alltoallv called in every Start (the non-persistent baseline)",
    runs_any_arguments, make_operation<NativeAlltoallv>};
}  // namespace algorithms

}  // namespace mpix
