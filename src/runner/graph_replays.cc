#include "runner/graph_replays.h"

#include <algorithm>

#include "invariants/invariants.h"
#include "reference/reference.h"
#include "runner/scenario_run.h"
#include "family/group_model.h"

namespace slotguard {

const std::vector<int64_t>& CaptureSizes() {
  static const std::vector<int64_t> sizes = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
  return sizes;
}

int64_t CaptureSize(int64_t num_tokens) {
  for (int64_t size : CaptureSizes())
    if (size >= num_tokens) return size;
  return num_tokens;
}

Scenario PadToCaptureSize(const Scenario& scenario) {
  Scenario padded = scenario;
  Batch& b = padded.batch;
  const int64_t size = CaptureSize(b.num_tokens);
  b.num_tokens = size;
  b.positions.resize(size, 0);
  b.slot_mapping_in.resize(size, kPadSlot);
  // A per-token input's padding tokens hold its default there (a family's
  // that reads it; a token of no request).
  for (auto& [name, input] : b.inputs) {
    if (!input.per_token) continue;
    const size_t given = input.values.size();
    input.values.resize(static_cast<size_t>(size), 0);
    for (const Group& group : padded.groups) {
      const GroupModel model(group);
      const int32_t k = model.FindInput(name);
      if (k < 0) continue;
      Batch without = b;
      without.inputs.erase(name);
      std::vector<std::vector<int64_t>> defaults;
      std::string unused;
      if (model.InputValues(without, &defaults, &unused))
        for (size_t t = given; t < input.values.size(); ++t) input.values[t] = defaults[static_cast<size_t>(k)][t];
      break;
    }
  }
  // The tokens added are padding: each output's golden holds its family's
  // tail value there (PAD; slot_mapping_in, PAD here; or a sink's null slot 0).
  for (const Group& group : padded.groups) {
    if (KindModelOf(group).per_request()) continue;  // a state index (or operations) per request: no more requests
    const int64_t tail = MappingOf(group).tail_value == TailValue::kNullSlot ? 0 : kPadSlot;
    for (const std::string& name : OutputNames(group)) {
      auto golden = padded.expect.slot_mapping.find(name);
      if (golden != padded.expect.slot_mapping.end()) golden->second.resize(size, tail);
    }
  }
  return padded;
}

std::vector<GraphReplay> GraphReplays(const Scenario& padded) {
  std::vector<GraphReplay> replays;
  replays.push_back({"", padded});

  Scenario dummy = padded;
  std::fill(dummy.batch.idx_mapping.begin(), dummy.batch.idx_mapping.end(), -1);
  for (Group& group : dummy.groups) std::fill(group.table.entries.begin(), group.table.entries.end(), 0);
  std::fill(dummy.batch.slot_mapping_in.begin(), dummy.batch.slot_mapping_in.end(), kPadSlot);
  replays.push_back({"after the graph replay of a dummy batch (all-zero tables, every request a dummy)", dummy});

  Scenario idle = dummy;
  std::fill(idle.batch.query_start_loc.begin(), idle.batch.query_start_loc.end(), 0);
  std::fill(idle.batch.positions.begin(), idle.batch.positions.end(), 0);
  std::fill(idle.batch.seq_lens.begin(), idle.batch.seq_lens.end(), 0);
  replays.push_back({"after the graph replay of an idle DP rank's batch (no tokens, all-zero tables)", idle});
  return replays;
}

bool RunGraphReplayScenario(const Scenario& scenario, Backend& backend, size_t keep_per_invariant,
                            ScenarioRun* run, std::string* err) {
  if (backend.writers().head_bytes <= 0) {
    *err = "the CUDA-graph protocol needs the cache writers on";
    return false;
  }
  const std::vector<GraphReplay> replays = GraphReplays(PadToCaptureSize(scenario));
  std::vector<Scenario> scenarios;
  for (const GraphReplay& replay : replays) scenarios.push_back(replay.scenario);
  std::vector<std::vector<GroupOutputs>> outputs;
  if (!backend.RunReplays(scenarios, &outputs, err)) return false;
  // A replay that faulted ends the sequence: fewer outputs than replays (the
  // real one faulting leaves only its own, which CheckKernelOutputs reports).
  if (outputs.empty() || outputs.size() > replays.size()) {
    *err = backend.name() + std::string(" backend returned ") + std::to_string(outputs.size()) +
           " replays; expected " + std::to_string(replays.size());
    return false;
  }
  run->kernel = outputs[0];
  CheckKernelOutputs(replays[0].scenario, keep_per_invariant, run);
  for (size_t k = 1; k < outputs.size(); ++k) {
    const Scenario& s = replays[k].scenario;
    std::vector<Interpretation> reference;
    if (!ScenarioReference(s, /*facts=*/true, &reference, &run->reference_error)) return true;
    for (size_t i = 0; i < s.groups.size(); ++i) {
      // A group forced to a described variant (an engine's behaviour the
      // scenario pins) is judged by the scenario's own batch: the protocol's
      // extra batches are another experiment, which that variant's curated
      // scenarios state themselves (a dummy run's writes: engine-v2-dummy-run).
      const VariantInfo& variant = GetVariant(s.groups[i].variant);
      if (variant.mapping && !variant.kernel && variant.name != std::string("fixed")) continue;
      const GroupOutputs& out = outputs[k][i];
      if (!out.fault.empty()) {
        run->findings[i].Add(NoFaultFinding(s.groups[i].name, out.fault + ", " + replays[k].what));
        break;
      }
      if (out.cache.empty()) continue;  // no pool: over max_cache_bytes
      // Only null_bytes: the dummies' tokens map nowhere real, so the
      // question is only whether block 0 stayed zero.
      GroupRun g;
      g.scenario = &s;
      g.group = &s.groups[i];
      g.request_of_token = &reference[i].owner;
      g.read_past_row = &out.read_past_row;
      SetAddressing(&g);
      const std::vector<std::string> names = OutputNames(s.groups[i]);
      for (size_t k = 0; k < names.size() && k < out.engine.size() && k < reference[i].slots.size(); ++k) {
        OutputRun o;
        o.name = names[k];
        o.kernel = &out.engine[k];
        o.reference = &reference[i].slots[k];
        o.facts = k < reference[i].facts.size() ? &reference[i].facts[k] : nullptr;
        if (KindModelOf(s.groups[i]).writes_cache()) o.writer = &WriterMappingOf(s.groups[i]).outputs[k].writer;
        g.outputs.push_back(o);
      }
      // The block-0 slots this replay dirtied: a slot already dirty before
      // it was reported then. (Dirty or not is race-free; which token's
      // bytes a slot holds is not, when several tokens write it.)
      std::vector<uint8_t> changed = out.cache;
      const std::vector<uint8_t>& before = outputs[k - 1][i].cache;
      const size_t slot_bytes = static_cast<size_t>(out.head_bytes);
      const size_t null_bytes = std::min(changed.size(), static_cast<size_t>(g.page()) * slot_bytes);
      for (size_t at = 0; at + slot_bytes <= null_bytes && at + slot_bytes <= before.size(); at += slot_bytes)
        if (std::any_of(before.begin() + at, before.begin() + at + slot_bytes, [](uint8_t b) { return b != 0; }))
          std::fill_n(changed.begin() + at, slot_bytes, uint8_t{0});
      MemoryRun memory;
      memory.cache = &changed;
      memory.head_bytes = out.head_bytes;
      memory.group_index = static_cast<int32_t>(i);
      memory.when = replays[k].what;
      CheckNullBytes(g, memory, &run->findings[i]);
    }
  }
  return true;
}

}  // namespace slotguard
