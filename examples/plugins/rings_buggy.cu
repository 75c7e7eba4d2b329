// The example rings plugin with one subtle bug: qsa_ring keeps a request's
// last ring - 1 tokens instead of its last `ring` (`t + ring > end` for
// `t + ring >= end`). Only a request with at least `ring` new tokens in the
// batch exposes it, as a token that should map and is PAD. Built as
// build/examples/libsg_rings_buggy.so; tests and the README show slotguard
// fuzz --kernel-lib finding and minimizing it.
#define SG_EXAMPLE_KEEP_LAST_OFF_BY_ONE
#include "rings.cu"
