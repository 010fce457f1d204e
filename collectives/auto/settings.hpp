// What every family's requests share about choosing an algorithm: what a
// request does when its forced algorithm cannot run (MPIX_FALLBACK), how
// long it is expected to live (MPIX_EXPECTED_ITERATIONS) and auto's
// tournament (MPIX_AUTO_*), with the info keys that override them per
// request. Its rows are in settings.cpp and join the typed table through
// src/components.def; no family owns them.
#pragma once

#include <optional>
#include <string>

#include "src/config.hpp"
#include "src/info.hpp"

namespace mpix {

// What a request does when its forced algorithm is unknown or refuses.
enum class FallbackPolicy { error, warn, silent };

struct AutoConfig {
  FallbackPolicy fallback = FallbackPolicy::warn;
  long expected_iterations = 1000;
  // auto's tournament: timed periods per candidate (0: no tournament); a
  // mechanism's second entrants, predicted within this factor of the best;
  // iterations it may take in all.
  int auto_periods = 8;
  double auto_within = 2.0;
  int auto_settle = 100;
};

inline constexpr const char* info_key_expected_iterations = "mpix_expected_iterations";
// Iterations auto's tournament may take (MPIX_AUTO_SETTLE for this request).
inline constexpr const char* info_key_auto_settle = "mpix_auto_settle";
// Nanoseconds per call that running MPI's own call saves beyond its
// measured period (the drop-in's per-call agreement, which a pattern back
// on MPI's call no longer pays): auto's tournament credits them to it.
inline constexpr const char* info_key_auto_mpi_credit = "mpix_auto_mpi_credit_ns";
// Nanoseconds from one of MPI's own calls with these arguments to the
// next, as the caller timed them (the drop-in's passed-through calls):
// with eager-sized blocks auto's tournament takes it as MPI's measurement
// and does not race MPI's call; with larger ones, and at 0 (the default),
// it does (AutoTournament::take_mpi_period).
inline constexpr const char* info_key_auto_mpi_period = "mpix_auto_mpi_period_ns";

// A request's info values for auto, as given: only auto parses them, and
// agrees on any error it finds, so a request that forces an algorithm
// ignores them as MPI ignores info it cannot use.
struct AutoHints {
  std::optional<std::string> expected_iterations;
  std::optional<std::string> settle;
  std::optional<std::string> mpi_credit_ns;
  std::optional<std::string> mpi_period_ns;

  static AutoHints of(const Info* info);
};

// The hints parsed, the configuration's values where a hint is unset.
struct AutoSettings {
  long expected_iterations = 0;
  long settle_within = 0;
  long mpi_credit_ns = 0;
  long mpi_period_ns = 0;
};

// Local; MPI_ERR_INFO_VALUE naming the key and the value of a bad hint (the
// caller agrees on it).
AutoSettings parse_auto_settings(const AutoHints& hints, const Config& config);

}  // namespace mpix
