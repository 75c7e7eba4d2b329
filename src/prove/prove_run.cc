#include "prove/prove_run.h"

#include <algorithm>

#include "registry/families.h"
#include "util/did_you_mean.h"

namespace slotguard {
namespace {

/// The enumeration as a campaign's scenario source.
class EnumerationSource : public ScenarioSource {
 public:
  EnumerationSource(const Enumeration& e, std::string command) : e_(e), command_(std::move(command)) {}
  Scenario At(int64_t index) const override { return e_.At(index); }
  std::string FoundBy(int64_t index) const override { return command_ + " (" + e_.Describe(index) + ")"; }

 private:
  const Enumeration& e_;
  std::string command_;
};

template <class T>
std::string Numbers(const std::vector<T>& v) {
  if (v.size() >= 3 && v.back() - v.front() == static_cast<T>(v.size() - 1))
    return std::to_string(v.front()) + ".." + std::to_string(v.back());
  std::string text;
  for (T x : v) text += (text.empty() ? "" : ", ") + std::to_string(x);
  return v.size() == 1 ? text : "{" + text + "}";
}

template <class E>
std::string Names(const std::vector<E>& v, const std::vector<std::string>& names) {
  std::string text;
  for (E x : v) text += (text.empty() ? "" : "/") + names[static_cast<size_t>(x)];
  return text;
}

}  // namespace

int64_t ShardShare(int64_t first, int64_t end, int64_t shard, int64_t shards) {
  // Indices i in [first, end) with i % shards == shard.
  auto below = [&](int64_t n) { return n <= shard ? 0 : (n - shard + shards - 1) / shards; };
  return below(end) - below(first);
}

namespace {

std::string PartWords(const ScopePart& s, const EnumerationOptions& o) {
  std::vector<std::string> layouts;
  for (TableLayoutKind l : o.layout ? std::vector<TableLayoutKind>{*o.layout} : s.layouts)
    layouts.push_back(TableLayoutName(l));
  std::string offsets;
  for (int64_t x : s.boundary_offsets) offsets += (offsets.empty() ? "" : ", ") + std::string(x >= 0 ? "+" : "") + std::to_string(x);
  return std::string(o.inconsistent ? "every batch (consistent or not)" : "every consistent batch") + " of " +
         Numbers(s.requests) + " requests of " + Numbers(s.tokens) + " tokens, " + Numbers(s.padding) +
         " padding tokens, contexts " + Numbers(s.contexts) +
         (offsets.empty() ? std::string() : " and each formula boundary " + offsets) + ", tables " +
         Names(s.tables, TableModeNames()) +
         (std::count(s.tables.begin(), s.tables.end(), TableMode::kPerRequest) == static_cast<long>(s.tables.size())
              ? std::string()
              : " (stale rows " + Names(s.stale_rows, StaleRowNames()) + ")") +
         " of width " + Numbers(s.widths) + " where a range rule pads past the row, num_actual_tokens " +
         Names(s.num_actual, NumActualNames()) + ", slot_mapping_in " + Names(s.slot_mapping_in, SlotMappingInNames()) +
         ", null entries " + Names(s.null_entries, NullEntryNames()) + ", block ids " +
         Names(s.block_ids, BlockIdsNames()) + ", layouts " + JoinNames(layouts) + ", parameters " +
         Names(s.params, ParamClassNames()) + (s.tiles.empty() ? std::string() : " (tiles " + Numbers(s.tiles) + ")") +
         ", links " + Names(s.links, LinkModeNames()) + ", inputs " + Names(s.inputs, InputModeNames());
}

}  // namespace

std::string ScopeWords(const Scope& scope, const EnumerationOptions& o) {
  if (scope.parts.size() == 1) return PartWords(scope.parts[0], o);
  std::string text;
  for (size_t i = 0; i < scope.parts.size(); ++i)
    text += (i ? "; " : "") + std::string("part ") + std::to_string(i + 1) + ": " + PartWords(scope.parts[i], o);
  return text;
}

bool ProveScope(const ProveRunOptions& options, Backend& backend, std::ostream& progress, CampaignResult* result,
              ScopeClaim* claim, std::string* err, bool* bad_input) {
  *bad_input = false;
  Enumeration e;
  if (!e.Build(options.scope, options.enumeration, err)) {
    *bad_input = true;
    return false;
  }
  ScopeClaim& c = *claim;
  c.scope = options.scope.name;
  c.scope_file = options.scope.file;
  c.what = ScopeWords(options.scope, options.enumeration);
  c.inconsistent = options.enumeration.inconsistent;
  for (Family f : options.enumeration.families) c.families.push_back(GetFamily(f).name);
  const CampaignSettings& settings = options.campaign.settings;
  c.implementation = options.campaign.implementation;
  c.variant = settings.variant;
  c.batches = e.Count();
  c.before = e.CountBeforeReduction();
  c.configs = static_cast<int64_t>(e.configs().size());
  c.shard = settings.shard;
  c.shards = settings.shards;
  c.shard_batches = ShardShare(0, e.Count(), settings.shard, settings.shards);

  auto coverage = [&](int64_t end) {
    c.coverage.clear();
    for (const ProveConfig& config : e.configs()) {
      ConfigCoverage k;
      k.label = config.label;
      k.batches = ShardShare(config.first, config.first + config.count, c.shard, c.shards);
      k.covered = ShardShare(config.first, std::min(config.first + config.count, std::max(end, config.first)),
                             c.shard, c.shards);
      c.coverage.push_back(k);
    }
  };
  if (options.count_only) {
    coverage(0);
    return true;
  }
  EnumerationSource source(e, options.command);
  CampaignOptions campaign = options.campaign;
  campaign.source = &source;
  campaign.settings.runs = c.shard_batches;
  campaign.settings.keep_going = true;  // a proof checks its whole scope
  campaign.generator.inconsistent = options.enumeration.inconsistent;
  if (!RunCampaign(campaign, backend, progress, result, err)) return false;

  // What was checked: this shard's first `scenarios` batches.
  c.covered = result->scenarios;
  coverage(c.complete() ? e.Count() : c.FirstUncovered());
  return true;
}

}  // namespace slotguard
