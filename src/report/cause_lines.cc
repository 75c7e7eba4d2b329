#include "report/cause_lines.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "registry/invariants.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

int Rank(const std::string& invariant) {
  for (const InvariantInfo& info : AllInvariants())
    if (invariant == info.name) return info.rank;
  return 1000;
}

InvariantStage Stage(const std::string& invariant) {
  for (const InvariantInfo& info : AllInvariants())
    if (invariant == info.name) return info.stage;
  return InvariantStage::kMapping;
}

std::string Value(int64_t v) { return v == kPadSlot ? "PAD" : std::to_string(v); }

/// "token 3" / "tokens 3-4, 9".
std::string Counted(const IdSet& ids, const char* one, const char* many) {
  return std::string(ids.count == 1 ? one : many) + " " + IdRanges(ids);
}

/// "request 1 (dummy)", "padding" (tokens of no request).
std::string Who(const CauseTokens& c) {
  if (c.request < 0) return "padding";
  return "request " + std::to_string(c.request) + (c.dummy ? " (dummy)" : "");
}

/// A per-request output's elements: "" for one element per request (a
/// state index), else "op 0: " / "ops 0-1: " (block operations).
std::string Ops(const GroupCause& cause, const CauseTokens& c) {
  if (cause.ops_per_request <= 1) return "";
  IdSet ops;
  for (int64_t e : c.tokens.ids) ops.Add(e % cause.ops_per_request);
  return Counted(ops, "op", "ops") + ": ";
}

/// "output c128.tail: " for an output that is not the group's own.
std::string OutputPrefix(const std::string& group, const std::string& output) {
  return output.empty() || output == group ? "" : "output " + EscapeText(output) + ": ";
}

/// The most specific finding of the group, as one line.
std::string FirstFinding(const GroupReport& g) {
  const Finding* best = nullptr;
  for (const Finding& f : g.findings)
    if (!best || Rank(f.invariant) < Rank(best->invariant)) best = &f;
  if (!best) return "";
  std::string line = OutputPrefix(g.name, best->output) + best->invariant;
  if (best->token >= 0)
    line += ": token " + std::to_string(best->token) +
            (best->request >= 0 ? " (request " + std::to_string(best->request) + ")" : std::string(" (no request)"));
  else if (best->request >= 0)  // an element of a per-request output
    line += ": request " + std::to_string(best->request) + (best->op >= 0 ? " op " + std::to_string(best->op) : std::string());
  if (best->has_values) line += ": kernel " + Value(best->kernel) + ", reference " + Value(best->reference);
  if (!best->detail.empty()) line += ": " + EscapeText(best->detail, 0);
  auto count = g.counts.find(best->invariant);
  if (count != g.counts.end() && count->second > 1)
    line += " (" + std::to_string(count->second) + " " + best->invariant + " findings)";
  std::string others;
  for (const auto& [name, n] : g.counts)
    if (name != best->invariant) others += (others.empty() ? "" : ", ") + name;
  if (!others.empty()) line += "; also " + others;
  return line;
}

}  // namespace

std::string IdRanges(const IdSet& ids, size_t max_ranges) {
  std::string text;
  size_t ranges = 0;
  int64_t shown = 0;
  for (auto it = ids.ids.begin(); it != ids.ids.end();) {
    auto last = it;
    // PAD stays on its own; other ids join their successors.
    while (*it != kPadSlot && std::next(last) != ids.ids.end() && *std::next(last) == *last + 1) ++last;
    if (ranges == max_ranges) break;
    text += (text.empty() ? "" : ", ") + Value(*it) + (last != it ? "-" + Value(*last) : "");
    shown += *last - *it + 1;
    ++ranges;
    it = std::next(last);
  }
  if (ids.count > shown) text += " and " + std::to_string(ids.count - shown) + " more";
  return text;
}

std::string CauseText(const GroupReport& g) {
  const GroupCause& cause = g.cause;
  if (cause.invariant == kInvariantNullBlock && !cause.tokens.empty()) {
    std::string text;
    bool agrees = true, pad = true;
    IdSet reference;
    for (size_t i = 0; i < cause.tokens.size(); ++i) {
      const CauseTokens& c = cause.tokens[i];
      const bool same_output = i > 0 && cause.tokens[i - 1].output == c.output;
      text += (i == 0 ? "" : same_output ? ", " : "; ") + (same_output ? "" : OutputPrefix(g.name, c.output)) + Who(c);
      if (cause.ops_per_request > 0)  // a request's index or operation names the null block
        text += " (" + Ops(cause, c) + "kernel " + IdRanges(c.kernel) + ") names the null block";
      else
        text += " wrote " + Counted(c.kernel, "slot", "slots") + " of block 0 (" + Counted(c.tokens, "token", "tokens") + ")";
      agrees &= c.reference_agrees;
      for (int64_t v : c.reference.ids) {
        pad &= v == kPadSlot;
        reference.Add(v);
      }
      pad &= c.reference.count == static_cast<int64_t>(c.reference.ids.size());
    }
    if (agrees) return text + "; the reference maps them there too (the batch state routes them to block 0)";
    return text + "; reference " + (pad ? std::string("PAD") : IdRanges(reference));
  }
  if (cause.invariant == kInvariantDifferential && !cause.tokens.empty()) {
    std::string text = "the kernel differs from the reference: ";
    for (size_t i = 0; i < cause.tokens.size(); ++i) {
      const CauseTokens& c = cause.tokens[i];
      const bool same_output = i > 0 && cause.tokens[i - 1].output == c.output;
      text += (i == 0 ? "" : same_output ? ", " : "; ") + (same_output ? "" : OutputPrefix(g.name, c.output)) + Who(c) +
              " (" + (cause.ops_per_request > 0 ? Ops(cause, c) : Counted(c.tokens, "token", "tokens") + ": ") +
              "kernel " + IdRanges(c.kernel) + ", reference " + IdRanges(c.reference) + ")";
    }
    return text;
  }
  return FirstFinding(g);
}

std::string GroupHeadline(const GroupReport& g) { return "group " + EscapeText(g.name) + ": " + CauseText(g); }

std::vector<TokenLine> FoldFindings(const std::string& group, const std::vector<Finding>& findings) {
  // What a line is about: (output, token) for a finding about one token,
  // (output, request, operation) for an element of a per-request output
  // (a state index: operation -1; a block operation), in the order first met.
  struct Key {
    std::string output;
    int64_t token = -1;
    int64_t request = -1;
    int64_t op = -1;
    bool operator<(const Key& o) const {
      return std::tie(output, token, request, op) < std::tie(o.output, o.token, o.request, o.op);
    }
  };
  std::vector<Key> order;
  std::map<Key, std::vector<const Finding*>> of;
  std::vector<TokenLine> lines;
  std::vector<const Finding*> whole;  // about no token and no request
  for (const Finding& f : findings) {
    if (f.token < 0 && f.request < 0) {
      whole.push_back(&f);
      continue;
    }
    const Key key = f.token >= 0 ? Key{f.output, f.token, -1, -1} : Key{f.output, -1, f.request, f.op};
    auto [it, fresh] = of.emplace(key, std::vector<const Finding*>());
    if (fresh) order.push_back(key);
    it->second.push_back(&f);
  }
  // Tokens in token order, then requests' elements in (request, operation) order.
  std::stable_sort(order.begin(), order.end(), [](const Key& a, const Key& b) {
    return std::make_tuple(a.token < 0, a.token, a.request, a.op) < std::make_tuple(b.token < 0, b.token, b.request, b.op);
  });
  for (const Key& key : order) {
    std::vector<const Finding*> fs = of[key];
    std::stable_sort(fs.begin(), fs.end(),
                     [](const Finding* a, const Finding* b) { return Rank(a->invariant) < Rank(b->invariant); });
    const Finding& first = *fs[0];
    TokenLine line;
    line.output = key.output;
    line.token = key.token;
    line.request = key.request;
    line.op = key.op;
    if (key.token >= 0)
      line.text = OutputPrefix(group, key.output) + "token " + std::to_string(first.token) + " (" +
                  (first.request >= 0 ? "request " + std::to_string(first.request) : std::string("no request")) +
                  ", pos " + std::to_string(first.position) + ")";
    else
      line.text = OutputPrefix(group, key.output) + "request " + std::to_string(key.request) +
                  (key.op >= 0 ? " op " + std::to_string(key.op) : std::string());
    for (const Finding* f : fs)
      if (f->has_values) {
        line.text += ": kernel " + Value(f->kernel) + ", reference " + Value(f->reference);
        break;
      }
    for (const Finding* f : fs)
      if (std::find(line.invariants.begin(), line.invariants.end(), f->invariant) == line.invariants.end())
        line.invariants.push_back(f->invariant);
    std::string names;
    for (const std::string& name : line.invariants) names += (names.empty() ? "" : ", ") + name;
    line.text += ": " + names;
    // The most specific detail; the memory's too, which say who wrote
    // what (the payload's writer), never implied by the mapping's.
    bool detailed = false;
    for (const Finding* f : fs) {
      if (f->detail.empty()) continue;
      if (!detailed) {
        line.text += ": " + EscapeText(f->detail, 0);
        detailed = true;
      } else if (Stage(f->invariant) == InvariantStage::kMemory) {
        line.text += "; " + f->invariant + ": " + EscapeText(f->detail, 0);
      }
    }
    lines.push_back(std::move(line));
  }
  for (const Finding* f : whole) {
    TokenLine line;
    line.output = f->output;
    line.invariants = {f->invariant};
    line.text = OutputPrefix(group, f->output) + f->invariant + (f->detail.empty() ? "" : ": " + EscapeText(f->detail, 0));
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::string> TokenLines(const std::string& group, const std::vector<Finding>& findings) {
  std::vector<std::string> text;
  for (const TokenLine& line : FoldFindings(group, findings)) text.push_back(line.text);
  return text;
}

std::vector<std::string> GroupLines(const GroupReport& g, bool tokens, size_t max_tokens, const std::string& indent) {
  std::vector<std::string> lines = {indent + GroupHeadline(g)};
  if (!tokens) return lines;
  const std::vector<std::string> folded = TokenLines(g.name, g.findings);
  const size_t shown = max_tokens == 0 ? folded.size() : std::min(folded.size(), max_tokens);
  for (size_t i = 0; i < shown; ++i) lines.push_back(indent + "  " + folded[i]);
  int64_t total = 0;
  for (const auto& [name, count] : g.counts) total += count;
  if (shown < folded.size() || total > static_cast<int64_t>(g.findings.size()))
    lines.push_back(indent + "  (" + std::to_string(total) + " findings in all; replay --max-findings 0 lists every one)");
  return lines;
}

}  // namespace slotguard
