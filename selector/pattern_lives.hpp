// How many calls a communicator's exchange patterns run before the next
// one takes over, as the drop-in's agreements see them: what a new
// pattern is expected to run (selector/admission.hpp, expected_more_calls).
//
// Why: rent or buy expects a pattern that has run n calls to run n more,
// so it admits a pattern once its calls have cost what a search will,
// often when a program that sweeps sizes (a benchmark, an autotuner, a
// solver's phases) is about to leave it: the search is then paid where
// it cannot repay. Where the patterns so far ran about as long each, a new
// one is expected to as well.
//
// What it sees: at each agreement, how many calls the agreed pattern has
// run (RecentCalls, agreed over ranks). One that began after the last
// agreement ended the one before; that one's life ran from its own
// beginning to this one's. Lives are read at agreements, which are
// spaced out, so a life may read longer than it was (calls of other
// patterns between two agreements count to it); a pattern that shares
// its calls with another (two transposes alternating) counts its share,
// so its beginning moves later, and its lives read short. The typical
// life is the shortest of the last few (of those known, from the first):
// a short one only delays an admission (rent or buy takes over once a
// pattern outlives it), a long one would bring searches early that
// cannot repay.
//
// Pure: every input agreed, so every rank keeps the same lives.
#pragma once

#include <array>

namespace mpix {

class PatternLives {
 public:
  static constexpr int kept = 3;  // lives remembered

  // At an agreement at call number `call`, whose pattern has run `calls`
  // calls (agreed; at least one, this call).
  void at_agreement(long call, long calls);
  // The shortest of the last `kept` lives (of those known); 0: none yet.
  long typical() const;

 private:
  long last_agreement_ = -1;  // call number of the last agreement seen
  long began_ = -1;           // where the pattern found there began
  std::array<long, kept> lives_{};
  int known_ = 0;  // lives recorded, up to kept
  int next_ = 0;   // where the next life goes
};

}  // namespace mpix
