// state_index: one state index per request (docs/state-and-block-ops.md):
// what a metadata builder hands the state kernels (Mamba, SSM, GDN, linear
// attention). Judged by pad_marker, skip_agrees, live_state, unique_state
// and state_writes (invariants.def).
#include <set>

#include "family/kind_per_request.h"
#include "family/knob_reader.h"

namespace slotguard {
namespace {

using nlohmann::json;

/// "consumers": [{name, skip, writes_sink, note}]: the kernels that read the index.
bool ReadConsumers(KnobReader& reader, const json& v, const std::string& ptr, std::vector<ConsumerDesc>* out) {
  if (!reader.Array(v, ptr, "an array of consumers {name, skip, note}")) return false;
  if (v.empty()) return reader.Fail(ptr, "no consumer", "at least one kernel that reads the index");
  out->clear();
  std::set<std::string> names;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string c = JsonChild(ptr, i);
    ConsumerDesc consumer;
    const json* f;
    if (!reader.Object(v[i], c, "a consumer {name, skip, writes_sink, note}") ||
        !reader.CheckKeys(v[i], c, {"name", "skip", "writes_sink", "note"}) ||
        !reader.Require(v[i], c, "name", "the consumer kernel's name", &f) ||
        !reader.String(*f, JsonChild(c, "name"), "a consumer name", &consumer.name) ||
        !reader.Require(v[i], c, "skip", "the consumer's skip test, a formula over index", &f) ||
        !reader.Formula(*f, JsonChild(c, "skip"), KnobScope::kIndex, &consumer.skip))
      return false;
    if (!IsIdentifier(consumer.name))
      return reader.Fail(JsonChild(c, "name"), "bad consumer name " + QuoteName(consumer.name),
                         "lower-case letters, digits and '_', starting with a letter");
    if (!names.insert(consumer.name).second)
      return reader.Fail(JsonChild(c, "name"), "consumer " + QuoteName(consumer.name) + " given twice",
                         "one entry per name");
    if ((f = reader.Find(v[i], "note")) && !reader.String(*f, JsonChild(c, "note"), "a note", &consumer.note))
      return false;
    if ((f = reader.Find(v[i], "writes_sink")) && !reader.Bool(*f, JsonChild(c, "writes_sink"), &consumer.writes_sink))
      return false;
    out->push_back(std::move(consumer));
  }
  return true;
}

class StateIndex final : public PerRequestKind {
 public:
  FamilyKind kind() const override { return FamilyKind::kStateIndex; }
  const char* name() const override { return "state_index"; }
  const std::vector<std::string>& knobs() const override {
    static const std::vector<std::string> knobs = {"let",        "dummy",     "column",   "range", "marker",
                                                   "null_index", "consumers", "null_page",
                                                   "null_page_read"};
    return knobs;
  }
  bool ReadKnobs(KnobReader& reader, const json& obj, const std::string& ptr, bool variant, MappingDesc*,
                 RequestDesc* r) const override {
    if (!reader.RequestKnobs(obj, ptr, variant, KnobScope::kRequest, r)) return false;
    const json* v;
    if ((v = reader.Find(obj, "column"))) {
      if (!reader.Formula(*v, JsonChild(ptr, "column"), KnobScope::kRequest, &r->column)) return false;
    } else if (!variant) {
      return reader.Missing(ptr, "column", "the table column that holds the request's state index");
    }
    if ((v = reader.Find(obj, "marker"))) {
      if (!reader.Formula(*v, JsonChild(ptr, "marker"), KnobScope::kParams, &r->marker)) return false;
    } else if (!variant) {
      return reader.Missing(ptr, "marker", "the index the producer writes for a padded or dummy row (0, -1, ...)");
    }
    if ((v = reader.Find(obj, "consumers"))) {
      if (!ReadConsumers(reader, *v, JsonChild(ptr, "consumers"), &r->consumers)) return false;
    } else if (!variant) {
      return reader.Missing(ptr, "consumers", "the kernels that read the index, each with its skip test");
    }
    return true;
  }

  bool RequestElements(const FamilyDesc&, const RequestDesc&, const std::vector<int64_t>&, int64_t,
                          int64_t* elements, std::string*) const override {
    *elements = 1;
    return true;
  }
  const char* length_text() const override { return "the number of requests (a state index per request)"; }
  std::string Summary(const FamilyDesc& d) const override {
    const RequestDesc& r = d.request;
    std::string consumers;
    for (const ConsumerDesc& c : r.consumers)
      consumers += (consumers.empty() ? "" : ", ") + c.name + " skips " + c.skip.text();
    return "a state index per request: column " + r.column.text() + ", marker " + r.marker.text() + "; " + consumers;
  }
  std::string MarkerText(bool owns_none, int64_t expected) const override {
    return std::string(owns_none ? "a row that owns no state" : "a request without a state index here") +
           " must hold the producer's marker " + std::to_string(expected);
  }
  bool ReadsSourceColumns(const FamilyDesc&) const override { return false; }

  int32_t abi_kind() const override { return 1; }        // SG_KIND_STATE_INDEX
  uint32_t protocol_flag() const override { return 4; }  // FLAG_STATE_INDEX
};

}  // namespace

const KindModel& StateIndexModel() {
  static const StateIndex model;
  return model;
}

}  // namespace slotguard
