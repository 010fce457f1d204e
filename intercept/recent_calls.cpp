#include "intercept/recent_calls.hpp"

#include <algorithm>

namespace mpix::intercept {

void RecentCalls::record(long call, std::uint64_t hash) {
  calls_[static_cast<std::size_t>(next_)] = {hash, call, 0.0, 0.0, false};
  next_ = (next_ + 1) % window;
}

void RecentCalls::timed(double began, double us) {
  Call& c = calls_[static_cast<std::size_t>((next_ + window - 1) % window)];
  c.began = began;
  c.us = us;
}

RecentCalls::Pattern RecentCalls::at_agreement(long call) {
  // Each pattern of the window keeps its start if the previous agreement
  // found it too; otherwise it starts at its oldest call in the window.
  std::array<Run, window> renewed{};
  int count = 0;
  const auto run_of = [&](std::uint64_t hash) {
    return std::find_if(renewed.begin(), renewed.begin() + count, [&](const Run& r) { return r.hash == hash; });
  };
  for (const Call& c : calls_) {
    if (c.call < 0) continue;
    Run* run = run_of(c.hash);
    if (run == renewed.begin() + count) {
      const Run* before = std::find_if(runs_.begin(), runs_.end(), [&](const Run& r) {
        return r.last_agreement >= 0 && r.last_agreement == last_agreement_ && r.hash == c.hash;
      });
      *run = before != runs_.end() ? *before : Run{c.hash, c.call, -1};
      ++count;
    }
    run->since = std::min(run->since, c.call);
  }
  for (int i = 0; i < count; ++i) renewed[static_cast<std::size_t>(i)].last_agreement = call;
  runs_ = renewed;
  last_agreement_ = call;

  Call& current = calls_[static_cast<std::size_t>((next_ + window - 1) % window)];
  current.agreed = true;
  Pattern p;
  int timed = 0, recorded = 0;
  double total_us = 0;
  for (const Call& c : calls_) {
    if (c.call < 0) continue;
    ++recorded;
    if (c.hash != current.hash) continue;
    ++p.repeats;
    if (c.us > 0) {
      total_us += c.us;
      ++timed;
    }
  }
  if (timed > 0) p.call_us = total_us / timed;
  int periods = 0;
  double total_period_s = 0;
  for (const Call& c : calls_) {
    if (c.call < 0 || c.hash != current.hash || c.us <= 0 || c.agreed) continue;
    for (const Call& next : calls_)
      if (next.call == c.call + 1 && next.hash == current.hash && next.us > 0 && !next.agreed) {
        total_period_s += next.began - c.began;
        ++periods;
      }
  }
  if (periods > 0) p.period_us = 1e6 * total_period_s / periods;
  const Run* run = run_of(current.hash);
  const long span = run != renewed.begin() + count ? call - run->since + 1 : p.repeats;
  // Its share of the window's calls, over the calls since it began.
  p.calls = span <= recorded ? p.repeats : span * p.repeats / std::max(1, recorded);
  return p;
}

double RecentCalls::mean_call_us() const {
  double total = 0;
  int timed = 0;
  for (const Call& c : calls_)
    if (c.us > 0) {
      total += c.us;
      ++timed;
    }
  return timed > 0 ? total / timed : 0.0;
}

void RecentCalls::forget_timings() {
  for (Call& c : calls_) c.us = 0;
}

}  // namespace mpix::intercept
