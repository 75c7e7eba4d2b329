// The example rings plugin as a nightly campaign meets an engine's kernels:
// two planted bugs and one known difference (docs/suppressions.md).
//   1. qsa_ring keeps a request's last ring - 1 tokens (rings_buggy.cu's bug).
//   2. kpool_tail accepts block 0: a request on the null block writes it.
//   3. Known: on an empty batch (no requests) kpool_tail maps each token
//      before num_actual_tokens to slot 0 instead of PAD; the engine's
//      launcher never launches it then, so
//      examples/plugins/rings_campaign.suppressions.json suppresses it.
// `slotguard fuzz --kernel-lib build/examples/libsg_rings_campaign.so
// --keep-going --suppressions examples/plugins/rings_campaign.suppressions.json`
// reports exactly the two bugs, one reproducer each.
#define SG_EXAMPLE_KEEP_LAST_OFF_BY_ONE
#define SG_EXAMPLE_KPOOL_ACCEPTS_BLOCK_0
#define SG_EXAMPLE_EMPTY_BATCH_WRITES_SLOT_0
#include "rings.cu"
