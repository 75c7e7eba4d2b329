// JUnit XML (report/junit.cc): times as plain decimals (xs:decimal), and a
// bad-input file named by its path, not "slotguard.".
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "report/report.h"
#include "testing/scratch_dir.h"

namespace slotguard {
namespace {

std::string Temp(const std::string& name) { return ScratchPath(name); }

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(JUnitTest, TimesArePlainDecimals) {
  EXPECT_EQ("0.000025", DecimalSeconds(2.4967e-05));
  EXPECT_EQ("0.000000", DecimalSeconds(1e-12));
  EXPECT_EQ("0.000000", DecimalSeconds(0));
  EXPECT_EQ("0.000000", DecimalSeconds(-1));
  EXPECT_EQ("1.250000", DecimalSeconds(1.25));
  EXPECT_EQ("123456.500000", DecimalSeconds(123456.5));
}

TEST(JUnitTest, ATinyTimeAndABadInputCase) {
  ScenarioReport ok;
  ok.file = "scenarios/a.json";
  ok.name = "a";
  ok.holds = true;
  ok.verdict = "pass";
  ok.seconds = 2.4967e-05;
  ScenarioReport bad;
  bad.file = "scenarios/b.json";
  bad.status = ScenarioStatus::kBadInput;
  bad.error = "scenarios/b.json: not JSON";
  CheckSummary summary;
  summary.backend = "host";
  summary.seconds = 3.1e-05;
  std::string err;
  ASSERT_TRUE(WriteJUnit(Temp("r.xml"), {ok, bad}, summary, &err)) << err;
  EXPECT_EQ(R"(<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="slotguard check" tests="2" failures="0" errors="1" skipped="0" time="0.000031">
    <properties><property name="slotguard_version" value=")" + std::string(kSlotguardVersion) +
                R"("/><property name="backend" value="host"/></properties>
    <testcase classname="slotguard.a" name="scenarios/a.json" time="0.000025">
    </testcase>
    <testcase classname="slotguard.scenarios/b.json" name="scenarios/b.json" time="0.000000">
      <error message="scenarios/b.json: not JSON"/>
    </testcase>
  </testsuite>
</testsuites>
)",
            Read(Temp("r.xml")));
}

// A suppressed scenario is a skipped case whose message is its verdict;
// text XML 1.0 forbids (U+FFFF, a control character, a byte that is not
// UTF-8), from a suppression's reason or a name, never reaches the file.
TEST(JUnitTest, ASuppressedCaseIsSkippedAndItsTextIsValidXml) {
  ScenarioReport r;
  r.file = "s.json";
  r.name = "s\x01";
  r.holds = true;
  r.suppressed_by = 0;
  r.verdict = "suppressed by 'k' (known \xef\xbf\xbf \xff <x>): unexpected findings (null_block)";
  CheckSummary summary;
  summary.backend = "host";
  std::string err;
  ASSERT_TRUE(WriteJUnit(Temp("s.xml"), {r}, summary, &err)) << err;
  const std::string xml = Read(Temp("s.xml"));
  EXPECT_NE(std::string::npos, xml.find("failures=\"0\" errors=\"0\" skipped=\"1\"")) << xml;
  EXPECT_NE(std::string::npos,
            xml.find("<skipped message=\"suppressed by &#39;k&#39; (known ? ? &lt;x&gt;): unexpected findings (null_block)\"/>"))
      << xml;
  EXPECT_NE(std::string::npos, xml.find("classname=\"slotguard.s \"")) << xml;
  EXPECT_EQ(std::string::npos, xml.find("\xef\xbf\xbf"));
}

}  // namespace
}  // namespace slotguard
