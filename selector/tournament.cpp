#include "selector/tournament.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <cstdio>

namespace mpix {

PeriodMeasure measure_periods(std::vector<double>& periods_us) {
  PeriodMeasure m;
  if (periods_us.empty()) return m;
  std::sort(periods_us.begin(), periods_us.end());
  const std::size_t n = periods_us.size();
  m.fastest_us = periods_us.front();
  m.median_us = n % 2 ? periods_us[n / 2] : 0.5 * (periods_us[n / 2 - 1] + periods_us[n / 2]);
  const double iqr = periods_us[n - 1 - n / 4] - periods_us[n / 4];  // the middle half's width
  m.spread_us = iqr / std::sqrt(static_cast<double>(n));
  return m;
}

TournamentRule with_mpi_warm_up(TournamentRule rule, long long largest_block) {
  constexpr long long eager_limit = 32768;  // blocks from here up showed no warm-up
  constexpr int eager_warm_up = 50;
  rule.mpi_untimed = largest_block < eager_limit ? std::max(rule.untimed, eager_warm_up) : rule.untimed;
  return rule;
}

std::vector<int> tournament_entrants(const Selection& selection, int baseline, long expected_iterations,
                                     const TournamentRule& rule) {
  std::vector<int> entrants;
  if (rule.timed <= 0 || selection.chosen < 0) return entrants;
  const std::vector<CandidatePrediction>& p = selection.predictions;
  const CandidatePrediction& prior = selection.choice();
  entrants.push_back(selection.chosen);
  const bool mpi_measured = rule.mpi_period_us > 0 && baseline >= 0 && baseline != selection.chosen;
  if (baseline >= 0 && baseline != selection.chosen && p[static_cast<std::size_t>(baseline)].eligible &&
      !mpi_measured)
    entrants.push_back(baseline);
  std::vector<int> others;
  for (int i = 0; i < static_cast<int>(p.size()); ++i) {
    const CandidatePrediction& c = p[static_cast<std::size_t>(i)];
    if (!c.eligible || i == selection.chosen || i == baseline) continue;
    const double repaid = rule.init_share * static_cast<double>(expected_iterations) * prior.cost.t_iter_us;
    if (c.cost.t_init_us - prior.cost.t_init_us > repaid) continue;
    others.push_back(i);
  }
  std::stable_sort(others.begin(), others.end(),
                   [&](int a, int b) { return p[static_cast<std::size_t>(a)].total_us < p[static_cast<std::size_t>(b)].total_us; });
  // The best predicted of each mechanism not yet entered goes first.
  std::vector<unsigned> mechanisms;
  for (int e : entrants) mechanisms.push_back(p[static_cast<std::size_t>(e)].mechanism);
  std::vector<int> seconds;
  for (int i : others) {
    const unsigned m = p[static_cast<std::size_t>(i)].mechanism;
    if (std::find(mechanisms.begin(), mechanisms.end(), m) == mechanisms.end()) {
      mechanisms.push_back(m);
      entrants.push_back(i);
    } else if (p[static_cast<std::size_t>(i)].total_us <= rule.within * prior.total_us) {
      seconds.push_back(i);
    }
  }
  entrants.insert(entrants.end(), seconds.begin(), seconds.end());
  const long budget = std::min<long>(rule.settle_within, expected_iterations / 4);
  // How many leading entrants' trials fit in `periods`.
  const auto fitting = [&](long periods) {
    std::size_t n = 0;
    bool after_mpi_call = false;
    for (long used = 0; n < entrants.size(); ++n) {
      const int e = entrants[n];
      const bool mpi_call = e == baseline || p[static_cast<std::size_t>(e)].mpi_call;
      used += rule.trial_periods(mpi_call, after_mpi_call);
      after_mpi_call = mpi_call;
      if (used > periods) break;
    }
    return n;
  };
  const bool mpi_enters = std::find(entrants.begin(), entrants.end(), baseline) != entrants.end();
  const long playoff = mpi_enters ? rule.playoff_periods() : 2 * rule.trial_periods(false);
  std::size_t fit = fitting(budget - playoff);
  if (fit < 4) fit = fitting(budget);
  entrants.resize(std::min(entrants.size(), fit));
  // One entrant is a tournament only against MPI's call measured already.
  if (entrants.size() < (mpi_measured ? 1u : 2u)) entrants.clear();
  return entrants;
}

bool cut_short(const PeriodMeasure& scout, double best_median_us, const TournamentRule& rule) {
  return best_median_us > 0 && scout.fastest_us > rule.cut * best_median_us;
}

bool hopeless_while_warming(const PeriodMeasure& warm_up, double best_median_us, const TournamentRule& rule) {
  return best_median_us > 0 && warm_up.median_us > std::max(rule.hopeless * best_median_us, rule.hopeless_us);
}

Verdict tournament_verdict(const std::vector<std::string>& names, const std::vector<PeriodMeasure>& measured,
                           int incumbent) {
  Verdict v;
  int best = -1;
  for (int i = 0; i < static_cast<int>(measured.size()); ++i)
    if (measured[static_cast<std::size_t>(i)].measured() &&
        (best < 0 || measured[static_cast<std::size_t>(i)].median_us < measured[static_cast<std::size_t>(best)].median_us))
      best = i;
  char text[200];
  const PeriodMeasure& inc = measured.at(static_cast<std::size_t>(incumbent));
  if (best < 0 || best == incumbent || !inc.measured()) {
    v.winner = inc.measured() || best < 0 ? incumbent : best;
    std::snprintf(text, sizeof text, "%s measured fastest", names.at(static_cast<std::size_t>(v.winner)).c_str());
    v.reason = text;
    return v;
  }
  const PeriodMeasure& b = measured[static_cast<std::size_t>(best)];
  const double noise = std::max(inc.spread_us, b.spread_us);
  if (b.median_us < inc.median_us - noise) {
    v.winner = best;
    std::snprintf(text, sizeof text, "%s beat %s by %.2f us, more than the spread (%.2f us)",
                  names[static_cast<std::size_t>(best)].c_str(), names[static_cast<std::size_t>(incumbent)].c_str(),
                  inc.median_us - b.median_us, noise);
  } else {
    v.winner = incumbent;
    std::snprintf(text, sizeof text, "%s kept: %s was %.2f us faster, within the spread (%.2f us)",
                  names[static_cast<std::size_t>(incumbent)].c_str(), names[static_cast<std::size_t>(best)].c_str(),
                  inc.median_us - b.median_us, noise);
  }
  v.reason = text;
  return v;
}

std::pair<int, int> playoff_pair(const std::vector<PeriodMeasure>& measured, int baseline,
                                 const TournamentRule& rule) {
  int first = -1, second = -1;
  for (int i = 0; i < static_cast<int>(measured.size()); ++i) {
    const double m = measured[static_cast<std::size_t>(i)].median_us;
    if (m <= 0) continue;
    if (first < 0 || m < measured[static_cast<std::size_t>(first)].median_us) {
      second = first;
      first = i;
    } else if (second < 0 || m < measured[static_cast<std::size_t>(second)].median_us) {
      second = i;
    }
  }
  const auto close = [&](int i) {
    return i >= 0 && measured[static_cast<std::size_t>(i)].measured() &&
           measured[static_cast<std::size_t>(i)].median_us <=
               measured[static_cast<std::size_t>(first)].median_us * (1 + rule.playoff_margin);
  };
  if (baseline != first && close(baseline)) return {first, baseline};
  if (!close(second)) return {-1, -1};
  return {first, second};
}

int fastest_mpi_call(const std::vector<PeriodMeasure>& measured, const std::vector<bool>& mpi_calls, int baseline) {
  int fastest = baseline;
  const auto median = [&](int i) { return measured.at(static_cast<std::size_t>(i)).median_us; };
  for (int i = 0; i < static_cast<int>(measured.size()); ++i) {
    if (!mpi_calls.at(static_cast<std::size_t>(i)) || !measured[static_cast<std::size_t>(i)].measured()) continue;
    if (fastest < 0 || !measured.at(static_cast<std::size_t>(fastest)).measured() || median(i) < median(fastest))
      fastest = i;
  }
  return fastest;
}

Verdict prefer_mpi_in_close_calls(const Verdict& verdict, const std::vector<std::string>& names,
                                  const std::vector<PeriodMeasure>& measured, int baseline,
                                  const TournamentRule& rule) {
  if (baseline < 0 || verdict.winner == baseline) return verdict;
  const PeriodMeasure& mpi = measured.at(static_cast<std::size_t>(baseline));
  const PeriodMeasure& won = measured.at(static_cast<std::size_t>(verdict.winner));
  if (!mpi.measured() || !won.measured()) return verdict;
  const auto clearly_faster = [&](const PeriodMeasure& m) {
    return m.median_us < mpi.median_us * (1 - rule.mpi_margin) - std::max(mpi.spread_us, m.spread_us);
  };
  if (clearly_faster(won)) return verdict;
  // The winner may be one the verdict kept within its own (wide) spread
  // while another measured clearly faster than MPI's call: that one, then.
  int alternative = -1;
  for (int i = 0; i < static_cast<int>(measured.size()); ++i) {
    const PeriodMeasure& m = measured[static_cast<std::size_t>(i)];
    if (i == baseline || !m.measured() || !clearly_faster(m)) continue;
    if (alternative < 0 || m.median_us < measured[static_cast<std::size_t>(alternative)].median_us) alternative = i;
  }
  const int winner = alternative >= 0 ? alternative : baseline;
  char text[240];
  std::snprintf(text, sizeof text, "; but %s is not clearly faster than %s (%.2f against %.2f us): %s",
                names[static_cast<std::size_t>(verdict.winner)].c_str(),
                names[static_cast<std::size_t>(baseline)].c_str(), won.median_us, mpi.median_us,
                names[static_cast<std::size_t>(winner)].c_str());
  std::string reason = verdict.reason + text;
  if (alternative >= 0) {
    std::snprintf(text, sizeof text, ", which is (%.2f us)", measured[static_cast<std::size_t>(alternative)].median_us);
    reason += text;
  }
  return {winner, reason};
}

bool period_drifted(double reference_us, double watched_us, const TournamentRule& rule) {
  if (reference_us <= 0 || watched_us <= 0) return false;
  return watched_us > reference_us * (1 + rule.drift) || watched_us * (1 + rule.drift) < reference_us;
}

std::vector<int> suspect_losers(const Selection& selection, const std::vector<PeriodMeasure>& measured, int winner,
                                const TournamentRule& rule) {
  std::vector<int> suspects;
  for (int i = 0; i < static_cast<int>(measured.size()); ++i) {
    const PeriodMeasure& m = measured[static_cast<std::size_t>(i)];
    const CandidatePrediction& p = selection.predictions.at(static_cast<std::size_t>(i));
    // A candidate without a prediction (a family without a cost model) was
    // not expected to be faster: nothing to suspect.
    const bool predicted = p.cost.t_iter_us > 0;
    const bool would_win = predicted && p.cost.t_iter_us < measured.at(static_cast<std::size_t>(winner)).median_us;
    if (i != winner && m.measured() && p.eligible && would_win && m.median_us > rule.suspect * p.cost.t_iter_us)
      suspects.push_back(i);
  }
  return suspects;
}

bool mpi_recheck_due(const std::vector<PeriodMeasure>& measured, int winner, int baseline,
                     long expected_iterations, const TournamentRule& rule) {
  if (baseline < 0 || winner < 0 || baseline == winner || rule.mpi_untimed <= rule.untimed) return false;
  const PeriodMeasure& mpi = measured.at(static_cast<std::size_t>(baseline));
  const PeriodMeasure& best = measured.at(static_cast<std::size_t>(winner));
  if (!mpi.measured() || !best.measured()) return false;
  const double loss = mpi.median_us / best.median_us - 1;
  if (loss >= rule.mpi_recheck) return false;
  const double worst_cost = std::max(loss, 0.0) * (rule.recheck_untimed + rule.timed);
  return worst_cost <= rule.init_share * static_cast<double>(expected_iterations);
}

std::vector<int> rerun_entrants(const std::vector<PeriodMeasure>& measured, int running, int baseline,
                                const TournamentRule& rule) {
  std::vector<int> entrants{running};
  const double reference = measured.at(static_cast<std::size_t>(running)).median_us;
  if (baseline >= 0 && baseline != running) entrants.push_back(baseline);
  for (int i = 0; i < static_cast<int>(measured.size()); ++i) {
    const PeriodMeasure& m = measured[static_cast<std::size_t>(i)];
    if (i == running || i == baseline || !m.measured()) continue;
    if (reference <= 0 || m.median_us <= rule.cut * reference) entrants.push_back(i);
  }
  const std::size_t fit = static_cast<std::size_t>(std::max(rule.settle_within / rule.trial_periods(), 0));
  if (entrants.size() > fit) entrants.resize(fit);
  if (entrants.size() < 2) entrants.clear();
  return entrants;
}

double recheck_cost_us(const std::vector<int>& entrants, const std::vector<PeriodMeasure>& measured, int baseline,
                       int mpi_untimed, double current_us, const TournamentRule& rule) {
  double slowest = 0;
  for (int i : entrants)
    if (measured[static_cast<std::size_t>(i)].measured())
      slowest = std::max(slowest, measured[static_cast<std::size_t>(i)].median_us);
  double cost = 0;
  for (int i : entrants) {
    const PeriodMeasure& m = measured[static_cast<std::size_t>(i)];
    const int periods = (i == baseline ? mpi_untimed : rule.untimed) + rule.timed;
    cost += periods * std::max(0.0, (m.measured() ? m.median_us : slowest) - current_us);
  }
  return cost;
}

bool recheck_affordable(double cost_us, double running_us, const TournamentRule& rule) {
  return cost_us <= rule.recheck_share * running_us;
}

long paid_for_check_interval(double agreement_us, double period_us, const TournamentRule& rule) {
  if (agreement_us <= 0 || period_us <= 0) return 0;
  return static_cast<long>(std::ceil(agreement_us / (rule.recheck_share * period_us)));
}

long starts_until_affordable(double cost_us, double running_us, double period_us, const TournamentRule& rule) {
  if (recheck_affordable(cost_us, running_us, rule) || period_us <= 0 || rule.recheck_share <= 0) return 0;
  return static_cast<long>(std::ceil((cost_us / rule.recheck_share - running_us) / period_us));
}

}  // namespace mpix
