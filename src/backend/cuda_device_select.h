// --device K: which CUDA device a run uses, chosen before anything touches
// CUDA, as CUDA_VISIBLE_DEVICES so that the worker processes and a
// --kernel-cmd provider (torch, Triton) see the same single device as
// device 0. One process per GPU on a multi-GPU host.
#ifndef SLOTGUARD_BACKEND_CUDA_DEVICE_SELECT_H_
#define SLOTGUARD_BACKEND_CUDA_DEVICE_SELECT_H_

#include <string>

namespace slotguard {

/// Makes device `device` (an index into the devices this process was
/// started with: CUDA_VISIBLE_DEVICES's list when it is set, even empty,
/// else all) the only one visible. False with *err when
/// CUDA_VISIBLE_DEVICES lists fewer devices.
/// Whether the device exists is known only when CUDA starts: the backend's
/// "no usable CUDA device" says it then.
bool SelectCudaDevice(int device, std::string* err);

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_CUDA_DEVICE_SELECT_H_
