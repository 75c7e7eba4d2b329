#include "backend/worker_protocol.h"

#include "family/group_model.h"
#include "registry/families.h"

namespace slotguard {

void PutScenario(const Scenario& s, WireBuffer* out) {
  out->PutString(s.name);
  out->PutU32(static_cast<uint32_t>(s.num_blocks));
  out->PutU8(static_cast<uint8_t>(s.table_layout));
  const Batch& b = s.batch;
  out->PutU8(static_cast<uint8_t>(b.table_rows));
  out->PutU8(b.dummy_run ? 1 : 0);
  out->PutVector(b.query_start_loc);
  out->PutVector(b.seq_lens);
  out->PutVector(b.positions);
  out->PutU64(static_cast<uint64_t>(b.num_actual_tokens));
  out->PutU64(static_cast<uint64_t>(b.num_tokens));
  out->PutVector(b.idx_mapping);
  out->PutVector(b.slot_mapping_in);
  out->PutU32(static_cast<uint32_t>(b.inputs.size()));
  for (const auto& [name, input] : b.inputs) {
    out->PutString(name);
    out->PutU8(input.per_token ? 1 : 0);
    out->PutVector(input.values);
  }
  out->PutU32(static_cast<uint32_t>(s.groups.size()));
  for (const Group& g : s.groups) {
    out->PutString(g.name);
    const int32_t ints[] = {static_cast<int32_t>(g.family), static_cast<int32_t>(g.variant), g.table.rows,
                            g.table.width};
    out->Put(ints, sizeof(ints));
    // The family's parameters, in its description's order.
    out->PutVector(g.params);
    out->PutU32(static_cast<uint32_t>(g.links.size()));
    for (const std::string& link : g.links) out->PutString(link);
    out->PutVector(g.table.entries);
    out->PutVector(g.table.lengths);
  }
}

bool GetScenario(WireBuffer* in, Scenario* s) {
  uint32_t num_blocks, groups;
  uint64_t n_act, n;
  uint8_t layout, rows, dummy_run;
  Batch& b = s->batch;
  if (!in->GetString(&s->name) || !in->GetU32(&num_blocks) || !in->GetU8(&layout) || layout > 2 ||
      !in->GetU8(&rows) || rows > 1 || !in->GetU8(&dummy_run) || dummy_run > 1 || !in->GetVector(&b.query_start_loc) ||
      !in->GetVector(&b.seq_lens) || !in->GetVector(&b.positions) || !in->GetU64(&n_act) || !in->GetU64(&n) ||
      !in->GetVector(&b.idx_mapping) || !in->GetVector(&b.slot_mapping_in))
    return false;
  uint32_t inputs;
  if (!in->GetU32(&inputs) || inputs > (1u << 16)) return false;
  b.inputs.clear();
  for (uint32_t k = 0; k < inputs; ++k) {
    std::string name;
    uint8_t per_token;
    BatchInput input;
    if (!in->GetString(&name) || !in->GetU8(&per_token) || per_token > 1 || !in->GetVector(&input.values)) return false;
    input.per_token = per_token == 1;
    b.inputs[name] = std::move(input);
  }
  if (!in->GetU32(&groups) || groups > (1u << 16) || b.query_start_loc.empty()) return false;
  s->num_blocks = static_cast<int32_t>(num_blocks);
  s->table_layout = static_cast<TableLayoutKind>(layout);
  b.table_rows = static_cast<TableRows>(rows);
  b.dummy_run = dummy_run == 1;
  b.num_actual_tokens = static_cast<int64_t>(n_act);
  b.num_tokens = static_cast<int64_t>(n);
  s->groups.assign(groups, Group());
  for (Group& g : s->groups) {
    int32_t ints[4];
    // Ids as the registry has them: the worker registered the same family files.
    if (!in->GetString(&g.name) || !in->Get(ints, sizeof(ints)) || ints[0] < 0 ||
        ints[0] >= static_cast<int32_t>(AllFamilies().size()) || ints[1] < 0 ||
        ints[1] >= static_cast<int32_t>(AllVariants().size()))
      return false;
    g.family = static_cast<Family>(ints[0]);
    g.variant = static_cast<Variant>(ints[1]);
    g.table.rows = ints[2];
    g.table.width = ints[3];
    uint32_t links;
    if (!in->GetVector(&g.params) || g.params.size() != FamilyModel(g.family).params().size() || !in->GetU32(&links) ||
        links != g.params.size())
      return false;
    g.links.resize(links);
    for (std::string& link : g.links)
      if (!in->GetString(&link)) return false;
    if (!in->GetVector(&g.table.entries) || !in->GetVector(&g.table.lengths)) return false;
  }
  return true;
}

void PutGroupOutputs(const std::vector<GroupOutputs>& groups, WireBuffer* out) {
  out->PutU32(static_cast<uint32_t>(groups.size()));
  for (const GroupOutputs& g : groups) {
    out->PutU32(static_cast<uint32_t>(g.engine.size()));
    for (const auto& v : g.engine) out->PutVector(v);
    out->PutU32(static_cast<uint32_t>(g.flat.size()));
    for (const auto& v : g.flat) out->PutVector(v);
    out->PutVector(g.read_past_row);
    out->PutString(g.row_bounds_evidence);
    out->PutVector(g.cache);
    out->PutU32(static_cast<uint32_t>(g.head_bytes));
    out->PutString(g.fault);
    out->PutU8(g.culprit ? 1 : 0);
    out->PutString(g.skipped);
  }
}

bool GetGroupOutputs(WireBuffer* in, std::vector<GroupOutputs>* groups) {
  uint32_t n;
  if (!in->GetU32(&n) || n > (1u << 20)) return false;
  groups->assign(n, GroupOutputs());
  for (GroupOutputs& g : *groups) {
    uint32_t count, head_bytes;
    uint8_t culprit;
    if (!in->GetU32(&count) || count > 2) return false;
    g.engine.resize(count);
    for (auto& v : g.engine)
      if (!in->GetVector(&v)) return false;
    if (!in->GetU32(&count) || count > 2) return false;
    g.flat.resize(count);
    for (auto& v : g.flat)
      if (!in->GetVector(&v)) return false;
    if (!in->GetVector(&g.read_past_row) || !in->GetString(&g.row_bounds_evidence) || !in->GetVector(&g.cache) ||
        !in->GetU32(&head_bytes) || !in->GetString(&g.fault) || !in->GetU8(&culprit) || !in->GetString(&g.skipped))
      return false;
    g.culprit = culprit != 0;
    g.head_bytes = static_cast<int32_t>(head_bytes);
  }
  return true;
}

}  // namespace slotguard
