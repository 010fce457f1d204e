// MPIX_Win over a communicator (created, allocated, dynamic) and its
// duplicates: every call checks the epoch, then goes to the shared Window
// with this handle's settings.
#include "rma/window_handle.hpp"
#include "src/error.hpp"

namespace mpix {

namespace {

class CommWindowHandle final : public WindowHandle {
 public:
  CommWindowHandle(std::shared_ptr<Window> window, std::shared_ptr<const Comm> comm, WinSettings settings, bool original)
      : window_(std::move(window)), comm_(std::move(comm)), settings_(settings), original_(original) {
    // A window with one MPI window per process cannot give thread scope:
    // the effective value stays process, and get_info says so.
    if (window_->thread_slots() == 1) settings_.thread_scope = false;
  }

  void put(const Transfer& t) override { window_->put(settings_, t); }
  void get(const Transfer& t) override { window_->get(settings_, t); }
  void accumulate(const Transfer& t, MPI_Op op) override { window_->accumulate(settings_, t, op); }

  std::unique_ptr<Request> rput(const Transfer& t, bool remote) override {
    MPI_Request r = window_->rput(settings_, t);
    if (r == MPI_REQUEST_NULL) return completed_request(comm_, remote ? "rrput" : "rput");
    std::function<void()> finish;
    if (remote) {
      // Remote completion: once the put completed locally, one flush of its
      // target completes it at the target.
      finish = [w = window_, s = settings_, target = t.target] { w->flush(s, target, false); };
    }
    return mpi_requests(comm_, remote ? "rrput" : "rput", {r}, std::move(finish));
  }
  void flush(int target, bool local) override { window_->flush(settings_, target, local); }
  void flush_all(bool local) override { window_->flush_all(settings_, local); }

  void fence(int assert) override { window_->fence(assert); }
  void post(MPI_Group group, int assert) override { window_->post(window_->ranks_of(group), assert); }
  void start(MPI_Group group, int assert) override { window_->start(window_->ranks_of(group), assert); }
  void complete() override { window_->complete(); }
  void wait() override { window_->wait(); }
  void lock(int lock_type, int target, int assert) override { window_->lock(lock_type, target, assert); }
  void unlock(int target) override { window_->unlock(target); }
  void lock_all(int assert) override { window_->lock_all(assert); }
  void unlock_all() override { window_->unlock_all(); }
  void sync() override { window_->sync(); }

  std::unique_ptr<Request> ifence(int assert) override {
    window_->ifence_begin(assert);
    return activation_request(comm_, "ifence", [w = window_] { return w->test_fence(); },
                              [w = window_] { w->activate(); });
  }
  std::unique_ptr<Request> icomplete() override {
    window_->icomplete_begin();
    return activation_request(comm_, "icomplete", [w = window_] { return w->test_complete(); },
                              [w = window_] { w->wait_complete(); });
  }
  std::unique_ptr<Request> iwait() override {
    std::vector<MPI_Request> receives;
    window_->iwait_begin(receives);
    return mpi_requests(comm_, "iwait", std::move(receives), [w = window_] { w->after_remote_writes(); });
  }

  void attach(void* base, MPI_Aint size) override { window_->attach(base, size); }
  void detach(const void* base) override { window_->detach(base); }

  Info info() const override {
    Info info;
    info.set(info_key_scope, settings_.thread_scope ? "thread" : "process");
    info.set(info_key_order, settings_.ordered ? "true" : "false");
    info.set("mpix_paths", window_->paths().c_str());
    if (settings_.ordered) info.set("mpix_ordered_path", window_->ordered_path().c_str());
    return info;
  }
  const std::shared_ptr<Window>& window() const override { return window_; }
  std::shared_ptr<const Comm> comm() const override { return comm_; }
  bool is_original() const override { return original_; }

 private:
  std::shared_ptr<Window> window_;
  std::shared_ptr<const Comm> comm_;
  WinSettings settings_;
  bool original_;
};

}  // namespace

std::unique_ptr<WindowHandle> make_comm_window_handle(std::shared_ptr<Window> window, std::shared_ptr<const Comm> comm,
                                               WinSettings settings, bool original) {
  return std::make_unique<CommWindowHandle>(std::move(window), std::move(comm), settings, original);
}

}  // namespace mpix
