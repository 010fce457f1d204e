// Epochs: misuse errors, duplicates that synchronize their parent, and the
// nonblocking epoch calls (a late peer must not hold up the caller).
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "tests/rma/win_fixture.hpp"

using namespace mpix_test;

namespace {

std::vector<MPI_Request> held_;  // the late rank's signal receives

std::string info_value(MPIX_Win* win, const char* key) {
  MPIX_Info* info = nullptr;
  if (MPIX_Win_get_info(win, &info) != MPI_SUCCESS) return "<error>";
  char value[64] = {};
  int flag = 0;
  MPIX_Info_get(info, key, sizeof value - 1, value, &flag);
  MPIX_Info_free(&info);
  return flag ? value : "<unset>";
}

// Ordering, not timing, shows that a nonblocking epoch call does not wait
// for a late peer: the late rank does not even make its own call until every
// other rank has signalled that its call returned (and, where checked, that
// the epoch was still incomplete). A call that waited for the late rank
// never signals; the late rank then gives up after a minute, which fails
// the test (no oversubscribed schedule comes near that), makes its call and
// still takes the signals, so nothing is left unmatched.
constexpr int returned_tag = 4711;

void signal_returned(int late) {
  const int one = 1;
  MPI_Send(&one, 1, MPI_INT, late, returned_tag, MPI_COMM_WORLD);
}

// On the late rank: true if every other rank signalled within a minute.
bool hold_until_others_returned(int late) {
  std::vector<MPI_Request> signals;
  std::vector<int> values(static_cast<std::size_t>(world_size()));
  for (int r = 0; r < world_size(); ++r)
    if (r != late) {
      signals.emplace_back();
      MPI_Irecv(&values[static_cast<std::size_t>(r)], 1, MPI_INT, r, returned_tag, MPI_COMM_WORLD, &signals.back());
    }
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int all = 0;
  while (!all && std::chrono::steady_clock::now() < give_up) {
    MPI_Testall(static_cast<int>(signals.size()), signals.data(), &all, MPI_STATUSES_IGNORE);
    if (!all) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  held_ = signals;
  return all != 0;
}

// On the late rank, after its own call: the signals of ranks whose call
// waited for it (none, unless the test fails).
void collect_late_signals() {
  MPI_Waitall(static_cast<int>(held_.size()), held_.data(), MPI_STATUSES_IGNORE);
  held_.clear();
}

class WinSync : public MpiTest, public ::testing::WithParamInterface<WinKind> {};

}  // namespace

TEST_P(WinSync, MisuseIsAnRmaSyncErrorNotUndefinedBehaviour) {
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), 4 * p);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  MPIX_Win* win = w.win();
  const int t = (me + 1) % p;
  int x = 1;
  EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, t, w.disp(t, 0), 1, MPI_INT, win)), MPI_ERR_RMA_SYNC);
  EXPECT_EQ(error_class(MPIX_Get(&x, 1, MPI_INT, t, w.disp(t, 0), 1, MPI_INT, win)), MPI_ERR_RMA_SYNC);
  EXPECT_EQ(error_class(MPIX_Win_unlock(t, win)), MPI_ERR_RMA_SYNC);
  EXPECT_EQ(error_class(MPIX_Win_unlock_all(win)), MPI_ERR_RMA_SYNC);
  EXPECT_EQ(error_class(MPIX_Win_complete(win)), MPI_ERR_RMA_SYNC);
  EXPECT_EQ(error_class(MPIX_Win_wait(win)), MPI_ERR_RMA_SYNC);
  EXPECT_EQ(error_class(MPIX_Win_flush(t, win)), MPI_ERR_RMA_SYNC);
  EXPECT_EQ(error_class(MPIX_Win_flush_all(win)), MPI_ERR_RMA_SYNC);

  ASSERT_EQ(MPIX_Win_lock_all(0, win), MPI_SUCCESS);
  EXPECT_EQ(error_class(MPIX_Win_lock_all(0, win)), MPI_ERR_RMA_SYNC) << "nested lock_all";
  EXPECT_EQ(error_class(MPIX_Win_lock(MPI_LOCK_SHARED, t, 0, win)), MPI_ERR_RMA_SYNC) << "lock inside lock_all";
  EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, p, 0, 1, MPI_INT, win)), MPI_ERR_RANK);
  if (GetParam() != WinKind::dynamic) {
    EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, t, 4 * p, 1, MPI_INT, win)), MPI_ERR_RMA_RANGE);
    EXPECT_EQ(error_class(MPIX_Put(&x, 2, MPI_INT, t, 4 * p - 1, 2, MPI_INT, win)), MPI_ERR_RMA_RANGE);
    EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, t, -1, 1, MPI_INT, win)), MPI_ERR_RMA_RANGE);
  }
  EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, t, w.disp(t, 0), 2, MPI_INT, win)), MPI_ERR_TYPE);
  // The datatypes' shapes are remembered from the calls above: the counts
  // are still checked, a negative one before the sides' byte counts.
  EXPECT_EQ(error_class(MPIX_Put(&x, -1, MPI_INT, t, w.disp(t, 0), -1, MPI_INT, win)), MPI_ERR_COUNT);
  EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, t, w.disp(t, 0), -1, MPI_INT, win)), MPI_ERR_COUNT);
  EXPECT_EQ(error_class(MPIX_Win_fence(0, win)), MPI_ERR_RMA_SYNC) << "fence inside lock_all";
  ASSERT_EQ(MPIX_Win_unlock_all(win), MPI_SUCCESS);

  ASSERT_EQ(MPIX_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), MPI_SUCCESS);
  if (p > 2) {
    const int other = (me + 2) % p;
    EXPECT_EQ(error_class(MPIX_Put(&x, 1, MPI_INT, other, w.disp(other, 0), 1, MPI_INT, win)), MPI_ERR_RMA_SYNC)
        << "target not locked";
  }
  EXPECT_EQ(error_class(MPIX_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win)), MPI_ERR_RMA_SYNC) << "locked twice";
  ASSERT_EQ(MPIX_Win_unlock(t, win), MPI_SUCCESS);

  // Freeing inside an epoch fails on every rank, and the window survives it.
  ASSERT_EQ(MPIX_Win_fence(0, win), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Put(&x, 1, MPI_INT, t, w.disp(t, 0), 1, MPI_INT, win), MPI_SUCCESS);
  MPIX_Win* same = win;
  EXPECT_EQ(error_class(MPIX_Win_free(&same)), MPI_ERR_RMA_SYNC);
  EXPECT_EQ(same, win);
  ASSERT_EQ(MPIX_Win_fence(MPI_MODE_NOSUCCEED, win), MPI_SUCCESS);
}

TEST_P(WinSync, DuplicateSynchronizesItsParentAndReportsItsOwnInfo) {
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), p, {{"mpi_win_scope", "thread"}});
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  MPIX_Info* info = nullptr;
  MPIX_Info_init(&info);
  MPIX_Info_set(info, "mpi_win_order", "true");
  MPIX_Info_set(info, "mpi_win_scope", "process");
  MPIX_Win* dup = nullptr;
  ASSERT_EQ(MPIX_Win_dup_with_info(w.win(), info, &dup), MPI_SUCCESS);
  MPIX_Info_free(&info);
  EXPECT_EQ(info_value(w.win(), "mpi_win_scope"), "thread");
  EXPECT_EQ(info_value(w.win(), "mpi_win_order"), "false");
  EXPECT_EQ(info_value(dup, "mpi_win_scope"), "process");
  EXPECT_EQ(info_value(dup, "mpi_win_order"), "true");

  for (int i = 0; i < p; ++i) w.memory()[i] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  // Epoch opened and closed through the duplicate, data through the parent.
  ASSERT_EQ(MPIX_Win_fence(0, dup), MPI_SUCCESS);
  const int mine = 100 + me;
  for (int t = 0; t < p; ++t) EXPECT_EQ(MPIX_Put(&mine, 1, MPI_INT, t, w.disp(t, me), 1, MPI_INT, w.win()), MPI_SUCCESS);
  EXPECT_EQ(error_class(MPIX_Win_lock_all(0, w.win())), MPI_ERR_RMA_SYNC) << "the parent is in the dup's epoch";
  ASSERT_EQ(MPIX_Win_fence(0, dup), MPI_SUCCESS);
  for (int s = 0; s < p; ++s) EXPECT_EQ(w.load(s), 100 + s) << "fence through the duplicate";
  ASSERT_EQ(MPIX_Win_fence(MPI_MODE_NOSUCCEED, dup), MPI_SUCCESS);

  // Lock through the duplicate, data through the parent.
  const int second = 200 + me;
  ASSERT_EQ(MPIX_Win_lock_all(0, dup), MPI_SUCCESS);
  for (int t = 0; t < p; ++t)
    EXPECT_EQ(MPIX_Put(&second, 1, MPI_INT, t, w.disp(t, me), 1, MPI_INT, w.win()), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Win_unlock_all(dup), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_EQ(MPIX_Win_sync(w.win()), MPI_SUCCESS);
  for (int s = 0; s < p; ++s) EXPECT_EQ(w.load(s), 200 + s) << "unlock_all through the duplicate";

  MPIX_Win* parent = w.win();
  EXPECT_EQ(error_class(MPIX_Win_free(&parent)), MPI_ERR_WIN) << "a duplicate is alive";
  EXPECT_EQ(MPIX_Win_free(&dup), MPI_SUCCESS);
  EXPECT_EQ(dup, nullptr);
}

TEST_P(WinSync, IfenceReturnsBeforeALatePeerAndCompletesAfterIt) {
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), p);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  for (int i = 0; i < p; ++i) w.memory()[i] = -1;
  const int late = p - 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == late) EXPECT_TRUE(hold_until_others_returned(late)) << "an ifence waited for the late peer";
  MPIX_Request* opened = nullptr;
  ASSERT_EQ(MPIX_Win_ifence(0, w.win(), &opened), MPI_SUCCESS);
  int flag = -1;
  ASSERT_EQ(MPIX_Test(opened, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
  if (me != late) {
    // The late peer has not called ifence yet: it waits for this signal.
    EXPECT_EQ(flag, 0) << "ifence completed before the late peer arrived";
    signal_returned(late);
  } else {
    collect_late_signals();
  }
  // An operation issued before completion waits for the epoch to activate.
  const int mine = 10 + me;
  for (int t = 0; t < p; ++t) EXPECT_EQ(MPIX_Put(&mine, 1, MPI_INT, t, w.disp(t, me), 1, MPI_INT, w.win()), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Wait(opened, MPI_STATUS_IGNORE), MPI_SUCCESS);
  MPIX_Request_free(&opened);
  // Closing with a nonblocking fence, completed by polling.
  MPIX_Request* closed = nullptr;
  ASSERT_EQ(MPIX_Win_ifence(MPI_MODE_NOSUCCEED, w.win(), &closed), MPI_SUCCESS);
  for (flag = 0; !flag;) ASSERT_EQ(MPIX_Test(closed, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
  MPIX_Request_free(&closed);
  for (int s = 0; s < p; ++s) EXPECT_EQ(w.load(s), 10 + s);
}

TEST_P(WinSync, IcompleteAndIwaitReturnBeforeALatePeer) {
  const int p = world_size(), me = world_rank();
  TestWindow w(GetParam(), p);
  ASSERT_EQ(w.status(), MPI_SUCCESS);
  for (int i = 0; i < p; ++i) w.memory()[i] = -1;
  MPI_Group group;
  MPI_Comm_group(MPI_COMM_WORLD, &group);
  MPI_Barrier(MPI_COMM_WORLD);
  const int late = p - 1;
  ASSERT_EQ(MPIX_Win_post(group, 0, w.win()), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Win_start(group, 0, w.win()), MPI_SUCCESS);
  const int mine = 50 + me;
  for (int t = 0; t < p; ++t) EXPECT_EQ(MPIX_Put(&mine, 1, MPI_INT, t, w.disp(t, me), 1, MPI_INT, w.win()), MPI_SUCCESS);
  if (me == late) EXPECT_TRUE(hold_until_others_returned(late)) << "icomplete + iwait waited for the late peer";
  MPIX_Request* done[2] = {nullptr, nullptr};
  ASSERT_EQ(MPIX_Win_icomplete(w.win(), &done[0]), MPI_SUCCESS);
  ASSERT_EQ(MPIX_Win_iwait(w.win(), &done[1]), MPI_SUCCESS);
  if (me != late)
    signal_returned(late);
  else
    collect_late_signals();
  ASSERT_EQ(MPIX_Waitall(2, done, MPI_STATUSES_IGNORE), MPI_SUCCESS);
  for (MPIX_Request*& r : done) MPIX_Request_free(&r);
  for (int s = 0; s < p; ++s) EXPECT_EQ(w.load(s), 50 + s);
  MPI_Group_free(&group);
}

INSTANTIATE_TEST_SUITE_P(Kinds, WinSync, ::testing::Values(WinKind::created, WinKind::allocated, WinKind::dynamic),
                         [](const ::testing::TestParamInfo<WinKind>& info) { return kind_name(info.param); });
