// One rank's memory of its recent calls of one collective on one
// communicator: a hash of each call's arguments and, where it was timed,
// when MPI's own call began and how long it took. The drop-in
// (served_exchanges.cpp) records the calls just before each agreement, and
// from them each rank tells the agreement how often its current arguments
// repeat, for how many calls they have run, what they cost MPI (the rent
// of selector/admission.hpp), and their period: from one call's start to
// the next's, the program's own work between them included, as auto's
// tournament times a served call (collectives/auto/tournament.hpp), so
// that MPI's own call need not be raced to be compared.
//
// The calls recorded before one agreement are consecutive (the window's
// worth before it, or every call since the last one where agreements come
// closer). A pattern counts as running since it was first recorded as long
// as every agreement since found it in the window; a pattern that shares
// the calls with others (two transposes alternating) runs for its share of
// them. Local: no MPI call, no allocation after construction.
#pragma once

#include <array>
#include <cstdint>

namespace mpix::intercept {

class RecentCalls {
 public:
  static constexpr int window = 16;

  // Call number `call` had arguments hashing to `hash`.
  void record(long call, std::uint64_t hash);
  // The call just recorded began at `began` (MPI_Wtime) and took this long
  // in MPI's own call.
  void timed(double began, double us);

  struct Pattern {
    int repeats = 0;        // calls in the window with the current arguments, this one included
    long calls = 0;         // calls with them since the pattern began, estimated
    double call_us = 0;     // their mean time in MPI, over the timed ones (0: none timed)
    // Their mean period, over pairs of consecutive timed calls with the
    // current arguments, neither at an agreement (0: no such pair).
    double period_us = 0;
  };
  // At an agreement, call number `call` (the last recorded): the current
  // call's pattern. Also renews every recorded pattern's run.
  Pattern at_agreement(long call);
  // The mean time of the window's timed calls, whatever their arguments.
  double mean_call_us() const;
  // The calls recorded so far count as not timed: what the next agreement
  // reads of call times is the calls' from now on (where they go changed).
  void forget_timings();

 private:
  struct Call {
    std::uint64_t hash = 0;
    long call = -1;     // -1: empty
    double began = 0;   // when MPI's own call began, in seconds (timed calls only)
    double us = 0;      // 0: not timed
    // An agreement preceded MPI's call, and its bookkeeping followed it:
    // neither period around it is MPI's and the program's alone.
    bool agreed = false;
  };
  struct Run {
    std::uint64_t hash = 0;
    long since = 0;           // first recorded
    long last_agreement = -1;  // the last agreement that found it in the window
  };
  std::array<Call, window> calls_{};
  int next_ = 0;
  std::array<Run, window> runs_{};  // at most one per call of the window
  long last_agreement_ = -1;
};

}  // namespace mpix::intercept
