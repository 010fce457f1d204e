#include "intercept/agreement.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "capi/handles.hpp"

namespace mpix::intercept {

Agreement::Agreement(MPI_Comm comm, int values) : comm_(comm), values_(values) {}

Agreement::~Agreement() = default;

const char* Agreement::path_name() const { return through_channel_ ? "node channel" : "MPI_Allreduce"; }

long long Agreement::choose(MPIX_Comm* xcomm, AgreementPath mode) {
  if (!channel_tried_ && mode != AgreementPath::mpi) {
    channel_tried_ = true;
    const Comm& comm = *xcomm->comm;
    std::string why;
    // The layout is the same on every rank: either all build the channel
    // (collective over the node, which is then the communicator) or none.
    if (comm.num_nodes() != 1) {
      why = "the communicator spans " + std::to_string(comm.num_nodes()) + " nodes";
    } else {
      try {
        const ChannelSettings settings = ChannelSettings::of(comm);
        channel_ = std::make_unique<NodeChannel>(comm, settings, sizeof(std::int64_t) * values_);
        spin_polls_ = settings.spin_polls;
        received_.assign(static_cast<std::size_t>(comm.node_size()) * values_, 0);
        outgoing_.resize(static_cast<std::size_t>(comm.node_size()));
        incoming_.resize(static_cast<std::size_t>(comm.node_size()));
        node_rank_ = comm.node_rank();
      } catch (const std::exception& e) {
        why = e.what();
      }
    }
    int ok = channel_ ? 1 : 0;
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm_);
    if (!ok) channel_.reset();
    // Each rank names its own reason; the layout's, the same everywhere,
    // is named once.
    int rank = 0;
    PMPI_Comm_rank(comm_, &rank);
    const bool asked = comm.config().verbose >= 1 || mode == AgreementPath::channel;
    const bool own_reason = comm.num_nodes() == 1 || rank == 0;
    if (!ok && !why.empty() && asked && own_reason)
      std::fprintf(stderr, "mpix-rma intercept (rank %d): agreements take MPI_Allreduce, not the node channel: %s\n",
                   rank, why.c_str());
  }
  if (choices_++ % retime_every != 0) return kept_ns_;
  through_channel_ = false;
  if (!channel_ || mode == AgreementPath::mpi) return kept_ns_ = latency_ns();
  const long long mpi_ns = mode == AgreementPath::automatic ? latency_ns() : -1;
  through_channel_ = true;
  const long long channel_ns = latency_ns();
  if (mpi_ns >= 0 && mpi_ns <= channel_ns) {
    through_channel_ = false;
    return kept_ns_ = mpi_ns;
  }
  return kept_ns_ = channel_ns;
}

int Agreement::max(std::int64_t* values) {
  if (through_channel_) return max_through_channel(values);
  return PMPI_Allreduce(MPI_IN_PLACE, values, values_, MPI_INT64_T, MPI_MAX, comm_);
}

void Agreement::address_peers(const void* data, std::size_t bytes) {
  const int peers = static_cast<int>(outgoing_.size());
  for (int p = 0; p < peers; ++p) {
    if (p == node_rank_) continue;
    outgoing_[p] = channel_->outgoing(p, data, bytes, false, 0, NodeChannel::Pacing::run_ahead);
    incoming_[p] = channel_->incoming(p, &received_[static_cast<std::size_t>(p) * values_], bytes, nullptr);
  }
}

int Agreement::max_through_channel(std::int64_t* values) {
  address_peers(values, sizeof(std::int64_t) * static_cast<std::size_t>(values_));
  move_all();
  // Every outgoing message is in its ring: values may change now.
  const int peers = static_cast<int>(outgoing_.size());
  for (int p = 0; p < peers; ++p) {
    if (p == node_rank_) continue;
    const std::int64_t* theirs = &received_[static_cast<std::size_t>(p) * values_];
    for (int i = 0; i < values_; ++i) values[i] = std::max(values[i], theirs[i]);
  }
  return MPI_SUCCESS;
}

void Agreement::move_all() {
  const int peers = static_cast<int>(outgoing_.size());
  unsigned polls = 0;
  for (;;) {
    bool done = true;
    for (int p = 0; p < peers; ++p) {
      if (p == node_rank_) continue;
      done = channel_->progress(outgoing_[p]) && done;
      done = channel_->progress(incoming_[p]) && done;
    }
    if (done) break;
    spin_then_yield(polls, spin_polls_);
  }
}

int Agreement::post(bool flag) {
  posted_ = flag ? 1 : 0;
  // The channel, wherever it was built, whichever path max() keeps: its
  // latency, which max() is timed for, hides behind the exchange here.
  posted_through_channel_ = channel_ != nullptr;
  if (!posted_through_channel_)
    return PMPI_Iallreduce(&posted_, &all_posted_, 1, MPI_INT, MPI_MIN, comm_, &posted_request_);
  address_peers(&posted_, sizeof posted_);
  const int peers = static_cast<int>(outgoing_.size());
  // The flags go now (a ring has room for this one: a rank posts again only
  // after it has every peer's last); the peers' are read in all_posted().
  unsigned polls = 0;
  for (int p = 0; p < peers; ++p)
    while (p != node_rank_ && !channel_->progress(outgoing_[p])) spin_then_yield(polls, spin_polls_);
  return MPI_SUCCESS;
}

int Agreement::all_posted(bool& all) {
  if (!posted_through_channel_) {
    const int rc = PMPI_Wait(&posted_request_, MPI_STATUS_IGNORE);
    all = rc == MPI_SUCCESS && all_posted_ != 0;
    return rc;
  }
  move_all();
  all = posted_ != 0;
  const int peers = static_cast<int>(incoming_.size());
  for (int p = 0; p < peers; ++p) {
    if (p == node_rank_) continue;
    int theirs = 0;
    std::memcpy(&theirs, &received_[static_cast<std::size_t>(p) * values_], sizeof theirs);
    all = all && theirs != 0;
  }
  return MPI_SUCCESS;
}

long long Agreement::latency_ns() {
  constexpr int tries = 16;
  std::vector<std::int64_t> probe(static_cast<std::size_t>(values_), 0);
  double fastest = 1e9;
  for (int i = 0; i < tries; ++i) {
    const double begin = MPI_Wtime();
    max(probe.data());
    fastest = std::min(fastest, MPI_Wtime() - begin);
  }
  long long ns = static_cast<long long>(1e9 * fastest);
  PMPI_Allreduce(MPI_IN_PLACE, &ns, 1, MPI_LONG_LONG, MPI_MIN, comm_);
  return ns;
}

}  // namespace mpix::intercept
