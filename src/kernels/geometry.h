// Launch geometries (docs/architecture.md). The per-token functions do not know
// which one runs them; both must give identical output on valid input.
#ifndef SLOTGUARD_KERNELS_GEOMETRY_H_
#define SLOTGUARD_KERNELS_GEOMETRY_H_

#include <cstdint>

namespace slotguard {

/// The flat geometry's block: kFlatThreads threads, kFlatTokensPerThread
/// tokens each, so one block maps a tile of kFlatTile tokens.
constexpr int kFlatThreads = 256;
constexpr int kFlatTokensPerThread = 8;
constexpr int64_t kFlatTile = int64_t{kFlatThreads} * kFlatTokensPerThread;

enum class Geometry {
  kEngine,  // the grid the engine launches (one program per request plus padding programs)
  kFlat,    // grid-stride over tokens, tuned for bandwidth
};

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_GEOMETRY_H_
