// JUnit XML (report/junit.cc): times as plain decimals (xs:decimal), and a
// bad-input file named by its path, not "slotguard.".
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "report/report.h"

namespace slotguard {
namespace {

std::string Temp(const std::string& name) { return (std::filesystem::path(::testing::TempDir()) / name).string(); }

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
    <properties><property name="backend" value="host"/></properties>
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

}  // namespace
}  // namespace slotguard
