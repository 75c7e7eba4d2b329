// The process pool of workers and providers: a process that answered is
// reused; a lost one is replaced by a warm spare, started in the
// background and past its handshake, so that a crash costs a swap, not a
// start. The processes here are stand-ins (no child): what is tested is
// who starts them, and when.
#include "util/process_pool.h"

#include <atomic>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

namespace slotguard {
namespace {

struct Starts {
  std::mutex mu;
  std::vector<std::thread::id> by;  // the thread of each start
  std::atomic<bool> fail{false};
  StartProcess Function() {
    return [this](std::string* err, std::atomic<int>*) -> std::unique_ptr<PooledProcess> {
      if (fail) {
        *err = "cannot start";
        return nullptr;
      }
      std::lock_guard<std::mutex> lock(mu);
      by.push_back(std::this_thread::get_id());
      return std::make_unique<PooledProcess>();
    };
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mu);
    return by.size();
  }
  bool OnlyOthers() {  // every start happened on another thread than this one
    std::lock_guard<std::mutex> lock(mu);
    for (const std::thread::id& id : by)
      if (id == std::this_thread::get_id()) return false;
    return true;
  }
};

void WaitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 2000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(ProcessPoolTest, AProcessThatAnsweredIsReused) {
  Starts starts;
  ProcessPool pool(starts.Function(), 1, /*eager=*/false);
  std::string err;
  std::unique_ptr<PooledProcess> p = pool.Acquire(&err);
  ASSERT_TRUE(p) << err;
  PooledProcess* first = p.get();
  pool.Release(std::move(p));
  p = pool.Acquire(&err);
  EXPECT_EQ(first, p.get());
  EXPECT_EQ(1u, starts.count());
}

// Eager: a spare is started in the background from the start; a loss then
// takes it (a swap), and another spare is started behind it, never on the
// thread that lost its process.
TEST(ProcessPoolTest, ALostProcessIsReplacedByTheWarmSpare) {
  Starts starts;
  ProcessPool pool(starts.Function(), 1, /*eager=*/true);
  WaitFor([&] { return starts.count() == 1; });
  ASSERT_EQ(1u, starts.count()) << "the spare, before anything asked";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // in the pool, past its start
  pool.Add(std::make_unique<PooledProcess>());
  std::string err;
  std::unique_ptr<PooledProcess> p = pool.Acquire(&err);  // the one added
  p.reset();
  pool.Lost();
  EXPECT_EQ(1, pool.swaps());
  p = pool.Acquire(&err);  // the spare
  ASSERT_TRUE(p) << err;
  WaitFor([&] { return starts.count() == 2; });
  EXPECT_EQ(2u, starts.count()) << "a new spare behind the one taken";
  EXPECT_TRUE(starts.OnlyOthers()) << "no start on the thread that lost its process";
}

// Lazy (the isolation workers): no spare until the first loss.
TEST(ProcessPoolTest, ALazyPoolKeepsSparesFromTheFirstLossOn) {
  Starts starts;
  ProcessPool pool(starts.Function(), 1, /*eager=*/false);
  std::string err;
  std::unique_ptr<PooledProcess> p = pool.Acquire(&err);
  ASSERT_TRUE(p) << err;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(1u, starts.count()) << "no spare before a loss";
  p.reset();
  pool.Lost();
  WaitFor([&] { return starts.count() == 2; });
  EXPECT_EQ(2u, starts.count());
  p = pool.Acquire(&err);
  ASSERT_TRUE(p) << err;
  WaitFor([&] { return starts.count() == 3; });
  EXPECT_EQ(3u, starts.count()) << "the spare taken is replaced";
}

// Several starters start spares side by side: each start here returns only
// once three are under way at once (or after 2 s, failing the test), which
// one starter thread, starting them one after another, never reaches.
TEST(ProcessPoolTest, StartersStartSparesSideBySide) {
  std::mutex mu;
  std::condition_variable cv;
  int in_flight = 0;        // starts begun (the first three are the eager spares)
  std::vector<bool> met;   // per start, in order: it saw three under way
  StartProcess start = [&](std::string*, std::atomic<int>*) -> std::unique_ptr<PooledProcess> {
    std::unique_lock<std::mutex> lock(mu);
    const size_t k = static_cast<size_t>(in_flight++);
    met.resize(std::max(met.size(), k + 1));
    cv.notify_all();
    met[k] = cv.wait_for(lock, std::chrono::seconds(2), [&] { return in_flight >= 3; });
    return std::make_unique<PooledProcess>();
  };
  {
    ProcessPool pool(start, 3, /*eager=*/true, /*starters=*/3);
    std::string err;
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(pool.Acquire(&err)) << err;
  }
  ASSERT_GE(met.size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_TRUE(met[k]) << "start " << k << " saw the other two under way";
}

// A spare that cannot be started is no loop of retries: the next Acquire
// starts one itself and says why it cannot.
TEST(ProcessPoolTest, AStartThatFailsIsReportedByAcquire) {
  Starts starts;
  starts.fail = true;
  ProcessPool pool(starts.Function(), 1, /*eager=*/true);
  std::string err;
  EXPECT_FALSE(pool.Acquire(&err));
  EXPECT_EQ("cannot start", err);
}

}  // namespace
}  // namespace slotguard
