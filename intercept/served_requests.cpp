#include "intercept/served_requests.hpp"

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "capi/guard.hpp"
#include "intercept/inside_drop_in.hpp"
#include "intercept/served_exchanges.hpp"
#include "src/error.hpp"
#include "src/request.hpp"

// An MPI without MPI-4's persistent collectives (Open MPI 4.1) has nothing
// to serve here: none of these entry points is built.
#if MPI_VERSION >= 4

namespace mpix::intercept {

namespace {

// Open addressing over the handles' bits: keys are read and written
// atomically, so lookups take no lock. A freed slot becomes a tombstone,
// reused by a later insertion on its probe path.
class RequestTable {
 public:
  static constexpr std::size_t capacity = 4096;  // a power of two

  ServedRequest* find(MPI_Request handle) const {
    const std::uintptr_t key = key_of(handle);
    for (std::size_t i = hash(key), probes = 0; probes < capacity; i = (i + 1) & (capacity - 1), ++probes) {
      const std::uintptr_t k = keys_[i].load(std::memory_order_acquire);
      if (k == empty) return nullptr;
      if (k == key) return values_[i].load(std::memory_order_acquire);
    }
    return nullptr;
  }
  bool reserve() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (used_ + reserved_ >= capacity * 3 / 4) return false;
    ++reserved_;
    return true;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    --reserved_;
  }
  void insert(MPI_Request handle, ServedRequest* value) {
    std::lock_guard<std::mutex> lock(mutex_);
    --reserved_;
    ++used_;
    const std::uintptr_t key = key_of(handle);
    for (std::size_t i = hash(key);; i = (i + 1) & (capacity - 1)) {
      const std::uintptr_t k = keys_[i].load(std::memory_order_relaxed);
      if (k == empty || k == tombstone) {
        values_[i].store(value, std::memory_order_relaxed);
        keys_[i].store(key, std::memory_order_release);
        if (value->once == nullptr) live_.fetch_add(1, std::memory_order_release);
        return;
      }
    }
  }
  void erase(MPI_Request handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::uintptr_t key = key_of(handle);
    for (std::size_t i = hash(key), probes = 0; probes < capacity; i = (i + 1) & (capacity - 1), ++probes) {
      const std::uintptr_t k = keys_[i].load(std::memory_order_relaxed);
      if (k == empty) return;
      if (k == key) {
        const ServedRequest* value = values_[i].load(std::memory_order_relaxed);
        keys_[i].store(tombstone, std::memory_order_release);
        values_[i].store(nullptr, std::memory_order_relaxed);
        --used_;
        if (value != nullptr && value->once == nullptr) live_.fetch_sub(1, std::memory_order_release);
        return;
      }
    }
  }
  void forget(const ServedExchanges* state) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < capacity; ++i)
      if (ServedRequest* e = values_[i].load(std::memory_order_relaxed); e != nullptr && e->state == state)
        e->state = nullptr;
  }
  // Whether any served persistent request is alive, or any nonblocking
  // call is in flight: if not, every entry point goes straight to the MPI
  // (a nonblocking call's proxy, kept in the table between calls, is no
  // handle the program holds then).
  bool any() const {
    return live_.load(std::memory_order_acquire) != 0 || calls_in_flight_.load(std::memory_order_acquire) != 0;
  }
  void call_started() { calls_in_flight_.fetch_add(1, std::memory_order_release); }
  void call_reported() { calls_in_flight_.fetch_sub(1, std::memory_order_release); }

 private:
  static constexpr std::uintptr_t empty = 0, tombstone = 1;
  // A handle's bits (an int in MPICH, a pointer in Open MPI); never 0 or 1
  // for a live request.
  static std::uintptr_t key_of(MPI_Request handle) {
    std::uintptr_t key = 0;
    static_assert(sizeof(MPI_Request) <= sizeof(key));
    std::memcpy(&key, &handle, sizeof(handle));
    return key;
  }
  static std::size_t hash(std::uintptr_t key) {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (capacity - 1);
  }
  std::atomic<std::uintptr_t> keys_[capacity] = {};
  std::atomic<ServedRequest*> values_[capacity] = {};
  std::atomic<int> live_{0};             // persistent entries
  std::atomic<int> calls_in_flight_{0};  // active nonblocking calls' entries
  std::mutex mutex_;
  std::size_t used_ = 0, reserved_ = 0;
};

RequestTable table;

// Retired proxies (make_proxy); init and free only.
std::mutex proxies_mutex;
std::vector<MPI_Request> retired_proxies;

// The entry's request if handle is a served one; nullptr for the MPI's own
// (and on the library's own calls underneath, which are all the MPI's).
inline ServedRequest* served(MPI_Request handle) {
  if (inside_drop_in || !table.any() || handle == MPI_REQUEST_NULL) return nullptr;
  return table.find(handle);
}

bool any_served(int count, const MPI_Request requests[]) {
  if (inside_drop_in || !table.any()) return false;
  for (int i = 0; i < count; ++i)
    if (served(requests[i]) != nullptr) return true;
  return false;
}

// At a Start of e's library request while its search runs: the period
// since the last, and, once the tournament has settled, the search's cost
// for the next one's price (where MPI's period was measured: not under
// MPIX_INTERCEPT_ADMISSION=repeats).
void measure_search(ServedRequest& e) {
  const double now = MPI_Wtime();
  if (e.last_start > 0) e.search.add_call(1e6 * (now - e.last_start));
  e.last_start = now;
  int settled = 0;
  if (MPIX_Request_is_settled(e.request, &settled) != MPI_SUCCESS || !settled) return;
  e.search_settled = true;
  if (e.state != nullptr && e.search.mpi_call_us > 0) e.state->persistent_search_measured(e.search);
}

// Starts e's running request: the MPI's own until the rent of its search
// is paid, then the library's (ServedRequest).
int start(ServedRequest& e) {
  if (!e.searched && e.starts == 0) e.first_start = MPI_Wtime();
  if (!e.searched && e.starts == e.search_at) {  // agreed at init: the same Start on every rank
    e.searched = true;
    const double now = MPI_Wtime();
    e.search.mpi_call_us = e.starts ? 1e6 * (now - e.first_start) / static_cast<double>(e.starts) : 0;
    if (e.state != nullptr) e.state->persistent_switched_to_library();
  }
  ++e.starts;
  if (!e.searched) return PMPI_Start(&e.mpi_own);
  if (!e.search_settled) measure_search(e);
  return MPIX_Start(e.request);
}

// Advances e's running request; true once it has completed (it stays
// finished, its proxy active, until the completion is reported).
int poll(ServedRequest& e, bool& finished) {
  if (!e.finished && e.once != nullptr) {
    try {
      e.finished = e.once->progress();
    } catch (const Error& error) {
      e.finished = true;  // reported with its error: the handle goes as MPI's own failed request's does
      finished = true;
      return mpix::raise(e.comm, "MPI nonblocking exchange (mpix-rma drop-in)", error.code(), error.what());
    }
  } else if (!e.finished) {
    int flag = 0;
    const int rc = e.searched ? MPIX_Test(e.request, &flag, MPI_STATUS_IGNORE)
                              : PMPI_Test(&e.mpi_own, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    e.finished = flag != 0;
  }
  finished = e.finished;
  return MPI_SUCCESS;
}

// Reports e complete: its proxy completes (at once) and the status is a
// collective's; a nonblocking call's handle then reads MPI_REQUEST_NULL.
int report(ServedRequest& e, MPI_Request* handle, MPI_Status* status) {
  const int rc = PMPI_Wait(handle, MPI_STATUS_IGNORE);
  e.active = e.finished = false;
  set_empty_status(status);
  if (e.once != nullptr) {
    *handle = MPI_REQUEST_NULL;
    table.call_reported();
  }
  return rc;
}

// Between polls that found nothing: the MPI's progress, then, after a
// while, the core for whoever needs it (oversubscribed ranks).
void between_polls(unsigned& polls, MPI_Request some_proxy) {
  if (++polls % 8 == 0 && some_proxy != MPI_REQUEST_NULL) {
    int flag = 0;
    PMPI_Request_get_status(some_proxy, &flag, MPI_STATUS_IGNORE);
  }
  if (polls > 4096) sched_yield();
}

// The served requests of an array, active ones only, with their places;
// each replaced by MPI_REQUEST_NULL in the array while the MPI looks at
// the rest, and put back by restore().
// Its lists are this thread's, reused: no allocation once they have held
// as many (one array call at a time per thread).
struct ServedInArray {
  std::vector<int>& index = scratch().index;
  std::vector<MPI_Request>& proxy = scratch().proxy;
  std::vector<ServedRequest*>& entry = scratch().entry;
  MPI_Request* requests;
  ServedInArray(int count, MPI_Request requests_[]) : requests(requests_) {
    index.clear();
    proxy.clear();
    entry.clear();
    for (int i = 0; i < count; ++i)
      if (ServedRequest* e = served(requests[i]); e != nullptr && e->active) {
        index.push_back(i);
        proxy.push_back(requests[i]);
        entry.push_back(e);
        requests[i] = MPI_REQUEST_NULL;
      }
  }
  void restore() {
    for (std::size_t k = 0; k < index.size(); ++k) requests[index[k]] = proxy[k];
  }
  MPI_Request any_proxy() const { return proxy.empty() ? MPI_REQUEST_NULL : proxy.front(); }

 private:
  struct Lists {
    std::vector<int> index;
    std::vector<MPI_Request> proxy;
    std::vector<ServedRequest*> entry;
  };
  static Lists& scratch() {
    static thread_local Lists lists;
    return lists;
  }
};

// MPI_Waitall's scratch, this thread's, reused.
struct WaitallScratch {
  std::vector<MPI_Status> done, rest;
  std::vector<int> indices;
  std::vector<char> completed;
  void size_for(int count) {
    const auto n = static_cast<std::size_t>(count);
    done.resize(n);
    rest.resize(n);
    indices.resize(n);
    completed.assign(n, 0);
  }
};
WaitallScratch& waitall_scratch() {
  static thread_local WaitallScratch scratch;
  return scratch;
}

// The first served handle of an array (MPI_REQUEST_NULL if none): its
// status makes the MPI progress between polls.
MPI_Request first_served(int count, const MPI_Request requests[]) {
  for (int i = 0; i < count; ++i)
    if (served(requests[i]) != nullptr) return requests[i];
  return MPI_REQUEST_NULL;
}

MPI_Status* status_at(MPI_Status statuses[], int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

}  // namespace

bool reserve_served_request() { return table.reserve(); }
void release_served_request() { table.release(); }
ServedRequest* adopt_served_request(MPI_Request proxy, const ServedRequest& served) {
  auto* entry = new ServedRequest(served);
  table.insert(proxy, entry);
  return entry;
}
void forget_served_request(MPI_Request proxy) {
  ServedRequest* entry = table.find(proxy);
  if (entry != nullptr && entry->active) table.call_reported();  // never reported now
  table.erase(proxy);
  delete entry;
}
void served_call_started(ServedRequest& entry) {
  entry.finished = false;
  entry.active = true;
  table.call_started();
}
void forget_state(const ServedExchanges* state) { table.forget(state); }

int make_proxy(MPI_Request* proxy) {
  {
    std::lock_guard<std::mutex> lock(proxies_mutex);
    if (!retired_proxies.empty()) {
      *proxy = retired_proxies.back();
      retired_proxies.pop_back();
      return MPI_SUCCESS;
    }
  }
  return PMPI_Send_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, proxy);
}

void retire_proxy(MPI_Request* proxy) {
  std::lock_guard<std::mutex> lock(proxies_mutex);
  retired_proxies.push_back(*proxy);
  *proxy = MPI_REQUEST_NULL;
}

void free_retired_proxies() {
  std::lock_guard<std::mutex> lock(proxies_mutex);
  for (MPI_Request& proxy : retired_proxies) PMPI_Request_free(&proxy);
  retired_proxies.clear();
}

}  // namespace mpix::intercept

using mpix::intercept::InsideDropIn;
using mpix::intercept::ServedInArray;
using mpix::intercept::ServedRequest;
using mpix::intercept::served;

extern "C" int MPI_Start(MPI_Request* request) {
  ServedRequest* e = request != nullptr ? served(*request) : nullptr;
  if (e == nullptr) return PMPI_Start(request);
  InsideDropIn guard;
  if (e->active) {  // the handler may return: the call then returns the error
    PMPI_Comm_call_errhandler(e->comm, MPI_ERR_REQUEST);
    return MPI_ERR_REQUEST;
  }
  int rc = PMPI_Start(request);
  if (rc == MPI_SUCCESS) rc = mpix::intercept::start(*e);
  e->active = rc == MPI_SUCCESS;
  return rc;
}

extern "C" int MPI_Startall(int count, MPI_Request requests[]) {
  if (!mpix::intercept::any_served(count, requests)) return PMPI_Startall(count, requests);
  for (int i = 0; i < count; ++i)
    if (const int rc = MPI_Start(&requests[i]); rc != MPI_SUCCESS) return rc;
  return MPI_SUCCESS;
}

extern "C" int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  ServedRequest* e = request != nullptr ? served(*request) : nullptr;
  if (e == nullptr || !e->active) return PMPI_Test(request, flag, status);
  InsideDropIn guard;
  bool finished = false;
  if (const int rc = mpix::intercept::poll(*e, finished); rc != MPI_SUCCESS) return rc;
  *flag = finished;
  return finished ? mpix::intercept::report(*e, request, status) : MPI_SUCCESS;
}

extern "C" int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  ServedRequest* e = request != nullptr ? served(*request) : nullptr;
  if (e == nullptr || !e->active) return PMPI_Wait(request, status);
  InsideDropIn guard;
  // On the MPI's own request, the MPI's own wait (it progresses the rest).
  if (e->once == nullptr && !e->searched && !e->finished) {
    if (const int rc = PMPI_Wait(&e->mpi_own, MPI_STATUS_IGNORE); rc != MPI_SUCCESS) return rc;
    e->finished = true;
  }
  unsigned polls = 0;
  for (bool finished = false;;) {
    if (const int rc = mpix::intercept::poll(*e, finished); rc != MPI_SUCCESS) return rc;
    if (finished) return mpix::intercept::report(*e, request, status);
    mpix::intercept::between_polls(polls, *request);
  }
}

extern "C" int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  ServedRequest* e = served(request);
  if (e == nullptr || !e->active) return PMPI_Request_get_status(request, flag, status);
  InsideDropIn guard;
  bool finished = false;
  if (const int rc = mpix::intercept::poll(*e, finished); rc != MPI_SUCCESS) return rc;
  *flag = finished;
  if (finished) mpix::set_empty_status(status);
  return MPI_SUCCESS;
}

extern "C" int MPI_Request_free(MPI_Request* request) {
  ServedRequest* e = request != nullptr ? served(*request) : nullptr;
  if (e == nullptr) return PMPI_Request_free(request);
  if (e->active) {
    const int rc = MPI_Wait(request, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || e->once != nullptr) return rc;  // a nonblocking call's handle is null now
  }
  InsideDropIn guard;
  mpix::intercept::table.erase(*request);
  if (e->request != nullptr) MPIX_Request_free(&e->request);
  PMPI_Request_free(&e->mpi_own);
  delete e;
  mpix::intercept::retire_proxy(request);
  return MPI_SUCCESS;
}

// The array forms. The MPI's own requests are asked through the MPI's
// own calls on the array with the served ones left out (MPI_REQUEST_NULL
// in their places, which MPI ignores), so their completion, statuses and
// freeing are the MPI's.

extern "C" int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (!mpix::intercept::any_served(count, requests)) return PMPI_Testall(count, requests, flag, statuses);
  ServedInArray ours(count, requests);  // before the guard: served() answers only outside it
  InsideDropIn guard;
  bool all_finished = true;
  int rc = MPI_SUCCESS;
  for (ServedRequest* e : ours.entry) {
    bool finished = false;
    if ((rc = mpix::intercept::poll(*e, finished)) != MPI_SUCCESS) break;
    all_finished = all_finished && finished;
  }
  *flag = 0;
  // The MPI's own complete only together with every served one.
  if (rc == MPI_SUCCESS && all_finished) rc = PMPI_Testall(count, requests, flag, statuses);
  ours.restore();
  if (rc == MPI_SUCCESS && *flag)
    for (std::size_t k = 0; k < ours.index.size(); ++k)
      mpix::intercept::report(*ours.entry[k], &requests[ours.index[k]],
                              mpix::intercept::status_at(statuses, ours.index[k]));
  return rc;
}

extern "C" int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (!mpix::intercept::any_served(count, requests)) return PMPI_Waitall(count, requests, statuses);
  ServedInArray ours(count, requests);  // before the guard: served() answers only outside it
  InsideDropIn guard;
  // The served ones first, the MPI progressing between polls through the
  // MPI's own requests (completed there as they finish, statuses kept);
  // then the rest of those.
  mpix::intercept::WaitallScratch& scratch = mpix::intercept::waitall_scratch();
  scratch.size_for(count);
  std::vector<MPI_Status>& done = scratch.done;
  std::vector<int>& indices = scratch.indices;
  std::vector<char>& completed = scratch.completed;
  int rc = MPI_SUCCESS;
  unsigned polls = 0;
  for (bool pending = true; pending && rc == MPI_SUCCESS;) {
    pending = false;
    for (ServedRequest* e : ours.entry) {
      bool finished = false;
      if ((rc = mpix::intercept::poll(*e, finished)) != MPI_SUCCESS) break;
      pending = pending || !finished;
    }
    if (!pending || rc != MPI_SUCCESS) break;
    int outcount = 0;
    rc = PMPI_Testsome(count, requests, &outcount, indices.data(), done.data());
    for (int k = 0; rc == MPI_SUCCESS && outcount != MPI_UNDEFINED && k < outcount; ++k) {
      completed[static_cast<std::size_t>(indices[k])] = 1;
      if (statuses != MPI_STATUSES_IGNORE) statuses[indices[k]] = done[k];
    }
    mpix::intercept::between_polls(polls, ours.any_proxy());
  }
  if (rc == MPI_SUCCESS) {
    // The rest of the MPI's own; those Testsome completed keep the status
    // it gave (the MPI would give an inactive or null one an empty status).
    std::vector<MPI_Status>& rest = scratch.rest;
    rc = PMPI_Waitall(count, requests, rest.data());
    for (int i = 0; i < count; ++i)
      if (statuses != MPI_STATUSES_IGNORE && !completed[static_cast<std::size_t>(i)]) statuses[i] = rest[i];
  }
  ours.restore();
  for (std::size_t k = 0; rc == MPI_SUCCESS && k < ours.index.size(); ++k)
    rc = mpix::intercept::report(*ours.entry[k], &requests[ours.index[k]],
                                 mpix::intercept::status_at(statuses, ours.index[k]));
  return rc;
}

extern "C" int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (!mpix::intercept::any_served(count, requests)) return PMPI_Testany(count, requests, index, flag, status);
  ServedInArray ours(count, requests);  // before the guard: served() answers only outside it
  InsideDropIn guard;
  int rc = MPI_SUCCESS;
  *flag = 0;
  for (std::size_t k = 0; k < ours.entry.size() && !*flag; ++k) {
    bool finished = false;
    if ((rc = mpix::intercept::poll(*ours.entry[k], finished)) != MPI_SUCCESS) break;
    if (finished) {
      ours.restore();
      *index = ours.index[k];
      *flag = 1;
      return mpix::intercept::report(*ours.entry[k], &requests[*index], status);
    }
  }
  if (rc == MPI_SUCCESS) rc = PMPI_Testany(count, requests, index, flag, status);
  // With served requests still active, "none active" is not the answer.
  if (rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED) *flag = 0;
  ours.restore();
  return rc;
}

extern "C" int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (!mpix::intercept::any_served(count, requests)) return PMPI_Waitany(count, requests, index, status);
  unsigned polls = 0;
  const MPI_Request some_proxy = mpix::intercept::first_served(count, requests);
  for (;;) {
    int flag = 0;
    if (const int rc = MPI_Testany(count, requests, index, &flag, status); rc != MPI_SUCCESS || flag) return rc;
    InsideDropIn guard;
    mpix::intercept::between_polls(polls, some_proxy);
  }
}

extern "C" int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                            MPI_Status statuses[]) {
  if (!mpix::intercept::any_served(incount, requests))
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  ServedInArray ours(incount, requests);  // before the guard: served() answers only outside it
  InsideDropIn guard;
  int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
  ours.restore();
  if (rc != MPI_SUCCESS) return rc;
  if (*outcount == MPI_UNDEFINED) *outcount = 0;  // served requests are still active
  for (std::size_t k = 0; k < ours.entry.size(); ++k) {
    bool finished = false;
    if ((rc = mpix::intercept::poll(*ours.entry[k], finished)) != MPI_SUCCESS) return rc;
    if (!finished) continue;
    const int i = ours.index[k];
    indices[*outcount] = i;
    rc = mpix::intercept::report(*ours.entry[k], &requests[i], mpix::intercept::status_at(statuses, *outcount));
    ++*outcount;
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

extern "C" int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                            MPI_Status statuses[]) {
  if (!mpix::intercept::any_served(incount, requests))
    return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  unsigned polls = 0;
  const MPI_Request some_proxy = mpix::intercept::first_served(incount, requests);
  for (;;) {
    if (const int rc = MPI_Testsome(incount, requests, outcount, indices, statuses);
        rc != MPI_SUCCESS || *outcount != 0)
      return rc;
    InsideDropIn guard;
    mpix::intercept::between_polls(polls, some_proxy);
  }
}

#endif  // MPI_VERSION >= 4
