// auto's tournament, for any collective family: which algorithm runs a
// request's Starts while auto makes up its mind, and when it has.
//
// The family's auto builds the Selection (its prior and the candidates'
// predictions, or none: a family without a cost model passes zero
// predictions, and then every candidate that can run enters and none is
// suspected of warming up) and a way to set up candidate i; the tournament
// runs the prior, times each entrant by its iteration period, from one
// Start to the next -- what the application does with the data between
// Wait and the next Start counts, as it should -- and keeps the fastest.
//
// Protocol: every decision is taken at a Start, from values agreed by one
// MPI_Allreduce (MPI_MAX) at that Start. MPI requires every rank to start a
// persistent request the same number of times, in the same order as its
// other requests, so counting Starts gives every rank the same clock: every
// rank agrees, switches and settles at the same Start, whatever it measured
// itself. A trial is `untimed` periods of warm-up (`mpi_untimed` for MPI's
// own call, whose eager path warms up over about twenty calls after other
// traffic), then `timed` periods;
// after `scout` of them a clearly slower entrant is cut, MPI's own call
// only while warming up and hopeless (TournamentRule::hopeless). The median period
// (max over ranks) decides; the incumbent keeps its place unless beaten by
// more than the spread. A request that completes by MPIX_Test polling is
// timed the same way (Start to Start); one started only rarely simply keeps
// the prior until its tournament completes.
//
// A loser that measured far above its prediction (MPI's first calls in a
// process are tens of times slower than later ones) is tried once more at
// the first check 50 ms after the verdict; MPI's own call, if it lost
// narrowly with eager-sized blocks (whose warm-up after other traffic can
// outlast any trial), once more at the first check recheck_after Starts
// after it, warmed up for recheck_untimed periods. Afterwards the period is
// watched: a window of periods before each check, checks at a doubling
// interval (of Starts, and of time at the winner's period), no closer than
// a check's own agreement pays for (paid_for_check_interval). A period that
// drifted (a machine phase, a change in how the application uses the data)
// re-runs a bounded tournament among the close ones. Every such re-check
// is paid for: it runs only once its cost (its periods at their last
// measured lengths) is at most rule.recheck_share of the time the request
// has run (recheck_affordable). One request of the process races at a
// time (collectives/auto/trial_turn.hpp): the others wait, running their current
// choice, and a watch window that another request's trials overlapped is
// discarded. Between the windows
// the request runs the winner directly (settled_on, quiet_starts), and once
// the re-runs are spent it does so for good: watching costs nothing per
// call but in its windows, and a forwarded call costs a few indirect calls,
// which is a tenth of a small exchange.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/auto/trial_turn.hpp"
#include "selector/tournament.hpp"
#include "src/request.hpp"

namespace mpix {

struct Config;

// The tournament's rule from the configuration (MPIX_AUTO_*), the bound on
// its iterations (MPIX_AUTO_SETTLE or the request's mpix_auto_settle) and
// the largest block any rank moves (agreed: the rule must be every rank's).
// mpi_credit_ns and mpi_period_ns: TournamentRule::mpi_credit_us and
// mpi_period_us, agreed likewise.
TournamentRule tournament_rule(const Config& config, long settle_within, long long largest_block,
                               long mpi_credit_ns = 0, long mpi_period_ns = 0);

class AutoTournament {
 public:
  // Sets up candidate index; collective over the communicator.
  using Create = std::function<std::unique_ptr<PersistentOperation>(int index)>;

  // Collective over comm: sets up the prior (or, where its set-up fails, the
  // cheapest prediction that can be), then begins the tournament among
  // tournament_entrants(). names[i] and selection.predictions[i] are
  // candidate i; baseline is MPI's own call (-1: none eligible).
  AutoTournament(std::vector<std::string> names, Selection selection, int baseline, long expected_iterations,
                 TournamentRule rule, MPI_Comm comm, bool verbose, Create create);
  ~AutoTournament();
  AutoTournament(const AutoTournament&) = delete;
  AutoTournament& operator=(const AutoTournament&) = delete;

  // Every Start, before the running operation starts: the period that just
  // ended, and the decisions due at this Start (the same Start on every
  // rank). Nothing once settled_for_good().
  void at_start();
  PersistentOperation& operation() { return *operation_; }
  const char* running_name() const { return name(running_); }
  // Not in a trial: what runs is the choice, for now.
  bool settled() const { return phase_ != Phase::trial; }
  // Neither in a trial nor watching: what runs is the choice for good.
  bool settled_for_good() const { return phase_ == Phase::settled; }
  // While watching, how many Starts from the next one on need not be seen
  // (those before the next window of timed periods); 0 otherwise.
  long quiet_starts() const;
  // Starts that were not seen (quiet ones): the clock moves on by them.
  void skipped(long starts);
  // The exchange begun at the last Start has completed: its span goes on
  // the process's exchange clock (collectives/auto/trial_turn.hpp).
  void exchange_done();

 private:
  enum class Phase { trial, watch, settled };

  void trial_period(double period_us);
  // The trial of candidate index begins with `untimed` untimed periods.
  void begin_warm_up(int index, int untimed);
  // An untimed period of MPI's own call that its scout takes: collective
  // once warmup_scout of them are seen, whether it is hopeless
  // (hopeless_while_warming).
  bool hopeless_while_warming_up(double period_us);
  // Collective, at a Start every rank reaches alike: whether this request
  // may race now (no rank sees another holding the turn), checked every
  // turn_check_interval Starts while waiting; it takes the turn if so.
  bool take_turn();
  struct Agreed {
    PeriodMeasure periods;
    double since_verdict = 0;  // seconds, the slowest rank's clock
    double running = 0;        // seconds since the first Start, likewise
    bool disturbed = false;    // some rank saw another request's trials in the window
    double agreement_us = 0;   // the previous agreement's MPI_Allreduce, the slowest rank's
  };
  // Collective: this rank's periods summarised, the maximum over ranks.
  Agreed agreed_measure();
  // Whether re-checking among entrants is paid for by now (rule.recheck_share),
  // against running on at the watched period.
  bool affordable(const std::vector<int>& entrants, int mpi_untimed, const Agreed& watched);
  double best_so_far() const;
  void begin_tournament(std::vector<int> entrants, const char* incumbent_role);
  void next_entrant();
  // The two close leaders run again, the runner-up first, so that the
  // leader ends running; the incumbent keeps its place if it is one of them.
  void begin_playoff(int leader, int runner_up);
  void check_drift();
  // Starts between drift checks: at least `starts`, and at least `seconds`
  // at the winner's agreed period (so every rank computes the same).
  long interval(long starts, double seconds) const;
  // The prior, or, where the MPI or the machine refuses its set-up (a window
  // this MPI cannot create here), the cheapest prediction that can be set
  // up; the refused ones leave the candidates, with why. Only when none can
  // does init fail, with the prior's error, agreed.
  void run_prior();
  // Where the caller measured MPI's own call (rule.mpi_period_us) and its
  // blocks are eager-sized: that measurement stands for it, and the prior,
  // if MPI's call, gives way to the cheapest predicted of the others; with
  // no other that can run, the measurement is dropped and MPI's call runs
  // as the prior. Its trial would run cold there (with_mpi_warm_up). With
  // larger blocks MPI's call warms up as fast as the others, and the
  // caller's calls were a pattern's first (new pages of its buffers, tens
  // of percent slower): it is raced, measured as the others are.
  void take_mpi_period();
  // Collective: the previous operation is gone before the next one takes
  // the pooled window (a second live window over a buffer slows MPICH).
  // False (on every rank alike) if the algorithm could not be set up; then
  // nothing runs until the caller picks another.
  bool switch_to(int index);
  void run(int index);
  const char* name(int index) const { return names_[static_cast<std::size_t>(index)].c_str(); }
  // An agreed measurement of candidate index, with MPI's own call credited
  // what running it saves beyond its period (rule.mpi_credit_us).
  PeriodMeasure credited(int index, PeriodMeasure m) const;
  // Periods a trial of candidate index leaves untimed after switching to it
  // from candidate previous (-1: none ran before it).
  int untimed_after(int previous, int index) const {
    return mpi_call(index) && !mpi_call(previous) ? mpi_untimed_ : rule_.untimed;
  }
  // MPI's own collective, plain (the baseline) or persistent.
  bool mpi_call(int index) const {
    return index >= 0 && (index == baseline_ || selection_.predictions[static_cast<std::size_t>(index)].mpi_call);
  }
  template <class... Values>
  void log(const char* format, Values... values) const {
    if (!verbose_) return;
    std::fprintf(stderr, format, values...);
    std::fputc('\n', stderr);
  }

  std::vector<std::string> names_;
  TournamentRule rule_;
  bool verbose_;
  Selection selection_;
  int baseline_ = -1;  // MPI's own call, when eligible
  MPI_Comm comm_;  // where every measurement is agreed
  TrialTurn& turn_ = TrialTurn::process();
  bool holds_turn_ = false;
  long waiting_starts_ = 0;  // Starts spent waiting for the turn, in this wait
  bool disturbed_ = false;   // another request held the turn during this watch window
  double first_start_ = 0;   // MPI_Wtime of the first Start
  bool deferral_logged_ = false;  // a re-check waits to be paid for, and the log said so
  double exchange_began_ = 0;  // MPI_Wtime of the last Start
  double last_agreement_us_ = 0;  // this rank's time in the last agreed_measure's MPI_Allreduce
  std::uint64_t own_exchange_ns_ = 0;  // this request's spans on the exchange clock
  std::uint64_t clock_at_last_start_ = 0, own_at_last_start_ = 0;
  // Other requests' exchanges taken out of this tournament's periods, for
  // its verdict's line.
  double others_taken_us_ = 0;
  Create create_;
  std::unique_ptr<PersistentOperation> operation_;
  int running_ = 0;

  Phase phase_ = Phase::settled;
  long started_ = 0;         // Starts so far: the clock every rank shares
  double last_start_ = 0;    // MPI_Wtime of the previous Start while timing; 0: none
  std::vector<double> periods_;  // of the running algorithm, us
  std::vector<PeriodMeasure> measured_;  // agreed, per row; unmeasured: not run in this tournament
  std::vector<int> entrants_;
  std::size_t entrant_ = 0;  // index into entrants_ of the running trial
  int incumbent_ = 0;        // keeps its place unless clearly beaten
  int untimed_left_ = 0;
  int warm_up_to_scout_ = 0;  // MPI's own call: untimed periods left to its scout (TournamentRule::warmup_scout)
  double reference_us_ = 0;  // the winner's median period
  long watch_interval_ = 0;  // Starts between drift checks, set at each verdict
  long next_check_ = 0;
  int reruns_ = 0;
  std::vector<int> suspects_;     // losers to try once more at a check after suspects_after_seconds
  double verdict_time_ = 0;       // MPI_Wtime of the last verdict
  bool suspects_checked_ = false;  // the running tournament is that second try
  bool in_playoff_ = false;
  std::vector<PeriodMeasure> first_round_;  // the playoff's pair as first measured
  long expected_iterations_;
  int mpi_untimed_;           // MPI's own call's untimed periods in the trials now running
  bool recheck_mpi_ = false;  // MPI's own call lost narrowly: race it again, warmed up longer
  bool mpi_rechecked_ = false;  // once per request
  long verdict_start_ = 0;    // the Start of the last verdict
};

// The operation of a family's auto: every call goes to what its tournament
// runs now, and between the watch windows, or once the tournament has
// settled for good, the request calls that directly (settled_on). Args is the family's arguments type; the
// family's constructor works out the selection and calls begin().
template <class Args>
class AutoOperation : public PersistentOperation {
 public:
  void start() override {
    tournament_->at_start();
    tournament_->operation().start();
  }
  bool test() override {
    if (!tournament_->operation().test()) return false;
    tournament_->exchange_done();
    return true;
  }
  void wait() override {
    tournament_->operation().wait();
    tournament_->exchange_done();
  }
  const char* running_algorithm() const override { return tournament_->running_name(); }
  bool settled() const override { return tournament_->settled(); }
  bool forwards() const override { return true; }
  PersistentOperation* settled_on(long& quiet_starts) override {
    quiet_starts = tournament_->quiet_starts();
    return tournament_->settled_for_good() || quiet_starts > 0 ? &tournament_->operation() : nullptr;
  }
  void resumed_after(long starts) override { tournament_->skipped(starts); }
  // Forwarded, and kept for an operation the tournament switches to.
  void rebind(const void* sendbuf, void* recvbuf) override {
    args_.move_buffers(sendbuf, recvbuf);
    tournament_->operation().rebind(sendbuf, recvbuf);
  }

 protected:
  explicit AutoOperation(const Args& args) : args_(args) {}

  // Collective: the tournament among rows (candidate i runs rows[i] over
  // args_), as AutoTournament's constructor describes.
  template <class Row>
  void begin(const std::vector<const Row*>& rows, Selection selection, int baseline, long expected_iterations,
             TournamentRule rule, bool verbose) {
    std::vector<std::string> names;
    for (const Row* row : rows) names.emplace_back(row->name);
    tournament_.emplace(std::move(names), std::move(selection), baseline, expected_iterations, rule,
                        args_.comm->global(), verbose,
                        [this, rows](int index) { return rows[static_cast<std::size_t>(index)]->create(args_); });
  }

  Args args_;
  std::optional<AutoTournament> tournament_;  // after args_: freed first, its operations made from args_
};

}  // namespace mpix
