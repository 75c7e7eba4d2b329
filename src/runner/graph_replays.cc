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

GraphSequence GraphSequenceOf(const std::vector<GraphReplay>& replays, ZeroNull zero_null) {
  using Kind = GraphStep::Kind;
  std::vector<Scenario> batches;
  for (const GraphReplay& replay : replays) batches.push_back(replay.scenario);
  // Without a zeroing the warm-up pass (the dummy batch, eagerly) would only
  // run the dummy replay's writes earlier: the capture, then the replays.
  if (zero_null == ZeroNull::kNever) return GraphSequence::Replays(std::move(batches));
  GraphSequence sequence;
  sequence.batches = std::move(batches);
  const uint32_t warmup = replays.size() > 1 ? 1 : 0;  // the dummy batch
  if (zero_null == ZeroNull::kBeforeCapture) sequence.steps.push_back({Kind::kZeroNull, 0});
  sequence.steps.push_back({Kind::kEager, warmup});
  sequence.steps.push_back({Kind::kCapture, 0});
  if (zero_null == ZeroNull::kAfterCapture) sequence.steps.push_back({Kind::kZeroNull, 0});
  for (size_t k = 0; k < replays.size(); ++k) sequence.steps.push_back({Kind::kReplay, static_cast<uint32_t>(k)});
  return sequence;
}

namespace {

constexpr char kWarmupWhat[] = "after the eager warm-up pass on a dummy batch (before the capture)";

// A step as null_read names it: what runs at it, or what last wrote a
// block-0 slot there; null_bytes's "after ..." names without the "after ".
std::string StepName(const GraphSequence& sequence, const std::vector<GraphReplay>& replays, size_t k) {
  const GraphStep& step = sequence.steps[k];
  std::string what;
  switch (step.kind) {
    case GraphStep::Kind::kEager: what = kWarmupWhat; break;
    case GraphStep::Kind::kCapture: return "the capture";
    case GraphStep::Kind::kZeroNull: return "the zeroing of block 0";
    case GraphStep::Kind::kReplay:
      if (step.batch == 0) return "the graph replay of the real batch";
      what = replays[step.batch].what;  // "after the graph replay of ..."
      break;
  }
  return what.rfind("after ", 0) == 0 ? what.substr(6) : what;
}

// For null_read: [steps][groups][block-0 slots], the step that last changed
// each block-0 slot of a group's pool before step k ("": none since the
// pool was made, zero). Only for the groups that read block 0.
std::vector<std::vector<std::vector<std::string>>> NullWriters(
    const GraphSequence& sequence, const std::vector<GraphReplay>& replays,
    const std::vector<std::vector<GroupOutputs>>& outputs) {
  const std::vector<Group>& groups = sequence.batches[0].groups;
  std::vector<std::vector<std::string>> last(groups.size());
  std::vector<std::vector<std::vector<std::string>>> before(outputs.size());
  for (size_t k = 0; k < outputs.size(); ++k) {
    before[k] = last;
    for (size_t i = 0; i < groups.size() && i < outputs[k].size(); ++i) {
      if (MappingOf(groups[i]).null_page_read != NullPageRead::kZero) continue;
      const GroupOutputs& out = outputs[k][i];
      if (out.cache.empty() || out.head_bytes <= 0) continue;
      const GroupShape shape = ShapeOf(groups[i]);
      const size_t slots = static_cast<size_t>(shape.page * shape.null_entries);
      last[i].resize(slots);
      const std::vector<uint8_t>* prev = k > 0 && !outputs[k - 1][i].cache.empty() ? &outputs[k - 1][i].cache : nullptr;
      for (size_t slot = 0; slot < slots; ++slot)
        for (size_t b = slot * out.head_bytes; b < (slot + 1) * out.head_bytes && b < out.cache.size(); ++b)
          if (out.cache[b] != (prev && b < prev->size() ? (*prev)[b] : 0)) {
            last[i][slot] = StepName(sequence, replays, k);
            break;
          }
    }
  }
  return before;
}

// A group forced to a described variant (an engine's behaviour the
// scenario pins) is judged by the scenario's own batch only: the protocol's
// extra batches are another experiment, which that variant's curated
// scenarios state themselves (a dummy run's writes: engine-v2-dummy-run).
bool RealBatchOnly(const Group& group) {
  const VariantInfo& variant = GetVariant(group.variant);
  return variant.mapping && !variant.kernel && variant.name != std::string("fixed");
}

// null_bytes of one group after a step other than the real replay: the
// dummies' tokens map nowhere real, so the question is only whether block
// 0 stayed zero, judged against what the step before left (`before`); and
// null_read on what the step found there (`step`, `null_writers`).
void CheckNullBlockAfter(const Scenario& s, size_t i, const Interpretation& reference, const GroupOutputs& out,
                         const std::vector<uint8_t>* before, const std::string& what, const std::string& step,
                         const std::vector<std::string>* null_writers, FindingSink* sink) {
  GroupRun g;
  g.scenario = &s;
  g.group = &s.groups[i];
  g.request_of_token = &reference.owner;
  g.read_past_row = &out.read_past_row;
  SetAddressing(&g);
  const std::vector<std::string> names = OutputNames(s.groups[i]);
  for (size_t k = 0; k < names.size() && k < out.engine.size() && k < reference.slots.size(); ++k) {
    OutputRun o;
    o.name = names[k];
    o.kernel = &out.engine[k];
    o.reference = &reference.slots[k];
    o.facts = k < reference.facts.size() ? &reference.facts[k] : nullptr;
    if (KindModelOf(s.groups[i]).writes_cache()) o.writer = &WriterMappingOf(s.groups[i]).outputs[k].writer;
    g.outputs.push_back(o);
  }
  MemoryRun memory;
  memory.cache = &out.cache;
  memory.head_bytes = out.head_bytes;
  memory.group_index = static_cast<int32_t>(i);
  memory.when = what;
  memory.before = before && !before->empty() ? before : nullptr;
  memory.judge_rewrites = false;  // a dummy batch's block-0 write is reported at the step that made it first
  CheckNullBytes(g, memory, sink);
  memory.step = step;
  memory.null_writers = null_writers;
  CheckNullRead(g, memory, sink);
}

}  // namespace

bool RunGraphReplayScenario(const Scenario& scenario, Backend& backend, size_t keep_per_invariant,
                            ScenarioRun* run, std::string* err) {
  if (backend.writers().head_bytes <= 0) {
    *err = "the CUDA-graph protocol needs the cache writers on";
    return false;
  }
  const std::vector<GraphReplay> replays = GraphReplays(PadToCaptureSize(scenario));
  const GraphSequence sequence = GraphSequenceOf(replays, scenario.graph.zero_null);
  std::vector<std::vector<GroupOutputs>> outputs;
  if (!backend.RunReplays(sequence, &outputs, err)) return false;
  const size_t steps = sequence.steps.size();
  size_t real = 0;  // the step that replays the real batch
  while (real < steps && !(sequence.steps[real].kind == GraphStep::Kind::kReplay && sequence.steps[real].batch == 0))
    ++real;
  // A step that faulted (or a batch the implementation skips) ends the
  // sequence: fewer outputs than steps, the last one saying so, which
  // CheckKernelOutputs reports.
  const bool ended = !outputs.empty() && !outputs.back().empty() &&
                     (!outputs.back()[0].fault.empty() || !outputs.back()[0].skipped.empty());
  if (outputs.empty() || outputs.size() > steps || (outputs.size() <= real && !ended)) {
    *err = backend.name() + std::string(" backend returned ") + std::to_string(outputs.size()) +
           " graph steps; expected " + std::to_string(steps);
    return false;
  }
  const bool reached = real < outputs.size();
  run->kernel = reached ? outputs[real] : outputs.back();
  run->cache_before.clear();
  // Each pool is judged against what the step before left (the initial
  // state but after a warm-up pass), whose block-0 writes were judged there.
  if (reached && real > 0)
    for (const GroupOutputs& out : outputs[real - 1]) run->cache_before.push_back(out.cache);
  const std::vector<std::vector<std::vector<std::string>>> null_writers = NullWriters(sequence, replays, outputs);
  run->step = reached ? StepName(sequence, replays, real) : "";
  run->null_writers = reached ? null_writers[real] : std::vector<std::vector<std::string>>();
  CheckKernelOutputs(replays[0].scenario, keep_per_invariant, run);
  if (!reached || !run->skipped.empty() || !run->reference_error.empty()) return true;
  // Every other step that runs the groups: null_bytes against what the step
  // before it left (a zeroing included).
  for (size_t k = 0; k < outputs.size(); ++k) {
    const GraphStep& step = sequence.steps[k];
    if (k == real || (step.kind != GraphStep::Kind::kEager && step.kind != GraphStep::Kind::kReplay)) continue;
    const Scenario& s = sequence.batches[step.batch];
    const std::string what = step.kind == GraphStep::Kind::kEager ? kWarmupWhat : replays[step.batch].what;
    std::vector<Interpretation> reference;
    if (!ScenarioReference(s, /*facts=*/true, &reference, &run->reference_error)) return true;
    for (size_t i = 0; i < s.groups.size(); ++i) {
      if (RealBatchOnly(s.groups[i])) continue;
      const GroupOutputs& out = outputs[k][i];
      if (!out.fault.empty()) {
        run->findings[i].Add(NoFaultFinding(s.groups[i].name, out.fault + ", " + what));
        break;
      }
      if (out.cache.empty()) continue;  // no pool: over max_cache_bytes
      CheckNullBlockAfter(s, i, reference[i], out, k > 0 ? &outputs[k - 1][i].cache : nullptr, what,
                          StepName(sequence, replays, k), i < null_writers[k].size() ? &null_writers[k][i] : nullptr,
                          &run->findings[i]);
    }
  }
  return true;
}

}  // namespace slotguard
