// Merging campaign reports (report/merge_report.h): the reports in time
// order, their campaigns, each distinct signature with its sightings and
// the suppressions applied, and the console lines.
#include "report/merge_report.h"

#include <algorithm>
#include <map>

#include "report/report.h"
#include "util/did_you_mean.h"
#include "util/error_line.h"

namespace slotguard {

int64_t MergeResult::Unsuppressed() const {
  int64_t n = 0;
  for (const MergedFinding& f : findings) n += f.entry < 0;
  return n;
}

MergeResult MergeReports(std::vector<CampaignReportFile> reports, const Suppressions* suppressions) {
  MergeResult m;
  // Nights in time order when every report says when it finished; else, and
  // for reports finished in the same second, as given.
  m.by_finished = std::all_of(reports.begin(), reports.end(),
                              [](const CampaignReportFile& r) { return !r.finished.empty(); });
  if (m.by_finished)
    std::stable_sort(reports.begin(), reports.end(),
                     [](const CampaignReportFile& a, const CampaignReportFile& b) { return a.finished < b.finished; });
  m.reports = std::move(reports);
  for (size_t i = 0; i < m.reports.size(); ++i) {
    const nlohmann::ordered_json& c = m.reports[i].campaign;
    auto it = std::find_if(m.campaigns.begin(), m.campaigns.end(),
                           [&](const MergedCampaign& k) { return k.campaign == c; });
    if (it == m.campaigns.end()) it = m.campaigns.insert(m.campaigns.end(), MergedCampaign{c, {}});
    it->reports.push_back(i);
  }
  // The suppression entries: the file's, or the reports' own by id (the
  // latest report's reason and pointer).
  std::map<std::string, size_t> entry_of;
  if (suppressions) {
    m.suppressions_file = suppressions->file;
    for (const Suppression& e : suppressions->entries) {
      entry_of.emplace(e.id, m.suppressions.size());
      m.suppressions.push_back({e.id, e.reason, e.pointer, 0, 0});
    }
  }
  for (const CampaignReportFile& r : m.reports)
    for (const ReportSuppression& e : r.suppressions) {
      auto it = entry_of.find(e.id);
      if (it == entry_of.end()) {
        if (suppressions) continue;  // an entry the file no longer has
        it = entry_of.emplace(e.id, m.suppressions.size()).first;
        m.suppressions.push_back({e.id, e.reason, e.pointer, 0, 0});
      }
      MergedSuppression& s = m.suppressions[it->second];
      s.matched_in_reports += e.matched;
      if (!suppressions) {
        s.reason = e.reason;
        s.pointer = e.pointer;
      }
    }
  // Each signature, sighting by sighting.
  std::map<std::string, size_t> finding_of;
  for (size_t ri = 0; ri < m.reports.size(); ++ri) {
    const CampaignReportFile& r = m.reports[ri];
    for (size_t fi = 0; fi < r.findings.size(); ++fi) {
      const ReportFinding& f = r.findings[fi];
      auto it = finding_of.find(f.id);
      if (it == finding_of.end()) {
        it = finding_of.emplace(f.id, m.findings.size()).first;
        m.findings.emplace_back();
      }
      MergedFinding& merged = m.findings[it->second];
      Sighting s{ri, fi, -1};
      if (suppressions) {
        SuppressionSubject subject;
        subject.signature = &f.signature;
        subject.measures = &f.measures;
        const int e = MatchSuppression(*suppressions, subject);
        if (e >= 0) s.entry = static_cast<int>(entry_of.at(suppressions->entries[static_cast<size_t>(e)].id));
      } else if (!f.suppressed_by.empty()) {
        auto e = entry_of.find(f.suppressed_by);
        if (e == entry_of.end()) {  // an id the report does not list
          e = entry_of.emplace(f.suppressed_by, m.suppressions.size()).first;
          m.suppressions.push_back({f.suppressed_by, "", "", 0, 0});
        }
        s.entry = static_cast<int>(e->second);
      }
      merged.seen.push_back(s);
      merged.count += f.count;
      if (!f.file.empty() &&
          std::find(merged.reproducers.begin(), merged.reproducers.end(), f.file) == merged.reproducers.end())
        merged.reproducers.push_back(f.file);
    }
  }
  // A signature is suppressed when every sighting is: an entry that covers
  // one night's small reproducer does not hide another night's.
  for (MergedFinding& f : m.findings) {
    const bool all = std::all_of(f.seen.begin(), f.seen.end(), [](const Sighting& s) { return s.entry >= 0; });
    f.entry = all ? f.seen.back().entry : -1;
    for (const Sighting& s : f.seen)
      if (s.entry >= 0) m.suppressions[static_cast<size_t>(s.entry)].matched += m.reports[s.report].findings[s.finding].count;
  }
  return m;
}

namespace {

std::string Plural(int64_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

/// "fuzz-0.json (2026-12-05T03:14:07Z)", or the file alone.
std::string ReportName(const CampaignReportFile& r) {
  return EscapeText(r.path, 0) + (r.finished.empty() ? "" : " (" + r.finished + ")");
}

/// "fuzz seed 20250101, variant fixed, families paged, kpool_tail": a campaign in words.
std::string CampaignText(const nlohmann::ordered_json& c) {
  std::string text = c["kind"].get<std::string>();
  if (c.contains("scope")) text += " scope " + c["scope"].get<std::string>();
  if (c.contains("seed")) text += " seed " + c["seed"].dump();
  text += ", variant " + c["variant"].get<std::string>();
  if (c.contains("families")) text += ", families " + JoinNames(c["families"].get<std::vector<std::string>>());
  return text + ", backend " + c["backend"].get<std::string>();
}

}  // namespace

void PrintMergeReport(const MergeResult& m, std::ostream& out) {
  for (size_t k = 0; k < m.campaigns.size(); ++k) {
    const MergedCampaign& c = m.campaigns[k];
    std::string shards;
    for (size_t i : c.reports)
      if (!m.reports[i].shard.empty()) shards += (shards.empty() ? "" : ", ") + m.reports[i].shard;
    out << "merge: campaign " << k + 1 << ": " << EscapeText(CampaignText(c.campaign), 0) << ": "
        << Plural(static_cast<int64_t>(c.reports.size()), "report") << (shards.empty() ? "" : " (shards " + shards + ")")
        << "\n";
  }
  if (!m.by_finished && !m.reports.empty())
    out << "merge: a report has no finished time (an older slotguard's): first and last seen follow the order of "
           "the arguments\n";
  if (!m.suppressions_file.empty()) {
    Suppressions entries;  // the lines of fuzz and check, for the merge's counts
    std::vector<int64_t> matches;
    entries.file = m.suppressions_file;
    for (const MergedSuppression& s : m.suppressions) {
      Suppression e;
      e.id = s.id;
      e.reason = s.reason;
      e.pointer = s.pointer;
      entries.entries.push_back(e);
      matches.push_back(s.matched + s.matched_in_reports);
    }
    for (const std::string& line : SuppressionLines(entries, matches, "merge: ", "finding")) out << line << "\n";
  }
  // One line per signature, as fuzz names it.
  const int64_t distinct = m.Unsuppressed();
  int64_t k = 0;
  for (const MergedFinding& f : m.findings) {
    const ReportFinding& last = m.Last(f);
    const std::string seen = Plural(f.count, "finding") + " in " + std::to_string(f.seen.size()) + " of " +
                             Plural(static_cast<int64_t>(m.reports.size()), "report") + ", first seen " +
                             ReportName(m.reports[f.seen.front().report]) + ", last seen " +
                             ReportName(m.reports[f.seen.back().report]);
    const std::string head = "signature " + last.id + ": " + last.signature.Text() + "; " + seen;
    if (f.entry >= 0) {
      const MergedSuppression& e = m.suppressions[static_cast<size_t>(f.entry)];
      out << "merge: suppressed " << head << "; by " << QuoteName(e.id) << " (" << EscapeText(e.reason, 200)
          << ")\n";
      continue;
    }
    // An entry that covers some of its reports only: said, as it stays a finding.
    std::string partly;
    for (size_t e = 0; e < m.suppressions.size(); ++e) {
      const int64_t n = std::count_if(f.seen.begin(), f.seen.end(),
                                      [&](const Sighting& s) { return s.entry == static_cast<int>(e); });
      if (n > 0)
        partly += "; covered by " + QuoteName(m.suppressions[e].id) + " in " + std::to_string(n) + " of its " +
                  std::to_string(f.seen.size()) + " reports only";
    }
    out << "merge: finding " << ++k << " of " << distinct << ", " << head << "; "
        << (last.file.empty() ? std::string("no reproducer written")
                              : "reproducer " + EscapeText(last.file, 0))
        << partly << "\n";
  }
  const int64_t suppressed = static_cast<int64_t>(m.findings.size()) - distinct;
  out << "slotguard: merge: "
      << (distinct ? Plural(distinct, "distinct finding") : std::string("no finding"))
      << (suppressed ? ", " + Plural(suppressed, "suppressed signature") : std::string()) << " in "
      << Plural(static_cast<int64_t>(m.reports.size()), "report") << " of "
      << Plural(static_cast<int64_t>(m.campaigns.size()), "campaign")
      << (m.by_finished ? ", ordered by their finished times" : ", in the order given") << "\n";
}

}  // namespace slotguard
