// GoogleTest main for MPI tests: MPI_THREAD_MULTIPLE (MPI_THREAD_SINGLE
// when TEST_MPI_THREAD_LEVEL=single, for what the library does only
// there), errors returned rather than fatal (tests check them), rank 0
// prints the run, other ranks print only their own failures, and the exit
// code is the same on every rank.
//
// A failure ends the job within seconds: after a failed assertion the
// ranks may disagree on their next collective (one left the test, the
// others wait in it), and the job would sit until CTest's limit. So the
// first failure on a rank starts a watchdog that, unless the process has
// ended by then, ends it after failure_grace_seconds with status 1, which
// makes the launcher end the job.
#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

constexpr int failure_grace_seconds = 10;

// Started by the first failure on this rank; ends the process if it is
// still running failure_grace_seconds later (the other ranks' failures
// print meanwhile).
class FailureWatchdog : public ::testing::EmptyTestEventListener {
 public:
  explicit FailureWatchdog(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed() || started_.exchange(true)) return;
    const int rank = rank_;
    std::thread([rank] {
      std::this_thread::sleep_for(std::chrono::seconds(failure_grace_seconds));
      std::fprintf(stderr, "[rank %d] a test failed %d s ago and the job has not ended: ending it\n", rank,
                   failure_grace_seconds);
      std::fflush(stderr);
      std::fflush(stdout);
      _exit(1);
    }).detach();
  }

 private:
  int rank_;
  std::atomic<bool> started_{false};
};

class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, result.file_name() ? result.file_name() : "?",
                 result.line_number(), result.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  const char* level = std::getenv("TEST_MPI_THREAD_LEVEL");
  const int required = level != nullptr && std::strcmp(level, "single") == 0 ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, required, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  ::testing::InitGoogleTest(&argc, argv);

  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ::testing::UnitTest::GetInstance()->listeners().Append(new FailureWatchdog(rank));
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  int failed = RUN_ALL_TESTS() != 0 || provided < required;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
