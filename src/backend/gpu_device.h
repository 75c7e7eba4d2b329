// Whether a CUDA device is usable here, and which one.
#ifndef SLOTGUARD_BACKEND_GPU_DEVICE_H_
#define SLOTGUARD_BACKEND_GPU_DEVICE_H_

#include <string>

namespace slotguard {

/// True when this build has CUDA and device 0 answers; otherwise *why says
/// what is missing, in one line.
bool GpuUsable(std::string* why);

/// True (with *why) when this process's CUDA context hit a sticky error
/// (an illegal address, a kernel trap): nothing CUDA works here any more.
bool GpuContextBroken(std::string* why);

/// "NVIDIA H200 (sm_90, 132 SMs, PCI 0000:18:00.0)" or "" when no device.
std::string GpuDescription();

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_GPU_DEVICE_H_
