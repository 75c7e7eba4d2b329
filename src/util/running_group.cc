#include "util/running_group.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace slotguard {
namespace {

volatile int64_t* g_worker_word = nullptr;

volatile int64_t* MapWord(int fd) {
  void* p = mmap(nullptr, sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? nullptr : static_cast<volatile int64_t*>(p);
}

}  // namespace

void ShareRunningGroup(int fd) {
  if (fcntl(fd, F_GETFD) == -1) return;  // not open: no page
  g_worker_word = MapWord(fd);
}

void SetRunningGroup(int64_t group) {
  if (g_worker_word) *g_worker_word = group;
}

RunningGroupPage::~RunningGroupPage() {
  if (word_) munmap(const_cast<int64_t*>(word_), sizeof(int64_t));
  if (fd_ >= 0) close(fd_);
}

bool RunningGroupPage::Create(std::string* err) {
  fd_ = memfd_create("slotguard-running-group", MFD_CLOEXEC);
  if (fd_ < 0 || ftruncate(fd_, sizeof(int64_t)) != 0 || !(word_ = MapWord(fd_))) {
    *err = std::string("memfd for the worker's running group: ") + std::strerror(errno);
    return false;
  }
  Clear();
  return true;
}

int64_t RunningGroupPage::Read() const { return word_ ? *word_ : -1; }

void RunningGroupPage::Clear() {
  if (word_) *word_ = -1;
}

}  // namespace slotguard
