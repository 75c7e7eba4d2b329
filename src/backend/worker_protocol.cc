#include "backend/worker_protocol.h"

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

void PutGroupOutputs(const std::vector<GroupOutputs>& groups, WireBuffer* out) {
  out->PutU32(static_cast<uint32_t>(groups.size()));
  for (const GroupOutputs& g : groups) {
    out->PutU32(static_cast<uint32_t>(g.engine.size()));
    for (const auto& v : g.engine) out->PutVector(v);
    out->PutU32(static_cast<uint32_t>(g.flat.size()));
    for (const auto& v : g.flat) out->PutVector(v);
    out->PutVector(g.read_past_row);
    out->PutString(g.row_bounds_evidence);
    out->PutVector(g.cache);
    out->PutU32(static_cast<uint32_t>(g.head_bytes));
    out->PutString(g.fault);
  }
}

bool GetGroupOutputs(WireBuffer* in, std::vector<GroupOutputs>* groups) {
  uint32_t n;
  if (!in->GetU32(&n) || n > (1u << 20)) return false;
  groups->assign(n, GroupOutputs());
  for (GroupOutputs& g : *groups) {
    uint32_t count, head_bytes;
    if (!in->GetU32(&count) || count > 2) return false;
    g.engine.resize(count);
    for (auto& v : g.engine)
      if (!in->GetVector(&v)) return false;
    if (!in->GetU32(&count) || count > 2) return false;
    g.flat.resize(count);
    for (auto& v : g.flat)
      if (!in->GetVector(&v)) return false;
    if (!in->GetVector(&g.read_past_row) || !in->GetString(&g.row_bounds_evidence) || !in->GetVector(&g.cache) ||
        !in->GetU32(&head_bytes) || !in->GetString(&g.fault))
      return false;
    g.head_bytes = static_cast<int32_t>(head_bytes);
  }
  return true;
}

namespace {

bool WriteAll(int fd, const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
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

bool ReadFrame(int fd, int timeout_ms, WireBuffer* message, bool* timed_out) {
  *timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  uint64_t size;
  if (!ReadAll(fd, &size, sizeof(size), timeout_ms, deadline, timed_out)) return false;
  if (size > (uint64_t{1} << 40)) return false;
  message->bytes.resize(size);
  return ReadAll(fd, message->bytes.data(), size, timeout_ms, deadline, timed_out);
}

}  // namespace slotguard
