#include "plugin/provider_protocol.h"

#include <algorithm>
#include <cstring>

#include "registry/families.h"
#include "family/group_model.h"
#include "util/error_line.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the provider protocol is little-endian; this build writes native byte order"
#endif

namespace slotguard {
namespace {

constexpr size_t kRecordBytes = 4 + 4 + 4 + 4 + 8 * 3 + 8 * 7;
constexpr size_t kGroupBytes = 4 + 4 + 4 + 4 + 8 + 8 + 8 + 4 + 4 + 8 + 4 + 4 + 8 + 8;  // 80

/// Elements of each of a group's outputs: the plan's, else OutputLength.
int64_t LengthOf(const ProviderRecord& r, const ProviderGroupInput& g) {
  if (g.output_length >= 0) return g.output_length;
  return std::max<int64_t>(0, OutputLength(r.s->groups[g.group], r.s->batch));
}
/// HELLO's family flags.
constexpr uint32_t kFlagGate = 1;        // the family's gate reads another group's output
constexpr uint32_t kFlagRaggedRows = 2;  // the family's rows are ragged (CSR): row widths come with each group
constexpr uint32_t kFlagInputs = 32;     // the family has inputs: its last names are "name:request" / "name:token"
// A kind's bit is its kind model's protocol_flag (family/kind_model.h): 4 a
// state index per request, 8 block operations per request, 16 a gathered
// table per request (tests/family/kind_model_test.cc holds them to
// python/slotguard/protocol.py's FLAG_*).
/// A group's flags in RUN.
constexpr uint32_t kGroupGateInline = 1;  // the gate's mapping is at gate_offset
constexpr uint32_t kGroupRowWidths = 2;   // each row's width is at row_widths
constexpr uint32_t kGroupInputs = 4;      // the family's inputs follow its parameters' values (i64 arrays, in order)

size_t Align8(size_t n) { return (n + 7) & ~size_t{7}; }

void PutI32(WireBuffer* out, int32_t v) { out->PutU32(static_cast<uint32_t>(v)); }
void PutI64(WireBuffer* out, int64_t v) { out->PutU64(static_cast<uint64_t>(v)); }
void PutText(WireBuffer* out, const std::string& s) {
  out->PutU32(static_cast<uint32_t>(s.size()));
  out->Put(s.data(), s.size());
}
bool GetText(WireBuffer* in, std::string* s) {
  uint32_t n;
  if (!in->GetU32(&n) || n > (1u << 16)) return false;
  s->resize(n);
  if (!in->Get(s->data(), n)) return false;
  *s = PrintableText(*s);
  return true;
}

/// The parameters RUN carries for a family: its integer and bool
/// parameters, in its description's order (their indices there).
std::vector<size_t> WireParams(Family family) {
  std::vector<size_t> params;
  const std::vector<ParamDesc>& all = FamilyModel(family).params();
  for (size_t p = 0; p < all.size(); ++p)
    if (all[p].type != ParamType::kGroup) params.push_back(p);
  return params;
}

/// The blob: arrays at 8-byte aligned offsets.
class Blob {
 public:
  std::vector<uint8_t> bytes;
  template <class T>
  uint64_t Add(const T* data, size_t count) {
    const size_t at = Align8(bytes.size());
    bytes.resize(at + count * sizeof(T));
    if (count) std::memcpy(bytes.data() + at, data, count * sizeof(T));
    return at;
  }
  template <class T>
  uint64_t Add(const std::vector<T>& v) {
    return Add(v.data(), v.size());
  }
};

}  // namespace

void PutHello(const std::string& device, WireBuffer* out) {
  out->PutU32(static_cast<uint32_t>(ProviderMessage::kHello));
  out->PutU32(kProviderProtocolVersion);
  PutText(out, device);
  out->PutU32(static_cast<uint32_t>(AllFamilies().size()));
  for (const FamilyInfo& f : AllFamilies()) {
    const FamilyModel model(f.family);
    PutText(out, f.name);
    out->PutU32(static_cast<uint32_t>(f.family));
    out->PutU32(static_cast<uint32_t>(OutputCount(f.family)));
    for (const OutputDesc& o : model.mapping().outputs) PutText(out, o.name);
    const std::vector<size_t> params = WireParams(f.family);
    // The family's inputs ride in the names after its parameters, as
    // "name:request" or "name:token" (a parameter's name has no ':'), so a
    // provider that knows no inputs still reads HELLO as it did.
    const std::vector<InputDesc>& inputs = model.inputs();
    out->PutU32(static_cast<uint32_t>(params.size() + inputs.size()));
    for (size_t p : params) PutText(out, model.params()[p].name);
    for (const InputDesc& in : inputs) PutText(out, in.name + (in.per_token() ? ":token" : ":request"));
    out->PutU32((model.mapping().gate.present() ? kFlagGate : 0) | (model.ragged_rows() ? kFlagRaggedRows : 0) |
                (inputs.empty() ? 0 : kFlagInputs) | model.kind().protocol_flag());
  }
}

void PutBye(WireBuffer* out) { out->PutU32(static_cast<uint32_t>(ProviderMessage::kBye)); }

bool GetWelcome(WireBuffer* in, ProviderWelcome* welcome, std::string* problem) {
  uint32_t type, version, mode, count;
  if (!in->GetU32(&type)) {
    *problem = "an empty reply; expected WELCOME";
    return false;
  }
  if (type != static_cast<uint32_t>(ProviderMessage::kWelcome)) {
    *problem = "message type " + std::to_string(type) + "; expected WELCOME (101)";
    return false;
  }
  if (!in->GetU32(&version)) {
    *problem = "a truncated WELCOME";
    return false;
  }
  if (version != kProviderProtocolVersion) {
    *problem = "protocol version " + std::to_string(version) + "; expected " + std::to_string(kProviderProtocolVersion);
    return false;
  }
  uint32_t name_bytes;
  if (!in->GetU32(&name_bytes)) {
    *problem = "a truncated WELCOME";
    return false;
  }
  if (name_bytes > kMaxProviderNameBytes) {
    *problem = "a provider name of " + std::to_string(name_bytes) + " bytes; expected at most " +
               std::to_string(kMaxProviderNameBytes);
    return false;
  }
  welcome->name.resize(name_bytes);
  if (!in->Get(welcome->name.data(), name_bytes) || !in->GetU32(&mode) || !in->GetU32(&count)) {
    *problem = "a truncated WELCOME";
    return false;
  }
  welcome->name = PrintableText(welcome->name);
  if (mode > 1) {
    *problem = "mode " + std::to_string(mode) + "; expected 0 (one group per record) or 1 (whole scenarios)";
    return false;
  }
  welcome->whole_scenarios = mode == 1;
  if (count == 0 || count > AllFamilies().size()) {
    *problem = std::to_string(count) + " families; expected 1 to " + std::to_string(AllFamilies().size());
    return false;
  }
  welcome->families.clear();
  for (uint32_t i = 0; i < count; ++i) {
    std::string name;
    if (!GetText(in, &name)) {
      *problem = "a truncated WELCOME";
      return false;
    }
    Family family;
    std::string why;
    if (!FindFamily(name, &family, &why)) {
      *problem = "family: " + why;
      return false;
    }
    bool seen = false;
    for (Family f : welcome->families) seen |= f == family;
    if (!seen) welcome->families.push_back(family);
  }
  if (welcome->name.empty()) welcome->name = "unnamed";
  uint8_t extra;
  if (in->Get(&extra, 1)) {
    *problem = "bytes after the WELCOME's families";
    return false;
  }
  return true;
}

uint64_t MaxResultsBytes(const std::vector<ProviderRecord>& records) {
  uint64_t bytes = 16 + 8;
  for (const ProviderRecord& r : records) {
    bytes += 12 + kMaxReplyMessageBytes;
    for (const ProviderGroupInput& g : r.groups)
      bytes += 8 * static_cast<uint64_t>(OutputCount(r.s->groups[g.group])) * static_cast<uint64_t>(LengthOf(r, g));
  }
  return bytes;
}

void PutRun(uint32_t sequence, uint32_t flags, const std::vector<ProviderRecord>& records, WireBuffer* out) {
  Blob blob;
  size_t header = 4 + 4 + 4 + 4 + 8;
  for (const ProviderRecord& r : records) header += kRecordBytes + kGroupBytes * r.groups.size();
  out->bytes.clear();
  out->bytes.reserve(Align8(header));
  out->PutU32(static_cast<uint32_t>(ProviderMessage::kRun));
  out->PutU32(sequence);
  out->PutU32(static_cast<uint32_t>(records.size()));
  out->PutU32(flags);
  const size_t blob_size_at = out->bytes.size();
  out->PutU64(0);  // blob_bytes, filled in below
  for (const ProviderRecord& r : records) {
    const Batch& b = r.s->batch;
    out->PutU32(r.scenario);
    out->PutU32(static_cast<uint32_t>(r.groups.size()));
    PutI32(out, b.num_reqs());
    out->PutU32(b.table_rows == TableRows::kIdxMapping ? 1 : 0);
    PutI64(out, b.num_actual_tokens);
    PutI64(out, b.num_real_tokens());
    PutI64(out, b.num_tokens);
    out->PutU64(blob.Add(b.query_start_loc));
    out->PutU64(blob.Add(b.positions));
    out->PutU64(blob.Add(b.seq_lens));
    out->PutU64(blob.Add(*r.seq_lens_i32));
    out->PutU64(blob.Add(b.idx_mapping));
    out->PutU64(blob.Add(b.slot_mapping_in));
    out->PutU64(blob.Add(*r.request_of_token));
    for (const ProviderGroupInput& g : r.groups) {
      const Group& group = r.s->groups[g.group];
      out->PutU32(static_cast<uint32_t>(g.group));
      out->PutU32(static_cast<uint32_t>(group.family));
      PutI32(out, g.table_rows);
      PutI32(out, g.table_width);
      PutI64(out, g.table_row_stride);
      out->PutU64(blob.Add(g.table, static_cast<size_t>(g.table_entries)));
      out->PutU64(g.table_entries);
      const std::vector<size_t> params = WireParams(group.family);
      std::vector<int64_t> values(params.size());
      for (size_t i = 0; i < params.size(); ++i) values[i] = group.params[params[i]];
      // A ragged (CSR) family's groups carry their rows' widths, none too (a table of no rows).
      const GroupModel model(group);
      const bool widths = model.ragged_rows();
      const uint32_t param_count = static_cast<uint32_t>(values.size());
      // The family's inputs (each its batch array or its default) after the parameters' values.
      std::vector<std::vector<int64_t>> inputs;
      std::string unused;
      const bool has_inputs = !model.inputs().empty() && model.InputValues(b, &inputs, &unused);
      for (const std::vector<int64_t>& in : inputs) values.insert(values.end(), in.begin(), in.end());
      out->PutU32(param_count);
      out->PutU32((g.common ? kGroupGateInline : 0) | (widths ? kGroupRowWidths : 0) | (has_inputs ? kGroupInputs : 0));
      out->PutU64(blob.Add(values));
      PutI32(out, g.common_group);
      out->PutU32(static_cast<uint32_t>(LengthOf(r, g)));  // elements per output
      out->PutU64(g.common ? blob.Add(g.common, static_cast<size_t>(b.num_tokens)) : 0);
      out->PutU64(widths ? blob.Add(group.table.lengths) : 0);
    }
  }
  const uint64_t blob_bytes = Align8(blob.bytes.size());
  std::memcpy(out->bytes.data() + blob_size_at, &blob_bytes, sizeof(blob_bytes));
  out->bytes.resize(Align8(out->bytes.size()), 0);
  blob.bytes.resize(blob_bytes, 0);
  out->Put(blob.bytes.data(), blob.bytes.size());
}

bool GetResults(WireBuffer* in, uint32_t sequence, const std::vector<ProviderRecord>& records,
                std::vector<ProviderReply>* replies, std::string* problem, uint32_t* flags) {
  uint32_t type, answered, count, results_flags;
  if (!in->GetU32(&type) || type != static_cast<uint32_t>(ProviderMessage::kResults)) {
    *problem = "expected RESULTS (102)";
    return false;
  }
  if (!in->GetU32(&answered) || answered != sequence) {
    *problem = "the answer to RUN " + std::to_string(answered) + "; expected RUN " + std::to_string(sequence) +
               "'s (a reply that belongs to no request in flight)";
    return false;
  }
  if (!in->GetU32(&count) || count != records.size() || !in->GetU32(&results_flags)) {
    *problem = "RESULTS for " + std::to_string(count) + " records; expected " + std::to_string(records.size());
    return false;
  }
  if (flags) *flags = results_flags;
  replies->assign(records.size(), ProviderReply());
  std::vector<uint32_t> message_bytes(records.size());
  size_t at = 4 + 4 + 4 + 4;
  for (size_t i = 0; i < records.size(); ++i) {
    uint32_t status;
    ProviderReply& reply = (*replies)[i];
    if (!in->GetU32(&status) || !in->GetU32(&reply.group) || !in->GetU32(&message_bytes[i])) {
      *problem = "a truncated RESULTS";
      return false;
    }
    at += 12;
    if (status > 3) {
      *problem = "record " + std::to_string(i) + ": status " + std::to_string(status) + "; expected 0, 1, 2 or 3";
      return false;
    }
    reply.status = static_cast<ProviderStatus>(status);
    if (reply.status == ProviderStatus::kError) {
      bool in_record = false;
      for (const ProviderGroupInput& g : records[i].groups) in_record |= g.group == reply.group;
      if (!in_record) {
        *problem = "record " + std::to_string(i) + ": an error for group " + std::to_string(reply.group) +
                   ", which the record does not hold";
        return false;
      }
    }
  }
  for (size_t i = 0; i < records.size(); ++i) {
    std::string& m = (*replies)[i].message;
    if (message_bytes[i] > kMaxReplyMessageBytes) {
      *problem = "record " + std::to_string(i) + ": a " + std::to_string(message_bytes[i]) + "-byte message";
      return false;
    }
    m.resize(message_bytes[i]);
    if (!in->Get(m.data(), m.size())) {
      *problem = "a truncated RESULTS";
      return false;
    }
    at += m.size();
    m = PrintableText(m);
  }
  std::vector<uint8_t> pad(Align8(at) - at);
  if (!in->Get(pad.data(), pad.size())) {
    *problem = "a truncated RESULTS";
    return false;
  }
  for (size_t i = 0; i < records.size(); ++i) {
    if ((*replies)[i].status != ProviderStatus::kOk) continue;
    for (const ProviderGroupInput& g : records[i].groups) {
      // By the family's outputs and the plan's length (a slot per token, or
      // per request), never by a destination being set.
      const size_t n = static_cast<size_t>(LengthOf(records[i], g));
      const int count = OutputCount(records[i].s->groups[g.group]);
      for (int o = 0; o < count; ++o)
        if (!in->Get(g.outputs[o], n * sizeof(int64_t))) {
          *problem = "too few output bytes (record " + std::to_string(i) + ", group " + std::to_string(g.group) + ")";
          return false;
        }
    }
  }
  uint8_t extra;
  if (in->Get(&extra, 1)) {
    *problem = "more output bytes than the records have";
    return false;
  }
  return true;
}

}  // namespace slotguard
