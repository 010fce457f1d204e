// Whether a rank stages its small claimed transfers in an epoch
// (collectives/claimed_copies.hpp), chosen from its own epochs' times.
//
// Why: staging trades a CMA system call (and the pinning of the peer's
// pages) for a second copy through the sender's board. Which costs less
// depends on the block's size and on the node's state: where its memory
// is contended, staged 32 KiB blocks ran slower than the MPI's own call,
// and in quiet phases faster than unstaged ones (results/dropin/2026-11-30-
// vm-claimed-staging/). No fixed size limit is right in both.
//
// Protocol: epochs run in rounds of round_epochs. In each round, the
// trial epochs run staged, then unstaged, and each one's period is kept:
// from its Start to the next, its copies and what the program does with
// its blocks, as it will do it the way chosen. (The copies' own times tie
// at some sizes where the periods do not: a CMA copy leaves the pages it
// pinned colder for the program.) After the last trial epoch the round
// runs the way whose middle periods were shorter. Before the first
// decision, epochs are staged.
// Invariants: the choice is this rank's own and needs no agreement (its
// header tells receivers each epoch whether its copies are staged); every
// rank's trials fall on the same epochs, since a rank's epoch is at most
// one ahead of its peers', so a trial measures the node staging, or not,
// together; the trials cost trial_epochs / 2 epochs of the slower way per
// round, under 1% of its epochs.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace mpix {

class StagingChoice {
 public:
  static constexpr std::uint64_t round_epochs = 1024;
  static constexpr std::uint64_t trial_epochs = 16;  // half staged, half not
  static constexpr std::uint64_t first_trial = 2;   // a round's epoch; epoch 1 touches pages first

  // Whether epoch stages.
  bool stages(std::uint64_t epoch) const {
    if (on_trial(epoch)) return epoch % round_epochs < first_trial + trial_epochs / 2;
    return staged_;
  }
  // Whether epoch is a trial, whose period measured() wants.
  bool on_trial(std::uint64_t epoch) const {
    const std::uint64_t at = epoch % round_epochs;
    return at >= first_trial && at < first_trial + trial_epochs;
  }
  // epoch, a trial, lasted seconds, from its Start to the next.
  void measured(std::uint64_t epoch, double seconds) {
    const std::uint64_t i = epoch % round_epochs - first_trial;
    (i < trial_epochs / 2 ? staged_times_ : direct_times_)[i % (trial_epochs / 2)] = seconds;
    if (i + 1 == trial_epochs) staged_ = middle(staged_times_) <= middle(direct_times_);
  }

 private:
  using Times = std::array<double, trial_epochs / 2>;
  // The mean of the middle two: a few late epochs (a rank descheduled) do
  // not decide.
  static double middle(Times times) {
    std::sort(times.begin(), times.end());
    return (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
  }
  bool staged_ = true;
  Times staged_times_{}, direct_times_{};
};

}  // namespace mpix
