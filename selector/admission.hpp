// The drop-in's admission rules as pure functions: when a repeating
// exchange is worth a persistent request and a tournament, and how many
// calls may pass straight to MPI before the ranks look again. No MPI: the
// drop-in (intercept/served_exchanges.cpp) agrees on every input first, so
// every rank gets the same answer; the unit tests call them directly.
//
// Rent or buy. Every call that passes through pays MPI's price (the rent);
// admitting the exchange pays once for a search: its request, and its
// tournament's periods until it settles, beyond what MPI's own calls would
// have taken (the price). The drop-in measures what each search cost on
// the communicator, and prices the next one at that (or at the request
// and the trials the tournament's rule allows, if more); the communicator's
// set-up runs a search of its own first, so the first pattern is priced
// by a measurement too.
//
// A pattern is admitted once the calls it is expected to run from now
// cost MPI the price over the share of their time a search is expected to
// save (its gain: what the last search's winner saved, at least
// least_gain). A pattern that has run n calls is expected to run about n
// more: it is admitted once its calls have already cost that. So where
// MPI's own call wins, what admission lost is at most the gain's share of
// what the pattern had cost before it, and a share of its time from then
// on that shrinks with every call; where the library wins by the gain,
// the search is repaid within as many calls again. A pattern that runs a
// few calls and is gone never pays for a search, and one whose calls are
// cheap beside a search, or where the library has gained little, pays for
// one only after many.
//
// Where the communicator's patterns have each run about as many calls (a
// program that sweeps sizes, a solver's phases: PatternLives), a younger
// one is expected to run the rest of that life instead. It is admitted at
// once where that rest repays a search, in its first calls, not after
// paying the rent, when too little of its life is left to repay it; where
// the rest cannot repay one, it is not admitted before it outlives the
// others, and from then on as above.
//
// Looking costs too: each agreement is one small all-reduce, in the
// critical path of the call it precedes. Between agreements calls pass
// straight through, for as many calls as keep the agreements' cost within
// check_share of the time the calls take: cheap calls are looked at
// rarely (so passing through stays free), expensive ones often (so a new
// large exchange is found within a few of its calls).
//
// What a communicator sets up once (the library's communicator, the
// agreement's own channel, a first request and its search, which build
// what later ones share) is not in the price: it is made at its first
// call that could be served, of any size, and reported on its own
// (MPIX_VERBOSE).
#pragma once

#include <cstdint>

#include "selector/tournament.hpp"

namespace mpix {

struct AdmissionRule {
  // Agreements may cost this share of the time of the calls between them.
  double check_share = 0.01;
  // What an agreement costs the calls, as a multiple of its own measured
  // time: the calls before it are recorded and timed, and MPI's calls after
  // it run slower for a while (MPICH's eager path, after any other
  // traffic). Measured on the pass-through loop: the agreements cost it
  // about three times what the checks alone measured.
  double check_cost_factor = 3;
  long min_calls_between_checks = 1;
  long max_calls_between_checks = 4096;
  // Candidates expected to lose a trial to MPI's call (each costs its
  // excess until it is cut, see trial_excess_periods).
  int expected_losers = 3;
  // The least gain a search is expected to bring (search_gain): where the
  // last one found little, the next is still bought, after four times the
  // rent.
  double least_gain = 0.25;
  // A search's gain foretells the next one's only over blocks within this
  // factor of its own, either way: which algorithm wins changes with the
  // block size (a staged copy wins small blocks, MPI's own call often wins
  // large ones), so a search over blocks further off is expected to gain
  // least_gain.
  double gain_block_ratio = 4;
};

// What the trials of a tournament cost beyond MPI's own call, in periods of
// it: each loser runs its untimed and scout periods, at most rule.cut times
// the best so far (MPI's call is measured second, so the best is at most
// MPI's), before it is cut.
double trial_excess_periods(const TournamentRule& tournament, const AdmissionRule& rule);

// The price of admitting an exchange whose calls take call_us in MPI: what
// the last search on the communicator cost beyond MPI's calls (search_us,
// measured: its request and its tournament's periods until it settled), or
// the request (admission_us, as the last admission cost) and the trials'
// excess the tournament's rule allows, whichever is more.
double admission_price_us(double search_us, double admission_us, double call_us, const TournamentRule& tournament,
                          const AdmissionRule& rule);

// What a search cost beyond running the faster of MPI's own call and its
// winner from the start: its request (request_us), and its calls' time
// (calls_us over `calls` calls) over as many of the faster one's; the
// fastest of its calls (fastest_us; 0: none) stands for the winner's.
// Against the faster, not against MPI's call alone: a search that found a
// faster algorithm paid for the same switches and trials as one that did
// not, and the next search pays them whatever it finds.
double search_excess_us(double request_us, double calls_us, long calls, double fastest_us, double mpi_call_us);

// The share of MPI's time a search's winner saved, its fastest call
// against MPI's: in [0, 1], 1 where nothing was measured.
double search_gain(double fastest_us, double mpi_call_us);

// The gain the next search is expected to bring, over a largest block of
// block bytes, where the last search, over a largest block of
// searched_block bytes (0: not known), gained `gain`: that gain within
// rule.gain_block_ratio of its block, otherwise at most rule.least_gain.
double expected_gain(double gain, std::int64_t searched_block, std::int64_t block, const AdmissionRule& rule);

// What the calls a pattern is expected to run from now must cost MPI
// before a search of price_us is bought, where the last search gained
// `gain`: the price over that gain, or over rule.least_gain if more.
double rent_needed_us(double price_us, double gain, const AdmissionRule& rule);

// What the rest of a typical life must cost MPI before a young pattern is
// admitted: the price over the expected gain itself (expected_gain: the
// last search's where its blocks were near, at most least_gain further
// off), with no least_gain floor (infinite where it is 0). Admitting a
// pattern in its first calls is a bet on a measured gain; where the last
// search found little, the pattern waits until it outlives the others.
double young_rent_needed_us(double price_us, double gain);

// The calls a pattern that has run `calls` is expected to run from now: as
// many again, or, where the communicator's patterns have each run about
// typical_life calls (0: not known) and this one no more, the rest of that
// life.
long expected_more_calls(long calls, long typical_life);

// How many calls from now until admitting a pattern pays (0: now): one
// that has run `calls` calls of call_us each (0: not measured, which never
// pays unless needed_us is 0). The calls expected from now
// (expected_more_calls) must cost needed_us (rent_needed_us), or, where
// they are the rest of a typical life, young_needed_us
// (young_rent_needed_us); the rest only shrinks, so the next chance is
// when the pattern outlives the others.
long calls_to_admission(long calls, double call_us, long typical_life, double needed_us, double young_needed_us);

// calls_before_next_check's: no admission is awaited.
inline constexpr long no_admission_awaited = -1;

// How many calls pass straight through before the next agreement:
// - after as many calls of call_us as make an agreement of check_us (times
//   rule.check_cost_factor) a rule.check_share of their time;
// - sooner for an exchange large enough to serve but not yet admitted:
//   after until_admission calls, when its admission will pay
//   (calls_to_admission; no_admission_awaited where none is), so that the
//   calls it pays for are not passed through.
// Within the rule's bounds; a call time of 0 (not measured yet) gives the
// least.
long calls_before_next_check(double call_us, double check_us, long until_admission, const AdmissionRule& rule);

}  // namespace mpix
