// A batch's arrays on the device, and the MappingBatch that points at them
// (device pointers, host scalars). For one-scenario launches; the batched
// GPU path packs many scenarios into shared buffers instead.
#ifndef SLOTGUARD_BACKEND_DEVICE_BATCH_H_
#define SLOTGUARD_BACKEND_DEVICE_BATCH_H_

#include <string>

#include "backend/cuda_check.h"
#include "plan/batch_arrays.h"

namespace slotguard {

struct DeviceBatch {
  DeviceBuffer<int32_t> qsl, seq_lens_i32, idx_mapping, request_of_token;
  DeviceBuffer<int64_t> seq_lens, positions, slot_mapping_in;
  ProviderArrays extra;  // kept until the upload completes
  MappingBatch view;

  /// Copies the batch in (asynchronously on `stream`) and points `view` at it.
  bool Upload(const Batch& batch, cudaStream_t stream, std::string* err) {
    const size_t n = static_cast<size_t>(batch.num_tokens);
    if (!qsl.Upload(batch.query_start_loc.data(), batch.query_start_loc.size(), stream, err) ||
        !seq_lens.Upload(batch.seq_lens.data(), batch.seq_lens.size(), stream, err) ||
        !seq_lens_i32.Upload((extra = ProviderArrays(batch)).seq_lens_i32.data(), batch.seq_lens.size(), stream, err) ||
        !request_of_token.Upload(extra.request_of_token.data(), n, stream, err) ||
        !idx_mapping.Upload(batch.idx_mapping.data(), batch.idx_mapping.size(), stream, err) ||
        !positions.Upload(batch.positions.data(), n, stream, err) ||
        !slot_mapping_in.Upload(batch.slot_mapping_in.data(), n, stream, err))
      return false;
    view = HostMappingBatch(batch);
    view.query_start_loc = qsl.get();
    view.seq_lens = seq_lens.get();
    view.seq_lens_i32 = seq_lens_i32.get();
    view.request_of_token = request_of_token.get();
    view.idx_mapping = idx_mapping.get();
    view.positions = positions.get();
    view.slot_mapping_in = slot_mapping_in.get();
    return true;
  }
};

}  // namespace slotguard

#endif  // SLOTGUARD_BACKEND_DEVICE_BATCH_H_
