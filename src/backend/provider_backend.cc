#include "backend/provider_backend.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "backend/kernel_inputs.h"
#include "backend/table_memory.h"
#include "registry/families.h"
#include "scenario/family_params.h"
#include "util/parallel_for.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

/// The outputs a provider answered for one scenario, in the host
/// backend's run order of the groups it provides.
struct Replay {
  std::vector<const std::vector<std::vector<int64_t>>*> outputs;  // [provided group][output][token]
  size_t next = 0;
};

thread_local Replay* current_replay = nullptr;

// The provider as the reports and the fuzzer see it (name, families), and
// as the host backend calls it: Launch copies in what the process answered.
class ProcessProvider : public MappingProvider {
 public:
  ProcessProvider(std::string name, std::vector<Family> families, bool whole)
      : name_(std::move(name)), families_(std::move(families)), whole_(whole) {}
  std::string name() const override { return name_; }
  const std::vector<Family>& families() const override { return families_; }
  bool has_host() const override { return true; }
  bool has_device() const override { return false; }
  bool whole() const { return whole_; }
  bool Launch(const sg_mapping_call& call, bool /*device*/, std::string* err) override {
    Replay* r = current_replay;
    if (!r || r->next >= r->outputs.size()) {
      *err = name_ + ": no answer recorded for this call";
      return false;
    }
    const std::vector<std::vector<int64_t>>& out = *r->outputs[r->next++];
    // A slot per token, or per request (ABI 3's output_length).
    const size_t n = static_cast<size_t>(call.output_length);
    int64_t* targets[2] = {call.slot_mapping, call.tail_slot_mapping};
    // By the family's outputs, not the pointer: a call of no tokens has none.
    const size_t count = call.num_outputs > 1 ? 2 : 1;
    if (out.size() != count) {
      *err = name_ + ": the answer recorded for this " + call.family + " call has " + std::to_string(out.size()) +
             " outputs; expected " + std::to_string(count);
      return false;
    }
    for (size_t o = 0; o < count; ++o) {
      if (out[o].size() != n) {
        *err = name_ + ": the answer recorded for this call has the wrong length";
        return false;
      }
      if (n) std::memcpy(targets[o], out[o].data(), n * sizeof(int64_t));
    }
    return true;
  }

 private:
  std::string name_;
  std::vector<Family> families_;
  bool whole_;
};

/// What a scenario sends: its provided groups' tables and inputs.
struct Prepared {
  const Scenario* s = nullptr;
  std::vector<size_t> provided;               // run order
  std::vector<LaidOutTable> tables;           // [group]
  std::vector<std::vector<int64_t>> commons;  // inline common mappings, [group]
  ProviderArrays extra;
  std::vector<ProviderRecord> records;        // ordinal 0; mode 0: one per provided group
};

class ProviderBackend : public Backend {
 public:
  ProviderBackend(ProviderCommand command, const ProviderWelcome& welcome, std::unique_ptr<ProviderProcess> first)
      : command_(std::move(command)) {
    provider_process_ = std::make_shared<ProcessProvider>(
        // The provider's own name: one printable line of at most 200
        // characters; the command as typed, escaped (neither forges a line).
        "provider " + ForeignText(welcome.name) + " (" + EscapeText(command_.command, 0) + ")", welcome.families,
        welcome.whole_scenarios);
    provider_ = provider_process_;
    idle_.push_back(std::move(first));
  }
  const char* name() const override { return command_.device == "cuda" ? "gpu" : "host"; }
  bool Batches() const override { return true; }

  bool Run(const Scenario& scenario, std::vector<GroupOutputs>* outputs, std::string* err) override {
    std::vector<std::vector<GroupOutputs>> many;
    if (!RunMany({&scenario}, &many, err, 1)) return false;
    *outputs = std::move(many[0]);
    return true;
  }

  bool RunReplays(const std::vector<Scenario>&, std::vector<std::vector<GroupOutputs>>*, std::string* err) override {
    *err = "--cuda-graph is not available with --kernel-cmd: a provider's launches happen in its own process";
    return false;
  }

  bool RunMany(const std::vector<const Scenario*>& scenarios, std::vector<std::vector<GroupOutputs>>* outputs,
               std::string* err, int threads) override {
    // Every scenario's outputs are rewritten whole (the host backend's Reset,
    // MarkSkipped, MarkFaulted), so reused storage keeps nothing of an earlier chunk.
    outputs->resize(scenarios.size());
    const size_t n = scenarios.size();
    const int jobs = std::max(1, threads);
    // Messages of up to kMaxPerMessage scenarios, at least one per thread.
    constexpr size_t kMaxPerMessage = 256;
    const size_t per = std::clamp<size_t>((n + jobs - 1) / jobs, 1, kMaxPerMessage);
    const size_t messages = (n + per - 1) / per;
    std::mutex mu;
    std::string failure;
    ParallelFor(messages, jobs, [&](size_t m) {
      std::string e;
      if (!RunMessage(scenarios, m * per, std::min(n, (m + 1) * per), outputs, &e)) {
        std::lock_guard<std::mutex> lock(mu);
        if (failure.empty()) failure = e;
      }
    });
    if (!failure.empty()) {
      *err = failure;
      return false;
    }
    return true;
  }

 private:
  bool whole() const { return provider_process_->whole(); }

  void Prepare(const Scenario& s, Prepared* p) const {
    p->s = &s;
    p->provided.clear();
    p->records.clear();
    p->tables.assign(s.groups.size(), LaidOutTable());
    p->commons.assign(s.groups.size(), {});
    std::vector<bool> provided(s.groups.size(), false);
    for (size_t i : RunOrder(s))
      if (provider_->Runs(s.groups[i].family, s.groups[i].variant)) {
        provided[i] = true;
        p->provided.push_back(i);
      }
    if (p->provided.empty()) return;
    p->extra = ProviderArrays(s.batch);
    std::vector<GroupOutputs> own;  // slotguard's own outputs, when a provided group reads one
    std::vector<ProviderGroupInput> inputs;
    for (size_t i : p->provided) {
      const Group& group = s.groups[i];
      LayOutGroupTable(s, group, /*gather=*/false, &p->tables[i]);
      const TableLayout view = p->tables[i].View();
      ProviderGroupInput in;
      in.group = i;
      in.table = &p->tables[i].memory;
      in.table_rows = view.rows;
      in.table_width = view.width;
      in.table_row_stride = view.row_stride;
      if (MappingOf(group).gate.present()) {
        const int c = GateGroupIndex(s, group);
        if (c >= 0 && provided[c]) {
          in.common_group = c;
        } else if (c >= 0) {
          if (own.empty()) {
            std::string ignored;
            MakeHostBackend()->Run(s, &own, &ignored);
          }
          p->commons[i] = own[c].engine.empty() ? DefaultGateMapping(s.batch, MappingOf(group).gate.absent) : own[c].engine[0];
          in.common = &p->commons[i];
        } else {
          p->commons[i] = DefaultGateMapping(s.batch, MappingOf(group).gate.absent);
          in.common = &p->commons[i];
        }
      }
      inputs.push_back(in);
    }
    auto record = [&] {
      ProviderRecord r;
      r.s = &s;
      r.seq_lens_i32 = &p->extra.seq_lens_i32;
      r.request_of_token = &p->extra.request_of_token;
      return r;
    };
    if (whole()) {
      p->records.push_back(record());
      p->records.back().groups = inputs;
    } else {
      for (const ProviderGroupInput& in : inputs) {
        p->records.push_back(record());
        p->records.back().groups = {in};
      }
    }
  }

  std::string GroupsText(const Scenario& s, const std::vector<ProviderGroupInput>& groups) const {
    std::string text = groups.size() > 1 ? "groups " : "group ";
    for (size_t i = 0; i < groups.size(); ++i) {
      const Group& g = s.groups[groups[i].group];
      text += (i ? ", " : "") + g.name + " (" + GetFamily(g.family).name + ")";
    }
    return groups.size() > 1 ? text + " (one call)" : text;
  }

  // The outputs of one scenario from its records' replies.
  void Finish(const Prepared& p, const std::vector<const ProviderReply*>& replies, std::vector<GroupOutputs>* out) {
    for (size_t k = 0; k < replies.size(); ++k) {
      const ProviderReply& r = *replies[k];
      if (r.status == ProviderStatus::kSkip) {
        MarkSkipped(provider_->name() + " skips it: " + ForeignText(r.message), p.s->groups.size(), out);
        return;
      }
      if (r.status == ProviderStatus::kError) {
        const Group& g = p.s->groups[r.group];
        MarkFaulted(provider_->name() + ": group " + g.name + " (" + GetFamily(g.family).name + ") failed: " +
                        ForeignText(r.message),
                    p.s->groups.size(), out, r.group);
        return;
      }
    }
    Replay replay;
    for (const ProviderReply* r : replies)
      for (const auto& group_outputs : r->outputs) replay.outputs.push_back(&group_outputs);
    RunOnHost(*p.s, replay.outputs.empty() ? nullptr : &replay, out);
  }

  // Slotguard's host kernels for the rest, the provider's answers replayed.
  void RunOnHost(const Scenario& s, Replay* replay, std::vector<GroupOutputs>* out) {
    thread_local std::unique_ptr<Backend> host;
    if (!host) host = MakeHostBackend();
    host->set_writers(writers_);
    host->set_provider(replay ? provider_ : nullptr);
    current_replay = replay;
    std::string ignored;  // the host backend reports no environment errors
    host->Run(s, out, &ignored);
    current_replay = nullptr;
    if (replay && replay->next != replay->outputs.size() && !out->empty() && (*out)[0].fault.empty())
      MarkFaulted(provider_->name() + ": " + std::to_string(replay->outputs.size()) + " answers for " +
                      std::to_string(replay->next) + " calls (slotguard's replay of them lost its order)",
                  s.groups.size(), out);
  }

  // Runs scenarios [begin, end) in one message; on a process failure, each
  // on its own in a fresh process. False on an environment failure (a
  // provider that cannot be restarted).
  bool RunMessage(const std::vector<const Scenario*>& scenarios, size_t begin, size_t end,
                  std::vector<std::vector<GroupOutputs>>* outputs, std::string* err) {
    std::vector<Prepared> prepared(end - begin);
    std::vector<ProviderRecord> records;
    std::vector<std::pair<size_t, size_t>> spans(end - begin);  // [scenario] -> records [first, last)
    uint32_t ordinal = 0;
    for (size_t i = begin; i < end; ++i) {
      Prepared& p = prepared[i - begin];
      Prepare(*scenarios[i], &p);
      spans[i - begin].first = records.size();
      for (ProviderRecord r : p.records) {
        r.scenario = ordinal;
        records.push_back(r);
      }
      spans[i - begin].second = records.size();
      if (!p.records.empty()) ++ordinal;
    }
    if (records.empty()) {  // nothing the provider runs
      for (size_t i = begin; i < end; ++i) RunOnHost(*scenarios[i], nullptr, &(*outputs)[i]);
      return true;
    }
    std::unique_ptr<ProviderProcess> process = Acquire(err);
    if (!process) return false;
    std::vector<ProviderReply> replies;
    std::string failure;
    if (process->Run(records, &replies, &failure)) {
      Release(std::move(process));
      for (size_t i = begin; i < end; ++i) {
        const auto [first, last] = spans[i - begin];
        std::vector<const ProviderReply*> mine;
        for (size_t k = first; k < last; ++k) mine.push_back(&replies[k]);
        if (mine.empty()) RunOnHost(*scenarios[i], nullptr, &(*outputs)[i]);
        else Finish(prepared[i - begin], mine, &(*outputs)[i]);
      }
      return true;
    }
    // The process is gone: each scenario alone, so that the failure lands
    // on its scenario and its call.
    for (size_t i = begin; i < end; ++i)
      if (!RunAlone(prepared[i - begin], &(*outputs)[i], err)) return false;
    return true;
  }

  // One scenario: its records one message each (mode 0: one call each, a
  // common mapping the provider computed inlined from its earlier answer).
  bool RunAlone(Prepared& p, std::vector<GroupOutputs>* out, std::string* err) {
    if (p.records.empty()) {
      RunOnHost(*p.s, nullptr, out);
      return true;
    }
    std::vector<ProviderReply> answers(p.records.size());
    for (size_t k = 0; k < p.records.size(); ++k) {
      ProviderRecord r = p.records[k];
      r.scenario = 0;
      for (ProviderGroupInput& g : r.groups) {
        if (whole() || g.common_group < 0) continue;
        for (size_t j = 0; j < k; ++j)
          if (p.records[j].groups[0].group == static_cast<size_t>(g.common_group) && !answers[j].outputs.empty()) {
            p.commons[g.group] = answers[j].outputs[0][0];
            g.common = &p.commons[g.group];
            g.common_group = -1;
          }
      }
      std::unique_ptr<ProviderProcess> process = Acquire(err);
      if (!process) return false;
      std::vector<ProviderReply> replies;
      std::string failure;
      if (!process->Run({r}, &replies, &failure)) {
        MarkFaulted(provider_->name() + " " + failure + " while running " + GroupsText(*p.s, r.groups),
                    p.s->groups.size(), out, r.groups[0].group);
        return true;
      }
      Release(std::move(process));
      answers[k] = std::move(replies[0]);
      if (answers[k].status != ProviderStatus::kOk) break;
    }
    std::vector<const ProviderReply*> mine;
    for (const ProviderReply& a : answers) {
      mine.push_back(&a);
      if (a.status != ProviderStatus::kOk) break;
    }
    Finish(p, mine, out);
    return true;
  }

  std::unique_ptr<ProviderProcess> Acquire(std::string* err) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        std::unique_ptr<ProviderProcess> p = std::move(idle_.back());
        idle_.pop_back();
        return p;
      }
    }
    ProviderWelcome welcome;
    std::unique_ptr<ProviderProcess> p = ProviderProcess::Start(command_, &welcome, err);
    if (!p) {
      *err = "could not restart the provider: " + *err;
      return nullptr;
    }
    if (welcome.whole_scenarios != whole() || welcome.families != provider_->families()) {
      *err = "--kernel-cmd " + QuoteName(command_.command, 0, '"') + ": the restarted provider's WELCOME names other families or "
             "another mode than its first";
      return nullptr;
    }
    return p;
  }

  void Release(std::unique_ptr<ProviderProcess> process) {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(std::move(process));
  }

  ProviderCommand command_;
  std::shared_ptr<ProcessProvider> provider_process_;
  std::mutex mu_;
  std::vector<std::unique_ptr<ProviderProcess>> idle_;
};

}  // namespace

std::unique_ptr<Backend> MakeProviderBackend(const ProviderCommand& command, std::string* err) {
  ProviderWelcome welcome;
  std::unique_ptr<ProviderProcess> first = ProviderProcess::Start(command, &welcome, err);
  if (!first) return nullptr;
  return std::make_unique<ProviderBackend>(command, welcome, std::move(first));
}

}  // namespace slotguard
