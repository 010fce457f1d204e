// Baseline: the MPI's own call, in Start (blocking, as applications call it
// today): MPI_Alltoall for uniform blocks (the Alltoall family's requests),
// MPI_Alltoallv otherwise; Wait has nothing left to do.
#include "collectives/blocks/args.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

class NativeExchange final : public PersistentOperation {
 public:
  explicit NativeExchange(const AlltoallvArgs& args) : args_(args) {}

  void start() override {
    if (args_.uniform) {  // every block the same: block 0's count is the call's
      mpi_check(MPI_Alltoall(args_.mpi_sendbuf(), args_.sendcounts[0], args_.sendtype, args_.recvbuf,
                             args_.recvcounts[0], args_.recvtype, args_.comm->global()),
                "MPI_Alltoall");
      return;
    }
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
    "native", "MPI_Alltoallv (MPI_Alltoall for uniform blocks) called in every Start (the non-persistent baseline)",
    runs_any_arguments, make_operation<NativeExchange>};
}  // namespace algorithms

}  // namespace mpix
