// Requests returned by RMA calls: Rput/Rrput and the nonblocking epochs.
#include "rma/window_handle.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

class Completed final : public PersistentOperation {
 public:
  void start() override {}
  bool test() override { return true; }
  void wait() override {}
};

class MpiRequests final : public PersistentOperation {
 public:
  MpiRequests(std::vector<MPI_Request> requests, std::function<void()> finish)
      : requests_(std::move(requests)), finish_(std::move(finish)) {}
  ~MpiRequests() override {
    for (MPI_Request& r : requests_)
      if (r != MPI_REQUEST_NULL) MPI_Wait(&r, MPI_STATUS_IGNORE);  // never leave MPI work behind
  }
  void start() override {}
  bool test() override {
    int done = 0;
    mpi_check(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
    if (done) finish();
    return done != 0;
  }
  void wait() override {
    mpi_check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
    finish();
  }

 private:
  void finish() {
    if (finish_) std::exchange(finish_, nullptr)();
  }
  std::vector<MPI_Request> requests_;
  std::function<void()> finish_;
};

class Activation final : public PersistentOperation {
 public:
  Activation(std::function<bool()> test, std::function<void()> wait) : test_(std::move(test)), wait_(std::move(wait)) {}
  void start() override {}
  bool test() override { return test_(); }
  void wait() override { wait_(); }

 private:
  std::function<bool()> test_;
  std::function<void()> wait_;
};

}  // namespace

std::unique_ptr<Request> activation_request(std::shared_ptr<const Comm> comm, const char* name,
                                            std::function<bool()> test, std::function<void()> wait) {
  return Request::started(std::move(comm), name, std::make_unique<Activation>(std::move(test), std::move(wait)));
}

std::unique_ptr<Request> completed_request(std::shared_ptr<const Comm> comm, const char* name) {
  return Request::started(std::move(comm), name, std::make_unique<Completed>());
}

std::unique_ptr<Request> mpi_requests(std::shared_ptr<const Comm> comm, const char* name,
                                      std::vector<MPI_Request> requests, std::function<void()> finish) {
  return Request::started(std::move(comm), name, std::make_unique<MpiRequests>(std::move(requests), std::move(finish)));
}

}  // namespace mpix
