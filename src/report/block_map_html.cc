// The block map page: the grids are laid out here (which blocks are cells
// of their own, which runs become ranges); the look is the inline CSS, the
// hover and click details the inline script, both below.
#include "report/block_map_html.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "invariants/group_run.h"
#include "registry/families.h"
#include "report/cause_lines.h"
#include "report/markup.h"
#include "report/replay_table.h"
#include "report/report.h"
#include "util/error_line.h"

namespace slotguard {
namespace {

/// Colours of requests 0, 1, ... (repeating); red is kept for the alarm.
constexpr int kPaletteSize = 12;


std::string Html(const std::string& text) { return EscapeMarkup(text); }

/// A name from the scenario: made one printable line (EscapeText), then HTML.
std::string Name(const std::string& text, size_t max_chars = kEscapeLimit) {
  return Html(EscapeText(text, max_chars));
}

/// "99 999": groups of three digits, a narrow no-break space between.
std::string Grouped(int64_t v) {
  const std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out = v < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += "\u202f";
    out += digits[i];
  }
  return out;
}

std::string Slot(int64_t v) { return v == kPadSlot ? "PAD" : std::to_string(v); }

std::string Joined(const std::set<std::string>& names, const char* sep = ",") {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : sep) + n;
  return out;
}

std::string RequestName(const Batch& b, int32_t r) {
  if (r < 0) return "no request";
  std::string name = "request " + std::to_string(r);
  if (b.is_dummy(r)) name += " (dummy)";
  return name;
}

/// One cell of a grid: a block, or a range of blocks alike.
struct Cell {
  int64_t first = 0, last = 0;   // block ids, inclusive
  bool null = false;             // under null_entries: the null block
  bool outside = false;          // past the pool (in_range)
  std::set<int32_t> requests;    // the kernel wrote it for these (-1: a token of no request)
  int64_t written = 0;           // tokens the kernel wrote into it
  std::set<std::string> findings;
  std::vector<int64_t> tokens;   // its tokens in the details, at most kBlockMapTokensPerBlock
  int64_t more_tokens = 0;

  bool range() const { return last > first; }
  void AddToken(int64_t t) {
    if (tokens.size() < kBlockMapTokensPerBlock) tokens.push_back(t);
    else ++more_tokens;
  }
  /// Can `next` join this cell as one range (the written-run collapse)?
  bool Joins(const Cell& next) const {
    return written > 0 && next.written > 0 && !null && !next.null && !outside && !next.outside &&
           findings.empty() && next.findings.empty() && next.first == last + 1 && requests == next.requests;
  }
};

/// The grid of one output of one group.
struct BlockGrid {
  std::vector<Cell> cells;    // the pool, in block order
  std::vector<Cell> outside;  // blocks written past the pool
  int64_t pool = 0;           // blocks in the pool
  int64_t hidden_from = -1;   // first block not drawn (past the grid's most cells), or -1
  int64_t outside_hidden = 0;  // blocks written past the pool, not drawn (past the most cells)
  int64_t written_blocks = 0, shared_blocks = 0, null_written = 0;
};

/// The unwritten blocks [from, to): a range cell per run of at least
/// kBlockMapMinRange on one side of the null block, else a cell each.
void AddUnwritten(int64_t from, int64_t to, int64_t null_entries, std::vector<Cell>* cells) {
  while (from < to) {
    const int64_t end = from < null_entries ? std::min(to, null_entries) : to;
    Cell c;
    c.null = from < null_entries;
    if (end - from >= kBlockMapMinRange) {
      c.first = from;
      c.last = end - 1;
      cells->push_back(c);
    } else {
      for (int64_t b = from; b < end; ++b) {
        c.first = c.last = b;
        cells->push_back(c);
      }
    }
    from = end;
  }
}

BlockGrid Grid(const GroupRun& facts, const std::vector<int64_t>& kernel, const std::vector<int64_t>& reference,
               const std::vector<int32_t>& request_of_token, const std::map<int64_t, std::set<std::string>>& hits,
               size_t max_cells) {
  const int64_t spe = facts.slots_per_entry;
  std::map<int64_t, Cell> marked;  // block -> what touched it
  auto at = [&](int64_t block) -> Cell& {
    Cell& c = marked[block];
    c.first = c.last = block;
    c.null = block < facts.null_entries;
    return c;
  };
  const int64_t n = static_cast<int64_t>(kernel.size());
  for (int64_t t = 0; t < n; ++t) {
    if (kernel[t] < 0 || !KernelMaps(facts, t)) continue;
    Cell& c = at(kernel[t] / spe);
    c.requests.insert(request_of_token[t]);
    ++c.written;
    c.AddToken(t);
  }
  // A finding touches the block the kernel wrote and the one the reference
  // names; a token only in the latter is listed there too.
  for (const auto& [t, invariants] : hits) {
    if (kernel[t] >= 0) at(kernel[t] / spe).findings.insert(invariants.begin(), invariants.end());
    if (reference[t] >= 0 && (kernel[t] < 0 || reference[t] / spe != kernel[t] / spe)) {
      Cell& c = at(reference[t] / spe);
      c.findings.insert(invariants.begin(), invariants.end());
      c.AddToken(t);
    }
  }
  BlockGrid grid;
  grid.pool = facts.slot_limit / spe;
  int64_t next = 0;
  for (auto& [block, cell] : marked) {
    std::sort(cell.tokens.begin(), cell.tokens.end());
    if (cell.written > 0) {
      ++grid.written_blocks;
      grid.shared_blocks += cell.requests.size() > 1;
      grid.null_written += cell.null;
    }
    if (block >= grid.pool) {
      cell.outside = true;
      grid.outside.push_back(cell);
      continue;
    }
    AddUnwritten(next, block, facts.null_entries, &grid.cells);
    grid.cells.push_back(cell);
    next = block + 1;
  }
  AddUnwritten(next, grid.pool, facts.null_entries, &grid.cells);
  if (grid.cells.size() > max_cells) {  // too many to draw: join written runs alike
    std::vector<Cell> joined;
    for (Cell& c : grid.cells) {
      if (!joined.empty() && joined.back().Joins(c)) {
        Cell& into = joined.back();
        into.last = c.last;
        into.written += c.written;
        for (int64_t t : c.tokens) into.AddToken(t);
        into.more_tokens += c.more_tokens;
      } else {
        joined.push_back(std::move(c));
      }
    }
    grid.cells = std::move(joined);
  }
  if (grid.cells.size() > max_cells) {
    grid.hidden_from = grid.cells[max_cells].first;
    grid.cells.resize(max_cells);
  }
  const size_t outside_cells = max_cells - grid.cells.size();  // the grid's cells and these: max_cells in all
  if (grid.outside.size() > outside_cells) {
    grid.outside_hidden = static_cast<int64_t>(grid.outside.size() - outside_cells);
    grid.outside.resize(outside_cells);
  }
  return grid;
}

std::string Blocks(const Cell& c) {
  return c.range() ? Grouped(c.first) + "\u2013" + Grouped(c.last) : std::to_string(c.first);
}

/// The cell's element: its data attributes say everything a test or the
/// script needs; the title says it in words for a page without script.
std::string CellHtml(const Cell& c, const std::string& group, const std::string& output, const Batch& batch) {
  std::string cls = "cell";
  std::string style;
  cls += c.written > 0 ? " w" : " e";
  if (c.range()) {
    cls += " range";
    // "123 457–999 997" needs a fourth column; 7 characters fit in three.
    const std::string label = Blocks(c);
    if (CountChars(label) > 9) cls += " r4";
  }
  if (c.null) cls += " null";
  auto colour = [](int32_t r) { return r < 0 ? std::string("pn") : "p" + std::to_string(r % kPaletteSize); };
  if (c.outside || (c.written > 0 && c.null)) {
    // Alarm red, and a band of the first writer's colour at the bottom.
    cls += " alarm";
    if (c.written > 0) style = "--a:var(--" + colour(*c.requests.begin()) + ")";
  } else if (c.written > 0) {
    if (c.requests.size() == 1) {
      cls += " " + colour(*c.requests.begin());
    } else {
      auto second = std::next(c.requests.begin());
      cls += " multi";
      style = "--a:var(--" + colour(*c.requests.begin()) + ");--b:var(--" + colour(*second) + ")";
    }
  }
  if (!c.findings.empty()) cls += " hit";
  // Long block ids get a smaller font, and from 7 digits two columns.
  const size_t digits = std::to_string(c.first).size();
  if (!c.range() && !c.null && digits >= 5) cls += digits >= 7 ? " dw" : " d" + std::to_string(digits);
  std::string title = (c.range() ? "blocks " : "block ") + Blocks(c);
  if (c.null) title += " (null block)";
  if (c.outside) title += " (outside the pool)";
  std::string html = "<div class=\"" + cls + "\" data-group=\"" + group + "\" data-output=\"" + output +
                     "\" data-block=\"" + std::to_string(c.first) + "\"";
  if (c.range()) html += " data-last=\"" + std::to_string(c.last) + "\"";
  if (c.null) html += " data-null=\"1\"";
  if (c.outside) html += " data-outside=\"1\"";
  if (c.written > 0) {
    std::string requests, names;
    for (int32_t r : c.requests) {
      requests += (requests.empty() ? "" : ",") + std::to_string(r);
      names += (names.empty() ? "" : ", ") + RequestName(batch, r);
    }
    html += " data-requests=\"" + requests + "\" data-tokens=\"" + std::to_string(c.written) + "\"";
    title += ": written by " + names + ", " + std::to_string(c.written) + (c.written == 1 ? " token" : " tokens");
  } else {
    title += ": unwritten";
  }
  if (!c.findings.empty()) {
    html += " data-finding=\"" + Joined(c.findings) + "\"";
    title += "; findings: " + Joined(c.findings, ", ");
  }
  if (!style.empty()) html += " style=\"" + style + "\"";
  html += " title=\"" + Html(title) + "\">";
  if (c.range()) {
    html += "<span>" + std::string(c.null ? "\u2205 " : "") + Blocks(c) + "</span><small>" +
            (c.written > 0 ? std::to_string(c.written) + " tokens" : std::string("unwritten")) + "</small>";
  } else {
    html += c.null ? "\u2205" : std::to_string(c.first);
  }
  return html + "</div>";
}

/// The per-token details of a grid's cells, for the script: block -> rows of
/// [token, request, position, kernel, reference, invariants, wrote here].
nlohmann::json GridTokens(const BlockGrid& grid, const GroupRun& facts, const std::vector<int64_t>& kernel,
                          const std::vector<int64_t>& reference, const std::vector<int32_t>& request_of_token,
                          const std::map<int64_t, std::set<std::string>>& hits, int64_t* budget) {
  nlohmann::json blocks = nlohmann::json::object();
  const Batch& b = facts.batch();
  auto add = [&](const Cell& c) {
    if (c.tokens.empty()) return;
    nlohmann::json rows = nlohmann::json::array();
    int64_t more = c.more_tokens;
    for (int64_t t : c.tokens) {
      if (*budget <= 0) {
        ++more;
        continue;
      }
      --*budget;
      auto hit = hits.find(t);
      const bool wrote = kernel[t] >= 0 && kernel[t] / facts.slots_per_entry >= c.first &&
                         kernel[t] / facts.slots_per_entry <= c.last;
      rows.push_back({t, request_of_token[t], std::to_string(b.positions[t]), Slot(kernel[t]), Slot(reference[t]),
                      hit == hits.end() ? std::string() : Joined(hit->second), wrote ? 1 : 0});
    }
    blocks[std::to_string(c.first)] = {{"t", rows}, {"more", more}};
  };
  for (const Cell& c : grid.cells) add(c);
  for (const Cell& c : grid.outside) add(c);
  return blocks;
}

const char kStyle[] = R"css(
:root{--cell:34px;--alarm:#d62728;--hit:#e4007c;--sel:#1f6feb;
--p0:#4e79a7;--p1:#f28e2b;--p2:#59a14f;--p3:#b07aa1;--p4:#76b7b2;--p5:#edc948;
--p6:#9c755f;--p7:#ff9da7;--p8:#8cd17d;--p9:#a0cbe8;--p10:#d4a6c8;--p11:#86bcb6;--pn:#5f6368}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,"DejaVu Sans",sans-serif;color:#1d232a;background:#f3f5f8}
header{padding:14px 22px 12px;background:#fff;border-bottom:1px solid #d8dde3}
h1{font-size:19px;margin:0 0 2px}h1 small{font-weight:normal;color:#57606a}
h2{font-size:16px;margin:0 0 4px}h3{font-size:14px;margin:12px 0 4px}
.sub{color:#57606a;margin:2px 0}.desc{max-height:4.4em;overflow:auto}
.causes{margin-top:8px;font-size:13.5px}.causes h2{font-size:14px;margin:6px 0 2px}
.causes ul{margin:0;padding-left:20px}.causes li{margin:1px 0;word-break:break-word}
.causes .null-writers li{color:#8a1616}.causes .none{margin:4px 0;color:#135a2a}
p.cause{margin:2px 0 4px;font-weight:600}
code,.mono,.verdict,ol.findings{font-family:"DejaVu Sans Mono",ui-monospace,monospace;font-size:12.5px}
.verdict{display:inline-block;margin-top:6px;padding:4px 10px;border-radius:4px;border:1px solid}
.verdict.ok{background:#e6f4ea;color:#135a2a;border-color:#9fd3ad}
.verdict.fail{background:#fde7e7;color:#8a1616;border-color:#f0a8a8}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin-top:10px;align-items:center;font-size:12.5px}
.legend span{display:inline-flex;align-items:center;gap:5px}
.sw{width:16px;height:16px;border-radius:3px;border:1px solid #cfd5dc;display:inline-block;font-size:11px;
line-height:14px;text-align:center}
.zoom{display:inline-flex;gap:6px;align-items:center;margin-left:auto}.zoom[hidden]{display:none}
.zoom button{width:26px;height:24px;font-size:15px;line-height:1;border:1px solid #b8c0c8;background:#fff;
border-radius:4px;cursor:pointer}
main{display:flex;gap:18px;padding:16px 22px;align-items:flex-start}
#maps{flex:1;min-width:0}
aside{position:sticky;top:12px;width:360px;flex:none;background:#fff;border:1px solid #d8dde3;border-radius:6px;
padding:12px 14px;max-height:calc(100vh - 24px);overflow:auto;font-size:13px}
aside h2{font-size:15px}
section.group{background:#fff;border:1px solid #d8dde3;border-radius:6px;padding:12px 16px 14px;margin-bottom:16px}
.map{margin-top:10px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,var(--cell));grid-auto-rows:var(--cell);gap:3px;
margin-top:6px}
.cell{position:relative;display:flex;flex-direction:column;align-items:center;justify-content:center;
border:1px solid #d3d9df;border-radius:3px;background:#eef1f4;color:#6e7781;overflow:hidden;cursor:pointer;
font-size:calc(var(--cell)*.32);line-height:1.1;white-space:nowrap;user-select:none}
.cell.w{color:#fff;text-shadow:0 0 2px rgba(0,0,0,.55);border-color:rgba(0,0,0,.25)}
.p0{background:var(--p0)}.p1{background:var(--p1)}.p2{background:var(--p2)}.p3{background:var(--p3)}
.p4{background:var(--p4)}.p5{background:var(--p5)}.p6{background:var(--p6)}.p7{background:var(--p7)}
.p8{background:var(--p8)}.p9{background:var(--p9)}.p10{background:var(--p10)}.p11{background:var(--p11)}
.pn{background:var(--pn)}
.multi{background:repeating-linear-gradient(45deg,var(--a) 0 5px,var(--b) 5px 10px)}
.cell.range{grid-column:span 3}.cell.range.r4{grid-column:span 4}
.cell.range.e{background:repeating-linear-gradient(90deg,#eef1f4 0 6px,#e2e6ea 6px 7px)}
.cell.range small{font-size:.8em;opacity:.85}
.cell.d5{font-size:calc(var(--cell)*.26)}.cell.d6{font-size:calc(var(--cell)*.22)}
.cell.dw{grid-column:span 2;font-size:calc(var(--cell)*.24)}
.cell.null{border:2px solid #111;background:#fff;color:#111;font-weight:bold;font-size:calc(var(--cell)*.45)}
.cell.null.range{font-size:calc(var(--cell)*.32)}
.cell.alarm{background:linear-gradient(var(--alarm) 0 74%,var(--a,var(--alarm)) 74%);color:#fff;
border:2px solid #111;text-shadow:none}
.cell.hit{outline:3px solid var(--hit);outline-offset:1px;z-index:1}
.cell.sel{box-shadow:0 0 0 5px #fff,0 0 0 8px var(--sel);z-index:2}
.outside{margin-top:8px}
ol.findings{margin:4px 0 0;padding-left:22px}
ol.findings li{margin:2px 0;word-break:break-word}
ol.findings li[data-block]{cursor:pointer}ol.findings li[data-block]:hover{background:#fff3fa}
.more,.note{color:#57606a}
.fault{color:#8a1616}
table.tokens{border-collapse:collapse;width:100%;margin-top:6px;font-size:12px}
table.tokens th,table.tokens td{text-align:right;padding:2px 5px;border-bottom:1px solid #eceff2}
table.tokens th{color:#57606a;font-weight:600}
table.tokens tr.inv td{text-align:left;color:#8a1616;padding-top:0;font-size:11.5px;white-space:normal}
table.tokens tr.has-inv td{border-bottom:none}
table.tokens tr.ref td{color:#8a949e}
)css";

const char kScript[] = R"js(
(function () {
  var data = JSON.parse(document.getElementById('sg-data').textContent);
  var panel = document.getElementById('details');
  var pinned = null;
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function requestName(r) {
    if (r < 0) return 'no request';
    return 'request ' + r + (data.dummies.indexOf(r) >= 0 ? ' (dummy)' : '');
  }
  function show(cell) {
    var map = data.maps[+cell.closest('.map').dataset.map];
    var d = cell.dataset;
    var range = d.last !== undefined;
    panel.textContent = '';
    panel.dataset.group = d.group;
    panel.dataset.output = d.output;
    panel.dataset.block = d.block;
    var where = 'group ' + map.group + (map.output !== map.group ? ', output ' + map.output : '');
    panel.appendChild(el('h2', (range ? 'blocks ' + d.block + '\u2013' + d.last : 'block ' + d.block) +
      (d.null ? ' (null block)' : '') + (d.outside ? ' (outside the pool)' : '')));
    panel.appendChild(el('div', where, 'sub'));
    var who = 'unwritten';
    if (d.requests !== undefined)
      who = 'written by ' + d.requests.split(',').map(Number).map(requestName).join(', ') + ': ' + d.tokens +
        (d.tokens === '1' ? ' token' : ' tokens');
    panel.appendChild(el('p', who));
    if (d.null && d.requests !== undefined)
      panel.appendChild(el('p', 'the kernel wrote into the null block', 'fault'));
    if (d.finding) panel.appendChild(el('p', 'findings: ' + d.finding.split(',').join(', '), 'fault'));
    var rows = map.blocks[d.block];
    if (!rows) return;
    var table = el('table', undefined, 'tokens');
    var head = el('tr');
    ['token', 'req', 'pos', 'kernel', 'reference'].forEach(function (h) { head.appendChild(el('th', h)); });
    table.appendChild(head);
    rows.t.forEach(function (row) {
      var tr = el('tr', undefined, (row[6] ? '' : 'ref') + (row[5] ? ' has-inv' : ''));
      tr.dataset.token = row[0];
      [row[0], row[1] < 0 ? '-' : row[1], row[2], row[3], row[4]].forEach(function (v) { tr.appendChild(el('td', String(v))); });
      table.appendChild(tr);
      if (!row[5]) return;
      var inv = el('tr', undefined, 'inv');
      var td = el('td', row[5].split(',').join(', '));
      td.colSpan = 5;
      inv.appendChild(td);
      table.appendChild(inv);
    });
    panel.appendChild(table);
    if (rows.t.some(function (row) { return !row[6]; }))
      panel.appendChild(el('p', 'grey rows: the reference maps the token here, the kernel did not', 'note'));
    if (rows.more > 0) panel.appendChild(el('p', rows.more + ' more tokens not shown', 'more'));
  }
  function select(cell) {
    if (pinned) pinned.classList.remove('sel');
    pinned = cell;
    cell.classList.add('sel');
    show(cell);
  }
  document.addEventListener('mouseover', function (e) {
    var cell = e.target.closest('.cell');
    if (cell) show(cell);
  });
  document.addEventListener('mouseout', function (e) {
    if (pinned && e.target.closest('.cell') && !(e.relatedTarget && e.relatedTarget.closest('.cell'))) show(pinned);
  });
  document.addEventListener('click', function (e) {
    var cell = e.target.closest('.cell');
    var line = e.target.closest('li[data-block]');
    if (line) cell = document.querySelector('.cell[data-output="' + CSS.escape(line.dataset.output) +
      '"][data-block="' + line.dataset.block + '"]');
    if (cell) {
      select(cell);
      if (line) cell.scrollIntoView({block: 'center'});
    }
  });
  var zoom = document.getElementById('zoom');
  function setZoom(px) {
    px = Math.max(+zoom.min, Math.min(+zoom.max, px));
    zoom.value = px;
    document.documentElement.style.setProperty('--cell', px + 'px');
    document.getElementById('zoom-px').textContent = px + ' px';
  }
  zoom.addEventListener('input', function () { setZoom(+zoom.value); });
  document.getElementById('zoom-in').addEventListener('click', function () { setZoom(+zoom.value + 6); });
  document.getElementById('zoom-out').addEventListener('click', function () { setZoom(+zoom.value - 6); });
  document.querySelector('.zoom').hidden = false;
  var first = document.querySelector('.cell.hit') || document.querySelector('.cell.w');
  if (first) select(first);
  document.body.dataset.cells = document.querySelectorAll('.cell').length;
  document.body.classList.add('sg-ready');
})();
)js";

/// JSON text that cannot end a <script> element nor open a comment.
std::string ScriptJson(const nlohmann::json& j) {
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string BlockMapHtml(const Scenario& s, const std::string& file, const std::string& backend,
                         const ScenarioRun& run) {
  const Batch& b = s.batch;
  const ScenarioReport report = ReplayReport(s, file, run);
  std::string html;
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Nothing may load from anywhere: the page is one file.
  html += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "script-src 'unsafe-inline'\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // Which slotguard wrote the page, as every other report says.
  html += "<meta name=\"generator\" content=\"slotguard " + Html(kSlotguardVersion) + "\">\n";
  html += "<title>slotguard replay: " + Name(s.name) + "</title>\n<style>" + std::string(kStyle) + "</style>\n";
  html += "</head>\n<body>\n<header>\n";
  html += "<h1>" + Name(s.name) + " <small>slotguard " + Html(kSlotguardVersion) + " replay</small></h1>\n";
  if (!s.description.empty()) html += "<div class=\"sub desc\">" + Name(s.description, 4096) + "</div>\n";
  html += "<div class=\"sub\"><code>" + Name(file, 4096) + "</code>, backend " + Html(backend) + "; " +
          std::to_string(b.num_reqs()) + " requests, " + std::to_string(b.num_real_tokens()) +
          " real tokens, num_actual_tokens " + std::to_string(b.num_actual_tokens) + ", num_tokens " +
          std::to_string(b.num_tokens) + ", num_blocks " + std::to_string(s.num_blocks) + "</div>\n";
  html += "<div class=\"verdict " + std::string(report.holds ? "ok" : "fail") + "\" id=\"verdict\">" +
          Html(ScenarioLine(report)) + "</div>\n";
  // What the page is about, first: the groups whose kernel wrote block 0,
  // and by whom; then any other group with findings.
  {
    std::string wrote, other;
    for (const GroupReport& g : report.groups) {
      if (g.counts.empty()) continue;
      const std::string li = "<li data-group=\"" + Name(g.name) + "\">" + Html(GroupHeadline(g)) + "</li>";
      (WroteNullBlock(g) ? wrote : other) += li;
    }
    html += "<section class=\"causes\" id=\"causes\">";
    html += wrote.empty() ? "<p class=\"none\">No group wrote block 0.</p>"
                          : "<h2>Block 0 written</h2><ul class=\"null-writers\" id=\"null-writers\">" + wrote + "</ul>";
    if (!other.empty()) html += "<h2>Other findings</h2><ul class=\"other-causes\">" + other + "</ul>";
    html += "</section>\n";
  }

  // Legend: the requests' colours, then the marks.
  html += "<div class=\"legend\" id=\"legend\">";
  // One entry per colour: with more requests than colours, the requests
  // that share it ("requests 1, 13, 25, ...").
  for (int32_t r = 0; r < std::min(b.num_reqs(), kPaletteSize); ++r) {
    std::string label = RequestName(b, r);
    if (b.num_reqs() > kPaletteSize) {
      label = "requests " + std::to_string(r);
      for (int32_t again = r + kPaletteSize; again < b.num_reqs() && again <= r + 2 * kPaletteSize;
           again += kPaletteSize)
        label += ", " + std::to_string(again);
      if (r + 3 * kPaletteSize < b.num_reqs()) label += ", \u2026";
    }
    html += "<span data-request=\"" + std::to_string(r) + "\"><i class=\"sw p" + std::to_string(r) + "\"></i>" +
            Html(label) + "</span>";
  }
  html += "<span><i class=\"sw pn\"></i>no request</span>"
          "<span><i class=\"sw multi\" style=\"--a:var(--p0);--b:var(--p1)\"></i>two or more requests</span>"
          "<span><i class=\"sw\" style=\"background:#eef1f4\"></i>unwritten</span>"
          "<span><i class=\"sw\" style=\"border:2px solid #111\">\u2205</i>null block</span>"
          "<span><i class=\"sw\" style=\"background:var(--alarm);border:2px solid #111\"></i>written into the null "
          "block or past the pool</span>"
          "<span><i class=\"sw\" style=\"outline:3px solid var(--hit);outline-offset:1px\"></i>touched by a "
          "finding</span>";
  html += "<span class=\"zoom\" hidden><span>zoom</span><button type=\"button\" id=\"zoom-out\" "
          "title=\"smaller cells\">\u2212</button><input type=\"range\" id=\"zoom\" min=\"10\" max=\"70\" "
          "value=\"34\" aria-label=\"cell size\"><button type=\"button\" id=\"zoom-in\" title=\"larger cells\">+"
          "</button><span id=\"zoom-px\">34 px</span></span>";
  html += "</div>\n</header>\n<main>\n<div id=\"maps\">\n";

  nlohmann::json data;
  data["dummies"] = nlohmann::json::array();
  for (int32_t r = 0; r < b.num_reqs(); ++r)
    if (b.is_dummy(r)) data["dummies"].push_back(r);
  data["maps"] = nlohmann::json::array();
  int64_t budget = kBlockMapPageTokens;
  size_t cells_left = kBlockMapPageCells;

  if (report.status == ScenarioStatus::kSkipped)
    html += "<section class=\"group\"><p class=\"note\">" + Html(report.verdict) + ": nothing was run</p></section>\n";
  for (size_t gi = 0; report.status != ScenarioStatus::kSkipped && gi < s.groups.size(); ++gi) {
    const Group& group = s.groups[gi];
    const std::string gname = Name(group.name);
    html += "<section class=\"group\" data-group=\"" + gname + "\">\n";
    GroupRun facts;
    facts.scenario = &s;
    facts.group = &group;
    facts.request_of_token = &run.request_of_token[gi];
    SetAddressing(&facts);
    html += "<h2>group " + gname + "</h2>\n<div class=\"sub\">" + GetFamily(group.family).name + ", variant " +
            GetVariant(group.variant).name + ", " + std::to_string(group.table.rows) + "x" +
            std::to_string(group.table.width) +
            (b.table_rows == TableRows::kIdxMapping ? " persistent table (request r reads row idx_mapping[r])"
                                                    : " table") +
            "; blocks of " + std::to_string(facts.slots_per_entry) + " slots, null block = " +
            (facts.null_entries > 1 ? "blocks 0\u2013" + std::to_string(facts.null_entries - 1) + ", " : "") +
            "slots [0, " + std::to_string(facts.page()) + ")</div>\n";
    const std::vector<Finding>& kept = run.findings[gi].kept();
    if (!run.kernel[gi].fault.empty()) {
      html += "<p class=\"fault\">no outputs: " + Html(EscapeText(run.kernel[gi].fault, 4096)) + "</p>\n";
    } else {
      for (size_t o = 0; o < run.output_names[gi].size(); ++o) {
        const std::string& name = run.output_names[gi][o];
        const std::vector<int64_t>& kernel = run.kernel[gi].engine[o];
        const std::vector<int64_t>& reference = run.reference[gi][o];
        std::map<int64_t, std::set<std::string>> hits;
        for (const Finding& f : kept)
          if (f.output == name && f.token >= 0 && f.token < b.num_tokens) hits[f.token].insert(f.invariant);
        const size_t max_cells = std::min(kBlockMapMaxCells, cells_left);
        const BlockGrid grid = Grid(facts, kernel, reference, run.request_of_token[gi], hits, max_cells);
        cells_left -= std::min(cells_left, grid.cells.size() + grid.outside.size());
        // Why cells are missing: this grid's most, or the page's.
        const std::string past = max_cells < kBlockMapMaxCells
                                     ? "the page's " + Grouped(static_cast<int64_t>(kBlockMapPageCells)) +
                                           " cells are drawn"
                                     : "past " + std::to_string(kBlockMapMaxCells) + " cells";
        const std::string oname = Name(name);
        html += "<div class=\"map\" data-map=\"" + std::to_string(data["maps"].size()) + "\" data-output=\"" +
                oname + "\" data-blocks=\"" + std::to_string(grid.pool) + "\">\n";
        if (run.output_names[gi].size() > 1) html += "<h3>output " + oname + "</h3>\n";
        std::string summary = Grouped(grid.pool) + " blocks in the pool, " + Grouped(grid.written_blocks) +
                              " written by the kernel";
        if (grid.shared_blocks) summary += ", " + Grouped(grid.shared_blocks) + " by two or more requests";
        if (grid.null_written) summary += "; <b class=\"fault\">the kernel wrote into the null block</b>";
        const int64_t outside = static_cast<int64_t>(grid.outside.size()) + grid.outside_hidden;  // drawn or not
        if (outside > 0)
          summary += "; <b class=\"fault\">" + Grouped(outside) + (outside == 1 ? " block" : " blocks") +
                     " written past the pool</b>";
        html += "<div class=\"sub\">" + summary + "</div>\n<div class=\"grid\">";
        for (const Cell& c : grid.cells) html += CellHtml(c, gname, oname, b);
        html += "</div>\n";
        if (grid.hidden_from >= 0)
          html += "<p class=\"note\">blocks " + Grouped(grid.hidden_from) + "\u2013" + Grouped(grid.pool - 1) +
                  " not drawn: " + past + " (the text replay lists every block written)</p>\n";
        if (!grid.outside.empty()) {
          html += "<div class=\"outside\"><div class=\"sub\">written past the pool (blocks &ge; " +
                  Grouped(grid.pool) + "):</div><div class=\"grid\">";
          for (const Cell& c : grid.outside) html += CellHtml(c, gname, oname, b);
          html += "</div></div>\n";
        }
        if (grid.outside_hidden > 0)
          html += "<p class=\"note\">" + Grouped(grid.outside_hidden) + " more blocks written past the pool not drawn: " +
                  past + "</p>\n";
        html += "</div>\n";
        data["maps"].push_back({{"group", EscapeText(group.name)},
                                {"output", EscapeText(name)},
                                {"blocks", GridTokens(grid, facts, kernel, reference, run.request_of_token[gi], hits,
                                                      &budget)}});
      }
    }
    // The findings, as the text replay lists them: the group's headline,
    // then one line per token (the first few per invariant), each pointing
    // at its block; the rest counted.
    if (!kept.empty()) {
      const GroupReport& g = report.groups[gi];
      html += "<h3>findings</h3>\n<p class=\"cause\">" + Html(CauseText(g)) + "</p>\n<ol class=\"findings\">\n";
      std::map<std::string, int64_t> listed;
      std::vector<Finding> shown;
      for (const Finding& f : kept)
        if (listed[f.invariant]++ < static_cast<int64_t>(kReplayMaxFindings)) shown.push_back(f);
      for (const TokenLine& line : FoldFindings(group.name, shown)) {
        std::string names;
        for (const std::string& n : line.invariants) names += (names.empty() ? "" : ",") + n;
        html += "<li data-invariants=\"" + Html(names) + "\" data-output=\"" + Name(line.output) + "\"";
        if (line.token >= 0 && line.token < b.num_tokens && run.kernel[gi].fault.empty()) {
          html += " data-token=\"" + std::to_string(line.token) + "\"";
          const size_t o = std::find(run.output_names[gi].begin(), run.output_names[gi].end(), line.output) -
                           run.output_names[gi].begin();
          if (o < run.output_names[gi].size()) {
            const int64_t k = run.kernel[gi].engine[o][line.token], ref = run.reference[gi][o][line.token];
            const int64_t slot = k >= 0 ? k : ref;
            if (slot >= 0) html += " data-block=\"" + std::to_string(slot / facts.slots_per_entry) + "\"";
          }
        }
        html += ">" + Html(line.text) + "</li>\n";
      }
      html += "</ol>\n";
      int64_t total = 0;
      for (const auto& [name, count] : run.findings[gi].counts()) total += count;
      if (total > static_cast<int64_t>(shown.size()))
        html += "<p class=\"more\">" + std::to_string(total - static_cast<int64_t>(shown.size())) +
                " more findings not shown (the text replay's --max-findings 0 lists them)</p>\n";
    }
    html += "</section>\n";
  }
  html += "</div>\n<aside id=\"details\"><h2>details</h2><p class=\"note\">Hover over a block, or click it to keep "
          "it here: its tokens with their request, position, kernel slot and reference slot.</p></aside>\n</main>\n";
  html += "<script type=\"application/json\" id=\"sg-data\">" + ScriptJson(data) + "</script>\n";
  html += "<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n";
  return html;
}

bool WriteBlockMapHtml(const std::string& path, const Scenario& scenario, const std::string& file,
                       const std::string& backend, const ScenarioRun& run, std::string* err) {
  return WriteReportFile(path, BlockMapHtml(scenario, file, backend, run), "HTML", err);
}

}  // namespace slotguard
