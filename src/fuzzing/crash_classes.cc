#include "fuzzing/crash_classes.h"

#include <algorithm>

#include "registry/families.h"
#include "registry/invariants.h"

namespace slotguard {

std::string CrashFeatureText(int feature, bool has) {
  static const char* const kNames[kCrashFeatureCount][2] = {
      {"no requests", "requests"},
      {"at most one request", "several requests"},
      {"no tokens", "tokens"},
      {"no padding", "padding"},
      {"no tokens past the requests", "tokens past the requests"},
      {"no request without new tokens", "a request without new tokens"},
      {"no dummy request", "a dummy request"},
      {"no prefill", "a prefill"},
      {"no cached context", "a cached context"},
      {"one group", "several groups"},
      {"no empty table", "an empty table"},
      {"tables by request", "tables by idx_mapping"},
  };
  return kNames[feature][has ? 1 : 0];
}

uint32_t CrashFeaturesOf(const Scenario& s) {
  const Batch& b = s.batch;
  uint32_t f = 0;
  auto set = [&f](int feature, bool on) {
    if (on) f |= uint32_t{1} << feature;
  };
  const int32_t reqs = b.num_reqs();
  set(kFeatureRequests, reqs > 0);
  set(kFeatureSeveralRequests, reqs > 1);
  set(kFeatureTokens, b.num_tokens > 0);
  set(kFeaturePadding, b.num_tokens > b.num_actual_tokens);
  set(kFeatureTokensPastRequests, reqs >= 0 && b.num_actual_tokens > b.num_real_tokens());
  bool empty = false, prefill = false, cached = false, dummy = false;
  for (int32_t r = 0; r < reqs; ++r) {
    const int64_t n = b.query_start_loc[r + 1] - b.query_start_loc[r];
    empty |= n == 0;
    prefill |= n > 1;
    if (static_cast<size_t>(r) < b.seq_lens.size()) cached |= b.seq_lens[r] > n;
    if (static_cast<size_t>(r) < b.idx_mapping.size()) dummy |= b.is_dummy(r);
  }
  set(kFeatureEmptyRequest, empty);
  set(kFeatureDummyRequest, dummy);
  set(kFeaturePrefill, prefill);
  set(kFeatureCachedContext, cached);
  set(kFeatureSeveralGroups, s.groups.size() > 1);
  bool empty_table = false;
  for (const Group& g : s.groups) empty_table |= g.table.rows == 0 || g.table.width == 0;
  set(kFeatureEmptyTable, empty_table);
  set(kFeaturePersistentTable, b.table_rows == TableRows::kIdxMapping);
  return f;
}

bool CrashClasses::Class::Matches(const Scenario& s) const {
  if ((CrashFeaturesOf(s) & care) != value) return false;
  for (const std::string& family : families) {
    bool has = false;
    for (const Group& g : s.groups)
      has |= GetFamily(g.family).name == family &&
             std::find(variants.begin(), variants.end(), GetVariant(g.variant).name) != variants.end();
    if (!has) return false;
  }
  return true;
}

void CrashClasses::Describe(Class* c) const {
  std::string shape;
  for (const std::string& family : c->families) shape += (shape.empty() ? "a " : ", a ") + family + " group";
  // Features another one implies are not said: with no requests, none has
  // new tokens or a context; with no tokens, nothing is padding or past the requests.
  const auto without = [c](int f) { return (c->care >> f & 1) && !(c->value >> f & 1); };
  auto implied = [&](int f) {
    if (without(kFeatureRequests) && (f == kFeatureSeveralRequests || f == kFeatureEmptyRequest ||
                                      f == kFeatureDummyRequest || f == kFeaturePrefill || f == kFeatureCachedContext))
      return true;
    return without(kFeatureTokens) && (f == kFeaturePadding || f == kFeatureTokensPastRequests || f == kFeaturePrefill);
  };
  std::string features;
  for (int f = 0; f < kCrashFeatureCount; ++f)
    if ((c->care >> f & 1) && !implied(f))
      features += (features.empty() ? "" : ", ") + CrashFeatureText(f, c->value >> f & 1);
  c->report.shape = shape + (features.empty() ? "" : "; " + features);
}

void CrashClasses::Learn(const FindingSignature& signature, const std::vector<std::string>& fired, bool recurred,
                         const Scenario& original, const Scenario& minimized) {
  if (!recurred || std::find(fired.begin(), fired.end(), kInvariantNoFault) == fired.end()) return;
  const std::string id = signature.Id();
  auto it = std::find_if(classes_.begin(), classes_.end(), [&](const Class& c) { return c.report.signature == id; });
  if (it == classes_.end()) {
    Class c;
    c.report.signature = id;
    c.report.text = signature.Text();
    c.families = signature.families;
    c.variants = signature.variants;
    c.care = (uint32_t{1} << kCrashFeatureCount) - 1;  // the first crash: every feature as it has it
    c.value = CrashFeaturesOf(minimized);
    classes_.push_back(std::move(c));
    it = std::prev(classes_.end());
  }
  Class& c = *it;
  for (const Scenario* s : {&original, &minimized}) c.Generalize(CrashFeaturesOf(*s));
  // Recurred: a second finding shrunk to the same signature.
  if (++c.shrunk >= 2 && !c.report.retired) c.report.active = true;
  Describe(&c);
}

void CrashClasses::Class::Generalize(uint32_t features) {
  // Find-S: a feature two crashes of the class disagree on says nothing of it.
  care &= ~(features ^ value);
  value &= care;
  ++report.crashes;
}

void CrashClasses::Observe(const FindingSignature& key, uint32_t features) {
  const std::string id = key.Id();  // the shape is not in the id: the key's is its signature's
  for (Class& c : classes_) {
    if (c.report.signature != id || c.report.retired) continue;
    c.Generalize(features);
    c.report.active = true;
    Describe(&c);
  }
}

int CrashClasses::Classify(const Scenario& s, double now, bool* sample) {
  *sample = false;
  for (size_t i = 0; i < classes_.size(); ++i) {
    const Class& c = classes_[i];
    if (!c.report.active || c.report.retired || !c.Matches(s)) continue;
    std::lock_guard<std::mutex> lock(sample_mu_);
    Class& mut = classes_[i];
    if (!mut.confirmed) {  // probation: one sample, the rest run until it is judged
      if (mut.probing) return -1;
      mut.probing = true;
      mut.next_sample = now + sample_seconds_;
      *sample = true;
      return static_cast<int>(i);
    }
    if (now >= mut.next_sample) {
      mut.next_sample = now + sample_seconds_;
      *sample = true;
    }
    return static_cast<int>(i);
  }
  return -1;
}

void CrashClasses::Sampled(int cls, bool crashed) {
  Class& c = classes_[static_cast<size_t>(cls)];
  ++c.report.sampled;
  c.probing = false;
  if (crashed) c.confirmed = true;
  if (!crashed) {
    c.report.retired = true;
    c.report.active = false;
  }
}

bool CrashClasses::Covers(const FindingSignature& key) const {
  const std::string id = key.Id();
  for (const Class& c : classes_)
    if (c.report.signature == id && c.report.active) return true;
  return false;
}

std::vector<CrashClassReport> CrashClasses::Report() const {
  std::vector<CrashClassReport> out;
  for (const Class& c : classes_) out.push_back(c.report);
  return out;
}

}  // namespace slotguard
