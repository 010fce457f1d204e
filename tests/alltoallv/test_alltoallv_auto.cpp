// auto, the selector's algorithm, under MPI: the choice is a candidate and
// moves the right data; N, exclusions and tuning files change the choice as
// documented; bad input fails on every rank; the tournament switches
// algorithms at the same Start on every rank, re-runs when the period
// drifts and settles requests completed by polling, without the user seeing
// anything but correct data and the log.
// Several tests apply only under the environment a registration sets
// (tests/CMakeLists.txt) and skip elsewhere.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "capi/handles.hpp"
#include "collectives/alltoallv/config.hpp"
#include "collectives/alltoallv/tuning_parameters.hpp"
#include "src/library.hpp"
#include "src/mpi_implementation.hpp"
#include "tests/alltoallv/forced_algorithm.hpp"

using namespace mpix_test;

namespace {

bool env_is(const char* name, const std::string& suffix) {
  const char* value = std::getenv(name);
  if (value == nullptr) return false;
  const std::string v = value;
  return v.size() >= suffix.size() && v.compare(v.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool env_set(const char* name) { return std::getenv(name) != nullptr; }
// MPIX_ALLTOALLV_EXCLUDE names every algorithm auto could run.
bool every_candidate_excluded() {
  const std::vector<std::string>& excluded = mpix::Library::get().config().section<mpix::AlltoallvConfig>().exclude;
  for (const std::string& name : algorithm_names())
    if (is_candidate(name) && std::find(excluded.begin(), excluded.end(), name) == excluded.end()) return false;
  return true;
}
bool plain_environment() { return !env_set("MPIX_TUNING_FILE") && !env_set("MPIX_ALLTOALLV_EXCLUDE"); }

// A uniform exchange of k ints per peer in MPIX_Alloc_mem buffers (so that
// on-node copies can go straight in), its data changing every iteration.
class AutoTest : public MpiTest {
 protected:
  static constexpr int k = 8192;  // 32 KiB per peer: RMA on the node is clearly faster here

  void SetUp() override {
    p_ = world_size();
    rank_ = world_rank();
    counts_.assign(p_, k);
    displs_.resize(p_);
    for (int i = 0; i < p_; ++i) displs_[i] = i * k;
    ASSERT_EQ(MPIX_Alloc_mem(p_ * k * sizeof(int), nullptr, &send_), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Alloc_mem(p_ * k * sizeof(int), nullptr, &recv_), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Comm_init(&comm_, MPI_COMM_WORLD), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Info_init(&info_), MPI_SUCCESS);
  }
  void TearDown() override {
    if (request_ != nullptr) MPIX_Request_free(&request_);
    MPIX_Info_free(&info_);
    MPIX_Comm_free(&comm_);
    MPIX_Free_mem(send_);
    MPIX_Free_mem(recv_);
    MpiTest::TearDown();
  }

  int init() {
    return MPIX_Alltoallv_init(send_, counts_.data(), displs_.data(), MPI_INT, recv_, counts_.data(),
                               displs_.data(), MPI_INT, comm_, info_, &request_);
  }
  static int value(int src, int dst, int iteration, int i) { return src * 1000000 + iteration * 1000 + dst * 10 + i % 7; }

  // One iteration with fresh data; false (and a failure) if any block is wrong.
  bool run(int iteration) {
    auto* send = static_cast<int*>(send_);
    auto* recv = static_cast<int*>(recv_);
    for (int dst = 0; dst < p_; ++dst)
      for (int i = 0; i < k; ++i) send[dst * k + i] = value(rank_, dst, iteration, i);
    for (int i = 0; i < p_ * k; ++i) recv[i] = -1;
    EXPECT_EQ(MPIX_Start(request_), MPI_SUCCESS);
    EXPECT_EQ(MPIX_Wait(request_, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int src = 0; src < p_; ++src)
      for (int i = 0; i < k; ++i)
        if (recv[src * k + i] != value(src, rank_, iteration, i)) {
          ADD_FAILURE() << "iteration " << iteration << ": wrong value from rank " << src << " at " << i;
          return false;
        }
    return true;
  }

  // A slowdown a drift check cannot miss, whatever the machine's load: ten
  // times the mean of 20 MPI_Alltoallv calls of the same exchange (the
  // slowest rank's), at least 5 ms and at most 50 ms.
  useconds_t unmissable_slowdown_us() {
    std::vector<int> out(static_cast<std::size_t>(p_ * k)), in(out.size());
    MPI_Barrier(MPI_COMM_WORLD);
    const double begin = MPI_Wtime();
    for (int i = 0; i < 20; ++i)
      MPI_Alltoallv(out.data(), counts_.data(), displs_.data(), MPI_INT, in.data(), counts_.data(), displs_.data(),
                    MPI_INT, MPI_COMM_WORLD);
    double mean_us = (MPI_Wtime() - begin) * 1e6 / 20;
    MPI_Allreduce(MPI_IN_PLACE, &mean_us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return static_cast<useconds_t>(std::clamp(10 * mean_us, 5000.0, 50000.0));
  }

  // init, then iterations, checking the data; the algorithms seen.
  std::set<std::string> init_and_run(int iterations) {
    std::set<std::string> seen;
    EXPECT_EQ(init(), MPI_SUCCESS);
    if (request_ == nullptr) return seen;
    for (int it = 0; it < iterations && run(it); ++it) seen.insert(algorithm_of(request_));
    return seen;
  }

  // init fails on every rank with this class and these words in the message.
  void expect_init_fails(int expected_class, const std::string& words) {
    const int rc = init();
    const std::string message = error_message(rc);
    EXPECT_EQ(error_class(rc), expected_class) << message;
    EXPECT_NE(message.find(words), std::string::npos) << message;
    // Once: a rank that failed for the same reason as the first does not
    // repeat it, however deep the agreements that carried it.
    EXPECT_EQ(message.find(words, message.find(words) + 1), std::string::npos) << message;
    EXPECT_EQ(request_, nullptr);
  }

  std::string chosen_with(const char* expected_iterations) {
    MPIX_Info_set(info_, "mpix_expected_iterations", expected_iterations);
    EXPECT_EQ(init(), MPI_SUCCESS);
    const std::string name = algorithm_of(request_);
    EXPECT_TRUE(run(0));
    MPIX_Request_free(&request_);
    return name;
  }

  // Whether the machine's ranks outnumber its cores: then every period is
  // the scheduler's (milliseconds of noise), and what a tournament decides
  // is not a test's to predict; that it stays correct and agreed still is.
  // A registration that gives each rank a core of its own sets
  // TEST_CORE_PER_RANK: there the checks must run, so finding itself
  // oversubscribed fails the test instead of dropping them.
  bool oversubscribed() const {
    const bool found = comm_->comm->oversubscribed();
    if (found && env_set("TEST_CORE_PER_RANK"))
      ADD_FAILURE() << "each rank has a core of its own (TEST_CORE_PER_RANK), but the library finds the node "
                       "oversubscribed";
    return found;
  }

  int p_ = 0, rank_ = 0;
  std::vector<int> counts_, displs_;
  void* send_ = nullptr;
  void* recv_ = nullptr;
  MPIX_Comm* comm_ = nullptr;
  MPIX_Info* info_ = nullptr;
  MPIX_Request* request_ = nullptr;
};

}  // namespace

TEST_F(AutoTest, RunsACandidateAndDeliversTheData) {
  if (env_is("MPIX_TUNING_FILE", "tuning_malformed.json") || env_is("MPIX_TUNING_FILE", "tuning_other_mpi.json") ||
      env_is("MPIX_ALLTOALLV_EXCLUDE", "no_such_algorithm") ||
      every_candidate_excluded())
    GTEST_SKIP() << "init fails by design here";
  const std::set<std::string> seen = init_and_run(iterations());
  for (const std::string& name : seen) EXPECT_TRUE(is_candidate(name)) << name;
}

TEST_F(AutoTest, ExpectedIterationsDecideByTheBreakEvenRule) {
  if (!plain_environment()) GTEST_SKIP() << "built-in parameters only";
  // RMA windows cost tens of us to create and save several us per 32 KiB
  // iteration here: a request run once takes a two-sided algorithm, one run
  // a million times an RMA algorithm (and, with the built-in parameters,
  // not lock, which tuning_lock_cheapest.json makes the choice).
  EXPECT_TRUE(is_two_sided(chosen_with("1")));
  const std::string many = chosen_with("1000000");
  EXPECT_FALSE(is_two_sided(many)) << many;
  EXPECT_NE(many, "lock");
}

TEST_F(AutoTest, ABadExpectedIterationsHintFailsOnEveryRank) {
  if (!plain_environment()) GTEST_SKIP() << "built-in parameters only";
  MPIX_Info_set(info_, "mpix_expected_iterations", rank_ == p_ - 1 ? "many" : "100");
  expect_init_fails(MPI_ERR_INFO_VALUE,
                    "on rank " + std::to_string(p_ - 1) + ": info key mpix_expected_iterations = 'many'");
}

// The exclusion that matters: the algorithm auto would choose. Excluded on a
// communicator built with that configuration, auto chooses another, and
// the excluded one can still be forced there.
TEST_F(AutoTest, ExcludingTheAlgorithmAutoChoosesMakesItChooseAnotherButItCanBeForced) {
  if (!plain_environment()) GTEST_SKIP() << "built-in parameters only";
  const std::string first = chosen_with("1000000");
  ASSERT_FALSE(first.empty());
  mpix::Config config = mpix::Library::get().config();
  config.section<mpix::AlltoallvConfig>().exclude = {first};
  MPIX_Comm* plain = comm_;
  comm_ = mpix::comm_init(MPI_COMM_WORLD, config);
  const std::string second = chosen_with("1000000");
  EXPECT_NE(second, first) << "auto chose the excluded algorithm";
  EXPECT_FALSE(second.empty());
  MPIX_Info_set(info_, "mpix_alltoallv_algorithm", first.c_str());
  ASSERT_EQ(init(), MPI_SUCCESS);
  EXPECT_EQ(algorithm_of(request_), first);
  EXPECT_TRUE(run(0));
  MPIX_Request_free(&request_);
  MPIX_Comm_free(&comm_);
  comm_ = plain;
}

TEST_F(AutoTest, AnUnknownExcludedNameFailsOnEveryRank) {
  if (!env_is("MPIX_ALLTOALLV_EXCLUDE", "no_such_algorithm")) GTEST_SKIP() << "needs the bad exclusion";
  expect_init_fails(MPIX_ERR_CONFIG, "MPIX_ALLTOALLV_EXCLUDE names 'no_such_algorithm'");
}

TEST_F(AutoTest, ExcludingEveryCandidateFailsOnEveryRank) {
  if (!every_candidate_excluded()) GTEST_SKIP() << "needs every name excluded";
  expect_init_fails(MPIX_ERR_CONFIG, "no Alltoallv algorithm is eligible");
}

TEST_F(AutoTest, ATuningFileThatMakesLockCheapestMakesAutoRunLock) {
  if (!env_is("MPIX_TUNING_FILE", "tuning_lock_cheapest.json")) GTEST_SKIP() << "needs the lock tuning file";
  EXPECT_EQ(chosen_with("1000"), "lock");
}

TEST_F(AutoTest, AMalformedTuningFileFailsOnEveryRankNamingFileLineAndKey) {
  if (!env_is("MPIX_TUNING_FILE", "tuning_malformed.json")) GTEST_SKIP() << "needs the malformed tuning file";
  expect_init_fails(MPIX_ERR_CONFIG, "tuning_malformed.json: line 7: key 'algorithms.pscw.node_us': expected a number");
}

TEST_F(AutoTest, ATuningFileMeasuredWithAnotherMpiIsRefusedOnEveryRank) {
  if (!env_is("MPIX_TUNING_FILE", "tuning_other_mpi.json")) GTEST_SKIP() << "needs the other MPI's tuning file";
  expect_init_fails(MPIX_ERR_CONFIG, std::string("tuning_other_mpi.json: measured with Example MPI 9.9, but this "
                                                 "library runs on ") +
                                         mpix::mpi_implementation::name());
}

TEST_F(AutoTest, AFileWrittenByMpixTuneIsLoaded) {
  if (!env_is("MPIX_TUNING_FILE", "mpix_tune_output.json")) GTEST_SKIP() << "needs mpix_tune's output";
  const mpix::Config& config = mpix::Library::get().config();
  EXPECT_NE(mpix::tuning_parameters(config).source.find("measured by mpix_tune"), std::string::npos)
      << mpix::tuning_parameters(config).source;
  EXPECT_EQ(mpix::tuning_parameters(config).mpi, mpix::mpi_implementation::name());
  const std::set<std::string> seen = init_and_run(iterations());
  EXPECT_FALSE(seen.empty());
}

// MPI's own call runs its whole trial: its untimed periods (3 here: the
// blocks are not eager-sized), then every timed one (MPIX_AUTO_PERIODS). A
// warm-up period counted as timed would end its trial early. Where ranks
// outnumber cores it may instead be cut as hopeless after 4 untimed
// periods (TournamentRule::warmup_scout).
TEST_F(AutoTest, MpisCallRunsItsWarmUpAndEveryTimedPeriod) {
  if (!plain_environment()) GTEST_SKIP() << "a tuning file or an exclusion changes the entrants";
  const char* periods_set = std::getenv("MPIX_AUTO_PERIODS");
  const int timed = periods_set != nullptr ? std::atoi(periods_set) : 8;
  if (timed == 0) GTEST_SKIP() << "MPIX_AUTO_PERIODS=0: no tournament";
  ASSERT_EQ(init(), MPI_SUCCESS);
  int native_run = 0;  // consecutive Starts of MPI's call, its first trial
  bool native_done = false;
  for (int it = 0, settled = 0; it < 400 && !settled && !native_done && !AnyRankFailed(); ++it) {
    ASSERT_TRUE(run(it));
    if (algorithm_of(request_) == "native")
      ++native_run;
    else if (native_run > 0)
      native_done = true;
    ASSERT_EQ(MPIX_Request_is_settled(request_, &settled), MPI_SUCCESS);
  }
  ASSERT_GT(native_run, 0) << "MPI's own call never entered";
  if (oversubscribed() && native_run == 4) return;  // cut as hopeless while warming up
  EXPECT_EQ(native_run, 3 + timed) << "MPI's call ran " << native_run << " Starts, not 3 untimed + " << timed;
}

TEST_F(AutoTest, AMispredictedPriorLosesTheTournamentInvisibly) {
  if (!env_is("MPIX_TUNING_FILE", "tuning_mispredicted.json")) GTEST_SKIP() << "needs the mispredicting file";
  // fence is predicted nearly free: it runs first, its periods measure far
  // slower than MPI's own call's, and the request moves on, on every rank at
  // the same Start, the data right throughout. Whether fence really is slower
  // than native depends on the MPI and the machine (Open MPI's osc can beat
  // its own Alltoallv at this size), so the loop makes it slow: 3 ms of the
  // application's own work whenever fence ran, which only the iteration
  // period, not the inside of Start/Wait, can see.
  // It runs until the request is settled (agreed, so every rank runs as
  // many iterations): how many entrants the tournament takes is its own
  // business, bounded by mpix_auto_settle.
  if (rank_ == 0) ::testing::internal::CaptureStderr();
  std::set<std::string> seen;
  ASSERT_EQ(init(), MPI_SUCCESS);
  for (int it = 0, settled = 0; it < 400 && !settled && !AnyRankFailed(); ++it) {
    const std::string running = algorithm_of(request_);
    seen.insert(running);
    ASSERT_TRUE(run(it));
    if (running == "fence") usleep(3000);
    ASSERT_EQ(MPIX_Request_is_settled(request_, &settled), MPI_SUCCESS);
  }
  const std::string log = rank_ == 0 ? ::testing::internal::GetCapturedStderr() : "";
  EXPECT_TRUE(seen.count("fence")) << "never ran the prior";
  if (!oversubscribed()) EXPECT_NE(algorithm_of(request_), "fence") << log;
  if (rank_ == 0) EXPECT_NE(log.find("auto tournament at Start 0 (the prior: fence"), std::string::npos) << log;
  if (rank_ == 0) EXPECT_NE(log.find("verdict after"), std::string::npos) << log;
}

// The tournament's clock and agreement: the last rank's loop is slow only
// while the prior runs (its own work, not the exchange's: no block crosses
// between ranks, so the others do not wait for it and measure the prior
// fast). The agreed maximum makes every rank leave the prior, at the same
// Start: the sequence of algorithms is the same on every rank.
TEST_F(AutoTest, TournamentSwitchesEveryRankAlikeWhenOneMeasuresDifferently) {
  if (!env_is("MPIX_AUTO_WITHIN", "1000")) GTEST_SKIP() << "needs every candidate in the tournament";
  std::fill(counts_.begin(), counts_.end(), 0);
  ASSERT_EQ(init(), MPI_SUCCESS);
  const std::string prior = algorithm_of(request_);
  const std::vector<std::string> names = algorithm_names();
  std::vector<int> sequence;
  // Until settled (agreed, so every rank runs as many iterations), at least
  // 120 iterations, at most 600.
  for (int it = 0, settled = 0; it < 600 && !(it >= 120 && settled); ++it) {
    const std::string running = algorithm_of(request_);
    sequence.push_back(static_cast<int>(std::find(names.begin(), names.end(), running) - names.begin()));
    ASSERT_EQ(MPIX_Start(request_), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Wait(request_, MPI_STATUS_IGNORE), MPI_SUCCESS);
    if (rank_ == p_ - 1 && running == prior) usleep(3000);
    ASSERT_EQ(MPIX_Request_is_settled(request_, &settled), MPI_SUCCESS);
  }
  std::vector<int> all(sequence.size() * static_cast<std::size_t>(p_));
  MPI_Allgather(sequence.data(), static_cast<int>(sequence.size()), MPI_INT, all.data(),
                static_cast<int>(sequence.size()), MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < p_; ++r)
    EXPECT_TRUE(std::equal(sequence.begin(), sequence.end(), all.begin() + r * static_cast<long>(sequence.size())))
        << "rank " << r << " ran another algorithm than rank 0 at some Start";
  if (!oversubscribed()) EXPECT_NE(algorithm_of(request_), prior) << "kept the prior that one rank measured slow";
}

// Drift: once settled, the application's loop gets slower whenever the
// winner runs (1 ms of its own work per iteration): the watched period
// drifts, the tournament runs again and another algorithm takes over; the
// data stays right.
TEST_F(AutoTest, TournamentReRunsWhenThePeriodDrifts) {
  if (!env_is("MPIX_AUTO_WITHIN", "1000")) GTEST_SKIP() << "needs every candidate in the tournament";
  if (rank_ == 0) ::testing::internal::CaptureStderr();
  ASSERT_EQ(init(), MPI_SUCCESS);
  std::string winner, log;
  // The winner is slowed by twice the longest period its tournament logged
  // (rank 0's log, broadcast; 1 to 100 ms): slower than every entrant
  // measured, so that re-racing them costs nothing and is never deferred,
  // whatever the load.
  useconds_t slowdown_us = 0;
  // Until settled on another algorithm (agreed), or patience iterations
  // after the winner was seen: drift checks are spaced so that their
  // agreements cost a hundredth of the settled periods, many Starts apart
  // where agreements are slow (a loaded machine: an agreement of 1 ms
  // against a 57 us period spaces them 1754 Starts apart; 20000 covers
  // 11 ms). Oversubscribed ranks check the data only (below), over 1500.
  const int patience = oversubscribed() ? 1500 : 20000;
  bool moved_on = false;
  for (int it = 0, settled = 0, since = 0; since < patience && !moved_on; ++it) {
    MPIX_Request_is_settled(request_, &settled);
    moved_on = !winner.empty() && settled && algorithm_of(request_) != winner;  // agreed: both are
    if (it >= 150 && winner.empty() && settled) {
      winner = algorithm_of(request_);
      double longest_us = 0;
      if (rank_ == 0) {
        log = ::testing::internal::GetCapturedStderr();
        ::testing::internal::CaptureStderr();
        for (const char* key : {"median period ", "fastest "})
          for (std::size_t at = log.find(key); at != std::string::npos; at = log.find(key, at + 1))
            longest_us = std::max(longest_us, std::atof(log.c_str() + at + std::strlen(key)));
      }
      MPI_Bcast(&longest_us, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      slowdown_us = static_cast<useconds_t>(std::clamp(2 * longest_us, 1000.0, 100000.0));
    }
    since += winner.empty() ? 0 : 1;
    const bool slowed = !winner.empty() && algorithm_of(request_) == winner;
    ASSERT_TRUE(run(it));
    if (slowed) usleep(slowdown_us);
    MPIX_Request_is_settled(request_, &settled);
  }
  if (rank_ == 0) log += ::testing::internal::GetCapturedStderr();
  if (oversubscribed()) return;
  EXPECT_NE(algorithm_of(request_), winner) << log;
  if (rank_ == 0) EXPECT_NE(log.find("mpix-rma: auto: the period of " + winner + " drifted"), std::string::npos) << log;
}

// A re-check is bought only once the request has run long enough to pay
// for it (rule.recheck_share of its time), and every re-run of a drift
// says so first. Every period is slowed while the tournament runs, then
// none is, so the winner's period drops far below what the others
// measured and the drift is seen; whether re-racing them is paid for by
// then rests on the machine's load, but a re-run must always follow the
// line that prices it as paid for ("now"), never run unpriced.
TEST_F(AutoTest, TournamentReRunsADriftOnlyOncePaidFor) {
  if (!env_is("MPIX_AUTO_WITHIN", "1000")) GTEST_SKIP() << "needs every candidate in the tournament";
  const useconds_t slowdown_us = unmissable_slowdown_us();
  if (rank_ == 0) ::testing::internal::CaptureStderr();
  ASSERT_EQ(init(), MPI_SUCCESS);
  // Until 600 iterations after the verdict (agreed), at most 1500 in all.
  for (int it = 0, settled = 0, since = 0; it < 1500 && since < 600; ++it) {
    ASSERT_EQ(MPIX_Request_is_settled(request_, &settled), MPI_SUCCESS);
    since += settled;
    ASSERT_TRUE(run(it));
    if (!settled) usleep(slowdown_us);
  }
  const std::string log = rank_ == 0 ? ::testing::internal::GetCapturedStderr() : "";
  if (oversubscribed() || rank_ != 0) return;
  EXPECT_TRUE(log.find("run so far: now") != std::string::npos ||
              log.find("later, once paid for") != std::string::npos)
      << "no re-check was priced:\n" << log;
  for (std::size_t rerun = log.find("drifted from"); rerun != std::string::npos;
       rerun = log.find("drifted from", rerun + 1)) {
    const std::size_t line = log.rfind('\n', rerun);
    const std::size_t previous = line == std::string::npos ? std::string::npos : log.rfind('\n', line - 1);
    const std::string before = log.substr(previous == std::string::npos ? 0 : previous + 1,
                                          line == std::string::npos ? 0 : line - previous - 1);
    EXPECT_NE(before.find("run so far: now"), std::string::npos)
        << "a drift re-ran without being priced as paid for:\n" << log;
  }
}

// A request completed by polling MPIX_Test: its periods run from Start to
// Start just the same, the tournament settles, the data is right.
TEST_F(AutoTest, TournamentSettlesATestPolledRequest) {
  if (!env_is("MPIX_AUTO_WITHIN", "1000")) GTEST_SKIP() << "needs every candidate in the tournament";
  if (rank_ == 0) ::testing::internal::CaptureStderr();
  ASSERT_EQ(init(), MPI_SUCCESS);
  auto* send = static_cast<int*>(send_);
  auto* recv = static_cast<int*>(recv_);
  int settled = 1, ever_settled = 0;
  ASSERT_EQ(MPIX_Request_is_settled(request_, &settled), MPI_SUCCESS);
  EXPECT_EQ(settled, 0) << "a tournament to run";
  for (int it = 0; it < 150 && !AnyRankFailed(); ++it) {
    for (int dst = 0; dst < p_; ++dst)
      for (int i = 0; i < k; ++i) send[dst * k + i] = value(rank_, dst, it, i);
    for (int i = 0; i < p_ * k; ++i) recv[i] = -1;
    ASSERT_EQ(MPIX_Start(request_), MPI_SUCCESS);
    int done = 0;
    while (!done) ASSERT_EQ(MPIX_Test(request_, &done, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int src = 0; src < p_; ++src)
      for (int i = 0; i < k; ++i)
        ASSERT_EQ(recv[src * k + i], value(src, rank_, it, i)) << "iteration " << it << " from rank " << src;
    ASSERT_EQ(MPIX_Request_is_settled(request_, &settled), MPI_SUCCESS);
    ever_settled |= settled;
  }
  const std::string log = rank_ == 0 ? ::testing::internal::GetCapturedStderr() : "";
  if (oversubscribed()) return;
  EXPECT_EQ(ever_settled, 1) << "never settled";
  if (rank_ == 0) EXPECT_NE(log.find("verdict after"), std::string::npos) << log;
}

// Two requests in one loop on one communicator (an FFT's forward and
// backward transposes): one races at a time. The second runs its prior
// until the first's verdict, then takes its turn; both settle, at the same
// Starts on every rank, and deliver their data throughout.
TEST_F(AutoTest, TournamentsOfTwoRequestsInOneLoopTakeTurns) {
  if (!env_is("MPIX_AUTO_WITHIN", "1000")) GTEST_SKIP() << "needs every candidate in the tournament";
  if (rank_ == 0) ::testing::internal::CaptureStderr();
  ASSERT_EQ(init(), MPI_SUCCESS);
  // The second: 512 ints per peer, heap buffers.
  const int k2 = 512;
  std::vector<int> counts2(p_, k2), displs2(p_), send2(static_cast<std::size_t>(p_) * k2), recv2(send2.size());
  for (int i = 0; i < p_; ++i) displs2[i] = i * k2;
  MPIX_Request* second = nullptr;
  ASSERT_EQ(MPIX_Alltoallv_init(send2.data(), counts2.data(), displs2.data(), MPI_INT, recv2.data(), counts2.data(),
                                displs2.data(), MPI_INT, comm_, info_, &second),
            MPI_SUCCESS);
  int settled = 0, settled2 = 0;
  for (int it = 0; it < 3000 && !(settled && settled2) && !AnyRankFailed(); ++it) {
    ASSERT_TRUE(run(it));
    for (int dst = 0; dst < p_; ++dst)
      for (int i = 0; i < k2; ++i) send2[static_cast<std::size_t>(dst * k2 + i)] = value(rank_, dst, it, i + 1);
    std::fill(recv2.begin(), recv2.end(), -1);
    ASSERT_EQ(MPIX_Start(second), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Wait(second, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int src = 0; src < p_; ++src)
      for (int i = 0; i < k2; ++i)
        ASSERT_EQ(recv2[static_cast<std::size_t>(src * k2 + i)], value(src, rank_, it, i + 1)) << "iteration " << it;
    ASSERT_EQ(MPIX_Request_is_settled(request_, &settled), MPI_SUCCESS);
    ASSERT_EQ(MPIX_Request_is_settled(second, &settled2), MPI_SUCCESS);
  }
  MPIX_Request_free(&second);
  const std::string log = rank_ == 0 ? ::testing::internal::GetCapturedStderr() : "";
  EXPECT_TRUE(settled && settled2) << "both requests settle";
  if (rank_ != 0) return;
  const std::size_t waits = log.find("another request is racing");
  const std::size_t first_verdict = log.find("verdict after");
  const std::size_t turn = log.find("its turn after");
  ASSERT_NE(waits, std::string::npos) << log;
  ASSERT_NE(turn, std::string::npos) << log;
  EXPECT_LT(first_verdict, turn) << "the second raced before the first's verdict:\n" << log;
  // The second's exchanges ran inside the first's periods: taken out.
  const std::size_t taken_out = log.find("of other requests' exchanges taken out of its periods");
  EXPECT_LT(taken_out, turn) << "the first tournament's periods kept the second's exchanges:\n" << log;
  EXPECT_NE(log.find("verdict after", turn), std::string::npos) << "the second reached its verdict:\n" << log;
}

// What running MPI's own call saves beyond its measured period (the
// drop-in's per-call agreement) is credited to it: with a credit larger than
// any period, MPI's call wins the tournament, every rank switching at the
// same Start, the data right throughout; a bad value on one rank fails on
// every rank.
TEST_F(AutoTest, AnMpiCreditLargerThanAnyPeriodMakesMpisOwnCallWin) {
  if (!plain_environment()) GTEST_SKIP() << "built-in parameters only";
  MPIX_Info_set(info_, "mpix_auto_mpi_credit_ns", "1000000000");  // 1 s
  ASSERT_EQ(init(), MPI_SUCCESS);
  int settled = 0;
  for (int it = 0; it < 150 && !AnyRankFailed() && !settled; ++it) {
    ASSERT_TRUE(run(it));
    ASSERT_EQ(MPIX_Request_is_settled(request_, &settled), MPI_SUCCESS);
  }
  EXPECT_EQ(settled, 1);
  EXPECT_EQ(algorithm_of(request_), first_with(mpix::capability::mpi_baseline));
  MPIX_Request_free(&request_);
  MPIX_Info_set(info_, "mpix_auto_mpi_credit_ns", rank_ == p_ - 1 ? "-5" : "1000");
  expect_init_fails(MPI_ERR_INFO_VALUE,
                    "on rank " + std::to_string(p_ - 1) + ": info key mpix_auto_mpi_credit_ns = '-5'");
  MPIX_Info_set(info_, "mpix_auto_mpi_credit_ns", "1000");
  MPIX_Info_set(info_, "mpix_auto_mpi_period_ns", rank_ == p_ - 1 ? "-5" : "1000");
  expect_init_fails(MPI_ERR_INFO_VALUE,
                    "on rank " + std::to_string(p_ - 1) + ": info key mpix_auto_mpi_period_ns = '-5'");
}

TEST_F(AutoTest, VerboseExplainsTheChoice) {
  if (!env_set("MPIX_VERBOSE") || !plain_environment()) GTEST_SKIP() << "needs MPIX_VERBOSE=1";
  if (rank_ == 0) ::testing::internal::CaptureStderr();
  MPIX_Info_set(info_, "mpix_expected_iterations", "5000");
  ASSERT_EQ(init(), MPI_SUCCESS);
  const std::string log = rank_ == 0 ? ::testing::internal::GetCapturedStderr() : "";
  if (rank_ != 0) return;
  EXPECT_NE(log.find("pattern: " + std::to_string(p_) + " ranks"), std::string::npos) << log;
  for (const std::string& name : algorithm_names())
    if (name != "auto") EXPECT_NE(log.find("  " + name + ": T_init"), std::string::npos) << name << "\n" << log;
  EXPECT_NE(log.find("choice: " + algorithm_of(request_) + " (lowest T_init + N*T_iter at N=5000"),
            std::string::npos)
      << log;
}
