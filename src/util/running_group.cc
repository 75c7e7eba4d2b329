#include "util/running_group.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace slotguard {
namespace {

constexpr size_t kPageBytes = 2 * sizeof(int64_t);
constexpr char kMemfdName[] = "slotguard-running-group";
volatile int64_t* g_worker_words = nullptr;

volatile int64_t* MapWords(int fd) {
  void* p = mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? nullptr : static_cast<volatile int64_t*>(p);
}

}  // namespace

void ShareRunningGroup(int fd) {
  // Only slotguard's memfd: an fd 5 inherited from elsewhere (a shell, a
  // jobserver) is left alone, never mapped and written.
  char link[128] = {};
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = readlink(path.c_str(), link, sizeof(link) - 1);
  if (n <= 0 || std::string(link, static_cast<size_t>(n)).rfind("/memfd:" + std::string(kMemfdName), 0) != 0) return;
  g_worker_words = MapWords(fd);
  close(fd);  // the mapping stays; a plugin's own children do not inherit the fd
}

void SetRunningGroup(int64_t group) {
  if (!g_worker_words) return;
  g_worker_words[0] = group;
  if (group >= 0) g_worker_words[1] = group;
}

RunningGroupPage::~RunningGroupPage() {
  if (words_) munmap(const_cast<int64_t*>(words_), kPageBytes);
  if (fd_ >= 0) close(fd_);
}

bool RunningGroupPage::Create(std::string* err) {
  fd_ = memfd_create(kMemfdName, MFD_CLOEXEC);
  if (fd_ < 0 || ftruncate(fd_, kPageBytes) != 0 || !(words_ = MapWords(fd_))) {
    *err = std::string("memfd for the worker's running group: ") + std::strerror(errno);
    return false;
  }
  Clear();
  return true;
}

int64_t RunningGroupPage::Read() const { return words_ ? words_[0] : -1; }
int64_t RunningGroupPage::LastStarted() const { return words_ ? words_[1] : -1; }

void RunningGroupPage::Clear() {
  if (!words_) return;
  words_[0] = -1;
  words_[1] = -1;
}

}  // namespace slotguard
