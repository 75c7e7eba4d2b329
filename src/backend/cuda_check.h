// Every CUDA call is checked; a failure becomes one line naming the call.
#ifndef SLOTGUARD_BACKEND_CUDA_CHECK_H_
#define SLOTGUARD_BACKEND_CUDA_CHECK_H_

#include <string>

#include <cuda_runtime_api.h>

namespace slotguard {

inline std::string CudaErrorText(const char* call, cudaError_t e) {
  return std::string(call) + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
}

/// Runs `call`; on error fills *err and returns false from the enclosing function.
#define SG_CUDA_TRY(call, err)                        \
  do {                                                \
    const cudaError_t sg_status_ = (call);            \
    if (sg_status_ != cudaSuccess) {                  \
      *(err) = ::slotguard::CudaErrorText(#call, sg_status_); \
      return false;                                   \
    }                                                 \
  } while (0)

/// Device memory freed on scope exit.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  bool Allocate(size_t count, std::string* err) {
    count_ = count;
    SG_CUDA_TRY(cudaMalloc(&ptr_, sizeof(T) * (count ? count : 1)), err);
    return true;
  }
  /// Allocates and copies host data in.
  bool Upload(const T* host, size_t count, cudaStream_t stream, std::string* err) {
    if (!Allocate(count, err)) return false;
    if (count) SG_CUDA_TRY(cudaMemcpyAsync(ptr_, host, sizeof(T) * count, cudaMemcpyHostToDevice, stream), err);
    return true;
  }
  /// Grow-only: keeps the allocation when it is large enough already.
  bool Reserve(size_t count, std::string* err) {
    if (ptr_ && capacity_ >= count) {
      count_ = count;
      return true;
    }
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    capacity_ = count + count / 2;
    SG_CUDA_TRY(cudaMalloc(&ptr_, sizeof(T) * (capacity_ ? capacity_ : 1)), err);
    count_ = count;
    return true;
  }
  T* get() const { return ptr_; }
  size_t count() const { return count_; }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
  size_t capacity_ = 0;
};

/// Page-locked host memory (fast, truly asynchronous copies), grow-only.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  bool Reserve(size_t count, std::string* err) {
    count_ = count;
    if (ptr_ && capacity_ >= count) return true;
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    capacity_ = count + count / 2;
    SG_CUDA_TRY(cudaMallocHost(&ptr_, sizeof(T) * (capacity_ ? capacity_ : 1)), err);
    return true;
  }
  T* data() const { return ptr_; }
  size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
  size_t capacity_ = 0;
};

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_CUDA_CHECK_H_
