#include "selector/admission.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

namespace mpix {

double trial_excess_periods(const TournamentRule& tournament, const AdmissionRule& rule) {
  return rule.expected_losers * (tournament.untimed + tournament.scout) * (tournament.cut - 1.0);
}

double admission_price_us(double search_us, double admission_us, double call_us, const TournamentRule& tournament,
                          const AdmissionRule& rule) {
  const double allowed = std::max(0.0, admission_us) + std::max(0.0, call_us) * trial_excess_periods(tournament, rule);
  return std::max(std::max(0.0, search_us), allowed);
}

double search_excess_us(double request_us, double calls_us, long calls, double fastest_us, double mpi_call_us) {
  const double faster = fastest_us > 0 && fastest_us < mpi_call_us ? fastest_us : mpi_call_us;
  return std::max(0.0, request_us + calls_us - static_cast<double>(calls) * faster);
}

double search_gain(double fastest_us, double mpi_call_us) {
  if (!(fastest_us > 0) || !(mpi_call_us > 0)) return 1;
  return std::clamp(1 - fastest_us / mpi_call_us, 0.0, 1.0);
}

double expected_gain(double gain, std::int64_t searched_block, std::int64_t block, const AdmissionRule& rule) {
  const bool near = searched_block > 0 && block > 0 &&
                    static_cast<double>(std::max(searched_block, block)) <=
                        rule.gain_block_ratio * static_cast<double>(std::min(searched_block, block));
  return near ? gain : std::min(gain, rule.least_gain);
}

double rent_needed_us(double price_us, double gain, const AdmissionRule& rule) {
  const double expected = std::max(std::min(gain, 1.0), rule.least_gain);
  return expected > 0 ? price_us / expected : price_us;
}

double young_rent_needed_us(double price_us, double gain) {
  if (!(price_us > 0)) return 0;
  return gain > 0 ? price_us / std::min(gain, 1.0) : HUGE_VAL;
}

long expected_more_calls(long calls, long typical_life) {
  return typical_life > 0 && calls <= typical_life ? typical_life - calls : calls;
}

long calls_to_admission(long calls, double call_us, long typical_life, double needed_us, double young_needed_us) {
  if (!(needed_us > 0)) return 0;
  constexpr long never = LONG_MAX / 2;
  if (!(call_us > 0)) return never;
  const bool young = typical_life > 0 && calls <= typical_life;
  if (static_cast<double>(expected_more_calls(calls, typical_life)) * call_us >= (young ? young_needed_us : needed_us))
    return 0;
  // Once it outlives the typical life, as many again as it has run: paid
  // once it has run needed_us of calls.
  const double outlived = young ? static_cast<double>(typical_life) + 1 : 0.0;
  const double paid_at = std::max(std::ceil(needed_us / call_us), outlived);
  if (!(paid_at < static_cast<double>(never))) return never;
  return std::max(1L, static_cast<long>(paid_at) - calls);
}

long calls_before_next_check(double call_us, double check_us, long until_admission, const AdmissionRule& rule) {
  const long least = std::max(1L, rule.min_calls_between_checks);
  const long most = std::max(least, rule.max_calls_between_checks);
  if (!(call_us > 0)) return least;
  const auto bounded = [&](double calls) {
    if (!(calls < static_cast<double>(most))) return most;  // also NaN
    return std::max(least, static_cast<long>(std::ceil(calls)));
  };
  long calls = bounded(rule.check_cost_factor * std::max(0.0, check_us) / (rule.check_share * call_us));
  if (until_admission >= 0) calls = std::min(calls, bounded(static_cast<double>(until_admission)));
  return calls;
}

}  // namespace mpix
