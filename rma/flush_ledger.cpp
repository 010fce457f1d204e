#include "rma/flush_ledger.hpp"

#include "src/error.hpp"

namespace mpix {

FlushLedger::FlushLedger(int slots, int targets)
    : slots_(slots), targets_(targets),
      counters_(new Counter[static_cast<std::size_t>(slots) * static_cast<std::size_t>(targets)]()) {}

bool FlushLedger::any_unflushed(int target) const {
  for (int slot = 0; slot < slots_; ++slot) {
    const Counter& c = counter(slot, target);
    if (c.completed.load() < c.issued.load()) return true;
  }
  return false;
}

void FlushLedger::mark_all_completed(int target) {
  const int first = target < 0 ? 0 : target, last = target < 0 ? targets_ : target + 1;
  for (int r = first; r < last; ++r)
    for (int slot = 0; slot < slots_; ++slot) {
      Counter& c = counter(slot, r);
      mark_completed(c, c.issued.load());
    }
}

}  // namespace mpix
