#include "util/wire.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <poll.h>
#include <unistd.h>

namespace slotguard {

void WireBuffer::Put(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  bytes.insert(bytes.end(), p, p + size);
}

bool WireBuffer::Get(void* data, size_t size) {
  if (size > bytes.size() - at_) return false;
  if (size) std::memcpy(data, bytes.data() + at_, size);
  at_ += size;
  return true;
}

bool WireBuffer::GetString(std::string* s) {
  uint64_t n;
  if (!GetU64(&n) || n > bytes.size() - at_) return false;
  s->assign(reinterpret_cast<const char*>(bytes.data() + at_), n);
  at_ += n;
  return true;
}

namespace {

// Writes all `size` bytes before `deadline` (none when timeout_ms < 0). The
// fd may be non-blocking: a full pipe waits in poll, where the deadline holds.
bool WriteAll(int fd, const void* data, size_t size, int timeout_ms = -1,
              std::chrono::steady_clock::time_point deadline = {}, bool* timed_out = nullptr) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int wait = -1;
      if (timeout_ms >= 0) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        wait = static_cast<int>(std::clamp<int64_t>(left.count(), 0, INT32_MAX));
      }
      pollfd pfd{fd, POLLOUT, 0};
      const int ready = poll(&pfd, 1, wait);
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        if (timed_out) *timed_out = true;
        return false;
      }
      if (ready < 0) return false;
      continue;
    }
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Reads exactly `size` bytes before `deadline` (none when timeout_ms < 0).
bool ReadAll(int fd, void* data, size_t size, int timeout_ms, std::chrono::steady_clock::time_point deadline,
             bool* timed_out) {
  uint8_t* p = static_cast<uint8_t*>(data);
  while (size > 0) {
    if (timeout_ms >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd pfd{fd, POLLIN, 0};
      const int ready = poll(&pfd, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        *timed_out = true;
        return false;
      }
      if (ready < 0) return false;
    }
    const ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

bool WriteFrame(int fd, const WireBuffer& message) {
  const uint64_t size = message.bytes.size();
  return WriteAll(fd, &size, sizeof(size)) && WriteAll(fd, message.bytes.data(), message.bytes.size());
}

bool WriteFrame(int fd, const WireBuffer& message, int timeout_ms, bool* timed_out) {
  *timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  const uint64_t size = message.bytes.size();
  return WriteAll(fd, &size, sizeof(size), timeout_ms, deadline, timed_out) &&
         WriteAll(fd, message.bytes.data(), message.bytes.size(), timeout_ms, deadline, timed_out);
}

bool ReadFrame(int fd, int timeout_ms, WireBuffer* message, bool* timed_out, uint64_t max_bytes) {
  *timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  uint64_t size;
  if (!ReadAll(fd, &size, sizeof(size), timeout_ms, deadline, timed_out)) return false;
  if (size > max_bytes) return false;
  message->bytes.resize(size);
  return ReadAll(fd, message->bytes.data(), size, timeout_ms, deadline, timed_out);
}

}  // namespace slotguard
