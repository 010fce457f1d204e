// Beyond the paper: synchronization with only the ranks this one exchanges
// data with. Start posts an exposure epoch to the sources and starts an
// access epoch to the targets (a zero-byte token from each target says it
// has started); Wait completes (flush + a "done" token to each target) and
// waits for the sources' tokens. A sparse halo exchange pays for its
// neighbours, not for a barrier over the whole communicator. On-node targets
// take the direct path.
#include <vector>

#include "collectives/blocks/rma_alltoallv.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

class PscwAlltoallv final : public RmaAlltoallv {
 public:
  PscwAlltoallv(const AlltoallvArgs& args, Path path) : RmaAlltoallv(args, path) {
    receives_.reserve(2 * plan().sources.size());
  }

 private:
  void open() override {
    window().post(plan().sources, 0);
    window().start(plan().targets, 0);
  }
  void begin_close() override {
    window().icomplete_begin();
    window().iwait_begin(receives_);
    completed_ = false;
  }
  bool poll_close() override {
    completed_ = completed_ || window().test_complete();
    int received = 0;
    mpi_check(MPI_Testall(static_cast<int>(receives_.size()), receives_.data(), &received, MPI_STATUSES_IGNORE),
              "MPI_Testall");
    if (!completed_ || !received) return false;
    window().after_remote_writes();
    return true;
  }
  void finish_close() override {
    window().wait_complete();
    mpi_check(MPI_Waitall(static_cast<int>(receives_.size()), receives_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    window().after_remote_writes();
  }

  std::vector<MPI_Request> receives_;
  bool completed_ = false;
};

}  // namespace

namespace block_rows {
extern const AlltoallvAlgorithm pscw{
    "pscw", "beyond the paper: post/start/complete/wait with the ranks it exchanges data with only; direct on-node copies",
    runs_any_arguments, make_rma_alltoallv<PscwAlltoallv, RmaAlltoallv::Path::direct_on_node>};
}  // namespace block_rows

}  // namespace mpix
