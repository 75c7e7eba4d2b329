"""The slotguard package's own PEP 517 build backend, standard library only.

pip builds a package in an environment of its own, into which it installs
the backend's `requires` from an index. This backend needs nothing
(`requires = []`), so `pip install ./python` works with no index and no
`setuptools` or `wheel`, in any virtual environment, with or without
`--no-build-isolation`; and it writes only into the folder pip names, so an
install from a checkout leaves nothing (no `*.egg-info`, no `build/`) beside
the sources.

It reads the few keys it needs from python/pyproject.toml (`[project]`:
name, version, description, readme, requires-python, classifiers, the
optional dependencies; `[project.entry-points.*]`; `[tool.slotguard-build]`
packages) and builds:

- a wheel: the packages' `.py` files and the `.dist-info` (METADATA, WHEEL,
  entry_points.txt, RECORD);
- an editable wheel (`pip install -e`): a `.pth` file that puts this folder
  on sys.path, so the source tree is what is imported;
- an sdist: pyproject.toml, README.md, the packages and this backend.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # python/

__all__ = ["build_wheel", "build_editable", "build_sdist", "get_requires_for_build_wheel",
           "get_requires_for_build_editable", "get_requires_for_build_sdist", "read_pyproject"]


def _uncomment(line):
    """`line` without a comment: the first # outside a string and what follows."""
    quoted = False
    for i, c in enumerate(line):
        if c == '"' and (i == 0 or line[i - 1] != "\\"):
            quoted = not quoted
        elif c == "#" and not quoted:
            return line[:i]
    return line


def _value(text, where):
    """One TOML value of the subset pyproject.toml uses: a basic string, or a
    list of basic strings (on one line or several)."""
    text = text.strip()
    if text.startswith('"'):
        m = re.match(r'"((?:[^"\\]|\\.)*)"\s*(#.*)?$', text)
        if not m:
            raise ValueError("%s: expected a string, got %s" % (where, text))
        return m.group(1).encode("utf-8").decode("unicode_escape") if "\\" in m.group(1) else m.group(1)
    if text.startswith("["):
        inner = "\n".join(_uncomment(l) for l in text.split("\n")).strip()
        if not inner.endswith("]"):
            raise ValueError("%s: expected a list of strings, got %s" % (where, text))
        return [_value(s, where) for s in re.findall(r'"(?:[^"\\]|\\.)*"', inner[1:-1])]
    raise ValueError("%s: expected a string or a list of strings, got %s" % (where, text))


def read_pyproject(path=None):
    """{section: {key: value}} for the subset of TOML pyproject.toml uses:
    [section] headers, `key = "string"` and `key = ["a", "b"]` (a list may
    span lines), comments."""
    path = path or os.path.join(ROOT, "pyproject.toml")
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    sections = {"": {}}
    current = sections[""]
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^\[([A-Za-z0-9_.\-]+)\]\s*(#.*)?$", line)
        if m:
            current = sections.setdefault(m.group(1), {})
            continue
        m = re.match(r'^("?)([A-Za-z0-9_.\-]+)\1\s*=\s*(.*)$', line)
        if not m:
            raise ValueError("%s:%d: expected `key = value`, got %s" % (path, i, line))
        value = _uncomment(m.group(3)).strip()
        if value.startswith("[") and value.count("[") > value.count("]"):
            while i < len(lines) and value.count("[") > value.count("]"):
                value += "\n" + lines[i]
                i += 1
        current[m.group(2)] = _value(value, "%s:%d" % (path, i))
    return sections


def _metadata(project):
    name, version = project["project"]["name"], project["project"]["version"]
    p = project["project"]
    lines = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version]
    if p.get("description"):
        lines.append("Summary: " + p["description"])
    if p.get("requires-python"):
        lines.append("Requires-Python: " + p["requires-python"])
    for c in p.get("classifiers", []):
        lines.append("Classifier: " + c)
    for extra, reqs in sorted(project.get("project.optional-dependencies", {}).items()):
        lines.append("Provides-Extra: " + extra)
        for r in reqs:
            lines.append('Requires-Dist: %s ; extra == "%s"' % (r, extra))
    readme = p.get("readme")
    body = ""
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _entry_points(project):
    out = []
    for section in sorted(project):
        if section.startswith("project.entry-points."):
            out.append("[%s]" % section[len("project.entry-points."):])
            out += ["%s = %s" % (k, v) for k, v in sorted(project[section].items())]
            out.append("")
    return "\n".join(out)


def _packages(project):
    return project.get("tool.slotguard-build", {}).get("packages", [project["project"]["name"]])


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def _write_wheel(wheel_directory, files):
    """A py3-none-any wheel of `files` ([(arcname, bytes)]), its dist-info added."""
    project = read_pyproject()
    name, version = project["project"]["name"], project["project"]["version"]
    dist_info = "%s-%s.dist-info" % (name, version)
    wheel = ("Wheel-Version: 1.0\nGenerator: slotguard_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    files = list(files) + [
        (dist_info + "/METADATA", _metadata(project).encode("utf-8")),
        (dist_info + "/WHEEL", wheel.encode("utf-8")),
        (dist_info + "/entry_points.txt", _entry_points(project).encode("utf-8")),
    ]
    record = [_record_line(a, d) for a, d in files] + [dist_info + "/RECORD,,"]
    files.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode("utf-8")))
    filename = "%s-%s-py3-none-any.whl" % (name, version)
    stamp = time.localtime(time.time())[:6]
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files:
            info = zipfile.ZipInfo(arcname, date_time=stamp)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return filename


def _package_files(project):
    out = []
    for package in _packages(project):
        top = os.path.join(ROOT, package)
        for folder, dirs, names in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for n in sorted(names):
                if n.endswith(".py"):
                    full = os.path.join(folder, n)
                    with open(full, "rb") as f:
                        out.append((os.path.relpath(full, ROOT).replace(os.sep, "/"), f.read()))
    return out


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files(read_pyproject()))


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    project = read_pyproject()
    pth = "_%s_editable.pth" % project["project"]["name"]
    return _write_wheel(wheel_directory, [(pth, (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory, config_settings=None):
    project = read_pyproject()
    base = "%s-%s" % (project["project"]["name"], project["project"]["version"])
    filename = base + ".tar.gz"
    names = ["pyproject.toml", project["project"].get("readme", "README.md")]
    names += [a for a, _ in _package_files(project)]
    names.append(os.path.relpath(os.path.abspath(__file__), ROOT).replace(os.sep, "/"))
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        for n in names:
            with open(os.path.join(ROOT, n), "rb") as f:
                data = f.read()
            info = tarfile.TarInfo("%s/%s" % (base, n))
            info.size, info.mode, info.mtime = len(data), 0o644, int(time.time())
            tar.addfile(info, io.BytesIO(data))
        pkg_info = _metadata(project).encode("utf-8")
        info = tarfile.TarInfo("%s/PKG-INFO" % base)
        info.size, info.mode, info.mtime = len(pkg_info), 0o644, int(time.time())
        tar.addfile(info, io.BytesIO(pkg_info))
    return filename
