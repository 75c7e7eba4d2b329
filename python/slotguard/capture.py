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
key (table_rows "idx_mapping", table_layout, dummy_run).

A step the engine ran with no request at all (a warm-up, an idle
data-parallel rank: vLLM v2's make_dummy, idx_mapping arange) is captured
with dummy_run=True: every request is then a dummy whatever idx_mapping says
(docs/scenario-format.md, "Dummy runs").

Engine buffers are often longer than the step: per-token arrays longer than
num_tokens, per-request arrays longer than R, and (table_rows "request")
tables with more rows than R are cut to size; shorter ones are errors. Pass
num_reqs= when query_start_loc is a longer persistent buffer.
"""

import json
import os

__all__ = ["capture", "scenario_dict", "families"]

INT32_MAX = 2 ** 31 - 1
INT64_MIN = -2 ** 63
INT64_MAX = 2 ** 63 - 1
MAX_POSITION = 2 ** 62 - 1

def families(binary=None, family_files=()):
    """The families the slotguard binary knows (`slotguard list --json`,
    with --family-file for each of `family_files`): a dict name -> the
    family's entry (params, outputs, rows, ...). Read once per set of
    arguments; the binary is found as slotguard.find_binary() finds it."""
    from .cli import find_binary
    family_files = _paths(family_files, "family_files")
    key = (binary, tuple(family_files))
    table = _FAMILIES.get(key)
    if table is None:
        import subprocess
        args = [find_binary(binary), "list", "--json"]
        for f in family_files:
            args += ["--family-file", os.fsdecode(f)]   # bytes (not UTF-8) as they are, never "b'...'"
        done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if done.returncode != 0:
            raise ValueError("slotguard list --json: %s" % done.stderr.decode("utf-8", "replace").strip())
        listing = json.loads(done.stdout.decode("utf-8"))
        table = {f["name"]: f for f in listing["families"]}
        table["_invariants"] = [i["name"] for i in listing["invariants"]]
        _FAMILIES[key] = table
    return table


_FAMILIES = {}


def _paths(x, what):
    """A list of paths: one path (a str, bytes or os.PathLike) is a list of
    one, never the characters of its name."""
    if isinstance(x, (str, bytes, os.PathLike)):
        return [x]
    if x is None:
        return []
    try:
        items = list(x)
    except TypeError:
        raise ValueError("%s: expected a path or a list of paths, got %s" % (what, _kind(x)))
    for i, item in enumerate(items):
        if not isinstance(item, (str, bytes, os.PathLike)):
            raise ValueError("%s[%d]: expected a path, got %s" % (what, i, _kind(item)))
    return items


def _param_max(p):
    """A parameter's numeric max, or None when it is a formula over others."""
    try:
        return int(p["max"])
    except (KeyError, TypeError, ValueError):
        return None




def _did_you_mean(name, names):
    """", did you mean 'x'?" for the closest of `names`, or ""."""
    import difflib
    match = difflib.get_close_matches(str(name), [str(n) for n in names], n=1, cutoff=0.6)
    return ", did you mean %r?" % match[0] if match else ""


def _unknown_arguments(function, unknown, known):
    """A TypeError for keyword arguments `function` does not take, with the
    closest name each."""
    k = sorted(unknown)[0]
    return TypeError("%s() got an unknown argument %r%s; expected one of %s"
                     % (function, k, _did_you_mean(k, known), ", ".join(known)))


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
    """The integers of an array, each in [lo, hi]; with n, an engine buffer
    cut to its first n entries first (what lies past the step is not
    looked at), and a shorter one an error."""
    seq = _sequence(x, what)
    if n is not None:
        if len(seq) < n:
            raise ValueError("%s: %d entries; expected %d" % (what, len(seq), n))
        seq = seq[:n]
    out = []
    for i, e in enumerate(seq):
        e = _element(e, "%s[%d]" % (what, i))
        if not lo <= e <= hi:
            raise ValueError("%s[%d]: %d out of range; expected %d <= value <= %d" % (what, i, e, lo, hi))
        out.append(e)
    return out


def _int(x, what, lo, hi):
    x = _tolist(x)
    if isinstance(x, (list, tuple)) and len(x) == 1 and not isinstance(x[0], (list, tuple)):  # a 1-element array
        x = x[0]
    if isinstance(x, (list, tuple)):
        raise ValueError("%s: expected an integer, got %s" % (what, _kind(x)))
    x = _element(x, what)
    if not lo <= x <= hi:
        raise ValueError("%s: %d out of range; expected %d <= value <= %d" % (what, x, lo, hi))
    return x


def _bool(v, what):
    """A bool parameter: True, False, 0 or 1 (a numpy scalar or a 1-element
    array too); ValueError naming `what` for anything else."""
    v = _tolist(v)
    if isinstance(v, (list, tuple)) and len(v) == 1 and not isinstance(v[0], (list, tuple)):
        v = v[0]
    if isinstance(v, float) and v in (0.0, 1.0):
        v = int(v)
    if not isinstance(v, (bool, int)) or v not in (0, 1):
        raise ValueError("%s must be true or false, got %s" % (what, _kind(v)))
    return bool(v)


def _expect(expect, outputs, known):
    """The scenario's expect block, checked: its invariant names against
    `known`, the binary's (`slotguard list --json`), so a misspelt one is
    refused here, not later by check; `outputs`, the names of the outputs.
    How many entries each output holds is the binary's to say (_validate)."""
    if isinstance(expect, str):
        expect = {"verdict": expect}
    if isinstance(expect, dict) and set(expect) - {"verdict", "findings", "slot_mapping"}:
        k = sorted(set(expect) - {"verdict", "findings", "slot_mapping"}, key=str)[0]
        raise ValueError("expect: unknown key %r%s; expected verdict, findings, slot_mapping"
                         % (k, _did_you_mean(str(k), ["verdict", "findings", "slot_mapping"])))
    if not isinstance(expect, dict):
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
        e["slot_mapping"] = sm
    return e


def _group(g, i, R, idx_mapping, table_rows, num_blocks_hint, known):
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
    if not isinstance(family, str) or family not in known or family.startswith("_"):
        names = sorted(f for f in known if not f.startswith("_"))
        raise ValueError("%s: family %s; expected one of %s"
                         % (where, repr(family) if isinstance(family, str) else _kind(family), ", ".join(names)))
    fam = known[family]
    out = {"name": name, "kernel": family}
    variant = g.pop("variant", None)
    if variant is not None:
        out["variant"] = str(variant)
    block_table = g.pop("block_table", None)
    if block_table is None:
        raise ValueError("%s: needs a block_table (2-D: one row per request, or the persistent table)" % where)
    params = fam["params"]
    # A parameter by its key ("dcp": {"world": 2}) or by its name (dcp_world=2).
    values = {}
    nested = {}
    for p in params:
        top, _, leaf = p["key"].partition("/")
        if leaf:
            nested.setdefault(top, []).append((leaf, p))
    for top, members in nested.items():
        obj = g.pop(top, None)
        if obj is None:
            continue
        leaves = [leaf for leaf, _ in members]
        if isinstance(obj, dict) and set(obj) - set(leaves):
            k = sorted(str(x) for x in set(obj) - set(leaves))[0]
            raise ValueError("%s: %s: unknown key %r%s; expected %s"
                             % (where, top, k, _did_you_mean(k, leaves), ", ".join(leaves)))
        if not isinstance(obj, dict):
            raise ValueError("%s: %s must be a dict with keys %s; got %r" % (where, top, ", ".join(leaves), obj))
        for leaf, p in members:
            if leaf in obj:
                values[p["name"]] = obj[leaf]
    for p in params:
        if p["key"] in g:
            values[p["name"]] = g.pop(p["key"])
        elif p["name"] in g:
            values[p["name"]] = g.pop(p["name"])
    if g:
        k = sorted(g, key=str)[0]
        other = [f for f, e in known.items() if not f.startswith("_") and
                 any(k in (q["key"].split("/")[0], q["name"]) for q in e["params"])]
        hint = " (a key of %s)" % ", ".join(other) if other else ""
        keys = ["name", "family", "variant", "block_table"] + sorted({q["key"].split("/")[0] for q in params})
        if not hint:
            hint = _did_you_mean(k, keys + [q["name"] for q in params])
        raise ValueError("%s: unknown key %r for family %s%s; expected %s" % (where, k, family, hint, ", ".join(keys)))
    checked = {}
    for p in params:
        v = values.get(p["name"])
        what = "%s: %s" % (where, p["name"])
        if v is None:
            if p["required"]:
                raise ValueError("%s: missing %s (required for %s)" % (where, p["name"], family))
            continue
        if p["type"] == "bool":
            checked[p["name"]] = _bool(v, what)
        elif p["type"] == "group name":
            if not isinstance(v, str) or not v:
                raise ValueError("%s must name a %s group of the scenario" % (what, p["family"]))
            checked[p["name"]] = v
        else:
            hi = _param_max(p)
            top = INT32_MAX if p["type"] == "i32" else INT64_MAX
            checked[p["name"]] = _int(v, what, p["min"], top if hi is None else hi)
    for p in params:
        d = p.get("divides")
        if d and p["name"] in checked and d in checked and checked[d] % checked[p["name"]]:
            raise ValueError("%s: %s %d does not divide %s %d" % (where, p["name"], checked[p["name"]], d, checked[d]))
    # Written under their keys, nested ones as objects, in the description's order.
    for p in params:
        if p["name"] not in checked:
            continue
        top, _, leaf = p["key"].partition("/")
        if leaf:
            out.setdefault(top, {})[leaf] = checked[p["name"]]
        else:
            out[top] = checked[p["name"]]
    # Entries below this id name the null block (a hybrid paged group: manager block 0's kernel blocks).
    null_entries = 1
    if "block_size" in checked and "kernel_block_size" in checked:
        null_entries = checked["block_size"] // checked["kernel_block_size"]
    ragged = fam.get("rows") == "csr"
    table_rows_here = "request" if ragged else table_rows
    table = block_table
    rows = _plain(table, where + ": block_table")
    if not isinstance(rows, list) or any(not isinstance(r, list) for r in rows):
        raise ValueError("%s: block_table must be 2-D (a list of rows)" % where)
    if table_rows_here == "request":
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
    max_id, max_at = -1, None
    clean = []
    for r, row in enumerate(rows):
        if len(row) != width and not ragged:
            raise ValueError("%s: block_table row %d has %d columns; row 0 has %d" % (where, r, len(row), width))
        row = _ints(row, "%s: block_table[%d]" % (where, r), -1, INT32_MAX - 1)
        for c, e in enumerate(row):
            if e > max_id:
                max_id, max_at = e, (r, c)
        clean.append(row)
    # The columns the family reads unguarded (its min_width) and every other
    # shape rule of the family are the binary's to check (_validate).
    out["block_table"] = clean
    blocks_needed = (max_id + 1 + null_entries - 1) // null_entries if max_id >= 0 else 1
    return out, max(blocks_needed, 1), null_entries, (max_id, max_at)


_ARGUMENTS = ["query_start_loc", "positions", "seq_lens", "groups", "idx_mapping", "num_actual_tokens", "num_tokens",
              "slot_mapping_in", "num_blocks", "table_rows", "name", "description", "expect", "table_layout",
              "num_reqs", "binary", "family_files", "inputs", "dummy_run"]


def scenario_dict(*, query_start_loc, positions=None, seq_lens=None, groups, idx_mapping=None,
                  num_actual_tokens=None, num_tokens=None, slot_mapping_in=None, num_blocks=None,
                  table_rows="request", name="captured-step", description=None, expect=None, table_layout=None,
                  num_reqs=None, binary=None, family_files=(), validate=True, inputs=None, dummy_run=False, **unknown):
    """The scenario as a dict (what capture() writes), validated against the
    families the slotguard binary knows (families()) and, unless validate is
    False, loaded by the binary (`check --validate`)."""
    if unknown:
        raise _unknown_arguments("scenario_dict", unknown, _ARGUMENTS)
    family_files = _paths(family_files, "family_files")
    table = families(binary, family_files)
    if table_rows not in ("request", "idx_mapping"):
        raise ValueError("table_rows %r; expected 'request' (row r is request r's) or 'idx_mapping' "
                         "(a persistent table read through idx_mapping)" % (table_rows,))
    if table_layout not in (None, "padded", "tight", "strided"):
        raise ValueError("table_layout %r; expected padded, tight or strided" % (table_layout,))
    if not isinstance(name, str) or not name:
        raise ValueError("name: a non-empty string")
    if num_blocks is not None:   # first: the groups' block ids are checked against it
        num_blocks = _int(num_blocks, "num_blocks", 1, INT32_MAX)
    if num_reqs is not None:   # a persistent buffer: its first num_reqs + 1 entries only
        n = len(_sequence(query_start_loc, "query_start_loc"))
        num_reqs = _int(num_reqs, "num_reqs", 0, n - 1 if n else 0)
        qsl = _ints(query_start_loc, "query_start_loc", 0, INT32_MAX, num_reqs + 1)
    else:
        qsl = _ints(query_start_loc, "query_start_loc", 0, INT32_MAX)
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
    if dummy_run is True:
        batch["dummy_run"] = True
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
    if not isinstance(dummy_run, bool):
        raise ValueError("dummy_run %r; expected True (no request of the step owns state) or False" % (dummy_run,))
    if table_rows == "idx_mapping" and not dummy_run:   # a dummy run's rows are read, owned by no one
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
    # The families' extra inputs (docs/family-format.md, "Inputs"): name ->
    # an array per request or per token; the binary checks each one's
    # family, length and range when it loads the file.
    if inputs:
        if not isinstance(inputs, dict):
            raise ValueError("inputs: a dict of input name: array of integers, e.g. {'num_rejected': [1, 0]}")
        batch["inputs"] = {str(k): _ints(v, "inputs[%r]" % (k,), INT64_MIN, INT64_MAX) for k, v in inputs.items()}
    if isinstance(groups, dict) or not groups:
        raise ValueError("groups: a non-empty list of dict(name=..., family=..., block_table=..., ...)")
    out_groups = []
    blocks = 1
    names = set()
    for i, g in enumerate(groups):
        og, need, null_entries, (max_id, max_at) = _group(g, i, R, idx, table_rows, num_blocks, table)
        if og["name"] in names:
            raise ValueError("group %r: duplicate name" % og["name"])
        names.add(og["name"])
        if num_blocks is not None and max_id >= num_blocks * null_entries:
            raise ValueError("group %r: block_table[%d][%d]: block id %d out of range; expected -1 <= id < %s (%d)" % (
                og["name"], max_at[0], max_at[1], max_id, "num_blocks" if null_entries == 1 else
                "num_blocks * block_size / kernel_block_size", num_blocks * null_entries))
        blocks = max(blocks, need)
        out_groups.append(og)
    # A group parameter names a group of its family in this scenario.
    kinds = {g["name"]: g["kernel"] for g in out_groups}
    for g in out_groups:
        for p in table[g["kernel"]]["params"]:
            target = g.get(p["key"]) if p["type"] == "group name" else None
            if target is not None and kinds.get(target) != p["family"]:
                same = sorted(n for n, k in kinds.items() if k == p["family"])
                raise ValueError("group %r: %s %r names no %s group (%s groups: %s)"
                                 % (g["name"], p["name"], target, p["family"], p["family"], ", ".join(same) or "none"))
    if num_blocks is None:
        num_blocks = blocks
    s = {"slotguard": 2 if (table_rows != "request" or table_layout or "inputs" in batch or dummy_run is True) else 1, "name": name}
    if description:
        s["description"] = str(description)
    s["num_blocks"] = num_blocks
    if table_layout:
        s["table_layout"] = table_layout
    s["batch"] = batch
    s["groups"] = out_groups
    if expect is not None:
        outputs = {g["name"] + ("." + o if o else "") for g in out_groups for o in table[g["kernel"]]["outputs"]}
        s["expect"] = _expect(expect, outputs, table["_invariants"])
    if validate:
        _validate(s, binary, family_files)
    return s


def _validate(s, binary, family_files, path=None):
    """The binary loads the scenario as a check would (`slotguard check
    --validate`): the family's own rules (the columns it reads, its
    parameters' constraints, each output's length) are checked by the one
    model that has them, never by a copy here. `path`: the file written
    (else a temporary one, named "scenario" in the error). ValueError with
    the binary's line: the JSON pointer and what was expected."""
    import subprocess
    import tempfile
    from .cli import find_binary
    tmp = None
    if path is None:
        fd, tmp = tempfile.mkstemp(suffix=".json", prefix="slotguard-scenario-")
        with os.fdopen(fd, "w") as f:
            f.write(_dumps(s))
        path = tmp
    try:
        args = [find_binary(binary), "check", "--validate"]
        for f in family_files:
            args += ["--family-file", os.fsdecode(f)]
        done = subprocess.run(args + ["--", os.fsdecode(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        if tmp is not None:
            os.unlink(tmp)
    if done.returncode == 0:
        return
    lines = [l for l in done.stderr.decode("utf-8", "replace").splitlines() if l.strip()]
    line = lines[0] if lines else "slotguard check --validate: exit %d" % done.returncode
    for prefix in ("slotguard: error: ", "slotguard: "):
        if line.startswith(prefix):
            line = line[len(prefix):]
            break
    if tmp is not None:
        line = line.replace(tmp, "scenario")
    raise ValueError(line)


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
            expect=None, description=None, table_layout=None, num_reqs=None, binary=None, family_files=(),
            inputs=None, dummy_run=False, **unknown):
    """Write one engine step as a scenario file at `path` (its folder is
    created when missing); returns the scenario dict. See the module
    docstring; ValueError names what is wrong (the argument, the row and the
    column), TypeError an argument it does not take (with the closest
    name). A group may name a family of a description (family_files, each a
    --family-file of the binary's). The binary then loads the file as a
    check would (`slotguard check --validate`): a family's own rules (the
    columns it reads, its parameters' constraints, each output's length)
    are its to check, and its line (the file, the JSON pointer, what was
    expected) is the ValueError; no refused file is left behind."""
    if unknown:
        raise _unknown_arguments("capture", unknown, _ARGUMENTS)
    s = scenario_dict(query_start_loc=query_start_loc, positions=positions, seq_lens=seq_lens, groups=groups,
                      idx_mapping=idx_mapping, num_actual_tokens=num_actual_tokens, num_tokens=num_tokens,
                      slot_mapping_in=slot_mapping_in, num_blocks=num_blocks, table_rows=table_rows, name=name,
                      description=description, expect=expect, table_layout=table_layout, num_reqs=num_reqs,
                      binary=binary, family_files=family_files, validate=False, inputs=inputs, dummy_run=dummy_run)
    folder = os.path.dirname(os.fspath(path))
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w") as f:
        f.write(_dumps(s))
    try:
        _validate(s, binary, _paths(family_files, "family_files"), path)
    except ValueError:
        os.unlink(path)   # no file the binary would refuse is left behind
        raise
    return s
