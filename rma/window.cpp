// Window: construction, data movement and freeing. Its other concerns live
// beside it: window_paths.cpp (which path reaches each target),
// window_flush.cpp (flush counting), window_active.cpp (fence and
// post/start/complete/wait, blocking and not), window_passive.cpp (lock and
// lock_all epochs).
#include "rma/window.hpp"

#include <sys/random.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>

#include "src/error.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix {

int thread_slot(int slots) {
  static std::atomic<int> next{0};
  thread_local const int mine = next.fetch_add(1);
  return mine % slots;
}

void Window::check_arguments(MPI_Aint size, int disp_unit) {
  if (size < 0) throw Error(MPI_ERR_SIZE, "size = " + std::to_string(size) + " is negative");
  if (disp_unit <= 0) throw Error(MPI_ERR_DISP, "disp_unit = " + std::to_string(disp_unit) + " is not positive");
}

void Window::check_machine_allows(Kind kind, const Comm& comm) {
  if (comm.machine_cma_refused().empty()) return;
  if (kind == Kind::allocated && comm.machine_ranks() == comm.node_size()) return;  // load/store on the machine
  const char* which = kind == Kind::allocated ? "an allocated window whose ranks span emulated nodes of one machine"
                                              : "a window over user memory";
  throw Error(MPI_ERR_UNSUPPORTED_OPERATION,
              std::string("no ") + which + " here: " + mpi_implementation::one_sided_hangs_without_cma() +
                  ", and the kernel refuses it between this machine's processes (" + comm.machine_cma_refused() +
                  "); MPIX_Win_allocate on one node, ptrace access between the processes (dumpable, Yama "
                  "ptrace_scope 0 or 1) or another MPI lets windows work");
}

void Window::throw_rank_out_of_range(int target) {
  throw Error(MPI_ERR_RANK, "rank = " + std::to_string(target) + " out of range");
}

Window::Window(Kind kind, void** base, MPI_Aint size, int disp_unit, int thread_slots,
               std::shared_ptr<const Comm> xcomm, const Config& config)
    : kind_(kind), xcomm_(std::move(xcomm)), cma_min_bytes_(config.section<WindowConfig>().cma_min_bytes),
      node_path_(config.section<WindowConfig>().node_path),
      ptrace_peers_(config.section<NodeConfig>().ptrace_peers),
      epoch_(xcomm_->size()) {
  check_arguments(size, disp_unit);
  mpi_check(MPI_Comm_dup(xcomm_->global(), comm_.out()), "MPI_Comm_dup");
  mpi_check(MPI_Comm_rank(comm(), &rank_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_group(comm(), group_.out()), "MPI_Comm_group");
  if (kind == Kind::dynamic) {
    // The key of the window's memory-handle seals: drawn on rank 0, known
    // to the window's ranks only. Where the kernel has no random source
    // (never on Linux 3.17 and up), the clock still tells windows apart.
    if (rank_ == 0 && getrandom(handle_key_.data(), sizeof handle_key_, 0) != static_cast<ssize_t>(sizeof handle_key_))
      handle_key_ = {static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()),
                     static_cast<std::uint64_t>(getpid())};
    mpi_check(MPI_Bcast(handle_key_.data(), 2, MPI_UINT64_T, 0, comm()), "MPI_Bcast");
  }

  void* memory = kind == Kind::allocated ? nullptr : *base;
  if (kind == Kind::allocated) {
    mpi_check(MPI_Comm_split(comm(), xcomm_->node_id(), rank_, node_comm_.out()), "MPI_Comm_split");
    // Non-contiguous segments start each rank's memory on its own page. With
    // contiguous ones, MPICH 4.0.2 misplaces the MPI_Win_create window we lay
    // over them (puts land 12 bytes off for a 28-byte segment).
    UniqueInfo noncontig;
    mpi_check(MPI_Info_create(noncontig.out()), "MPI_Info_create");
    mpi_check(MPI_Info_set(noncontig.get(), "alloc_shared_noncontig", "true"), "MPI_Info_set");
    mpi_check(MPI_Win_allocate_shared(size, disp_unit, noncontig.get(), node_comm_.get(), &memory, shm_.out()),
              "MPI_Win_allocate_shared");
    mpi_check(MPI_Win_set_errhandler(shm_.get(), MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
    *base = memory;
  }
  // MPICH 4.0.2 (ch4:ucx) places a window created over memory that is not
  // 16-byte aligned at the address rounded down to 16 bytes: every put lands
  // up to 15 bytes early. So MPI windows start at that rounded address
  // themselves, count displacements in bytes, and every MPI-path
  // displacement adds the target's lead (mpi_displacement). Not further
  // down: malloc's blocks are 16-byte aligned, so the window stays inside
  // the buffer's own allocation and cannot overlap another buffer's window
  // (MPICH loses puts into overlapping windows).
  char* const mpi_base = memory == nullptr ? nullptr
                                           : static_cast<char*>(memory) -
                                                 reinterpret_cast<std::uintptr_t>(memory) % mpi_window_alignment;
  mpi_lead_ = memory == nullptr ? 0 : static_cast<char*>(memory) - mpi_base;
  // Windows, as the library's communicators, return MPI's errors (MPI
  // gives a new window MPI_ERRORS_ARE_FATAL, whatever its communicator has).
  auto make = [&](UniqueWin& w) {
    if (kind == Kind::dynamic)
      mpi_check(MPI_Win_create_dynamic(MPI_INFO_NULL, comm(), w.out()), "MPI_Win_create_dynamic");
    else
      mpi_check(MPI_Win_create(mpi_base, size + mpi_lead_, 1, MPI_INFO_NULL, comm(), w.out()), "MPI_Win_create");
    mpi_check(MPI_Win_set_errhandler(w.get(), MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  };
  make(active_);
  mpi_check(MPI_Win_lock_all(MPI_MODE_NOCHECK, active_.get()), "MPI_Win_lock_all");
  passive_.resize(std::max(1, thread_slots));
  for (UniqueWin& w : passive_) make(w);
  ledger_ = std::make_unique<FlushLedger>(static_cast<int>(passive_.size()), xcomm_->size());
  active_target_ = std::make_unique<ActiveTarget>(comm(), active_.get(), epoch_, *ledger_, xcomm_->size());
  exchange_and_choose_paths(memory, size, disp_unit, shm_.get(), config);
  int thread_level = MPI_THREAD_SINGLE;
  mpi_check(MPI_Query_thread(&thread_level), "MPI_Query_thread");
  queue_ordered_puts_ = queue_orders_stores;
  queue_shared_ = thread_level == MPI_THREAD_MULTIPLE;
}

Window::~Window() { free_windows(); }

void Window::free() {
  // The collective frees go ahead even when the queued puts fail: every
  // other rank is in them. The failure is still this call's error.
  std::exception_ptr queued_failure;
  try {
    issue_queued_puts();
  } catch (...) {
    queued_failure = std::current_exception();
  }
  free_windows();
  epoch_.mark_freed();
  if (queued_failure) std::rethrow_exception(queued_failure);
}

void Window::free_windows() noexcept {
  if (!active_) return;
  // A window freed inside a user epoch (at MPI_Finalize, say) is closed first:
  // MPI_Win_free inside an epoch is erroneous.
  if (epoch_.access() == AccessEpoch::lock_all)
    for (UniqueWin& w : passive_) MPI_Win_unlock_all(w.get());
  if (epoch_.access() == AccessEpoch::lock)
    for (int r = 0; r < size(); ++r)
      for (UniqueWin& w : passive_) MPI_Win_unlock(r, w.get());
  if (active_target_) active_target_->drain();
  if (active_) MPI_Win_unlock_all(active_.get());
  passive_.clear();
  active_.reset();
  shm_.reset();
  group_.reset();
}

std::vector<int> Window::ranks_of(MPI_Group group) const {
  epoch_.check_alive();
  if (group == MPI_GROUP_NULL) throw Error(MPI_ERR_GROUP, "group is MPI_GROUP_NULL");
  int n = 0;
  mpi_check(MPI_Group_size(group, &n), "MPI_Group_size");
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = i;
  mpi_check(MPI_Group_translate_ranks(group, n, in.data(), group_.get(), out.data()), "MPI_Group_translate_ranks");
  for (int r : out)
    if (r == MPI_UNDEFINED) throw Error(MPI_ERR_GROUP, "group holds a process outside the window's communicator");
  return out;
}

// flatten: one function from the handle's call to MPI's, so that on the MPI
// path the layer adds a few checks to MPI's own call and no call chain.
[[gnu::flatten]] void Window::put(const WinSettings& s, const Transfer& t) {
  move(Direction::put, s, t, route_of(s, t));
}

[[gnu::flatten]] void Window::get(const WinSettings& s, const Transfer& t) {
  move(Direction::get, s, t, route_of(s, t));
}

void Window::move(Direction d, const WinSettings& s, const Transfer& t, const DirectRoute& route,
                  Completion completion) {
  if (route.target != nullptr && d == Direction::put && queues_put(s, *route.target, completion)) {
    before_operation(s, t.target, true);
    queue_put(route.target->pid, route.target->address + static_cast<std::uintptr_t>(route.offset), t.origin,
              route.bytes);
    return;
  }
  before_operation(s, t.target);
  if (route.target != nullptr) {
    if (d == Direction::put)
      route.target->put(route.offset, t.origin, route.bytes);
    else
      route.target->get(route.offset, t.origin, route.bytes);
    after_direct_operation(s);
    return;
  }
  if (d == Direction::put)
    mpi_check(MPI_Put(t.origin, t.origin_count, t.origin_type, t.target, mpi_displacement(t), t.target_count,
                      t.target_type, mpi_window(s)),
              "MPI_Put");
  else
    mpi_check(MPI_Get(t.origin, t.origin_count, t.origin_type, t.target, mpi_displacement(t), t.target_count,
                      t.target_type, mpi_window(s)),
              "MPI_Get");
  after_mpi_operation(s, t.target);
}

void Window::open_ordered_block(const WinSettings& s, int block) {
  issue_queued_puts();
  for (int target = 0; target < size(); ++target) ledger_->flush(slot_of(s), target, mpi_window(s));
  ordered_path_.stamp(block, OrderedPathChoice::now_ns());
}

void Window::accumulate(const WinSettings& s, const Transfer& t, MPI_Op op) {
  // Always the MPI path: MPI makes accumulates atomic with respect to each
  // other, which direct copies from several origins could not be.
  check_transfer(t);
  if (op == MPI_OP_NULL) throw Error(MPI_ERR_OP, "op is MPI_OP_NULL");
  before_operation(s, t.target);
  mpi_check(MPI_Accumulate(t.origin, t.origin_count, t.origin_type, t.target, mpi_displacement(t), t.target_count,
                           t.target_type, op, mpi_window(s)),
            "MPI_Accumulate");
  after_mpi_operation(s, t.target);
}

void Window::get_accumulate(const WinSettings& s, const Transfer& t, void* result, MPI_Op op) {
  check_transfer(t);
  before_operation(s, t.target);
  mpi_check(MPI_Get_accumulate(t.origin, t.origin_count, t.origin_type, result, t.target_count, t.target_type,
                               t.target, mpi_displacement(t), t.target_count, t.target_type, op, mpi_window(s)),
            "MPI_Get_accumulate");
  after_mpi_operation(s, t.target);
}

MPI_Request Window::rput(const WinSettings& s, const Transfer& t) {
  epoch_.check_passive(t.target);  // request-based RMA: passive target only
  const DirectRoute direct = route_of(s, t);
  if (direct.target != nullptr) {
    move(Direction::put, s, t, direct, Completion::on_return);
    return MPI_REQUEST_NULL;
  }
  before_operation(s, t.target);
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Rput(t.origin, t.origin_count, t.origin_type, t.target, mpi_displacement(t), t.target_count,
                     t.target_type, mpi_window(s), &request),
            "MPI_Rput");
  after_mpi_operation(s, t.target);
  return request;
}

void Window::attach(void* base, MPI_Aint size) {
  epoch_.check_alive();
  if (kind_ != Kind::dynamic) throw Error(MPI_ERR_WIN, "attach needs a window from MPIX_Win_create_dynamic");
  mpi_check(MPI_Win_attach(active_.get(), base, size), "MPI_Win_attach");
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_attach(w.get(), base, size), "MPI_Win_attach");
}

void Window::detach(const void* base) {
  epoch_.check_alive();
  if (kind_ != Kind::dynamic) throw Error(MPI_ERR_WIN, "detach needs a window from MPIX_Win_create_dynamic");
  mpi_check(MPI_Win_detach(active_.get(), base), "MPI_Win_detach");
  for (UniqueWin& w : passive_) mpi_check(MPI_Win_detach(w.get(), base), "MPI_Win_detach");
}

}  // namespace mpix
