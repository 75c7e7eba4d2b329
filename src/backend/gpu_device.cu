#include "backend/gpu_device.h"

#include "backend/cuda_check.h"

namespace slotguard {

bool GpuUsable(std::string* why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    *why = "no usable CUDA device: " + CudaErrorText("cudaGetDeviceCount", e);
    return false;
  }
  if (count == 0) {
    *why = "no usable CUDA device: cudaGetDeviceCount found 0 devices";
    return false;
  }
  e = cudaFree(nullptr);  // creates the context: the first call that can fail on a broken driver
  if (e != cudaSuccess) {
    *why = "no usable CUDA device: " + CudaErrorText("cudaFree(nullptr)", e);
    return false;
  }
  return true;
}

bool GpuContextBroken(std::string* why) {
  const cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return false;
  *why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  return true;
}

std::string GpuDescription() {
  int device = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess)
    return "";
  // The PCI bus id tells apart two GPUs of one model: which one --device K
  // (or CUDA_VISIBLE_DEVICES) picked, as nvidia-smi and lspci name it.
  char bus[32] = {0};
  const std::string pci =
      cudaDeviceGetPCIBusId(bus, sizeof(bus), device) == cudaSuccess ? std::string(", PCI ") + bus : "";
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major * 10 + prop.minor) + ", " +
         std::to_string(prop.multiProcessorCount) + " SMs" + pci + ")";
}

}  // namespace slotguard
