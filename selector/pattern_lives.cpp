#include "selector/pattern_lives.hpp"

#include <algorithm>

namespace mpix {

void PatternLives::at_agreement(long call, long calls) {
  const long began = call - std::max(1L, calls) + 1;
  if (last_agreement_ < 0 || began_ < 0) {
    began_ = began;
  } else if (began > last_agreement_) {  // a pattern the last agreement did not see running
    lives_[static_cast<std::size_t>(next_)] = began - began_;
    next_ = (next_ + 1) % kept;
    known_ = std::min(known_ + 1, kept);
    began_ = began;
  }
  last_agreement_ = call;
}

long PatternLives::typical() const {
  if (known_ == 0) return 0;
  return *std::min_element(lives_.begin(), lives_.begin() + known_);
}

}  // namespace mpix
