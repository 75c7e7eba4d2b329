#include "util/process_pool.h"

#include <algorithm>

#include <signal.h>

namespace slotguard {
namespace {

constexpr int kMaxSpares = 8;

}  // namespace

ProcessPool::ProcessPool(StartProcess start, int spares, bool eager, int starters)
    : start_(std::move(start)), target_(eager ? spares : 0), first_target_(spares) {
  pending_ = target_;
  starters = std::clamp(starters, 1, kMaxSpares);
  spare_pids_ = std::make_unique<std::atomic<int>[]>(static_cast<size_t>(starters));
  for (int i = 0; i < starters; ++i) {
    spare_pids_[i] = 0;
    threads_.emplace_back([this, i] { KeepSpares(&spare_pids_[i]); });
  }
}

void ProcessPool::TopUp() {
  while (static_cast<int>(spares_.size()) + starting_ + pending_ < target_) ++pending_;
  changed_.notify_all();
}

ProcessPool::~ProcessPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (size_t i = 0; i < threads_.size(); ++i) {
      const int pid = spare_pids_[i].load();
      if (pid > 0) kill(-pid, SIGKILL);  // its handshake ends now
    }
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ProcessPool::KeepSpares(std::atomic<int>* spare_pid) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || pending_ > 0; });
    if (stopping_) return;
    --pending_;
    ++starting_;
    lock.unlock();
    std::string ignored;  // Acquire starts one itself, and says why it failed, when none is ready
    std::unique_ptr<PooledProcess> spare = start_(&ignored, spare_pid);
    lock.lock();
    *spare_pid = 0;
    --starting_;
    if (spare) {
      ++started_;
      spares_.push_back(std::move(spare));
    } else {
      target_ = 0;  // do not retry in a loop: the next loss asks again
      pending_ = 0;
    }
    changed_.notify_all();
  }
}

std::unique_ptr<PooledProcess> ProcessPool::Acquire(std::string* err) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<PooledProcess> p = std::move(idle_.back());
      idle_.pop_back();
      return p;
    }
    // A spare being started is usually nearer than a new start.
    changed_.wait(lock, [&] { return !spares_.empty() || !idle_.empty() || starting_ + pending_ == 0; });
    std::vector<std::unique_ptr<PooledProcess>>& from = !idle_.empty() ? idle_ : spares_;
    if (!from.empty()) {
      std::unique_ptr<PooledProcess> p = std::move(from.back());
      from.pop_back();
      TopUp();
      return p;
    }
    if (lost_) {  // a loss found no spare ready, and none coming: keep more
      target_ = std::min(kMaxSpares, std::max(1, target_ * 2));
      TopUp();
    }
  }
  std::unique_ptr<PooledProcess> p = start_(err, nullptr);
  if (p) {
    std::lock_guard<std::mutex> lock(mu_);
    ++started_;
  }
  return p;
}

void ProcessPool::Release(std::unique_ptr<PooledProcess> process) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(std::move(process));
  }
  changed_.notify_all();
}

void ProcessPool::Lost() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!spares_.empty()) ++swaps_;
  if (!lost_) target_ = std::max(target_, first_target_);
  lost_ = true;
  TopUp();
}

int ProcessPool::started() const {
  std::lock_guard<std::mutex> lock(mu_);
  return started_;
}

int ProcessPool::swaps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return swaps_;
}

}  // namespace slotguard
