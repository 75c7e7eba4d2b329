#include "prove/claim.h"

#include <cstdio>

#include "util/did_you_mean.h"

namespace slotguard {

std::string CountText(long double count) {
  if (count < 0) return "uncounted";
  if (count < 9007199254740992.0L) return std::to_string(static_cast<long long>(count));
  char text[32];
  std::snprintf(text, sizeof text, "%.2Le", count);
  return text;
}

std::string ClaimLine(const ScopeClaim& c) {
  std::string line = "scope " + c.scope + ": " + std::to_string(c.batches) + " batches (" + CountText(c.before) +
                     " before reduction) of famil" + (c.families.size() == 1 ? "y " : "ies ") + JoinNames(c.families) +
                     ", " + std::to_string(c.configs) + " configurations; implementation " + c.implementation;
  if (!c.variant.empty()) line += ", variant " + c.variant;
  if (c.shards > 1)
    line += "; shard " + std::to_string(c.shard) + "/" + std::to_string(c.shards) + ": " +
            std::to_string(c.shard_batches) + " of them";
  return line;
}

std::string CoverageText(const ScopeClaim& c) {
  if (c.complete()) return "";
  std::string complete, partial, untouched;
  int64_t complete_n = 0, untouched_n = 0;
  for (const ConfigCoverage& k : c.coverage) {
    if (k.batches == 0) continue;
    if (k.covered == k.batches) {
      complete += (complete.empty() ? "" : ", ") + k.label;
      ++complete_n;
    } else if (k.covered > 0) {
      partial += (partial.empty() ? "" : ", ") + k.label + " " + std::to_string(k.covered) + " of " +
                 std::to_string(k.batches);
    } else {
      untouched += (untouched.empty() ? "" : ", ") + k.label;
      ++untouched_n;
    }
  }
  std::string text = "checked " + std::to_string(c.covered) + " of this " + (c.shards > 1 ? "shard's " : "scope's ") +
                     std::to_string(c.shard_batches) + " batches: the batches before batch " +
                     std::to_string(c.FirstUncovered()) + " in enumeration order" +
                     (c.shards > 1 ? " (those of shard " + std::to_string(c.shard) + "/" + std::to_string(c.shards) + ")"
                                   : std::string()) +
                     ", and no later one";
  text += "; complete: " + (complete.empty() ? std::string("no configuration") : std::to_string(complete_n) + " (" + complete + ")");
  if (!partial.empty()) text += "; partial: " + partial;
  if (!untouched.empty()) text += "; not reached: " + std::to_string(untouched_n) + " (" + untouched + ")";
  return text;
}

}  // namespace slotguard
