// Baseline: the MPI's own persistent collective (MPI-4's MPI_Alltoallv_init
// or, for uniform blocks, MPI_Alltoall_init; Open MPI 4.1's extensions of
// them) once, then MPI_Start / MPI_Test / MPI_Wait. Refused where the MPI
// has none.
#include "collectives/blocks/args.hpp"
#include "collectives/persistent_mpi_request.hpp"
#include "src/error.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

namespace {

class NativePersistentExchange final : public PersistentOperation {
 public:
  explicit NativePersistentExchange(const AlltoallvArgs& args) : args_(args) {
    // MPI reads the count and displacement arrays until the request is freed:
    // they point into args_, which lives exactly as long as request_.
    if (args_.uniform) {
      mpi_check(mpi_implementation::persistent_alltoall()(args_.mpi_sendbuf(), args_.sendcounts[0], args_.sendtype,
                                                          args_.recvbuf, args_.recvcounts[0], args_.recvtype,
                                                          args_.comm->global(), MPI_INFO_NULL, request_.out()),
                "MPI_Alltoall_init");
      return;
    }
    mpi_check(mpi_implementation::persistent_alltoallv()(
                  args_.mpi_sendbuf(), args_.sendcounts.data(), args_.sdispls.data(), args_.sendtype, args_.recvbuf,
                  args_.recvcounts.data(), args_.rdispls.data(), args_.recvtype, args_.comm->global(), MPI_INFO_NULL,
                  request_.out()),
              "MPI_Alltoallv_init");
  }

  void start() override { request_.start(); }
  bool test() override { return request_.test(); }
  void wait() override { request_.wait(); }

 private:
  AlltoallvArgs args_;
  PersistentMpiRequest request_;  // freed before args_, whose arrays MPI reads
};

std::optional<std::string> without_persistent_call(const AlltoallvArgs& args) {
  if (args.uniform)
    return mpi_implementation::persistent_alltoall() != nullptr
               ? std::nullopt
               : std::optional<std::string>(mpi_implementation::persistent_alltoall_why_not());
  return mpi_implementation::persistent_alltoallv() != nullptr
             ? std::nullopt
             : std::optional<std::string>(mpi_implementation::persistent_alltoallv_why_not());
}

}  // namespace

namespace algorithms {
extern const AlltoallvAlgorithm native_persistent{
    "native_persistent",
    "MPI_Alltoallv_init (MPI_Alltoall_init for uniform blocks) once, MPI_Start/MPI_Wait per iteration (MPI-4 "
    "persistent collective)",
    without_persistent_call, make_operation<NativePersistentExchange>};
}  // namespace algorithms

}  // namespace mpix
