#include "collectives/persistent_edges.hpp"

#include <algorithm>

#include "src/error.hpp"

namespace mpix {

PersistentEdges::PersistentEdges(MPI_Comm comm, int tag, MPI_Datatype sendtype, MPI_Datatype recvtype,
                                 std::vector<PointToPointMessage> messages, const void* send, void* recv)
    : comm_(comm), tag_(tag), sendtype_(sendtype), recvtype_(recvtype), messages_(std::move(messages)) {
  sets_.push_back(make(send, recv));
}

PersistentEdges::~PersistentEdges() {
  for (RequestSet& set : sets_) free_requests(set.requests);
}

PersistentEdges::RequestSet PersistentEdges::make(const void* send, void* recv) const {
  RequestSet set{send, recv, {}};
  set.requests.reserve(messages_.size());
  for (const PointToPointMessage& m : messages_) {
    MPI_Request& r = set.requests.emplace_back(MPI_REQUEST_NULL);
    const int rc = m.sends ? MPI_Send_init(static_cast<const char*>(send) + m.offset, m.count, sendtype_, m.peer,
                                           tag_, comm_, &r)
                           : MPI_Recv_init(static_cast<char*>(recv) + m.offset, m.count, recvtype_, m.peer, tag_,
                                           comm_, &r);
    if (rc != MPI_SUCCESS) {
      r = MPI_REQUEST_NULL;
      free_requests(set.requests);
      mpi_check(rc, m.sends ? "MPI_Send_init" : "MPI_Recv_init");
    }
  }
  return set;
}

void PersistentEdges::free_requests(std::vector<MPI_Request>& requests) {
  for (MPI_Request& r : requests)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  requests.clear();
}

void PersistentEdges::use(const void* send, void* recv) {
  if (messages_.empty()) return;
  const auto kept = std::find_if(sets_.begin(), sets_.end(),
                                 [&](const RequestSet& set) { return set.send == send && set.recv == recv; });
  if (kept != sets_.end()) {
    std::rotate(kept, kept + 1, sets_.end());
    return;
  }
  RequestSet made = make(send, recv);
  if (sets_.size() == kept_sets) {
    free_requests(sets_.front().requests);
    sets_.erase(sets_.begin());
  }
  sets_.push_back(std::move(made));
}

void PersistentEdges::start() {
  std::vector<MPI_Request>& r = running();
  if (!r.empty()) mpi_check(MPI_Startall(static_cast<int>(r.size()), r.data()), "MPI_Startall");
}

bool PersistentEdges::test() {
  std::vector<MPI_Request>& r = running();
  int done = 1;
  if (!r.empty()) mpi_check(MPI_Testall(static_cast<int>(r.size()), r.data(), &done, MPI_STATUSES_IGNORE), "MPI_Testall");
  return done != 0;
}

void PersistentEdges::wait() {
  std::vector<MPI_Request>& r = running();
  if (!r.empty()) mpi_check(MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

}  // namespace mpix
