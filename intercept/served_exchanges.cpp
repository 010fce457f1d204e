// The drop-in's protocol, per communicator and collective (MPI_Alltoallv,
// MPI_Alltoall, MPI_Neighbor_alltoallv: each has its own state, clock and
// cache).
//
// A rank's own view says nothing about the others: its arguments may have
// changed while theirs did not. So every decision is taken from values all
// ranks agree on, and every rank takes the same decisions at the same call:
// - MPI requires every rank to make the same sequence of collective calls
//   on a communicator, so the number of calls of one collective made on it
//   is a clock all ranks share (counters_.calls).
// - At a call that is not skipped, one agreement (the maximum over ranks
//   of a few integers: an MPI_Allreduce through PMPI, or an exchange over
//   the node channel, whichever measured faster; intercept/agreement.hpp)
//   settles: which cache slots hold every rank's current arguments,
//   whether any rank's call cannot be served at all, the largest block any
//   rank moves, the fewest recent repeats of its pattern any rank has seen
//   and for how many calls it has run, what its calls, an agreement and an
//   admission cost (intercept/recent_calls.hpp: the slowest rank's), and a
//   fingerprint of the settings (which must agree: otherwise the ranks
//   would skip different calls).
// - Served: some slot holds every rank's arguments (the first such slot).
//   A cached pattern was admitted at one call on every rank at once, into
//   the slot all ranks count alike, from the arguments each rank passed
//   then; so matching it now means every rank's arguments are again those
//   of that call, and the persistent request made from them moves the right
//   blocks. (A rank may match several slots: one whose arguments did not
//   change between two admitted patterns of the others.) Its data path
//   does not depend on the buffers (the node channel's copy-in/copy-out,
//   point-to-point off the node; mpix_buffers_move), so each call passes its
//   own sendbuf and recvbuf.
// - Otherwise the call is passed on: to a claimed call where the
//   communicator is set up for them (claimed_exchanges.hpp: every rank
//   passes on the same calls, so they need no agreement of their own),
//   else to MPI's own (PMPI_Alltoallv, ...). The first
//   such call that every rank could be served sets the communicator up
//   (the library's communicator, the agreement's channel, a first search
//   that prices the first admission): once, early, in a call a program or
//   benchmark runs as its warm-up, not in the first call of a large
//   exchange it times. Then, if the exchange is large enough, every rank
//   has seen its pattern `repeats` times among its recent calls and the
//   calls it is expected to run from now cost MPI what a search will (rent
//   or buy, selector/admission.hpp; each search is measured and prices the
//   next; how long the communicator's patterns ran, PatternLives, tells
//   what a young one will run), the pattern is admitted
//   (collectively, a request made over this call's buffers; the least
//   recently served pattern leaves when the cache is full). Until then,
//   and where the exchange is too small or some rank's pattern does not
//   repeat, the next calls skip the agreement and pass straight through:
//   as many as keep the agreements within a small share of the calls'
//   time (cheap calls are looked at rarely, expensive ones often), fewer
//   where the pattern will have paid sooner, and at most gap_growth times
//   as many as the last time. Except where the calls passed on tell every
//   rank, alike, the largest block any rank moved (an MPI_Alltoallv's
//   claimed calls: ClaimedExchanges::alltoallv_largest_blocks): one that
//   reaches the served size after an agreement that found the exchange
//   smaller has every rank's next call agree (blocks_grew), so that an
//   exchange that grows is found at once, not at an agreement spaced out
//   for its small calls.
// - A served exchange runs auto, whose tournament races the algorithms that
//   can serve it against MPI's own call, on every rank alike: against the
//   period of the pattern's passed-through calls where they were timed,
//   else against a trial of MPI's call. Where MPI's
//   call wins, the pattern stays cached but goes back to MPI's call, or,
//   where the calls passed on before its admission are claimed calls, to
//   the faster of the two, raced once (Entry::destination),
//   and, unless another pattern of the communicator is still served, the
//   agreements space out as for a pattern too small to serve; a changed
//   pattern is admitted and raced afresh.
// - Carried: once the agreed calls have served one slot (or slots that
//   repeat with a short period) for long enough, the next call skips its
//   agreement. Every rank runs the predicted slot's exchange and posts
//   beside it whether its own arguments are that slot's (Agreement::post:
//   the check rides in the exchange's time, not before it). If every flag
//   is set, the call was served. If not, the rank that changed ran the
//   exchange over buffers of its own, so none of its blocks came from or
//   went to the user's buffers, and every rank, having seen the same flags,
//   agrees the call as above, whose answer rewrites every block each rank
//   receives. How long the agreed calls must repeat first is priced by the
//   last miss (carry_next).
// A rank whose arguments changed therefore never meets a served peer inside
// a different operation: the agreement, or the carried exchange every rank
// runs alike and its flags, comes first, and sends everyone to MPI's own
// call together.
#include "intercept/served_exchanges.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "capi/handles.hpp"
#include "collectives/block_claims.hpp"
#include "intercept/claimed_exchanges.hpp"
#include "intercept/errors_return_duplicate.hpp"
#include "intercept/served_requests.hpp"
#include "node/node_channel.hpp"
#include "src/mpi_implementation.hpp"

namespace mpix::intercept {

namespace {

// Of the calls recorded before an agreement, the last ones are timed too
// (MPI's time, for the rent): enough for a mean, few enough that the
// clock's own cost stays small beside the agreement's.
constexpr long timed_window = 4;
constexpr long stale_after = 4096;  // calls after which an unused pattern leaves
constexpr long first_gap = 8;       // calls between the first agreements, at most
// Each gap between agreements is at most this many times the last: the
// ramp from first_gap to what the rule allows takes few agreements (it runs
// in a program's first calls, and after every served exchange, where a
// small exchange's calls pay for each), yet one agreement measured slow (a
// first call's) cannot space the next ones far apart at once.
constexpr long gap_growth = 4;
// The set-up's search (first_search): its blocks, each way, at most this
// many bytes in all; and its Starts, at most (a tournament settles within
// the request's mpix_auto_settle).
constexpr long long first_search_bytes = 1 << 20;
constexpr long max_first_search_starts = 1000;

// MPI's own call of the collective on comm.
int mpi_own_call(Collective collective, MPI_Comm comm, const Side<const void*>& send, const Side<void*>& recv) {
  switch (collective) {
    case Collective::alltoall:
      return PMPI_Alltoall(send.buf, send.count, send.type, recv.buf, recv.count, recv.type, comm);
    case Collective::alltoallv:
      return PMPI_Alltoallv(send.buf, send.counts, send.displs, send.type, recv.buf, recv.counts, recv.displs,
                            recv.type, comm);
    case Collective::neighbor_alltoallv:
      break;
  }
  return PMPI_Neighbor_alltoallv(send.buf, send.counts, send.displs, send.type, recv.buf, recv.counts,
                                 recv.displs, recv.type, comm);
}

std::int64_t in_ns(double us) { return static_cast<std::int64_t>(1e3 * us); }
double in_us(std::int64_t ns) { return 1e-3 * static_cast<double>(ns); }

// What the drop-in knows of the library's family behind each collective:
// its public listing and the info key that asks for an algorithm.
struct FamilyListing {
  const char* mpi_name;
  const char* algorithm_key;
  int (*count)(int*);
  int (*describe)(int, const char**, const char**, int*);
};
const FamilyListing& listing_of(Collective collective) {
  static const FamilyListing listings[collectives] = {
      {"MPI_Alltoallv", "mpix_alltoallv_algorithm", MPIX_Alltoallv_algorithm_count, MPIX_Alltoallv_algorithm},
      {"MPI_Neighbor_alltoallv", "mpix_neighbor_alltoallv_algorithm", MPIX_Neighbor_alltoallv_algorithm_count,
       MPIX_Neighbor_alltoallv_algorithm},
      {"MPI_Alltoall", "mpix_alltoall_algorithm", MPIX_Alltoall_algorithm_count, MPIX_Alltoall_algorithm}};
  return listings[static_cast<int>(collective)];
}

// The first of the collective's listed rows whose name and capabilities
// (MPIX_ALGORITHM_* bits) satisfy wanted, or nullptr.
template <class Wanted>
const char* first_row(Collective collective, Wanted wanted) {
  const FamilyListing& family = listing_of(collective);
  int count = 0;
  family.count(&count);
  for (int i = 0; i < count; ++i) {
    const char* name = nullptr;
    int capabilities = 0;
    if (family.describe(i, &name, nullptr, &capabilities) == MPI_SUCCESS && wanted(name, capabilities)) return name;
  }
  return nullptr;
}

// The collective's library row that keeps MPI's progress rule and is not
// the MPI's own call, or nullptr (only MPI-4's persistent inits ask).
[[maybe_unused]] const char* progress_rule_row(Collective collective) {
  return first_row(collective, [](const char*, int capabilities) {
    return (capabilities & MPIX_ALGORITHM_MPI_PROGRESS) != 0 &&
           (capabilities & (MPIX_ALGORITHM_MPI_BASELINE | MPIX_ALGORITHM_MPI_PERSISTENT)) == 0;
  });
}

// Whether the registered algorithm called name is the MPI's own call (its
// capability, from the collective's public listing): read once per settled
// request.
bool is_mpi_own_call(Collective collective, std::string_view name) {
  return first_row(collective, [&](const char* listed, int capabilities) {
           return name == listed && (capabilities & MPIX_ALGORITHM_MPI_BASELINE) != 0;
         }) != nullptr;
}

}  // namespace

const char* name_of(Collective collective) { return listing_of(collective).mpi_name; }

const char* algorithm_info_key(Collective collective) { return listing_of(collective).algorithm_key; }

std::uint64_t fingerprint(const InterceptConfig& settings) {
  std::uint64_t h = settings.enabled ? 0x9e3779b97f4a7c15ULL : 0x7f4a7c159e3779b9ULL;
  for (std::uint64_t v : {static_cast<std::uint64_t>(settings.repeats), static_cast<std::uint64_t>(settings.entries),
                          static_cast<std::uint64_t>(settings.min_bytes),
                          static_cast<std::uint64_t>(settings.agreement),
                          static_cast<std::uint64_t>(settings.admission),
                          static_cast<std::uint64_t>(settings.persistent),
                          static_cast<std::uint64_t>(settings.nonblocking),
                          static_cast<std::uint64_t>(settings.blocking)})
    h = (h ^ v) * 0x100000001b3ULL;
  return h >> 2;  // its negation must fit too
}

const int* ServedExchanges::UniformBlocks::describe(int new_count, int peers) {
  if (new_count == count && counts.size() == static_cast<std::size_t>(peers)) return counts.data();
  count = new_count;
  counts.resize(static_cast<std::size_t>(peers));
  displs.resize(static_cast<std::size_t>(peers));
  // A negative count (which MPI rejects) or displacements that overflow an
  // int: negative counts, which ExchangePattern finds unservable, so the
  // call goes to MPI's own through the agreement like any other.
  const bool describable = count >= 0 && (peers <= 1 || count <= INT_MAX / peers);
  for (int r = 0; r < peers; ++r) {
    counts[static_cast<std::size_t>(r)] = describable ? count : -1;
    displs[static_cast<std::size_t>(r)] = describable ? r * count : 0;
  }
  return counts.data();
}

int ServedExchanges::call_uniform(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype) {
  // MPI_Alltoall's blocks are one size on every rank (MPI requires the type
  // signatures to match), so once an agreement has found the threshold
  // alike on every rank, a block below it is below it everywhere: every
  // rank passes the call through without agreeing, and no agreement's
  // traffic disturbs MPI's own calls (MPICH's eager path slows for some
  // twenty calls after any other collective). A program whose ranks
  // disagree on the size is erroneous; MPI's call reports it where it can.
  int type_bytes = 0;
  if (settings_agreed_ && recvtype != MPI_DATATYPE_NULL && recvcount >= 0 &&
      PMPI_Type_size(recvtype, &type_bytes) == MPI_SUCCESS &&
      static_cast<long long>(recvcount) * type_bytes < served_from_) {
    ++counters_.calls;
    remember_small_counts(recvtype, type_bytes);
    return unserved_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_);
  }
  const CallArguments args = uniform_arguments(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  return call(sendbuf, args.sendcounts, args.sdispls, sendtype, recvbuf, args.recvcounts, args.rdispls, recvtype);
}

// The next calls with this receive type decide in passes_straight_through(),
// with no MPI call, where the type is predefined: a derived type's handle
// may be freed and come back for a type of another size.
void ServedExchanges::remember_small_counts(MPI_Datatype recvtype, int type_bytes) {
  // A handle found derived stays derived, whatever type it comes back for:
  // it is not asked about again.
  if (recvtype == small_type_ || recvtype == derived_type_) return;
  int integers = 0, addresses = 0, types = 0, combiner = MPI_UNDEFINED;
  if (PMPI_Type_get_envelope(recvtype, &integers, &addresses, &types, &combiner) != MPI_SUCCESS ||
      combiner != MPI_COMBINER_NAMED) {
    derived_type_ = recvtype;
    return;
  }
  // Counts c >= 0 with c * type_bytes < served_from_; never a negative count
  // (MPI's call reports it), which the unsigned comparison sees as 2^31 or more.
  constexpr long long int_counts = 1LL + INT_MAX;
  const long long below = type_bytes > 0 ? (served_from_ + type_bytes - 1) / type_bytes : int_counts;
  small_type_ = recvtype;
  small_counts_below_ = static_cast<unsigned>(std::min(below, int_counts));
}

ServedExchanges::ServedExchanges(MPI_Comm comm, Collective collective, const InterceptConfig& settings)
    : comm_(comm), collective_(collective), settings_(settings),
      served_from_(settings.min_bytes),
      agreement_(comm, static_cast<int>(std::tuple_size_v<Votes>)) {
#if MPI_VERSION >= 4
  // Where the calls passed on run claimed calls, those that stage every
  // block copy as fast as a request would, with no search to pay for.
  if (const ClaimedExchanges* claimed = ClaimedExchanges::of(comm);
      claimed != nullptr && claimed->serves_blocking() &&
      (collective != Collective::neighbor_alltoallv || claimed->graph())) {
    served_from_ = std::max(served_from_, static_cast<long>(always_staged_at_most) + 1);
    passes_on_claimed_ = true;
    // The claimed calls live as long as the communicator, as this state does.
    if (collective == Collective::alltoallv) passed_on_blocks_ = &claimed->alltoallv_largest_blocks();
  }
#endif
  if (collective != Collective::neighbor_alltoallv) {
    PMPI_Comm_size(comm, &send_entries_);
    recv_entries_ = send_entries_;
  } else {
    int weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &recv_entries_, &send_entries_, &weighted);
  }
}

ServedExchanges::~ServedExchanges() {
  for (Entry& e : entries_) free_entry(e);
  if (xcomm_ != nullptr) MPIX_Comm_free(&xcomm_);
  if (errors_return_comm_ != MPI_COMM_NULL) PMPI_Comm_free(&errors_return_comm_);
}

int ServedExchanges::call(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                          void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype) {
  // passes_straight_through() said no: the calls just before an agreement
  // are remembered too (a hash of the arguments, no MPI call), so that a
  // pattern that settled while calls were skipped is admitted at once.
  const long now = counters_.calls++;
  const CallArguments args{sendbuf,  recvbuf,  sendcounts,    sdispls,      sendtype,
                           recvcounts, rdispls, recvtype,      send_entries_, recv_entries_};
  recent_.record(now, args.hash());
  if (carried_slot_ >= 0) {
    int rc = MPI_SUCCESS;
    if (serve_carried(args, recvbuf, rc)) return rc;
  }
  // An exchange that grew to the served size is looked at now, and the next
  // agreements come as soon after as after an admission.
  if (blocks_grew()) {
    skip_until_ = now;
    longest_gap_ = first_gap;
  }
  if (now + timed_window < skip_until_)
    return pass_through(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  if (now < skip_until_)
    return timed_pass_through(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  // A check costs what it adds to a call that passes through: reading the
  // recent calls, describing this one and voting, not only the agreement.
  const double begin = MPI_Wtime();
  scratch_.describe(args);
  Votes a = votes(scratch_, recent_.at_agreement(now));
  const int agreed = agreement_.max(a.data());
  checked(MPI_Wtime() - begin);
  if (agreed != MPI_SUCCESS) return agreed;  // raised on the communicator by MPI
  call_us_ = in_us(a[call_ns]);
  check_us_ = in_us(a[check_ns]);

  if (a[settings] != -a[minus_settings] || !settings_.enabled) {
    int rank = 0;
    PMPI_Comm_rank(comm_, &rank);
    if (rank == 0 && settings_.enabled)
      std::fprintf(stderr, "mpix-rma intercept: ranks run with different MPIX_INTERCEPT* settings; "
                           "this communicator's %s calls go to MPI unchanged\n",
                   name_of(collective_));
    disabled_ = true;
    return pass_through(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  }
  settings_agreed_ = true;
  small_through_ = LONG_MAX;
  if (missed_slot_ >= 0) priced_miss(a);
  if (a[unservable] == 0) lives_.at_agreement(now, -a[minus_pattern_calls]);
  back_on_mpi_ = false;
  for (std::size_t slot = 0; slot < entries_.size(); ++slot)
    if (a[slots + slot] == 0) {
      if (entries_[slot].pass_through) race_destinations(entries_[slot], a[pattern_call_ns]);
      back_on_mpi_ = entries_[slot].returns_to_mpi();
      const int rc =
          serve(entries_[slot], sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
      carry_next(static_cast<int>(slot));
      return rc;
    }
  carry_next(-1);
  if (a[matched_any]) ++counters_.agreement_misses;

  // Whatever MPI's call returned on this rank, the bookkeeping below
  // runs from agreed values only: a rank whose call failed (a truncating
  // receive under MPI_ERRORS_RETURN) keeps the shared clock with the others,
  // or it would meet them next in a different collective. An admission over
  // arguments MPI rejected fails in MPIX_Alltoallv_init, on every rank.
  const int rc =
      timed_pass_through(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  consider_admission(a, sendbuf, recvbuf);
  return rc;
}

ServedExchanges::Votes ServedExchanges::votes(ExchangePattern& pattern, const RecentCalls::Pattern& recent) const {
  // MPI forbids MPI_IN_PLACE in neighbourhood collectives: MPI's own call
  // reports it.
  if (collective_ == Collective::neighbor_alltoallv && pattern.in_place) pattern.servable = false;
  const std::int64_t settings_hash = static_cast<std::int64_t>(fingerprint(settings_));
  Votes a{};
  for (int slot = 0; slot < max_entries; ++slot) {
    const bool match = static_cast<std::size_t>(slot) < entries_.size() && entries_[slot].pattern.same_as(pattern);
    a[slots + slot] = match ? 0 : 1;
    if (match) a[matched_any] = 1;
  }
  a[unservable] = pattern.servable ? 0 : 1;
  a[largest_block] = pattern.largest_block;
  a[minus_repeats] = pattern.servable ? -recent.repeats : 0;
  a[minus_pattern_calls] = pattern.servable ? -recent.calls : 0;
  a[pattern_call_ns] = in_ns(recent.call_us);
  a[pattern_period_ns] = in_ns(recent.period_us);
  a[period_unmeasured] = recent.period_us > 0 ? 0 : 1;
  a[call_ns] = in_ns(recent_.mean_call_us());
  a[check_ns] = in_ns(typical_check_us_);
  a[admission_ns] = in_ns(last_admission_us_);
  const SearchPrice& search = last_search_[static_cast<std::size_t>(SearchKind::moving_buffers)];
  a[search_ns] = in_ns(search.us);
  a[minus_search_gain] = -static_cast<std::int64_t>(1e6 * search.gain);
  a[search_block] = search.block;
  a[settings] = settings_hash;
  a[minus_settings] = -settings_hash;
  const std::int64_t block = collective_ == Collective::alltoallv ? pattern.uniform_block() : -1;
  a[not_uniform] = block < 0 ? 1 : 0;
  a[uniform_block] = block;
  a[minus_uniform_block] = -block;
  a[missed_round_ns] = missed_slot_ >= 0 ? in_ns(missed_round_us_) : 0;
  return a;
}

void ServedExchanges::checked(double check_seconds) {
  counters_.check_seconds += check_seconds;
  // What agreements cost, waiting for the last rank included: a moving
  // mean that leaves out the first (it pays MPI's own first-call costs).
  if (counters_.agreements == 1)
    typical_check_us_ = 1e6 * check_seconds;
  else if (counters_.agreements > 1)
    typical_check_us_ += (1e6 * check_seconds - typical_check_us_) / 8;
  ++counters_.agreements;
}

void ServedExchanges::consider_admission(const Votes& a, const void* sendbuf, void* recvbuf) {
  // The communicator is set up at its first call that could be served, of
  // any size: once, early, in a call that passes through (a program's or a
  // benchmark's first calls are its warm-up), so that no admission of a
  // large exchange later waits for it.
  if (a[unservable] == 0) {
    if (!set_up()) return;
    set_up_agreement();
    share_rings();
    first_search(SearchKind::moving_buffers);
  }
  const bool worth_it = a[unservable] == 0 && a[largest_block] >= served_from_;
  if (!worth_it) {  // too small, or some rank cannot be served: looked at as rarely as pays
    // This call was passed on (told its blocks, where calls tell them).
    if (a[unservable] == 0 && passed_on_blocks_ != nullptr) small_through_ = passed_on_blocks_->calls;
    look_again_after(calls_before_next_check(call_us_, check_us_, no_admission_awaited, admission_rule_));
    return;
  }
  // Large enough to serve. Rent or buy (selector/admission.hpp): the
  // pattern is admitted once the calls it is expected to run from now
  // (as many again, or the rest of the communicator's typical life) cost
  // MPI what a search will, priced by the last one measured on the
  // communicator.
  const double pattern_us = a[pattern_call_ns] > 0 ? in_us(a[pattern_call_ns]) : call_us_;
  const long calls = -a[minus_pattern_calls];
  const double price_us = settings_.admission == AdmissionPolicy::repeats
                              ? 0
                              : admission_price_us(in_us(a[search_ns]), in_us(a[admission_ns]), pattern_us,
                                                   tournament_rule_, admission_rule_);
  const double gain = expected_gain(1e-6 * static_cast<double>(-a[minus_search_gain]), a[search_block],
                                    a[largest_block], admission_rule_);
  const double needed_us = rent_needed_us(price_us, gain, admission_rule_);
  const double young_needed_us = young_rent_needed_us(price_us, gain);
  const long life = lives_.typical();
  if (-a[minus_repeats] >= settings_.repeats &&
      calls_to_admission(calls, in_us(a[pattern_call_ns]), life, needed_us, young_needed_us) == 0)
    admit(sendbuf, recvbuf, a[not_uniform] == 0 && a[uniform_block] == -a[minus_uniform_block], a[largest_block],
          a[period_unmeasured] ? 0 : a[pattern_period_ns], pattern_us);
  else
    look_again_after(calls_before_next_check(
        pattern_us, check_us_, calls_to_admission(calls, pattern_us, life, needed_us, young_needed_us),
        admission_rule_));
}

// Timed for the rent (RecentCalls): only calls just before an agreement.
int ServedExchanges::timed_pass_through(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype) {
  const double begin = MPI_Wtime();
  const int rc = pass_through(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  recent_.timed(begin, 1e6 * (MPI_Wtime() - begin));
  return rc;
}

int pass_on(Collective collective, bool to_mpi, MPI_Comm comm, const Side<const void*>& send,
            const Side<void*>& recv) {
  if (to_mpi) return mpi_own_call(collective, comm, send, recv);
  switch (collective) {
    case Collective::alltoall:
      return unserved_alltoall(send.buf, send.count, send.type, recv.buf, recv.count, recv.type, comm);
    case Collective::alltoallv:
      return unserved_alltoallv(send.buf, send.counts, send.displs, send.type, recv.buf, recv.counts, recv.displs,
                                recv.type, comm);
    case Collective::neighbor_alltoallv:
      break;
  }
  return unserved_neighbor_alltoallv(send.buf, send.counts, send.displs, send.type, recv.buf, recv.counts,
                                     recv.displs, recv.type, comm);
}

int ServedExchanges::pass_through(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype) {
  // MPI_Alltoall: the call's own counts (call_uniform).
  return pass_on(collective_, back_on_mpi_, comm_, {sendbuf, sendcounts, sdispls, uniform_send_.count, sendtype},
                 {recvbuf, recvcounts, rdispls, uniform_recv_.count, recvtype});
}

int ServedExchanges::serve(Entry& entry, const void* sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                           MPI_Datatype recvtype) {
  entry.last_used = counters_.calls;
  ++entry.use.agreements;  // call() found it at an agreement
  if (entry.pass_through) {
    look_again_unless_serving();
    return pass_through(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
  }
  count_served(entry);
  const int rc = run_request(entry, sendbuf, recvbuf);
  // The library raised it on its duplicate (errors return there): MPI raises
  // a failed call on the caller's communicator.
  if (rc != MPI_SUCCESS) mpi_implementation::call_errhandler(comm_, rc);
  return rc;
}

// A call served from entry, agreed or carried: counted, and while patterns
// are served the next skip starts short again (look_again_after).
void ServedExchanges::count_served(Entry& entry) {
  ++counters_.served;
  ++entry.use.served;
  longest_gap_ = first_gap;
}

int ServedExchanges::run_request(Entry& entry, const void* sendbuf, void* recvbuf) {
  const double begin = entry.settled ? 0 : MPI_Wtime();
  int rc = MPIX_Start_with_buffers(entry.request, sendbuf, recvbuf);
  if (rc == MPI_SUCCESS) rc = MPIX_Wait(entry.request, MPI_STATUS_IGNORE);
  if (!entry.settled) entry.search.add_call(1e6 * (MPI_Wtime() - begin));
  if (rc != MPI_SUCCESS) return rc;
  // The request's tournament (auto) raced the served exchange against MPI's
  // own call, on every rank alike: where MPI won, serving only adds the
  // check to every call. What runs changes only while the request is
  // not settled, so its choice is read once each time it settles.
  int settled = 0;
  if (MPIX_Request_is_settled(entry.request, &settled) != MPI_SUCCESS) return rc;
  const bool just_settled = settled && !entry.settled;
  entry.settled = settled != 0;
  if (just_settled) search_measured(SearchKind::moving_buffers, entry.search);
  char running[MPIX_MAX_OBJECT_NAME];
  int length = 0;
  if (just_settled && MPIX_Request_get_algorithm(entry.request, running, &length) == MPI_SUCCESS &&
      is_mpi_own_call(entry.as_alltoall ? Collective::alltoall : collective_,
                      std::string_view(running, static_cast<std::size_t>(length)))) {
    entry.pass_through = true;
    if (passes_on_claimed_) {
      entry.destination = Entry::Destination::mpi_on_trial;
      recent_.forget_timings();  // the leg's agreement reads its own calls' times
    }
    back_on_mpi_ = entry.returns_to_mpi();
    ++counters_.returned;
    MPIX_Request_free(&entry.request);
    look_again_unless_serving();
  }
  return rc;
}

void ServedExchanges::race_destinations(Entry& entry, std::int64_t pattern_call_ns) {
  using Destination = Entry::Destination;
  if (pattern_call_ns <= 0) return;  // none of the leg's calls timed yet: it runs on
  const double leg_us = in_us(pattern_call_ns);
  if (entry.destination == Destination::mpi_on_trial) {
    entry.mpi_trial_us = leg_us;
    entry.destination = Destination::passed_on_on_trial;
    recent_.forget_timings();
  } else if (entry.destination == Destination::passed_on_on_trial) {
    const bool mpi_faster = entry.mpi_trial_us <= leg_us;
    entry.destination = mpi_faster ? Destination::mpi : Destination::passed_on;
    if (!mpi_faster) ++counters_.passed_on_faster;
  }
}

// A carried call. Every rank runs the carried slot's exchange, whatever its
// own arguments: a collective that some rank left for another would hang
// both. A rank whose arguments are not the slot's runs it over buffers of
// its own (the slot's spans, made for this call), so that no block lands in
// its receive buffer or leaves its send buffer by another call's layout;
// its peers' blocks from it are then not its data, but every rank learns
// of it from the flags, and the agreed call that follows rewrites every
// block each rank receives. A rank whose arguments are the slot's receives
// only into its own blocks, as the call itself would.
bool ServedExchanges::serve_carried(const CallArguments& args, void* recvbuf, int& rc) {
  Entry& entry = entries_[static_cast<std::size_t>(carried_slot_)];
  scratch_.describe(args);
  const bool mine = entry.pattern.same_as(scratch_);
  rc = agreement_.post(mine);
  if (rc != MPI_SUCCESS) return true;  // raised on the communicator by MPI, as an agreement's failure is
  std::vector<char> own_send, own_recv;  // a miss's only: no allocation on a carried call
  const void* send = args.sendbuf;
  if (!mine) {
    const ExchangePattern& p = entry.pattern;
    own_recv.resize(ExchangePattern::span_bytes(p.recvcounts, p.rdispls, p.recv_element));
    if (!p.in_place) own_send.resize(ExchangePattern::span_bytes(p.sendcounts, p.sdispls, p.send_element));
    send = p.in_place ? MPI_IN_PLACE : own_send.data();
    recvbuf = own_recv.data();
  }
  const double begin = MPI_Wtime();
  const int ran = run_request(entry, send, recvbuf);
  const double round_us = 1e6 * (MPI_Wtime() - begin);
  bool all = false;
  rc = agreement_.all_posted(all);
  if (rc != MPI_SUCCESS) return true;
  if (!all) {
    ++counters_.carried_misses;
    missed_slot_ = carried_slot_;  // the agreement that follows prices the miss
    missed_round_us_ = round_us;
    carried_slot_ = -1;
    return false;
  }
  ++carried_run_;
  ++counters_.carried;
  count_served(entry);
  entry.last_used = counters_.calls;
  carry_next(carried_slot_);  // -1 after it if the request settled on MPI's own call
  rc = ran;
  if (rc != MPI_SUCCESS) mpi_implementation::call_errhandler(comm_, rc);
  return true;
}

void ServedExchanges::carry_next(int slot) {
  for (int p = 1; p <= longest_period; ++p)
    periodic_run_[p] = slot >= 0 && slot == last_slots_[p - 1] ? periodic_run_[p] + 1 : 0;
  for (int k = longest_period - 1; k > 0; --k) last_slots_[k] = last_slots_[k - 1];
  last_slots_[0] = slot;
  carried_slot_ = -1;
  for (int p = 1; p <= longest_period; ++p) {
    const int next = last_slots_[p - 1];  // the slot one period before the next call
    if (next < 0) continue;
    const Entry& entry = entries_[static_cast<std::size_t>(next)];
    if (periodic_run_[p] < entry.carry_after) continue;
    // The shortest period that has repeated long enough decides, carried
    // or not (a slot back on MPI's call is not).
    if (entry.request != nullptr && !entry.pass_through) carried_slot_ = next;
    return;
  }
}

// At the agreement of a call whose carried round missed: what the round
// took (the slowest rank's) against the agreements the carried run before
// it saved (the calls carried since the last miss, each an agreement's
// cost).
void ServedExchanges::priced_miss(const Votes& agreed) {
  Entry& entry = entries_[static_cast<std::size_t>(missed_slot_)];
  const bool paid = static_cast<double>(carried_run_) * static_cast<double>(agreed[check_ns]) >=
                    static_cast<double>(agreed[missed_round_ns]);
  entry.carry_after = paid ? 1 : std::min(2 * entry.carry_after, most_carry_after);
  missed_slot_ = -1;
  carried_run_ = 0;
}

void ServedExchanges::forget_served_slots() {
  last_slots_.fill(-1);
  periodic_run_.fill(0);
  carried_slot_ = -1;
}

// After a call of a pattern that went back to MPI: the next calls skip the
// agreement, unless another pattern of this communicator is still served
// among the recent calls (a skipped call is never served, and its calls
// may come next). One served long ago (an earlier phase of the program)
// does not keep every call paying the agreement: if it comes back, the
// next agreement finds it again. last_used and the call count are agreed.
void ServedExchanges::look_again_unless_serving() {
  const long now = counters_.calls;
  const bool serving = std::any_of(entries_.begin(), entries_.end(), [now](const Entry& e) {
    return e.request && !e.pass_through && now - e.last_used <= RecentCalls::window;
  });
  if (!serving) look_again_after(calls_before_next_check(call_us_, check_us_, no_admission_awaited, admission_rule_));
}

long ServedExchanges::rings_made() const {
  // Only where share_rings() made the pool: the report runs on rank 0
  // alone, and must not add a component there.
  return rings_shared_ && xcomm_ != nullptr ? xcomm_->comm->component<ChannelPool>()->created() : 0;
}

#if MPI_VERSION >= 4
// Collective, at an MPI-4 persistent init (served_exchanges.hpp).
PersistentPlan ServedExchanges::plan_persistent(const CallArguments& call) {
  PersistentPlan plan;
  const bool reserved = settings_.enabled && !disabled_ && reserve_served_request();
  scratch_.describe(call);
  // Every rank ready, with the same settings (the policy and the rent rule
  // are agreed), and what every rank can serve.
  const std::int64_t settings_hash = static_cast<std::int64_t>(fingerprint(settings_));
  std::int64_t agreed[5] = {reserved ? 0 : 1, settings_hash, -settings_hash, scratch_.servable ? 0 : 1,
                            scratch_.largest_block};
  const bool ready = PMPI_Allreduce(MPI_IN_PLACE, agreed, 5, MPI_INT64_T, MPI_MAX, comm_) == MPI_SUCCESS &&
                     agreed[0] == 0 && agreed[1] == -agreed[2];
  if (!ready || settings_.persistent == PersistentPolicy::mpi) {
    if (reserved) release_served_request();
    return plan;
  }
  if (settings_.persistent == PersistentPolicy::progress) {
    plan.algorithm = progress_rule_row(collective_);
    // set_up() fails on every rank alike. Blocks below the served size are
    // served where the communicator is one node (its set-up says, alike on
    // every rank): there the row copies every block itself, and a request
    // costs a region of the pooled boards, which its Starts repay within
    // tens; across nodes, the MPI's own collective may move small blocks in
    // fewer messages than one per pair. Where the library's row does not
    // run, the MPI's own request is the program's, with nothing in between.
    const bool small = agreed[4] < settings_.min_bytes;
    if (plan.algorithm == nullptr || agreed[3] != 0 || !set_up() || (small && xcomm_->comm->num_nodes() > 1)) {
      release_served_request();
      return plan;
    }
    plan.proxied = true;
    plan.library = xcomm_;
    ++counters_.persistent;
    return plan;
  }
  plan.proxied = true;
  ++counters_.persistent;
  // The set-up's search prices the first request's.
  if (!set_up()) {
    plan.rent_starts = LONG_MAX;
    return plan;
  }
  plan.library = xcomm_;
  set_up_agreement();
  share_rings();
  first_search(SearchKind::persistent);
  if (settings_.admission == AdmissionPolicy::repeats) return plan;
  // In periods of the request's own call, the dearest over ranks, and the
  // least gain: the price, and the rent it needs (admission_price_us and
  // rent_needed_us, in periods). The request is made already: its search
  // is what is left to buy.
  const SearchPrice& search = last_search(SearchKind::persistent);
  std::int64_t price[2] = {static_cast<std::int64_t>(1e3 * search.periods),
                           -static_cast<std::int64_t>(1e6 * search.gain)};
  if (PMPI_Allreduce(MPI_IN_PLACE, price, 2, MPI_INT64_T, MPI_MAX, errors_return_comm_) != MPI_SUCCESS) {
    plan.rent_starts = LONG_MAX;  // no price agreed: the MPI's own request, for good
    return plan;
  }
  const double price_periods = admission_price_us(1e-3 * static_cast<double>(price[0]), 0, 1, tournament_rule_,
                                                  admission_rule_);
  const double needed = rent_needed_us(price_periods, 1e-6 * static_cast<double>(-price[1]), admission_rule_);
  plan.rent_starts = static_cast<long>(std::min(std::ceil(needed), 1e15));
  return plan;
}
#endif

CallArguments ServedExchanges::arguments(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                         MPI_Datatype sendtype, const void* recvbuf, const int recvcounts[],
                                         const int rdispls[], MPI_Datatype recvtype) const {
  return {sendbuf,    recvbuf, sendcounts, sdispls,       sendtype,
          recvcounts, rdispls, recvtype,   send_entries_, recv_entries_};
}

CallArguments ServedExchanges::uniform_arguments(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                                 const void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  const int* sendcounts = uniform_send_.describe(sendcount, send_entries_);
  const int* recvcounts = uniform_recv_.describe(recvcount, recv_entries_);
  return arguments(sendbuf, sendcounts, uniform_send_.displs.data(), sendtype, recvbuf, recvcounts,
                   uniform_recv_.displs.data(), recvtype);
}

// Collective, at an agreed call: the communicator's one-time set-up (the
// library's communicator; the agreement's channel and the rings follow in
// set_up_agreement and share_rings, where calls agree). False: it failed,
// on every rank alike, and this communicator's calls go to MPI from now on.
bool ServedExchanges::set_up() {
  if (xcomm_ != nullptr) return true;
  if (disabled_) return false;
  const double begin = MPI_Wtime();
  // On a duplicate that returns errors (the library's own duplicate
  // inherits that).
  errors_return_comm_ = errors_return_duplicate(comm_);
  if (errors_return_comm_ == MPI_COMM_NULL) {
    disabled_ = true;
    counters_.setup_seconds += MPI_Wtime() - begin;
    return false;
  }
  if (MPIX_Comm_init(&xcomm_, errors_return_comm_) != MPI_SUCCESS) {  // fails on every rank alike
    xcomm_ = nullptr;
    disabled_ = true;
  }
  counters_.setup_seconds += MPI_Wtime() - begin;
  return !disabled_;
}

// Collective, at an agreed call, after set_up(): the agreement's path, the
// first time (the channel, where it can be had; admissions re-time it).
// Only where calls agree: a persistent request of a row that keeps the
// progress rule agrees at no Start, and its communicator builds no
// channel for it.
void ServedExchanges::set_up_agreement() {
  if (agreement_set_up_) return;
  agreement_set_up_ = true;
  const double begin = MPI_Wtime();
  agreement_.choose(xcomm_, settings_.agreement);
  counters_.setup_seconds += MPI_Wtime() - begin;
}

// Collective, at an agreed call, after set_up(): the rest of the set-up,
// once, with it. Not later, at the first call large enough to serve: while
// calls are small, agreements are spaced out, so that call may be found
// only tens of calls into its pattern, and rings made then (milliseconds)
// would land in calls a program times, in a short pattern several times
// its own cost. Every served call starts and completes its request before
// it returns, so the requests share the node channel's rings, made now: a
// new pattern, of any block size, creates none. Where they cannot be
// made, each algorithm that needs them refuses at its admission.
void ServedExchanges::share_rings() {
  if (rings_shared_) return;
  rings_shared_ = true;
  const double begin = MPI_Wtime();
  const Comm& comm = *xcomm_->comm;
  try {
    comm.component<ChannelPool>()->share_between_requests(comm, ChannelSettings::of(comm));
  } catch (const std::exception&) {
  }
  counters_.setup_seconds += MPI_Wtime() - begin;
}

// Collective, at an agreed call, after share_rings(): the communicator's
// first request and its search, over blocks of the served size (at most
// first_search_bytes each way), made, started until its tournament
// settles, and freed. A communicator's first request builds what its later
// ones share (the family's state on the library's communicator, the
// selection's tables): several times what a later admission costs. And
// what the search cost beyond MPI's own calls prices the first pattern's
// admission (rent or buy, selector/admission.hpp): the tournament's rule
// alone prices the trials, not what switching among algorithms over new
// buffers costs. Here both are part of the set-up, which runs in a
// program's first calls, and no pattern's admission pays them.
void ServedExchanges::first_search(SearchKind kind) {
  if (first_search_done_[static_cast<std::size_t>(kind)]) return;
  first_search_done_[static_cast<std::size_t>(kind)] = true;
  const double begin = MPI_Wtime();
  const int peers = std::max({send_entries_, recv_entries_, 1});
  // At least one byte, whatever the peers (std::clamp needs its bounds in order).
  const long long most = std::max<long long>(1, first_search_bytes / peers);
  const int block = static_cast<int>(std::clamp<long long>(settings_.min_bytes, 1, most));
  Blocks blocks{std::vector<int>(static_cast<std::size_t>(send_entries_), block), {},
                std::vector<int>(static_cast<std::size_t>(recv_entries_), block), {}};
  for (int i = 0; i < send_entries_; ++i) blocks.sdispls.push_back(i * block);
  for (int i = 0; i < recv_entries_; ++i) blocks.rdispls.push_back(i * block);
  const std::vector<char> send(static_cast<std::size_t>(send_entries_) * block + 1, 1);
  std::vector<char> recv(static_cast<std::size_t>(recv_entries_) * block + 1, 0);
  // MPI's own call over the same blocks: what the search is measured
  // against (the slowest rank's mean, after a warm-up).
  const auto mpi_call = [&] {
    return mpi_own_call(collective_, errors_return_comm_,
                        {send.data(), blocks.sendcounts.data(), blocks.sdispls.data(), block, MPI_BYTE},
                        {recv.data(), blocks.recvcounts.data(), blocks.rdispls.data(), block, MPI_BYTE});
  };
  constexpr int warm_up_calls = 3, timed_calls = 8;
  int failed = 0;
  for (int i = 0; i < warm_up_calls; ++i) failed |= mpi_call() != MPI_SUCCESS;
  const double timed = MPI_Wtime();
  for (int i = 0; i < timed_calls; ++i) failed |= mpi_call() != MPI_SUCCESS;
  double measured[2] = {1e6 * (MPI_Wtime() - timed) / timed_calls, static_cast<double>(failed)};
  if (PMPI_Allreduce(MPI_IN_PLACE, measured, 2, MPI_DOUBLE, MPI_MAX, errors_return_comm_) != MPI_SUCCESS ||
      measured[1] != 0) {
    counters_.setup_seconds += MPI_Wtime() - begin;
    return;  // agreed: met again, and handled, at the first admission
  }
  SearchCost search;
  search.mpi_call_us = measured[0];
  search.largest_block = block;
  MPIX_Request* request = nullptr;
  // Agreed either way (MPIX_*_init fails on every rank alike, and the
  // request settles at the same Start on every rank).
  // The blocking calls' requests are judged against MPI's call measured
  // here; a persistent init's races MPI's calls itself.
  const std::int64_t mpi_period_ns = kind == SearchKind::moving_buffers ? in_ns(search.mpi_call_us) : 0;
  const auto make = [&] {
    return make_request(kind, send.data(), recv.data(), blocks, false, agreement_.kept_latency_ns(), mpi_period_ns,
                        &request);
  };
  // The first request's one-time part (the family's state, the candidates'
  // probes: for an Alltoallv, many times what its later requests cost) is
  // the set-up's: the request is made once untimed, so that the one timed is
  // what an admission pays, which its price must predict.
  if (make() == MPI_SUCCESS) MPIX_Request_free(&request);
  const double made = MPI_Wtime();
  if (make() == MPI_SUCCESS) {
    search.request_us = 1e6 * (MPI_Wtime() - made);
    // Every rank makes the same Starts, until the agreed settling or the
    // bound, whatever one of them returned: a rank that stopped early
    // would leave the others waiting inside theirs. Whether every Start
    // succeeded is agreed once, after them.
    int settled = 0, failed_starts = 0;
    while (!settled && search.calls < max_first_search_starts) {
      const double started = MPI_Wtime();
      int rc = MPIX_Start(request);
      if (rc == MPI_SUCCESS) rc = MPIX_Wait(request, MPI_STATUS_IGNORE);
      search.add_call(1e6 * (MPI_Wtime() - started));
      if (rc == MPI_SUCCESS) rc = MPIX_Request_is_settled(request, &settled);
      failed_starts |= rc != MPI_SUCCESS;
    }
    MPIX_Request_free(&request);
    // MPI's first calls over new buffers run several times slower than
    // later ones: timed again after the search, the faster of the two is
    // what it is measured against.
    const double retimed = MPI_Wtime();
    for (int i = 0; i < timed_calls; ++i) failed_starts |= mpi_call() != MPI_SUCCESS;
    double after[2] = {1e6 * (MPI_Wtime() - retimed) / timed_calls, static_cast<double>(failed_starts)};
    if (PMPI_Allreduce(MPI_IN_PLACE, after, 2, MPI_DOUBLE, MPI_MAX, errors_return_comm_) == MPI_SUCCESS &&
        after[1] == 0 && settled) {
      search.mpi_call_us = std::min(search.mpi_call_us, after[0]);
      search_measured(kind, search);
    }
  }
  counters_.setup_seconds += MPI_Wtime() - begin;
}

// A search settled: what it cost prices the next admission (agreed as the
// slowest rank's at the next agreement).
void ServedExchanges::search_measured(SearchKind kind, const SearchCost& search) {
  SearchPrice& price = last_search(kind);
  price.us = search_excess_us(search.request_us, search.calls_us, search.calls, search.fastest_us, search.mpi_call_us);
  price.gain = search_gain(search.fastest_us, search.mpi_call_us);
  price.block = search.largest_block;
  price.periods = search.mpi_call_us > 0 ? price.us / search.mpi_call_us : 0;
  ++counters_.searches;
  counters_.search_seconds += 1e-6 * price.us;
}

// Collective: a request of the collective over blocks of bytes, as the
// drop-in serves them.
int ServedExchanges::make_request(SearchKind kind, const void* sendbuf, void* recvbuf, const Blocks& blocks,
                                  bool as_alltoall,
                                  long long agreement_ns,
                                  std::int64_t mpi_period_ns, MPIX_Request** request) {
  MPIX_Info* info = nullptr;
  MPIX_Info_init(&info);
  // auto: a tournament among the algorithms whose data path does not
  // depend on the buffers (the others refuse mpix_buffers_move), MPI's own
  // call among them.
  const Collective family = as_alltoall ? Collective::alltoall : collective_;
  MPIX_Info_set(info, listing_of(family).algorithm_key, "auto");
  // A persistent init's request has the library's defaults otherwise
  // (mpi_entry_points.cpp): its buffers fixed, no agreement per call.
  if (kind == SearchKind::moving_buffers) {
    MPIX_Info_set(info, "mpix_auto_settle", "50");  // settled within a pattern's first 50 served calls
    MPIX_Info_set(info, "mpix_auto_mpi_credit_ns", std::to_string(agreement_ns).c_str());
    MPIX_Info_set(info, "mpix_buffers_move", "true");
  }
  // The pattern's calls so far were MPI's own, passed through, some of them
  // timed: their period (the slowest rank's) is what MPI's call costs this
  // program, with no agreement in it. With eager-sized blocks the
  // tournament judges against it and does not race MPI's call, whose trial
  // would run cold: right after other traffic (the admission's own) MPI's
  // eager path is several times slower for tens of calls, more than a trial
  // can wait. A pattern admitted within its own first such calls brings a
  // period of that slower kind: a served algorithm must then beat MPI's
  // call as it ran the pattern so far. With larger blocks it races MPI's
  // call (AutoTournament::take_mpi_period).
  if (mpi_period_ns > 0) MPIX_Info_set(info, "mpix_auto_mpi_period_ns", std::to_string(mpi_period_ns).c_str());
  int rc = MPI_SUCCESS;
  switch (family) {
    case Collective::neighbor_alltoallv:
      rc = MPIX_Neighbor_alltoallv_init(sendbuf, blocks.sendcounts.data(), blocks.sdispls.data(), MPI_BYTE, recvbuf,
                                        blocks.recvcounts.data(), blocks.rdispls.data(), MPI_BYTE, xcomm_, info,
                                        request);
      break;
    case Collective::alltoall:  // uniform blocks: block 0's bytes are every block's
      rc = MPIX_Alltoall_init(sendbuf, blocks.sendcounts[0], MPI_BYTE, recvbuf, blocks.recvcounts[0], MPI_BYTE, xcomm_,
                              info, request);
      break;
    case Collective::alltoallv:
      rc = MPIX_Alltoallv_init(sendbuf, blocks.sendcounts.data(), blocks.sdispls.data(), MPI_BYTE, recvbuf,
                               blocks.recvcounts.data(), blocks.rdispls.data(), MPI_BYTE, xcomm_, info, request);
      break;
  }
  MPIX_Info_free(&info);
  return rc;
}

// Collective: every rank calls it at the same call (the decision is agreed),
// after share_rings().
void ServedExchanges::admit(const void* sendbuf, void* recvbuf, bool as_alltoall, std::int64_t largest_block,
                            std::int64_t mpi_period_ns, double mpi_call_us) {
  const ExchangePattern& pattern = scratch_;
  const double begin = MPI_Wtime();
  const long now = counters_.calls;
  for (Entry& e : entries_)
    if (now - e.last_used > stale_after) free_entry(e);
  entries_.erase(
      std::remove_if(entries_.begin(), entries_.end(), [](const Entry& e) { return !e.request && !e.pass_through; }),
      entries_.end());
  forget_served_slots();  // the slots move
  if (static_cast<int>(entries_.size()) >= settings_.entries) {
    auto oldest = std::min_element(entries_.begin(), entries_.end(),
                                   [](const Entry& x, const Entry& y) { return x.last_used < y.last_used; });
    free_entry(*oldest);
    entries_.erase(oldest);
  }
  // Every served call pays a check, which MPI's own call, once it wins, no
  // longer does: the tournament credits that to it. What a served call of a
  // repeating pattern pays is a carried check (the call described, the
  // flags in its exchange) or, now and then, an agreement when the ranks
  // arrive together: about the agreement's latency, which its path's
  // choice times (Agreement::choose: the best case of a burst). Not the
  // agreed calls' measured mean (check_us_): that also holds the recording
  // and voting that only agreed calls do, and the waits for the slowest
  // rank, which MPI's own call waits as long for; credited to MPI's call,
  // it was a large share of a mid-sized exchange's time, and MPI's call won
  // searches that the library's algorithms would have won by half its time.
  const long long agreement_ns = agreement_.choose(xcomm_, settings_.agreement);
  Entry entry;
  entry.pattern = pattern;
  entry.last_used = now;
  entry.search.mpi_call_us = mpi_call_us;
  entry.search.largest_block = largest_block;
  // Over MPI_BYTE: the request never holds the caller's datatype handles,
  // which may be freed (and their handles reused) while it lives.
  const Blocks blocks{ExchangePattern::in_bytes(pattern.sendcounts, pattern.send_element),
                      ExchangePattern::in_bytes(pattern.sdispls, pattern.send_element),
                      ExchangePattern::in_bytes(pattern.recvcounts, pattern.recv_element),
                      ExchangePattern::in_bytes(pattern.rdispls, pattern.recv_element)};
  entry.as_alltoall = as_alltoall;
  const int rc = make_request(SearchKind::moving_buffers, pattern.in_place ? MPI_IN_PLACE : sendbuf, recvbuf, blocks,
                              as_alltoall, agreement_ns,
                              mpi_period_ns, &entry.request);
  const double spent_us = 1e6 * (MPI_Wtime() - begin);
  counters_.admission_seconds += 1e-6 * spent_us;
  entry.search.request_us = spent_us;
  // Admissions grow with the blocks (each request's own segments), so the
  // last is the estimate of the next. Before the first, the set-up's
  // search (first_search), which built the communicator's first request,
  // prices it.
  last_admission_us_ = spent_us;
  if (rc != MPI_SUCCESS) {  // agreed: the same on every rank
    disabled_ = true;
    return;
  }
  ++counters_.patterns;
  counters_.as_alltoall += as_alltoall;
  longest_gap_ = first_gap;
  entries_.push_back(std::move(entry));
}

// The next calls pass straight through: as many as the rule allows, but
// at most gap_growth times as many as last time, so that the agreements'
// cost is measured (the fastest so far) before it spaces them far apart.
void ServedExchanges::look_again_after(long calls) {
  calls = std::min(calls, longest_gap_);
  longest_gap_ = std::min(gap_growth * std::max(calls, first_gap), admission_rule_.max_calls_between_checks);
  skip_until_ = counters_.calls + calls;
}

std::vector<ServedExchanges::PatternUse> ServedExchanges::pattern_uses() const {
  std::vector<PatternUse> uses = left_uses_;
  for (const Entry& e : entries_)
    if ((e.request != nullptr || e.pass_through) && uses.size() < patterns_reported) uses.push_back(e.use);
  return uses;
}

long ServedExchanges::patterns_unreported() const {
  long live = 0;
  for (const Entry& e : entries_) live += e.request != nullptr || e.pass_through;
  const long admitted = static_cast<long>(left_uses_.size()) + left_unreported_ + live;
  return admitted - static_cast<long>(pattern_uses().size());
}

void ServedExchanges::free_entry(Entry& e) {
  if (e.request != nullptr || e.pass_through) {
    if (left_uses_.size() < patterns_reported)
      left_uses_.push_back(e.use);
    else
      ++left_unreported_;
  }
  if (e.request != nullptr) MPIX_Request_free(&e.request);
  e.request = nullptr;
  e.pass_through = false;
}

}  // namespace mpix::intercept
