// The drop-in's state of one communicator for one collective
// (MPI_Alltoallv, MPI_Alltoall, or MPI_Neighbor_alltoallv on a distributed
// graph): the
// exchanges it serves from persistent requests, and the protocol that
// decides, identically on every rank, which calls they serve (see
// served_exchanges.cpp).
#pragma once

#include <mpi.h>
#include <mpix/mpix.h>

#include <array>
#include <climits>
#include <cstdint>
#include <vector>

#include "intercept/agreement.hpp"
#include "intercept/exchange_pattern.hpp"
#include "intercept/intercept_config.hpp"
#include "intercept/recent_calls.hpp"
#include "selector/admission.hpp"
#include "selector/pattern_lives.hpp"

namespace mpix::intercept {

// What the drop-in is told to do; the same on every rank (agreed per call).
// What ranks compare before serving anything: settings that differ
// between ranks would have them serve different calls.
std::uint64_t fingerprint(const InterceptConfig& settings);

// The collectives the drop-in serves. MPI_Alltoall's calls are described as
// the Alltoallv of their uniform blocks (call_uniform), so all take the
// same arguments here.
enum class Collective { alltoallv, neighbor_alltoallv, alltoall };
inline constexpr int collectives = 3;
const char* name_of(Collective collective);  // "MPI_Alltoallv", ...
// The info key that asks the collective's library family for an algorithm.
const char* algorithm_info_key(Collective collective);

// One side of a call of the collective: its buffer, its counts and
// displacements (MPI_Alltoallv, MPI_Neighbor_alltoallv) or its count
// (MPI_Alltoall), and its datatype.
template <typename Buffer>
struct Side {
  Buffer buf;
  const int* counts;
  const int* displs;
  int count;
  MPI_Datatype type;
};
// A call no served request runs: the MPI's own call where to_mpi (its
// pattern went back to it: ServedExchanges::passes_to_mpi), else passed on
// (unserved_alltoallv and kin: a claimed call where comm is set up for them).
int pass_on(Collective collective, bool to_mpi, MPI_Comm comm, const Side<const void*>& send,
            const Side<void*>& recv);

// What the calls passed on have told every rank alike, at no cost, of
// their blocks: ClaimedExchanges::alltoallv_largest_blocks.
struct LargestBlocks {
  long calls = 0;          // calls that told it so far
  std::uint64_t last = 0;  // the largest block any rank moved in the last, in bytes
};

// What an MPI-4 persistent init gets (ServedExchanges::plan_persistent),
// agreed on every rank.
struct PersistentPlan {
  bool proxied = false;  // a served request behind a handle of the MPI's own; else the MPI's own init, as is
  // The library's communicator for its request; nullptr: the served
  // request runs the MPI's own request for good.
  MPIX_Comm* library = nullptr;
  const char* algorithm = nullptr;  // the library's row to ask for; nullptr: auto
  long rent_starts = 0;             // Starts on the MPI's own before the library's (served_requests.hpp)
};

// One search's measurements, until its request settles
// (selector/admission.hpp: search_excess_us).
struct SearchCost {
  double request_us = 0;
  double calls_us = 0;
  long calls = 0;
  double fastest_us = 0;  // 0: no call yet
  double mpi_call_us = 0;
  std::int64_t largest_block = 0;  // agreed: its pattern's, in bytes
  void add_call(double us) {
    calls_us += us;
    ++calls;
    if (fastest_us == 0 || us < fastest_us) fastest_us = us;
  }
};

// The drop-in's two kinds of request, whose searches cost differently: the
// blocking calls' (buffers that move from call to call: the algorithms
// whose data path does not depend on them) and an MPI-4 persistent
// collective's (its buffers fixed: every algorithm, windows included).
enum class SearchKind { moving_buffers, persistent };
inline constexpr int search_kinds = 2;

class ServedExchanges {
 public:
  static constexpr int max_entries = 16;  // MPIX_INTERCEPT_ENTRIES's upper bound

  // comm: an intracommunicator of more than one rank; for
  // neighbor_alltoallv, one with a distributed-graph topology.
  ServedExchanges(MPI_Comm comm, Collective collective, const InterceptConfig& settings);
  ~ServedExchanges();  // frees the requests and the MPIX_Comm: local work only
  ServedExchanges(const ServedExchanges&) = delete;
  ServedExchanges& operator=(const ServedExchanges&) = delete;

  // The common case, inline in the entry points: a call on a communicator
  // that serves nothing, or too far from the next agreement to be recorded
  // for it, only counts here, and the entry point passes it to MPI's own
  // call with the caller's arguments. Otherwise call() (or call_uniform())
  // takes it.
  bool passes_straight_through() {
    if (!disabled_ && (counters_.calls + RecentCalls::window >= skip_until_ || blocks_grew())) return false;
    ++counters_.calls;
    return true;
  }
  // The same for an MPI_Alltoall call (Collective::alltoall), which also
  // passes straight through where its blocks are below the served size
  // (call_uniform says why that is every rank's decision): known without an
  // MPI call for the predefined receive type call_uniform last sized, whose
  // size no handle can change.
  bool passes_straight_through(int recvcount, MPI_Datatype recvtype) {
    if (recvtype == small_type_ && static_cast<unsigned>(recvcount) < small_counts_below_) {
      ++counters_.calls;
      back_on_mpi_ = false;  // no pattern this small is cached (every rank's call is this small)
      return true;
    }
    return passes_straight_through();
  }
  // Where a call that passes straight through goes: the MPI's own call
  // while the last agreement found its pattern gone back to it (the
  // pattern's search found the MPI's own call fastest: Entry::destination);
  // otherwise it is passed on (unserved_alltoallv and kin).
  bool passes_to_mpi() const { return back_on_mpi_; }
  // One call of the collective on the communicator that does not pass
  // straight through: served, or passed to MPI's own (PMPI_). Returns its
  // MPI error code, raised on the communicator's error handler as MPI's
  // call would.
  int call(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
           const int recvcounts[], const int rdispls[], MPI_Datatype recvtype);
  // One MPI_Alltoall call (Collective::alltoall): its uniform blocks as
  // counts and displacements, kept from the last call while the counts stay
  // (no allocation, O(1) per call), then call(); what passes through goes
  // to PMPI_Alltoall with the call's own arguments.
  int call_uniform(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype);

  // For MPIX_VERBOSE, when the state goes.
  struct Counters {
    long calls = 0;
    long served = 0;
    long persistent = 0;      // MPI-4 persistent collectives served (served_requests.hpp)
    long persistent_on_library = 0;  // ... that switched to the library's request (the rest ran MPI's own)
    long as_alltoall = 0;     // MPI_Alltoallv patterns admitted as Alltoalls (uniform blocks)
    long returned = 0;        // patterns that went back to MPI: it was faster
    long passed_on_faster = 0;  // ... of them, whose calls passed on were faster still (race_destinations)
    long agreements = 0;      // calls that ran the agreement
    long patterns = 0;        // exchanges admitted
    long agreement_misses = 0;  // some rank had the pattern, another not
    long carried = 0;           // served calls whose check their exchange carried (no agreement)
    long carried_misses = 0;    // carried calls where some rank's arguments had changed
    double check_seconds = 0;   // the agreements and the checks around them (describing, voting)
    // One-time costs, this rank's clock: the communicator's set-up (the
    // library's communicator, the agreement's channel and path at its first
    // servable call; the shared rings at its first call large enough to
    // serve), and the admissions (each pattern's request and, every few,
    // the agreement's re-timing).
    double setup_seconds = 0;
    double admission_seconds = 0;
    // The searches measured (the set-up's and each admitted pattern's until
    // its request settled) and what they cost beyond MPI's calls, this
    // rank's clock.
    long searches = 0;
    double search_seconds = 0;
  };
  // The path agreements take now (for the report).
  const char* agreement_path() const { return agreement_.path_name(); }
  // Node-channel rings the served requests made (for the report): one set,
  // which every pattern shares, where the node has peers (share_rings).
  long rings_made() const;
  const Counters& counters() const { return counters_; }
  // What one admitted pattern cost (for MPIX_VERBOSE): its calls served by
  // its request, and the agreements at calls that found it in every rank's
  // cache (every such call's, served or gone back to MPI).
  struct PatternUse {
    long served = 0;
    long agreements = 0;
  };
  // The first patterns_reported patterns admitted, in the order they left
  // the cache, then those still in it; patterns_unreported() counts the
  // rest (a long run admits patterns without bound).
  static constexpr std::size_t patterns_reported = 8;
  std::vector<PatternUse> pattern_uses() const;
  long patterns_unreported() const;
  // Collective over the communicator, at an MPI-4 persistent init of this
  // collective over call's arguments (MPIX_INTERCEPT_PERSISTENT, agreed
  // with the other settings; an init goes to the MPI as is unless every
  // rank has the drop-in on, the same settings and a slot for one more
  // served request, reserve_served_request, which a proxied plan holds):
  //  - mpi: the MPI's own init, as is;
  //  - progress: the library's row that keeps MPI's progress rule (the
  //    capability mpi_progress) from the first Start, where the collective's
  //    family has one, every rank can serve the arguments and the largest
  //    block reaches MPIX_INTERCEPT_MIN_BYTES; otherwise the MPI's own init,
  //    as is (a proxy would only add its calls to every Start and wait);
  //  - library: auto, after rent_starts Starts on the MPI's own (rent or
  //    buy, as for an admission, selector/admission.hpp: a search costs
  //    about as many of the request's own periods as the communicator's
  //    last one of this kind did of its own; 0 under
  //    MPIX_INTERCEPT_ADMISSION=repeats).
  PersistentPlan plan_persistent(const CallArguments& call);
  // call's arguments for an init of this collective: the count arrays'
  // entries (MPI_Alltoallv, MPI_Neighbor_alltoallv), or an Alltoall's
  // uniform blocks (describing them in this object's storage).
  CallArguments arguments(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                          const void* recvbuf, const int recvcounts[], const int rdispls[],
                          MPI_Datatype recvtype) const;
  CallArguments uniform_arguments(const void* sendbuf, int sendcount, MPI_Datatype sendtype, const void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype);
  // For the report: a served persistent collective runs the library's request now.
  void persistent_switched_to_library() { ++counters_.persistent_on_library; }
  // A served persistent collective's search settled: it prices the next
  // (this rank's measurement; agreed as the slowest rank's when used).
  void persistent_search_measured(const SearchCost& search) { search_measured(SearchKind::persistent, search); }
  MPI_Comm comm() const { return comm_; }
  Collective collective() const { return collective_; }

 private:
  struct Entry {
    ExchangePattern pattern;
    MPIX_Request* request = nullptr;
    long last_used = 0;  // call number of its last admission or service
    // Agreed: the request's tournament found MPI's own call fastest, so the
    // exchange is no longer served, with agreements spaced out, until the
    // pattern changes: its calls go where `destination` says.
    bool pass_through = false;
    bool settled = false;  // agreed: its request had settled at the last service
    // Agreed: an MPI_Alltoallv whose blocks are an Alltoall's on every
    // rank, served by the Alltoall family's request (its algorithms, and
    // MPI_Alltoall as MPI's own call).
    bool as_alltoall = false;
    // Where a pattern no longer served goes. Its search raced MPI's own
    // call (MPI_Alltoall for a pattern served as an Alltoall, not the
    // program's MPI_Alltoallv), not the calls passed on before its
    // admission: claimed calls where the communicator has them
    // (claimed_exchanges.hpp), which may copy faster than MPI's own call
    // where the library's algorithms do not. There the two race, once: the
    // program's MPI call until the next agreement that finds the pattern,
    // then the calls passed on until the one after, each timed over its
    // calls just before its agreement (agreed: the slowest rank's); the
    // faster stays, MPI's own where they tie (race_destinations).
    // Elsewhere the calls passed on are MPI's own.
    enum class Destination { mpi, passed_on, mpi_on_trial, passed_on_on_trial };
    Destination destination = Destination::mpi;
    double mpi_trial_us = 0;  // agreed: what MPI's own call took in its trial
    bool returns_to_mpi() const {
      return pass_through && (destination == Destination::mpi || destination == Destination::mpi_on_trial);
    }
    // Until it settles: its search so far (search_measured).
    SearchCost search;
    PatternUse use;
    // Agreed: how many calls in a row must have served it, agreed or
    // carried, before the next is carried. A miss costs a round of its
    // exchange: after a carried run whose agreements saved less than that
    // round (a pattern that changes too often), twice as many; after a
    // longer one (the program's next phase), one.
    long carry_after = 1;
  };
  // What every rank contributes to one agreement (the maximum over ranks):
  // the fields below, then per cache slot whether its pattern is not this
  // rank's (so after the maximum, 0 means it is every rank's). Times in
  // nanoseconds: the slowest rank's.
  enum Field {
    matched_any,
    unservable,
    largest_block,
    minus_repeats,        // the fewest repeats in a rank's recent calls
    minus_pattern_calls,  // the fewest calls a rank's pattern has run (RecentCalls)
    pattern_call_ns,      // what a call of the pattern costs MPI
    pattern_period_ns,    // the pattern's period with MPI's call (RecentCalls)
    period_unmeasured,    // some rank has no such period
    call_ns,              // what a recent call costs MPI, whatever its pattern
    check_ns,             // what an agreement costs
    admission_ns,         // what an admission costs (the last after the first)
    search_ns,            // what the last search cost beyond MPI's calls
    minus_search_gain,    // what its winner saved, in millionths of MPI's time (the least rank's)
    search_block,         // its largest block, in bytes
    settings,
    minus_settings,
    not_uniform,          // some rank's pattern is not an Alltoall's (ExchangePattern::uniform_block)
    uniform_block,        // its block's bytes: the same on every rank where
    minus_uniform_block,  //   uniform_block == -minus_uniform_block
    missed_round_ns,      // what a carried call's round took before it missed (0: it did not)
    slots
  };
  using Votes = std::array<std::int64_t, slots + max_entries>;
  // This rank's votes on a call of this pattern (unservable marked where
  // MPI forbids it), and what this rank knows of prices.
  Votes votes(ExchangePattern& pattern, const RecentCalls::Pattern& recent) const;
  // An agreement took check_seconds: counted, and priced for the next.
  void checked(double check_seconds);
  // After an agreed call that no entry served: the communicator's set-up,
  // then the pattern admitted, or the next check scheduled.
  void consider_admission(const Votes& agreed, const void* sendbuf, void* recvbuf);

  int pass_through(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype);
  int serve(Entry& entry, const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype);
  // One Start and Wait of a served entry's request over these buffers,
  // timed while it searches, and what its settling decides (agreed);
  // returns its MPI error code, not yet raised.
  int run_request(Entry& entry, const void* sendbuf, void* recvbuf);
  // At an agreed call that finds a pattern no longer served: the race of
  // its destinations (Entry::destination) moves on, where its leg's calls
  // were timed (pattern_call_ns: their agreed mean; 0 where none was).
  void race_destinations(Entry& entry, std::int64_t pattern_call_ns);
  void count_served(Entry& entry);
  // A served call that runs the carried slot's exchange with the check in
  // it (Agreement::post). True: every rank's arguments were the slot's,
  // and rc is the call's; false: some rank's were not, and the call still
  // needs its agreement (nothing the exchange wrote is left for the user to
  // read: the agreed call rewrites every block a rank receives).
  bool serve_carried(const CallArguments& args, void* recvbuf, int& rc);
  // After a call served from slot (or none: -1), agreed or carried:
  // whether the next call carries its check, and from which slot
  // (carried_slot_).
  void carry_next(int slot);
  // A request's blocks in bytes: counts and displacements each way.
  struct Blocks {
    std::vector<int> sendcounts, sdispls, recvcounts, rdispls;
  };
  void remember_small_counts(MPI_Datatype recvtype, int type_bytes);
  // Agreed: a call passed on since the last agreement, which found the
  // exchange below the served size, moved a block of that size on some
  // rank (LargestBlocks, alike on every rank): the next call agrees, so
  // that an exchange that grew is admitted at once, not at an agreement
  // spaced out for small calls.
  bool blocks_grew() const {
    return passed_on_blocks_ != nullptr && passed_on_blocks_->calls > small_through_ &&
           passed_on_blocks_->last >= static_cast<std::uint64_t>(served_from_);
  }
  bool set_up();
  void set_up_agreement();
  void share_rings();
  void first_search(SearchKind kind);
  void search_measured(SearchKind kind, const SearchCost& search);
  // as_alltoall: the Alltoall family's request over block 0's bytes.
  // kind: moving_buffers, as served calls are; persistent, as an MPI-4
  // persistent init makes its request (the library's defaults).
  int make_request(SearchKind kind, const void* sendbuf, void* recvbuf, const Blocks& blocks, bool as_alltoall,
                   long long agreement_ns,
                   std::int64_t mpi_period_ns, MPIX_Request** request);
  void admit(const void* sendbuf, void* recvbuf, bool as_alltoall, std::int64_t largest_block,
             std::int64_t mpi_period_ns, double mpi_call_us);
  void look_again_after(long calls);
  void look_again_unless_serving();
  int timed_pass_through(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype);
  void free_entry(Entry& e);

  MPI_Comm comm_;
  Collective collective_;
  int send_entries_ = 0, recv_entries_ = 0;  // of the count arrays (CallArguments)
  // Collective::alltoall: the last call's blocks as arrays (call_uniform).
  struct UniformBlocks {
    int count = 0;  // the call's
    std::vector<int> counts, displs;
    const int* describe(int new_count, int peers);  // counts.data(); displs follow
  } uniform_send_, uniform_recv_;
  // Collective::alltoall, once the settings are agreed: a predefined receive
  // type and the counts of it below the served size (passes_straight_through).
  MPI_Datatype small_type_ = MPI_DATATYPE_NULL;
  unsigned small_counts_below_ = 0;
  MPI_Datatype derived_type_ = MPI_DATATYPE_NULL;  // the last receive type found not predefined
  InterceptConfig settings_;
  // The smallest largest-block this path serves from its requests (the same
  // on every rank): MPIX_INTERCEPT_MIN_BYTES, or, where the calls it passes
  // on run claimed calls (claimed_exchanges.hpp), above the blocks those
  // always stage.
  long served_from_;
  ExchangePattern scratch_;  // the current call's, described in place
  // What the calls passed on tell of their blocks, where they do (an
  // MPI_Alltoallv's, on a communicator set up for claimed calls), and the
  // count of them at the last agreement that found the exchange below the
  // served size (LONG_MAX: the last did not): blocks_grew.
  const LargestBlocks* passed_on_blocks_ = nullptr;
  // The calls passed on are claimed calls (claimed_exchanges.hpp), not MPI's
  // own: a pattern whose search found MPI's own call fastest races the two
  // (Entry::destination).
  bool passes_on_claimed_ = false;
  long small_through_ = LONG_MAX;
  MPI_Comm errors_return_comm_ = MPI_COMM_NULL;  // made by set_up() (collective, agreed)
  MPIX_Comm* xcomm_ = nullptr;                   // over it
  Agreement agreement_;
  // The cache, in an order every rank shares: admissions and evictions
  // happen at agreed calls, so slot i is the same exchange on every rank.
  std::vector<Entry> entries_;
  bool disabled_ = false;       // agreed: settings differ, or the library failed to serve
  bool back_on_mpi_ = false;    // agreed: the last agreed call's pattern returns to MPI (passes_to_mpi)
  bool agreement_set_up_ = false;  // set_up_agreement() ran (agreed)
  bool rings_shared_ = false;   // share_rings() ran (agreed)
  std::array<bool, search_kinds> first_search_done_{};  // first_search(kind) ran (agreed)
  bool settings_agreed_ = false;  // an agreement found every rank's MPIX_INTERCEPT* settings alike
  long skip_until_ = 0;         // agreed: calls before this one pass without agreement
  // Agreed: the slot whose exchange the next call runs with its check
  // carried inside (no agreement first); -1: the next call agrees first.
  // Predicted from the slots the last calls served (their agreed outcomes,
  // -1 for a call not served): where they repeat with a period of one to
  // longest_period calls (one exchange; a forward and a backward transpose
  // alternating) for the predicted entry's carry_after calls in a row, the
  // next call is carried with the slot one period back.
  static constexpr int longest_period = 4;
  std::array<int, longest_period> last_slots_{-1, -1, -1, -1};  // [0]: the latest call's
  std::array<long, longest_period + 1> periodic_run_{};         // [p]: calls in a row that repeat period p
  int carried_slot_ = -1;
  long carried_run_ = 0;  // carried calls since the last miss
  static constexpr long most_carry_after = 1L << 16;  // Entry::carry_after's bound
  // This rank's: the slot whose carried call just missed (-1: none), and
  // what its round took; agreed at that call's agreement, which prices the
  // slot's carry_after (priced_miss).
  int missed_slot_ = -1;
  double missed_round_us_ = 0;
  void priced_miss(const Votes& agreed);
  void forget_served_slots();  // the cache's slots moved (admit)
  long longest_gap_ = 8;        // agreed: the most calls the next skip may take
  RecentCalls recent_;          // this rank's
  PatternLives lives_;          // agreed: how long the communicator's patterns ran
  AdmissionRule admission_rule_;
  TournamentRule tournament_rule_;  // its defaults, which the served requests run: the price of their trials
  // Agreed at the last agreement (microseconds): what a call and an
  // agreement cost, for the cadence of the next ones.
  double call_us_ = 0, check_us_ = 0;
  double typical_check_us_ = 0;        // this rank's agreements, a moving mean
  double last_admission_us_ = 0;  // this rank's last admission (0: none yet)
  // Per SearchKind: this rank's last search measured, beyond MPI's calls,
  // and what its winner saved (search_gain).
  struct SearchPrice {
    double us = 0;
    double gain = 1;
    std::int64_t block = 0;  // its largest block (SearchCost::largest_block)
    // us in periods of MPI's call it was measured against: a persistent
    // collective's search, trials of every algorithm over its own blocks,
    // costs about as many of its own periods (a search over small blocks
    // would price one over large blocks far too low).
    double periods = 0;
  };
  std::array<SearchPrice, search_kinds> last_search_{};
  SearchPrice& last_search(SearchKind kind) { return last_search_[static_cast<std::size_t>(kind)]; }
  Counters counters_;
  // The patterns that left the cache (free_entry): the first ones, and how
  // many more.
  std::vector<PatternUse> left_uses_;
  long left_unreported_ = 0;
};

}  // namespace mpix::intercept
