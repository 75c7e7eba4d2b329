// JUnit XML: one testcase per scenario run, <failure> when it does not hold,
// <error> for bad input and environment errors. CI systems render this.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "report/markup.h"
#include "report/cause_lines.h"
#include "report/report.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

std::string Xml(const std::string& s) { return EscapeMarkup(s); }

}  // namespace

std::string DecimalSeconds(double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds)) return "0.000000";  // NaN, inf: still a decimal
  char text[64];
  std::snprintf(text, sizeof text, "%.6f", seconds);
  return text;
}

bool WriteJUnit(const std::string& path, const std::vector<ScenarioReport>& reports,
                const CheckSummary& summary, std::string* err) {
  int failures = 0, errors = 0, skipped = 0;
  for (const ScenarioReport& r : reports) {
    if (r.status == ScenarioStatus::kSkipped || r.suppressed_by >= 0) {
      ++skipped;
    } else if (r.status != ScenarioStatus::kChecked) {
      ++errors;
    } else if (!r.holds) {
      ++failures;
    }
  }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites>\n  <testsuite name=\"slotguard check\" tests=\"" << reports.size()
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\" time=\""
      << DecimalSeconds(summary.seconds) << "\">\n"
      << "    <properties><property name=\"slotguard_version\" value=\"" << Xml(kSlotguardVersion) << "\"/>"
      << "<property name=\"backend\" value=\"" << Xml(summary.backend) << "\"/>"
      << (summary.implementation.empty() ? ""
                                         : "<property name=\"implementation\" value=\"" + Xml(summary.implementation) + "\"/>")
      << "</properties>\n";
  for (const ScenarioReport& r : reports) {
    std::string name = r.file;
    if (!r.forced_variant.empty()) name += " [" + r.forced_variant + "]";
    // A bad-input file has no scenario name: its path names the class.
    out << "    <testcase classname=\"slotguard." << Xml(r.name.empty() ? r.file : r.name) << "\" name=\""
        << Xml(name) << "\" time=\"" << DecimalSeconds(r.seconds) << "\">\n";
    // A suppressed scenario is a known difference: skipped, with its
    // suppression and reason as the message, so CI shows it but passes.
    if (r.status == ScenarioStatus::kSkipped || r.suppressed_by >= 0) {
      out << "      <skipped message=\"" << Xml(r.verdict) << "\"/>\n";
    } else if (r.status != ScenarioStatus::kChecked) {
      out << "      <error message=\"" << Xml(r.error) << "\"/>\n";
    } else if (!r.holds) {
      out << "      <failure message=\"" << Xml(r.verdict) << "\">";
      for (const GroupReport& g : r.groups)
        if (!g.counts.empty())
          for (const std::string& line : GroupLines(g, true, 0, "")) out << Xml(line) << "\n";
      out << "</failure>\n";
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
  return WriteReportFile(path, out.str(), "JUnit", err);
}

}  // namespace slotguard
