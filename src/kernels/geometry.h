// Launch geometries (DESIGN section 4). The per-token functions do not know
// which one runs them; both must give identical output on valid input.
#ifndef SLOTGUARD_KERNELS_GEOMETRY_H_
#define SLOTGUARD_KERNELS_GEOMETRY_H_

namespace slotguard {

enum class Geometry {
  kEngine,  // the grid the engine launches (one program per request plus padding programs)
  kFlat,    // grid-stride over tokens, tuned for bandwidth
};

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_GEOMETRY_H_
