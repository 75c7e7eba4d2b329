// Integer helpers for per-token math. GPUs have no integer divider: a 64-bit
// division is a called routine of dozens of instructions, a 32-bit one a
// float-reciprocal sequence. A FastDivisor, made once on the host for a
// fixed divisor, divides by a multiply-high and a shift (Granlund and
// Montgomery; CUTLASS's FastDivmod), exactly, for dividends below 2^31.
#ifndef SLOTGUARD_KERNELS_INT_MATH_H_
#define SLOTGUARD_KERNELS_INT_MATH_H_

#include <cstdint>

#include "kernels/hd.h"

namespace slotguard {

struct FastDivisor {
  int64_t divisor = 1;
  uint32_t multiplier = 1;
  uint32_t shift = 0;
};

/// For 1 <= divisor <= 2^31 - 1.
inline FastDivisor MakeFastDivisor(int64_t divisor) {
  FastDivisor f;
  f.divisor = divisor;
  while ((int64_t{1} << f.shift) < divisor) ++f.shift;
  f.multiplier = static_cast<uint32_t>(
      (uint64_t{1} << 32) * ((uint64_t{1} << f.shift) - static_cast<uint64_t>(divisor)) /
          static_cast<uint64_t>(divisor) +
      1);
  return f;
}

SG_HD uint32_t MulHi(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((uint64_t{a} * b) >> 32);
#endif
}

/// *quotient = a / d, *remainder = a % d (C++ truncation), d > 0.
SG_HD void DivMod(int64_t a, const FastDivisor& d, int64_t* quotient, int64_t* remainder) {
  if (a >= 0 && a <= 0x7fffffff) {
    const uint32_t ua = static_cast<uint32_t>(a);
    const uint32_t q = (MulHi(ua, d.multiplier) + ua) >> d.shift;
    *quotient = q;
    *remainder = a - int64_t{q} * d.divisor;
  } else {
    *quotient = a / d.divisor;
    *remainder = a % d.divisor;
  }
}

}  // namespace slotguard

#endif  // SLOTGUARD_KERNELS_INT_MATH_H_
