// replay --html's page (report/block_map_html.h): its cells and their data
// attributes on scenarios whose blocks are worked out by hand from
// docs/families.md, the per-token JSON, escaping, no network, large pools.
#include "report/block_map_html.h"

#include <filesystem>
#include <limits>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runner/scenario_files.h"
#include "scenario/scenario_json.h"
#include "testing/scenario_fixtures.h"

namespace slotguard {
namespace {

const std::string kScenarios = SLOTGUARD_SOURCE_DIR "/scenarios";

Scenario Parse(const std::string& text) {
  Scenario s;
  std::string err;
  EXPECT_TRUE(ParseScenario(text, "hand.json", LoadLimits(), &s, &err)) << err;
  return s;
}

std::string Page(const Scenario& s) { return BlockMapHtml(s, "x.json", "host", RunWholeOnHost(s)); }

/// One grid cell: its attributes, "class" included, and its text.
using Cell = std::map<std::string, std::string>;

/// The cells of the page, in document order.
std::vector<Cell> Cells(const std::string& html) {
  std::vector<Cell> cells;
  static const std::regex element(R"re(<div (class="cell[^"]*"[^>]*)>(.*?)</div>)re");
  static const std::regex attribute(R"re(([a-z-]+)="([^"]*)")re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), element); it != std::sregex_iterator(); ++it) {
    Cell cell;
    const std::string attributes = (*it)[1];
    for (auto a = std::sregex_iterator(attributes.begin(), attributes.end(), attribute); a != std::sregex_iterator();
         ++a)
      cell[(*a)[1]] = (*a)[2];
    cell["text"] = (*it)[2];
    cells.push_back(cell);
  }
  return cells;
}

std::vector<Cell> CellsOf(const std::string& html, const std::string& output) {
  std::vector<Cell> of;
  for (const Cell& c : Cells(html))
    if (c.at("data-output") == output) of.push_back(c);
  return of;
}

bool HasClass(const Cell& c, const std::string& name) {
  return (" " + c.at("class") + " ").find(" " + name + " ") != std::string::npos;
}

std::string Attr(const Cell& c, const std::string& name) {
  auto it = c.find(name);
  return it == c.end() ? "(none)" : it->second;
}

/// The <script type="application/json"> blob, parsed.
nlohmann::json Data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"sg-data\">";
  const size_t begin = html.find(open);
  EXPECT_NE(std::string::npos, begin);
  const size_t end = html.find("</script>", begin);
  return nlohmann::json::parse(html.substr(begin + open.size(), end - begin - open.size()));
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// dummy-reads-row: block_size 16, num_blocks 8; request 0 (row [2]) has
// positions 0..2 -> slots 32..34, block 2; request 1 is a dummy with row
// [0], and the dummy_reads_row variant maps its positions 0, 1 through it
// to slots 0, 1: block 0, the null block. Blocks 1, 3..7: nothing.
TEST(BlockMapHtmlTest, DummyReadsRowWritesTheNullBlockAndTheCellsSaySo) {
  const std::string html = Page(LoadTestScenario(kScenarios + "/paged/mutants/dummy-reads-row.json"));
  const std::vector<Cell> cells = Cells(html);
  ASSERT_EQ(8u, cells.size()) << html;
  for (int b = 0; b < 8; ++b) {
    EXPECT_EQ(std::to_string(b), cells[b].at("data-block"));
    EXPECT_EQ("attn", cells[b].at("data-group"));
    EXPECT_EQ("attn", cells[b].at("data-output"));
  }
  const Cell& null = cells[0];
  EXPECT_EQ("1", Attr(null, "data-null"));
  EXPECT_EQ("1", Attr(null, "data-requests"));
  EXPECT_EQ("2", Attr(null, "data-tokens"));
  EXPECT_EQ("differential,golden,null_block,null_owner_pad,own_block", Attr(null, "data-finding"));
  for (const char* cls : {"null", "alarm", "hit", "w"}) EXPECT_TRUE(HasClass(null, cls)) << cls << " " << null.at("class");
  EXPECT_EQ("\u2205", null.at("text"));
  EXPECT_EQ("block 0 (null block): written by request 1 (dummy), 2 tokens; findings: differential, golden, "
            "null_block, null_owner_pad, own_block",
            null.at("title"));
  const Cell& live = cells[2];
  EXPECT_EQ("0", Attr(live, "data-requests"));
  EXPECT_EQ("3", Attr(live, "data-tokens"));
  EXPECT_EQ("(none)", Attr(live, "data-finding"));
  EXPECT_TRUE(HasClass(live, "p0")) << live.at("class");
  EXPECT_FALSE(HasClass(live, "hit"));
  for (int b : {1, 3, 4, 5, 6, 7}) {
    EXPECT_TRUE(HasClass(cells[b], "e")) << b;
    EXPECT_EQ("(none)", Attr(cells[b], "data-requests")) << b;
    EXPECT_EQ("(none)", Attr(cells[b], "data-null")) << b;
    EXPECT_EQ(std::to_string(b), cells[b].at("text"));
  }
  // Each block's tokens: [token, request, position, kernel, reference, invariants, wrote here].
  const nlohmann::json data = Data(html);
  ASSERT_EQ(1u, data["maps"].size());
  const nlohmann::json& blocks = data["maps"][0]["blocks"];
  EXPECT_EQ(2u, blocks.size()) << blocks.dump();
  EXPECT_EQ(nlohmann::json::parse(R"([[3, 1, "0", "0", "PAD", "differential,golden,null_block,null_owner_pad,own_block", 1],
                                      [4, 1, "1", "1", "PAD", "differential,golden,null_block,null_owner_pad,own_block", 1]])"),
            blocks["0"]["t"]);
  EXPECT_EQ(nlohmann::json::parse(R"([[0, 0, "0", "32", "32", "", 1], [1, 0, "1", "33", "33", "", 1],
                                      [2, 0, "2", "34", "34", "", 1]])"),
            blocks["2"]["t"]);
  EXPECT_EQ(0, blocks["0"]["more"]);
  EXPECT_EQ(nlohmann::json::parse("[1]"), data["dummies"]);
  // The findings as text, each pointing at its block; the verdict in the head.
  EXPECT_NE(std::string::npos,
            html.find("<li data-invariant=\"null_block\" data-output=\"attn\" data-block=\"0\"><span class=\"pre\">"
                      "x.json: paged-dummy-reads-row: group attn</span>: token 3 (request 1, pos 0): null_block: "
                      "kernel 0, reference -1: slot 0 is in block 0 (slots 0..15)</li>"))
      << html;
  EXPECT_EQ(10u, Count(html, "<li data-invariant=")) << "5 invariants x 2 tokens";
  EXPECT_NE(std::string::npos,
            html.find("<div class=\"verdict ok\" id=\"verdict\">ok    x.json (paged-dummy-reads-row): expected finding "
                      "caught (differential, golden, null_block, null_owner_pad, own_block)</div>"));
  EXPECT_NE(std::string::npos, html.find("<span data-request=\"1\"><i class=\"sw p1\"></i>request 1 (dummy)</span>"));
}

TEST(BlockMapHtmlTest, TheFixedKernelLeavesTheNullBlockAloneAndNothingIsOutlined) {
  Scenario s = LoadTestScenario(kScenarios + "/paged/mutants/dummy-reads-row.json");
  ASSERT_TRUE(ForceVariant("fixed", &s));
  const std::string html = Page(s);
  const std::vector<Cell> cells = Cells(html);
  ASSERT_EQ(8u, cells.size());
  EXPECT_TRUE(HasClass(cells[0], "null"));
  EXPECT_FALSE(HasClass(cells[0], "alarm"));
  EXPECT_EQ("(none)", Attr(cells[0], "data-requests"));
  EXPECT_EQ("3", Attr(cells[2], "data-tokens"));
  EXPECT_EQ(std::string::npos, html.find("data-finding=")) << html;
  EXPECT_EQ(std::string::npos, html.find("<li data-invariant="));
  // The scenario expects a finding: it does not hold.
  EXPECT_NE(std::string::npos, html.find("<div class=\"verdict fail\" id=\"verdict\">FAIL  x.json"));
}

// compressor-prefix: capacity 8, ring_block_size 4; request 0 (row [3, 4])
// positions 0, 1 -> ring rows 0, 1, column 0, block 3: slots 12, 13 in both
// outputs; the dummy request 1 (row [0, 0]) with b >= 0 accepted writes
// slots 0, 1: block 0.
TEST(BlockMapHtmlTest, AFamilyWithTwoOutputsHasAGridForEach) {
  const std::string html = Page(LoadTestScenario(kScenarios + "/rings/mutants/compressor-prefix.json"));
  for (const std::string output : {"c128", "c128.tail"}) {
    const std::vector<Cell> cells = CellsOf(html, output);
    ASSERT_EQ(8u, cells.size()) << output;
    EXPECT_TRUE(HasClass(cells[0], "alarm")) << output;
    EXPECT_EQ("1", Attr(cells[0], "data-requests")) << output;
    EXPECT_NE(std::string::npos, Attr(cells[0], "data-finding").find("null_block")) << output;
    EXPECT_EQ("0", Attr(cells[3], "data-requests")) << output;
    EXPECT_EQ("2", Attr(cells[3], "data-tokens")) << output;
    EXPECT_NE(std::string::npos, html.find("<div class=\"map\" data-map=\"" + std::string(output == "c128" ? "0" : "1") +
                                           "\" data-output=\"" + output + "\" data-blocks=\"8\">"));
  }
  EXPECT_NE(std::string::npos, html.find("<h3>output c128.tail</h3>"));
}

// Two requests whose rows both hold block 3 write slots 48, 49 twice:
// unique_slots fires, and the block is striped in both requests' colours.
TEST(BlockMapHtmlTest, ABlockTwoRequestsWroteIsStripedAndOutlined) {
  const std::string html = Page(Parse(R"({"slotguard": 1, "name": "shared", "num_blocks": 8,
    "batch": {"query_start_loc": [0, 2, 4], "seq_lens": [2, 2]},
    "groups": [{"name": "attn", "kernel": "paged", "block_size": 16, "block_table": [[3], [3]]}],
    "expect": {"verdict": "finding", "findings": ["unique_slots"]}})"));
  const std::vector<Cell> cells = Cells(html);
  ASSERT_EQ(8u, cells.size());
  EXPECT_EQ("0,1", Attr(cells[3], "data-requests"));
  EXPECT_EQ("4", Attr(cells[3], "data-tokens"));
  EXPECT_TRUE(HasClass(cells[3], "multi"));
  EXPECT_TRUE(HasClass(cells[3], "hit"));
  EXPECT_EQ("--a:var(--p0);--b:var(--p1)", Attr(cells[3], "style"));
  EXPECT_NE(std::string::npos, Attr(cells[3], "data-finding").find("unique_slots"));
  EXPECT_FALSE(HasClass(cells[0], "alarm"));
}

// A 1 000 000-block pool with one request of 20 tokens on row [5, 6]:
// tokens 0..15 in block 5, 16..19 in block 6. The null block, blocks 1..4
// (a run of 4, under kBlockMapMinRange: a cell each), 5, 6, and one range
// cell for 7..999 999.
TEST(BlockMapHtmlTest, ALargePoolIsAFewCellsAndRanges) {
  const std::string html = Page(Parse(R"({"slotguard": 1, "name": "big", "num_blocks": 1000000,
    "batch": {"query_start_loc": [0, 20], "seq_lens": [20]},
    "groups": [{"name": "attn", "kernel": "paged", "block_size": 16, "block_table": [[5, 6]]}]})"));
  const std::vector<Cell> cells = Cells(html);
  ASSERT_EQ(8u, cells.size()) << html.substr(0, 4000);
  for (int b = 0; b < 7; ++b) EXPECT_EQ(std::to_string(b), cells[b].at("data-block"));
  EXPECT_EQ("16", Attr(cells[5], "data-tokens"));
  EXPECT_EQ("4", Attr(cells[6], "data-tokens"));
  const Cell& range = cells[7];
  EXPECT_TRUE(HasClass(range, "range"));
  EXPECT_EQ("7", range.at("data-block"));
  EXPECT_EQ("999999", range.at("data-last"));
  EXPECT_EQ("<span>7\u2013999\u202f999</span><small>unwritten</small>", range.at("text"));
  EXPECT_EQ("blocks 7\u2013999\u202f999: unwritten", range.at("title"));
  EXPECT_NE(std::string::npos, html.find("data-blocks=\"1000000\""));
  EXPECT_NE(std::string::npos, html.find("1\u202f000\u202f000 blocks in the pool, 2 written by the kernel"));
  EXPECT_LT(html.size(), 40000u);
  // A gap of at least kBlockMapMinRange blocks before the first write is a range too.
  const std::vector<Cell> late = Cells(Page(Parse(R"({"slotguard": 1, "name": "late", "num_blocks": 1000,
    "batch": {"query_start_loc": [0, 1], "seq_lens": [1]},
    "groups": [{"name": "attn", "kernel": "paged", "block_size": 16, "block_table": [[100]]}]})")));
  ASSERT_EQ(4u, late.size());
  EXPECT_EQ("1", late[1].at("data-block"));
  EXPECT_EQ("99", late[1].at("data-last"));
  EXPECT_EQ("100", late[2].at("data-block"));
  EXPECT_EQ("101", late[3].at("data-block"));
  EXPECT_EQ("999", late[3].at("data-last"));
}

// 5000 consecutive blocks 1..5000 of one request (80 000 tokens): a cell
// each would pass kBlockMapMaxCells, so the run is one written range.
TEST(BlockMapHtmlTest, MoreWrittenBlocksThanCellsAreJoinedIntoRanges) {
  nlohmann::json doc = nlohmann::json::parse(R"({"slotguard": 1, "name": "wide", "num_blocks": 10000,
    "batch": {"query_start_loc": [0, 80000], "seq_lens": [80000]},
    "groups": [{"name": "attn", "kernel": "paged", "block_size": 16}]})");
  std::vector<int> row;
  for (int b = 1; b <= 5000; ++b) row.push_back(b);
  doc["groups"][0]["block_table"] = {row};
  const std::string html = Page(Parse(doc.dump()));
  const std::vector<Cell> cells = Cells(html);
  ASSERT_EQ(3u, cells.size());
  EXPECT_EQ("1", cells[1].at("data-block"));
  EXPECT_EQ("5000", cells[1].at("data-last"));
  EXPECT_EQ("80000", Attr(cells[1], "data-tokens"));
  EXPECT_TRUE(HasClass(cells[1], "p0"));
  EXPECT_EQ("<span>1\u20135\u202f000</span><small>80000 tokens</small>", cells[1].at("text"));
  EXPECT_EQ("5001", cells[2].at("data-block"));
  EXPECT_EQ(kBlockMapTokensPerBlock, Data(html)["maps"][0]["blocks"]["1"]["t"].size());
}

// Many groups, each a full grid: two requests writing alternate blocks of
// one slot (2 x 2100 tokens: 4200 blocks no two alike, more than a grid's
// 4096 cells). 20 such grids are 81 920 cells; the page draws its 65 536
// (16 grids) and says why the rest are not drawn. With the unguarded kernel
// in the padded layout request 0's last token also writes past the pool:
// those cells count against the grid's and the page's cells too.
TEST(BlockMapHtmlTest, ThePageDrawsAtMostItsCellsWhateverTheGroups) {
  const int kTokens = 2100, kGroups = 20;
  for (bool past_the_pool : {false, true}) {
    SCOPED_TRACE(past_the_pool ? "with writes past the pool" : "in the pool");
    const int first = kTokens + (past_the_pool ? 1 : 0);  // one token past its row of kTokens blocks
    nlohmann::json doc = {{"slotguard", 1}, {"name", "groups"}, {"num_blocks", 2 * kTokens + 1}};
    doc["batch"] = {{"query_start_loc", {0, first, first + kTokens}}, {"seq_lens", {first, kTokens}}};
    std::vector<int> odd, even;
    for (int i = 0; i < kTokens; ++i) {
      odd.push_back(1 + 2 * i);
      even.push_back(2 + 2 * i);
    }
    doc["groups"] = nlohmann::json::array();
    for (int g = 0; g < kGroups; ++g)
      doc["groups"].push_back({{"name", "g" + std::to_string(g)},
                               {"kernel", "paged"},
                               {"variant", past_the_pool ? "unguarded" : "fixed"},
                               {"block_size", 1},
                               {"block_table", {odd, even}}});
    Scenario s = Parse(doc.dump());
    s.table_layout = TableLayoutKind::kPadded;
    const std::string html = Page(s);
    const std::vector<Cell> cells = Cells(html);
    EXPECT_EQ(kBlockMapPageCells, cells.size());
    std::map<std::string, size_t> per_group;
    for (const Cell& c : cells) ++per_group[c.at("data-group")];
    EXPECT_EQ(kBlockMapMaxCells, per_group["g0"]);
    EXPECT_EQ(kBlockMapMaxCells, per_group["g15"]);
    EXPECT_EQ(0u, per_group.count("g16")) << "past the page's cells";
    EXPECT_EQ(0u, per_group.count("g19"));
    EXPECT_EQ(static_cast<size_t>(kGroups), Count(html, "<section class=\"group\""))
        << "every group is still listed, with its summary";
    // A note for the grid's blocks not drawn and, past the pool, one for those.
    const size_t notes = past_the_pool ? 2 : 1;
    EXPECT_EQ(notes * (kGroups - 16), Count(html, "not drawn: the page's 65\u202f536 cells are drawn"));
    EXPECT_EQ(notes * 16, Count(html, "not drawn: past 4096 cells"));
    EXPECT_EQ(past_the_pool ? static_cast<size_t>(kGroups) : 0u, Count(html, "written past the pool</b>"))
        << "each summary still says so";
  }
}

TEST(BlockMapHtmlTest, ABlocksTokenDetailsAreCapped) {
  // 200 tokens in one block of 256 slots: 64 listed, 136 counted.
  const std::string html = Page(Parse(R"({"slotguard": 1, "name": "many", "num_blocks": 4,
    "batch": {"query_start_loc": [0, 200], "seq_lens": [200]},
    "groups": [{"name": "attn", "kernel": "paged", "block_size": 256, "block_table": [[2]]}]})"));
  EXPECT_EQ("200", Attr(Cells(html)[2], "data-tokens"));
  const nlohmann::json block = Data(html)["maps"][0]["blocks"]["2"];
  EXPECT_EQ(kBlockMapTokensPerBlock, block["t"].size());
  EXPECT_EQ(200 - static_cast<int>(kBlockMapTokensPerBlock), block["more"]);
  EXPECT_EQ(63, block["t"].back()[0]);
}

TEST(BlockMapHtmlTest, AWriteOutsideThePoolIsItsOwnAlarmCell) {
  // unguarded-past-row in the padded layout: request 0's positions 8, 9 read
  // the poison column past its row, block 2147483647.
  Scenario s = LoadTestScenario(kScenarios + "/paged/mutants/unguarded-past-row.json");
  s.table_layout = TableLayoutKind::kPadded;
  const std::string html = Page(s);
  const std::vector<Cell> cells = Cells(html);
  ASSERT_FALSE(cells.empty());
  const Cell& outside = cells.back();
  EXPECT_EQ("2147483647", outside.at("data-block"));
  EXPECT_EQ("1", Attr(outside, "data-outside"));
  EXPECT_TRUE(HasClass(outside, "alarm"));
  EXPECT_NE(std::string::npos, Attr(outside, "data-finding").find("in_range"));
}

TEST(BlockMapHtmlTest, HostileNamesAreEscapedEverywhere) {
  const std::string hostile = "</script><img src=x onerror=alert(1)>";
  nlohmann::json doc = nlohmann::json::parse(R"({"slotguard": 1, "num_blocks": 8,
    "batch": {"query_start_loc": [0, 2], "seq_lens": [2]},
    "groups": [{"kernel": "paged", "block_size": 16, "block_table": [[0]]}],
    "expect": {"verdict": "finding"}})");
  doc["name"] = hostile;
  doc["description"] = "<b>bold</b> & \"quoted\" 'single' <!-- comment";
  doc["groups"][0]["name"] = "</script><svg onload=alert(2)>";
  const Scenario s = Parse(doc.dump());
  const std::string html = BlockMapHtml(s, "<x>.json", "host", RunWholeOnHost(s));
  for (const char* raw : {"<img", "<svg", "<b>", "<!--", "<x>", "onerror=alert(1)>"})
    EXPECT_EQ(std::string::npos, html.find(raw)) << raw;
  EXPECT_EQ(2u, Count(html, "<script"));
  EXPECT_EQ(2u, Count(html, "</script>"));
  EXPECT_NE(std::string::npos, html.find("<title>slotguard replay: &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</title>"));
  EXPECT_NE(std::string::npos, html.find("&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot; &#39;single&#39; &lt;!-- comment"));
  EXPECT_NE(std::string::npos, html.find("data-group=\"&lt;/script&gt;&lt;svg onload=alert(2)&gt;\""));
  // The JSON blob holds the name as it was, written so it cannot end the element.
  EXPECT_NE(std::string::npos, html.find("\\u003c/script\\u003e\\u003csvg onload=alert(2)\\u003e"));
  EXPECT_EQ("</script><svg onload=alert(2)>", Data(html)["maps"][0]["group"]);
  // The row [0] makes the request write block 0: a finding, outlined.
  EXPECT_TRUE(HasClass(Cells(html)[0], "alarm"));
}

TEST(BlockMapHtmlTest, NoPageLoadsAnythingFromAnywhere) {
  std::vector<std::string> files;
  std::string err;
  ASSERT_TRUE(CollectScenarioFiles({kScenarios}, &files, &err)) << err;
  ASSERT_GT(files.size(), 20u);
  for (const std::string& file : files) {
    const std::string html = Page(LoadTestScenario(file));
    for (const char* url : {"http://", "https://", "//cdn", " src=", " href=", "url(", "@import", "<link"})
      EXPECT_EQ(std::string::npos, html.find(url)) << file << ": " << url;
    EXPECT_NE(std::string::npos, html.find("Content-Security-Policy\" content=\"default-src 'none'")) << file;
    EXPECT_EQ(0u, html.find("<!DOCTYPE html>\n")) << file;
    EXPECT_EQ(html.size() - 8, html.rfind("</html>\n")) << file;
  }
}

TEST(BlockMapHtmlTest, APageThatCannotBeWrittenIsOneLine) {
  const Scenario s = LoadTestScenario(kScenarios + "/paged/decode.json");
  const std::string path = (std::filesystem::temp_directory_path() / "no-such-dir" / "map.html").string();
  std::string err;
  EXPECT_FALSE(WriteBlockMapHtml(path, s, "x.json", "host", RunWholeOnHost(s), &err));
  EXPECT_EQ(path + ": cannot write the HTML report: no such file or directory", err);
}

}  // namespace
}  // namespace slotguard
