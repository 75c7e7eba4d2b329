#!/usr/bin/env bash
# replay --html in a real browser: headless Chromium loads the page of a
# mutant scenario (paged dummy_reads_row: the dummy request writes block 0),
# its script runs, and the DOM it leaves holds the cells worked out by hand;
# the screenshot is not blank and shows the null block in alarm red.
# Usage: render_block_map.sh SLOTGUARD. Exit 77 (skipped) without chromium.
# RENDER_BLOCK_MAP_OUT=DIR keeps the page, the DOM and the screenshot there.
set -uo pipefail
SG=$1
if ! command -v chromium > /dev/null; then
  echo "render_block_map skipped: no chromium (apt-get install chromium)"
  exit 77
fi
if [ ! -x /usr/bin/python3 ]; then
  echo "render_block_map skipped: no /usr/bin/python3 (apt-get install python3)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scenario=scenarios/paged/mutants/dummy-reads-row.json
page=$work/map.html

if ! "$SG" replay --backend host --html "$page" "$scenario" > "$work/replay.txt" 2>&1; then
  echo "FAIL: slotguard replay --backend host --html $page $scenario exited $?:"
  cat "$work/replay.txt"
  exit 1
fi
# Its own profile folder, so nothing is written under $HOME.
chrome=(timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile")
"${chrome[@]}" --dump-dom "file://$page" > "$work/dom.html" 2> "$work/chromium-dom.log"
dom_rc=$?
"${chrome[@]}" --screenshot="$work/map.png" --window-size=1200,900 "file://$page" > "$work/chromium-png.log" 2>&1
png_rc=$?
if [ -n "${RENDER_BLOCK_MAP_OUT:-}" ]; then
  mkdir -p "$RENDER_BLOCK_MAP_OUT" && cp "$page" "$work"/dom.html "$work"/map.png "$RENDER_BLOCK_MAP_OUT"/ 2>/dev/null
fi
if [ $dom_rc -ne 0 ] || [ $png_rc -ne 0 ]; then
  echo "FAIL: chromium exited $dom_rc (--dump-dom) and $png_rc (--screenshot):"
  tail -20 "$work/chromium-dom.log" "$work/chromium-png.log"
  exit 1
fi

/usr/bin/python3 - "$work/dom.html" "$work/map.png" <<'PY'
import struct
import sys
import zlib
from html.parser import HTMLParser

dom_path, png_path = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


class Elements(HTMLParser):
    """Every element's tag and attributes, and the text inside #details."""

    def __init__(self):
        super().__init__()
        self.elements = []
        self.depth_in_details = 0
        self.details_text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        a["tag"] = tag
        a["classes"] = set((a.get("class") or "").split())
        self.elements.append(a)
        if self.depth_in_details or a.get("id") == "details":
            self.depth_in_details += 1

    def handle_endtag(self, tag):
        if self.depth_in_details:
            self.depth_in_details -= 1

    def handle_data(self, data):
        if self.depth_in_details:
            self.details_text.append(data)


parser = Elements()
parser.feed(open(dom_path, encoding="utf-8").read())
els = parser.elements
check(len(els) > 0, "chromium dumped the DOM")


def first(pred):
    """The first element that pred holds for, or an empty one."""
    return next((e for e in els if pred(e)), {"tag": "", "classes": set()})


body = first(lambda e: e["tag"] == "body")
check("sg-ready" in body["classes"], "the page's script ran (body.sg-ready)")
check(body.get("data-cells") == "8", "the script counted 8 cells, got %s" % body.get("data-cells"))
cells = [e for e in els if "cell" in e["classes"] and e["tag"] == "div"]
check([c.get("data-block") for c in cells] == [str(b) for b in range(8)],
      "blocks 0..7 of group attn, one cell each: %s" % [c.get("data-block") for c in cells])
check(all(c.get("data-group") == "attn" for c in cells), "every cell is group attn's")
if len(cells) == 8:
    null = cells[0]
    check(null.get("data-null") == "1" and {"null", "alarm", "hit"} <= null["classes"],
          "block 0 is the null block, in alarm red, outlined: %s" % sorted(null["classes"]))
    check(null.get("data-requests") == "1" and null.get("data-tokens") == "2",
          "block 0: request 1 wrote 2 tokens")
    check("null_block" in (null.get("data-finding") or "").split(","), "block 0 carries the null_block finding")
    check("sel" in null["classes"], "the script selected the first block with a finding")
    check(cells[2].get("data-requests") == "0" and cells[2].get("data-tokens") == "3",
          "block 2: request 0 wrote 3 tokens")
    check(all("e" in cells[b]["classes"] and "data-requests" not in cells[b] for b in (1, 3, 4, 5, 6, 7)),
          "blocks 1, 3..7 are unwritten")
details = first(lambda e: e.get("id") == "details")
check(details.get("data-block") == "0" and details.get("data-group") == "attn",
      "the details panel shows group attn's block 0")
rows = [e.get("data-token") for e in els if e["tag"] == "tr" and e.get("data-token") is not None]
check(rows == ["3", "4"], "the details list tokens 3 and 4 (built by the script): %s" % rows)
text = " ".join(" ".join(parser.details_text).split())
check("written by request 1 (dummy): 2 tokens" in text, "the details say who wrote it: " + text[:120])
# The page opens with who wrote block 0: one item, group attn's, before the grids.
order = [e.get("id") for e in els if e.get("id") in ("null-writers", "maps")]
check(order == ["null-writers", "maps"], "the list of groups that wrote block 0 comes first: %s" % order)
writers = [e for e in els if e["tag"] == "li" and e.get("data-group") is not None]
check([w.get("data-group") for w in writers] == ["attn"], "one group wrote block 0, attn: %s" % writers)
lines = [e for e in els if e["tag"] == "li" and e.get("data-invariants") is not None]
check([l.get("data-token") for l in lines] == ["3", "4"], "a findings line per token, 3 and 4: %s" % lines)
zoom = first(lambda e: "zoom" in e["classes"])
check(zoom["tag"] and "hidden" not in zoom, "the script showed the zoom control")


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and colour in (2, 6) and interlace == 0, "unexpected PNG format"
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


try:
    width, height, rows = png_pixels(png_path)
except (OSError, AssertionError, zlib.error, struct.error) as e:
    check(False, "the screenshot is a PNG: %s" % e)
    sys.exit(1)
check((width, height) == (1200, 900), "the screenshot is 1200x900, got %dx%d" % (width, height))
counts = {}
for row in rows:
    for px in row:
        counts[px] = counts.get(px, 0) + 1
background, most = max(counts.items(), key=lambda kv: kv[1])
total = width * height
check(len(counts) > 16, "the screenshot has %d distinct colours" % len(counts))
check(1 - most / total > 0.15, "%.0f%% of the screenshot is not the background %s" % (100 * (1 - most / total), background))


def near(rgb, want, tolerance=12):
    return all(abs(a - b) <= tolerance for a, b in zip(rgb, want))


red = sum(n for px, n in counts.items() if near(px, (0xd6, 0x27, 0x28)))
blue = sum(n for px, n in counts.items() if near(px, (0x4e, 0x79, 0xa7)))
check(red > 300, "the null block is drawn in alarm red (%d pixels)" % red)
check(blue > 300, "request 0's block is drawn in its colour (%d pixels)" % blue)
sys.exit(1 if failures else 0)
PY
