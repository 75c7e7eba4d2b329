// The one wire framing of slotguard's child processes (the fault-isolation
// workers, provider processes, the plugin probe): a message is a frame, a
// u64 byte count then that many bytes, built and read through a WireBuffer.
#ifndef SLOTGUARD_UTIL_WIRE_H_
#define SLOTGUARD_UTIL_WIRE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace slotguard {

/// A byte buffer being built or read.
class WireBuffer {
 public:
  std::vector<uint8_t> bytes;

  void PutU8(uint8_t v) { bytes.push_back(v); }
  void PutU32(uint32_t v) { Put(&v, sizeof(v)); }
  void PutU64(uint64_t v) { Put(&v, sizeof(v)); }
  void PutString(const std::string& s) {
    PutU64(s.size());
    Put(s.data(), s.size());
  }
  template <class T>
  void PutVector(const std::vector<T>& v) {
    PutU64(v.size());
    Put(v.data(), v.size() * sizeof(T));
  }
  void Put(const void* data, size_t size);

  // Readers return false past the end.
  bool GetU8(uint8_t* v) { return Get(v, sizeof(*v)); }
  bool GetU32(uint32_t* v) { return Get(v, sizeof(*v)); }
  bool GetU64(uint64_t* v) { return Get(v, sizeof(*v)); }
  bool GetString(std::string* s);
  template <class T>
  bool GetVector(std::vector<T>* v) {
    uint64_t n;
    if (!GetU64(&n) || n > (bytes.size() - at_) / sizeof(T)) return false;
    v->resize(n);
    return Get(v->data(), n * sizeof(T));
  }
  bool Get(void* data, size_t size);

 private:
  size_t at_ = 0;
};

/// One framed message (u64 length, bytes) over a file descriptor. ReadFrame
/// waits at most timeout_ms (-1: forever); *timed_out tells a timeout from
/// a closed pipe. A frame longer than max_bytes is refused before anything
/// is allocated for it (false, not timed out).
bool WriteFrame(int fd, const WireBuffer& message);
/// The same within timeout_ms (-1: forever), for a peer that may stop reading.
bool WriteFrame(int fd, const WireBuffer& message, int timeout_ms, bool* timed_out);
bool ReadFrame(int fd, int timeout_ms, WireBuffer* message, bool* timed_out,
               uint64_t max_bytes = uint64_t{1} << 40);

}  // namespace slotguard

#endif  // SLOTGUARD_UTIL_WIRE_H_
