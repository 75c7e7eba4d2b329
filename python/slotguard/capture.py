"""Turn one engine step into a slotguard scenario file.

    slotguard.capture("step-1234.json",
        query_start_loc=attn_metadata.query_start_loc,       # torch (CUDA ok), numpy or lists
        positions=positions[:num_tokens],
        seq_lens=seq_lens,
        idx_mapping=idx_mapping,                             # v2 runner; None: 0 .. R-1
        num_actual_tokens=num_actual_tokens, num_tokens=num_tokens,
        table_rows="idx_mapping",                            # the v2 runner's persistent tables
        num_blocks=num_gpu_blocks,
        groups=[dict(name="attn", family="paged", block_size=16, block_table=block_table_tensor),
                dict(name="tail", family="kpool_tail", kpool=128, block_table=kpool_table)])

then `slotguard check step-1234.json` (or `slotguard replay`). The file
follows docs/scenario-format.md: format 1, or 2 when it needs a format-2
key (table_rows "idx_mapping", table_layout).

Engine buffers are often longer than the step: per-token arrays longer than
num_tokens, per-request arrays longer than R, and (table_rows "request")
tables with more rows than R are cut to size; shorter ones are errors. Pass
num_reqs= when query_start_loc is a longer persistent buffer.
"""

import json

__all__ = ["capture", "scenario_dict", "FAMILY_KEYS"]

INT32_MAX = 2 ** 31 - 1
INT64_MIN = -2 ** 63
INT64_MAX = 2 ** 63 - 1
MAX_POSITION = 2 ** 62 - 1

# The scenario format's group keys per family (docs/families.md#parameters).
FAMILY_KEYS = {
    "paged": ("block_size", "kernel_block_size", "dcp", "enabled"),
    "kpool_tail": ("kpool",),
    "qsa_ring": ("ring",),
    "qsa_compressed": ("block_size", "compress_ratio", "common"),
    "compressor_ring": ("capacity", "ring_block_size"),
}
_REQUIRED = {
    "paged": ("block_size",),
    "kpool_tail": ("kpool",),
    "qsa_ring": ("ring",),
    "qsa_compressed": ("block_size", "compress_ratio"),
    "compressor_ring": ("capacity", "ring_block_size"),
}
_DCP_KEYS = ("world", "rank", "interleave")


def _kind(x):
    """A short description of a value for "got ..." (never the whole value)."""
    if isinstance(x, (str, bytes)):
        return "the %s %r" % (type(x).__name__, x[:40])
    if isinstance(x, (list, tuple)):
        return "a %s of %d elements" % (type(x).__name__, len(x))
    if isinstance(x, (int, float, type(None))):
        return "%r" % (x,)
    name = type(x).__name__
    return ("an %s" if name[:1] in "aeiouAEIOU" else "a %s") % name


def _tolist(x):
    """Tensors (CUDA ones come to the CPU) and numpy arrays as Python values."""
    if hasattr(x, "detach"):
        x = x.detach().cpu()
    if hasattr(x, "tolist") and not isinstance(x, (list, tuple, str, bytes)):
        x = x.tolist()
    return x


def _sequence(x, what):
    """x as a list of its elements, when it is an array; ValueError naming
    `what` otherwise (a string, a dict, a scalar, a 0-d array)."""
    x = _tolist(x)
    if isinstance(x, (str, bytes, bytearray, dict)) or isinstance(x, (int, float, bool)) or x is None:
        raise ValueError("%s: expected an array of integers, got %s" % (what, _kind(x)))
    try:
        return list(x)
    except TypeError:
        raise ValueError("%s: expected an array of integers, got %s" % (what, _kind(x)))


def _plain(x, what):
    """A 2-D table (tensor / array / sequence of rows) as lists of lists;
    ValueError naming `what` and the row for anything else."""
    if x is None:
        return None
    return [_sequence(row, "%s[%d]" % (what, r)) for r, row in enumerate(_sequence(x, what))]


def _element(e, what):
    """One integer of an array: ints, integral floats, numpy scalars."""
    e = _tolist(e)
    if isinstance(e, float) and e.is_integer():
        e = int(e)
    if isinstance(e, bool) or not isinstance(e, int):
        raise ValueError("%s: expected an integer, got %s" % (what, _kind(e)))
    return e


def _ints(x, what, lo, hi, n=None):
    out = []
    for i, e in enumerate(_sequence(x, what)):
        e = _element(e, "%s[%d]" % (what, i))
        if not lo <= e <= hi:
            raise ValueError("%s[%d]: %d out of range; expected %d <= value <= %d" % (what, i, e, lo, hi))
        out.append(e)
    if n is not None:
        if len(out) < n:
            raise ValueError("%s: %d entries; expected %d" % (what, len(out), n))
        out = out[:n]
    return out


def _int(x, what, lo, hi):
    x = _tolist(x)
    if isinstance(x, list) and len(x) == 1 and not isinstance(x[0], list):  # a 1-element array
        x = x[0]
    x = _element(x, what)
    if not lo <= x <= hi:
        raise ValueError("%s: %d out of range; expected %d <= value <= %d" % (what, x, lo, hi))
    return x


_INVARIANTS = {}  # binary -> the invariant names its `slotguard list --json` gives


def _known_invariants(binary):
    """The invariant names of the slotguard binary (`list --json`)."""
    from .cli import find_binary
    import subprocess
    exe = find_binary(binary)
    if exe not in _INVARIANTS:
        out = subprocess.run([exe, "list", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        if out.returncode != 0:
            raise RuntimeError("%s list --json exited with %d: %s"
                               % (exe, out.returncode, out.stderr.decode("utf-8", "replace").strip()))
        _INVARIANTS[exe] = [i["name"] for i in json.loads(out.stdout.decode("utf-8", "replace"))["invariants"]]
    return _INVARIANTS[exe]


def _expect(expect, outputs, T, binary):
    """The scenario's expect block, checked: its invariant names against the
    binary's registry (`slotguard list --json`), so a misspelt one is refused
    here, not later by check."""
    if isinstance(expect, str):
        expect = {"verdict": expect}
    if not isinstance(expect, dict) or set(expect) - {"verdict", "findings", "slot_mapping"}:
        raise ValueError("expect: 'pass', 'finding' or a dict with verdict, findings, slot_mapping; got %s"
                         % _kind(expect))
    e = {}
    findings = expect.get("findings")
    verdict = expect.get("verdict", "finding" if findings else "pass")
    if verdict not in ("pass", "finding"):
        raise ValueError("expect verdict %r; expected 'pass' or 'finding'" % (verdict,))
    e["verdict"] = verdict
    if findings:
        if isinstance(findings, (str, bytes)) or not isinstance(findings, (list, tuple)):
            raise ValueError("expect findings: expected a list of invariant names, got %s" % _kind(findings))
        if verdict != "finding":
            raise ValueError("expect: findings listed with verdict 'pass'")
        known = _known_invariants(binary)
        for i, name in enumerate(findings):
            if not isinstance(name, str):
                raise ValueError("expect findings[%d]: expected an invariant name, got %s" % (i, _kind(name)))
            if name not in known:
                import difflib
                close = difflib.get_close_matches(name, known, n=1)
                raise ValueError("expect findings[%d]: unknown invariant %r%s; expected one of %s (slotguard list)"
                                 % (i, name, ", did you mean %r?" % close[0] if close else "", ", ".join(known)))
        e["findings"] = list(findings)
    if expect.get("slot_mapping"):
        if not isinstance(expect["slot_mapping"], dict):
            raise ValueError("expect slot_mapping: expected a dict of output name -> array, got %s"
                             % _kind(expect["slot_mapping"]))
        sm = {}
        for k, v in expect["slot_mapping"].items():
            if k not in outputs:
                raise ValueError("expect slot_mapping: no output named %r (outputs: %s)"
                                 % (k, ", ".join(sorted(outputs))))
            sm[k] = _ints(v, "expect slot_mapping %r" % k, INT64_MIN, INT64_MAX)
            if len(sm[k]) != T:
                raise ValueError("expect slot_mapping %r: %d entries; num_tokens is %d" % (k, len(sm[k]), T))
        e["slot_mapping"] = sm
    return e


def _group(g, i, R, idx_mapping, table_rows, num_blocks_hint):
    if not isinstance(g, dict):
        raise ValueError("groups[%d]: expected a dict(name=..., family=..., block_table=..., ...)" % i)
    g = dict(g)
    where = "groups[%d]" % i
    name = g.pop("name", None)
    if not isinstance(name, str) or not name:
        raise ValueError("%s: needs a non-empty name" % where)
    where = "group %r" % name
    family = g.pop("family", None)
    kernel = g.pop("kernel", None)
    family = family or kernel
    if family not in FAMILY_KEYS:
        raise ValueError("%s: family %r; expected one of %s" % (where, family, ", ".join(FAMILY_KEYS)))
    out = {"name": name, "kernel": family}
    variant = g.pop("variant", None)
    if variant is not None:
        out["variant"] = str(variant)
    table = g.pop("block_table", None)
    if table is None:
        raise ValueError("%s: needs a block_table (2-D: one row per request, or the persistent table)" % where)
    # The plugin ABI's flat DCP names are accepted too.
    dcp = g.pop("dcp", None)
    flat_dcp = {k: g.pop("dcp_" + k) for k in _DCP_KEYS if "dcp_" + k in g}
    if family != "paged" and (dcp is not None or flat_dcp):
        raise ValueError("%s: dcp is a paged parameter, not %s's" % (where, family))
    allowed = FAMILY_KEYS[family]
    for k in list(g):
        if k not in allowed:
            other = [f for f, keys in FAMILY_KEYS.items() if k in keys]
            hint = " (a key of %s)" % ", ".join(other) if other else ""
            raise ValueError("%s: unknown key %r for family %s%s; expected %s"
                             % (where, k, family, hint, ", ".join(("name", "family", "variant", "block_table")
                                                                  + allowed)))
    for k in _REQUIRED[family]:
        if k not in g:
            raise ValueError("%s: missing %s (required for %s)" % (where, k, family))
    params = {}
    for k in allowed:
        if k in ("dcp", "enabled", "common") or k not in g:
            continue
        params[k] = _int(g[k], "%s: %s" % (where, k), 1, INT32_MAX)
    if family == "paged":
        bs = params["block_size"]
        kbs = params.get("kernel_block_size", bs)
        if bs % kbs:
            raise ValueError("%s: kernel_block_size %d does not divide block_size %d" % (where, kbs, bs))
        d = dict(flat_dcp)
        if dcp is not None:
            if not isinstance(dcp, dict) or set(dcp) - set(_DCP_KEYS):
                raise ValueError("%s: dcp must be a dict with keys world, rank, interleave; got %r" % (where, dcp))
            d.update(dcp)
        if d:
            world = _int(d.get("world", 1), where + ": dcp world", 1, 1 << 16)
            rank = _int(d.get("rank", 0), where + ": dcp rank", 0, world - 1)
            inter = _int(d.get("interleave", 1), where + ": dcp interleave", 1, bs)
            if bs % inter:
                raise ValueError("%s: dcp interleave %d does not divide block_size %d" % (where, inter, bs))
            if bs * world > INT32_MAX:
                raise ValueError("%s: block_size * dcp world = %d past int32" % (where, bs * world))
            params["dcp"] = {"world": world, "rank": rank, "interleave": inter}
        if "enabled" in g:
            e = g["enabled"]
            if hasattr(e, "item"):
                e = e.item()
            if e not in (True, False, 0, 1):
                raise ValueError("%s: enabled must be true or false, got %r" % (where, e))
            params["enabled"] = bool(e)
        null_entries = bs // kbs
    elif family == "compressor_ring":
        if params["capacity"] % params["ring_block_size"]:
            raise ValueError("%s: ring_block_size %d does not divide capacity %d"
                             % (where, params["ring_block_size"], params["capacity"]))
        null_entries = 1
    else:
        null_entries = 1
    if family == "qsa_compressed" and g.get("common") is not None:
        if not isinstance(g["common"], str) or not g["common"]:
            raise ValueError("%s: common must name a paged group" % where)
        params["common"] = g["common"]
    out.update((k, params[k]) for k in allowed if k in params)

    rows = _plain(table, where + ": block_table")
    if not isinstance(rows, list) or any(not isinstance(r, list) for r in rows):
        raise ValueError("%s: block_table must be 2-D (a list of rows)" % where)
    if table_rows == "request":
        if len(rows) < R:
            raise ValueError("%s: block_table has %d rows; the batch has %d requests (table_rows 'request': "
                             "row r is request r's)" % (where, len(rows), R))
        rows = rows[:R]
    else:
        need = max([i + 1 for i in idx_mapping] + [0])
        if len(rows) < need:
            raise ValueError("%s: persistent block_table has %d rows; idx_mapping names row %d"
                             % (where, len(rows), need - 1))
    width = len(rows[0]) if rows else 0
    max_id = -1
    clean = []
    for r, row in enumerate(rows):
        if len(row) != width:
            raise ValueError("%s: block_table row %d has %d columns; row 0 has %d" % (where, r, len(row), width))
        row = _ints(row, "%s: block_table[%d]" % (where, r), -1, INT32_MAX - 1)
        if row:
            max_id = max(max_id, max(row))
        clean.append(row)
    min_width = 1 if family == "kpool_tail" else (
        out["capacity"] // out["ring_block_size"] if family == "compressor_ring" else 0)
    if clean and width < min_width:
        raise ValueError("%s: block_table rows of %d columns; %s reads %d" % (where, width, family, min_width))
    out["block_table"] = clean
    blocks_needed = (max_id + 1 + null_entries - 1) // null_entries if max_id >= 0 else 1
    return out, max(blocks_needed, 1), null_entries, max_id


def scenario_dict(*, query_start_loc, positions=None, seq_lens=None, groups, idx_mapping=None,
                  num_actual_tokens=None, num_tokens=None, slot_mapping_in=None, num_blocks=None,
                  table_rows="request", name="captured-step", description=None, expect=None, table_layout=None,
                  num_reqs=None, binary=None):
    """The scenario as a dict (what capture() writes), validated: a
    ValueError names the argument, the row and the column of anything the
    loader would refuse. `expect`'s invariant names are checked against the
    slotguard binary's (`binary=`, else as slotguard.find_binary finds it)."""
    if table_rows not in ("request", "idx_mapping"):
        raise ValueError("table_rows %r; expected 'request' (row r is request r's) or 'idx_mapping' "
                         "(a persistent table read through idx_mapping)" % (table_rows,))
    if table_layout not in (None, "padded", "tight", "strided"):
        raise ValueError("table_layout %r; expected padded, tight or strided" % (table_layout,))
    if not isinstance(name, str) or not name:
        raise ValueError("name: a non-empty string")
    qsl = _ints(query_start_loc, "query_start_loc", 0, INT32_MAX)
    if num_reqs is not None:
        num_reqs = _int(num_reqs, "num_reqs", 0, len(qsl) - 1 if qsl else 0)
        qsl = qsl[:num_reqs + 1]
    if not qsl:
        raise ValueError("query_start_loc: empty; expected num_reqs + 1 entries starting at 0")
    if qsl[0] != 0:
        raise ValueError("query_start_loc[0] is %d; expected 0" % qsl[0])
    for i in range(1, len(qsl)):
        if qsl[i] < qsl[i - 1]:
            raise ValueError("query_start_loc decreases at %d: %d after %d" % (i, qsl[i], qsl[i - 1]))
    R = len(qsl) - 1
    real = qsl[-1]
    batch = {"query_start_loc": qsl}
    if table_rows != "request":
        batch["table_rows"] = table_rows
    nat = real if num_actual_tokens is None else _int(num_actual_tokens, "num_actual_tokens", 0, 1 << 26)
    if num_tokens is not None:
        T = _int(num_tokens, "num_tokens", 0, 1 << 26)
    elif positions is not None:
        T = len(_sequence(positions, "positions"))
    else:
        T = max(real, nat)
    if T < real:
        raise ValueError("num_tokens %d < query_start_loc[R] = %d (the requests' tokens)" % (T, real))
    if nat > T:
        raise ValueError("num_actual_tokens %d > num_tokens %d" % (nat, T))
    if positions is not None:
        batch["positions"] = _ints(positions, "positions", 0, MAX_POSITION, T)
    if seq_lens is not None:
        sl = _ints(seq_lens, "seq_lens", 0, MAX_POSITION + 1, R)
        if positions is None:
            for r in range(R):
                if sl[r] < qsl[r + 1] - qsl[r]:
                    raise ValueError("seq_lens[%d] = %d is shorter than request %d's %d query tokens (and no "
                                     "positions were given)" % (r, sl[r], r, qsl[r + 1] - qsl[r]))
        batch["seq_lens"] = sl
    batch["num_actual_tokens"] = nat
    batch["num_tokens"] = T
    if idx_mapping is not None:
        idx = _ints(idx_mapping, "idx_mapping", -1, INT32_MAX, R)
    else:
        idx = list(range(R))
    if table_rows == "idx_mapping":
        seen = {}
        for r, i in enumerate(idx):
            if i >= 0:
                if i in seen:
                    raise ValueError("idx_mapping: requests %d and %d both read row %d of the persistent table"
                                     % (seen[i], r, i))
                seen[i] = r
    if idx_mapping is not None:
        batch["idx_mapping"] = idx
    if slot_mapping_in is not None:
        batch["slot_mapping_in"] = _ints(slot_mapping_in, "slot_mapping_in", INT64_MIN, INT64_MAX, T)
    if isinstance(groups, dict) or not groups:
        raise ValueError("groups: a non-empty list of dict(name=..., family=..., block_table=..., ...)")
    out_groups = []
    blocks = 1
    names = set()
    for i, g in enumerate(groups):
        og, need, null_entries, max_id = _group(g, i, R, idx, table_rows, num_blocks)
        if og["name"] in names:
            raise ValueError("group %r: duplicate name" % og["name"])
        names.add(og["name"])
        if num_blocks is not None and max_id >= num_blocks * null_entries:
            raise ValueError("group %r: block id %d >= %s (%d)" % (
                og["name"], max_id, "num_blocks" if null_entries == 1 else
                "num_blocks * block_size / kernel_block_size", num_blocks * null_entries))
        blocks = max(blocks, need)
        out_groups.append(og)
    paged = {g["name"] for g in out_groups if g["kernel"] == "paged"}
    for g in out_groups:
        if g.get("common") is not None and g["common"] not in paged:
            raise ValueError("group %r: common %r names no paged group (paged groups: %s)"
                             % (g["name"], g["common"], ", ".join(sorted(paged)) or "none"))
    if num_blocks is not None:
        num_blocks = _int(num_blocks, "num_blocks", 1, INT32_MAX)
    else:
        num_blocks = blocks
    s = {"slotguard": 2 if (table_rows != "request" or table_layout) else 1, "name": name}
    if description:
        s["description"] = str(description)
    s["num_blocks"] = num_blocks
    if table_layout:
        s["table_layout"] = table_layout
    s["batch"] = batch
    s["groups"] = out_groups
    if expect is not None:
        outputs = set(names) | {g["name"] + ".tail" for g in out_groups if g["kernel"] == "compressor_ring"}
        s["expect"] = _expect(expect, outputs, T, binary)
    return s


def _dumps(s):
    """slotguard's own style: scalar arrays on one line, a table row per line."""
    def inline(v):
        return json.dumps(v, separators=(", ", ": "))

    lines = ["{"]
    top = []
    for k, v in s.items():
        if k == "batch":
            inner = ",\n".join("    %s: %s" % (json.dumps(bk), inline(bv)) for bk, bv in v.items())
            top.append('  "batch": {\n%s\n  }' % inner)
        elif k == "groups":
            gs = []
            for g in v:
                fields = []
                for gk, gv in g.items():
                    if gk == "block_table":
                        if gv:
                            rows = ",\n".join("        " + inline(r) for r in gv)
                            fields.append('      "block_table": [\n%s\n      ]' % rows)
                        else:
                            fields.append('      "block_table": []')
                    else:
                        fields.append("      %s: %s" % (json.dumps(gk), inline(gv)))
                gs.append("    {\n%s\n    }" % ",\n".join(fields))
            top.append('  "groups": [\n%s\n  ]' % ",\n".join(gs))
        elif k == "expect":
            fields = []
            for ek, ev in v.items():
                if ek == "slot_mapping":
                    sm = ",\n".join("      %s: %s" % (json.dumps(n), inline(x)) for n, x in ev.items())
                    fields.append('    "slot_mapping": {\n%s\n    }' % sm)
                else:
                    fields.append("    %s: %s" % (json.dumps(ek), inline(ev)))
            top.append('  "expect": {\n%s\n  }' % ",\n".join(fields))
        else:
            top.append("  %s: %s" % (json.dumps(k), inline(v)))
    lines.append(",\n".join(top))
    lines.append("}")
    return "\n".join(lines) + "\n"


def capture(path, *, query_start_loc, positions, seq_lens, groups, idx_mapping=None, num_actual_tokens=None,
            num_tokens=None, slot_mapping_in=None, num_blocks=None, table_rows="request", name="captured-step",
            expect=None, description=None, table_layout=None, num_reqs=None, binary=None):
    """Write one engine step as a scenario file at `path`; returns the
    scenario dict. See the module docstring; ValueError names what is wrong."""
    s = scenario_dict(query_start_loc=query_start_loc, positions=positions, seq_lens=seq_lens, groups=groups,
                      idx_mapping=idx_mapping, num_actual_tokens=num_actual_tokens, num_tokens=num_tokens,
                      slot_mapping_in=slot_mapping_in, num_blocks=num_blocks, table_rows=table_rows, name=name,
                      description=description, expect=expect, table_layout=table_layout, num_reqs=num_reqs,
                      binary=binary)
    with open(path, "w") as f:
        f.write(_dumps(s))
    return s
