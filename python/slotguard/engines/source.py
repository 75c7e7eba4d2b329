"""Where an engine's code comes from, and how one function of it is bound.

An engine tree is the installed package (its directory, found without
importing it: importing vLLM pulls in the whole engine) or a checkout given
by path. A binding never imports the engine's module either: it reads the
one file, parses it, and compiles only the top-level definitions it names
(a Triton kernel, its launcher, a torch helper, a class whose methods it
calls) and the module's constant assignments (`PADDING_SLOT_ID = -1`), in a
namespace the binding provides (torch, triton, tl, stand-ins for the
engine's classes). The code runs from the user's file, with its own line
numbers (a Triton JIT function reads its source back from that file), and
nothing of it is copied into slotguard.

A name the file does not define (a function that was renamed or removed at
that version) is one line: the name, the path and the version looked in
(BindingError).
"""

import __future__
import ast
import importlib.util
import os
import subprocess

__all__ = ["BindingError", "EngineTree", "find_tree"]


class BindingError(Exception):
    """A binding that cannot find what it binds: one line, naming the function, the path and the version."""


class EngineTree(object):
    """An engine's source tree: `root` holds the package directory (root/vllm/...)."""

    def __init__(self, root, version, origin):
        self.root = root          # the directory that holds the package directory
        self.version = version    # "vLLM 0.11.0" or "commit 81be2e09..." or the directory's name
        self.origin = origin      # "installed" or "checkout"

    def path(self, relpath):
        return os.path.join(self.root, relpath)

    def describe(self):
        return "%s (%s, %s)" % (self.version, self.origin, self.root)

    def bind(self, relpath, names, namespace):
        """Compiles the top-level definitions `names` (functions or classes) of the file `relpath`, and the
        file's constant assignments, into `namespace` (a dict, changed in place); returns {name: object}.
        BindingError names the first that is missing."""
        path = self.path(relpath)
        try:
            with open(path, "rb") as f:
                source = f.read()
        except OSError as e:
            raise BindingError("%s: cannot read %s in %s: %s" % (names[0], relpath, self.describe(),
                                                                 e.strerror or e))
        try:
            tree = ast.parse(source, filename=path)
        except SyntaxError as e:
            raise BindingError("%s: %s in %s does not parse: %s" % (names[0], relpath, self.describe(), e))
        defined = {}
        constants = []
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined[node.name] = node
            elif _constant_assignment(node):
                constants.append(node)
        methods = {}  # "Class.method": the method's definition, compiled as a function of its own
        for name in names:
            owner, _, method = name.partition(".")
            node = defined.get(owner)
            if method and isinstance(node, ast.ClassDef):
                found = [m for m in node.body if isinstance(m, ast.FunctionDef) and m.name == method]
                node = found[0] if found else None
                methods[name] = node
            if node is None or (not method and owner not in defined):
                raise BindingError("%s: no such function in %s at %s" % (name, relpath, self.describe()))
        wanted = [node for node in tree.body if node in constants or
                  (isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names)]
        namespace.setdefault("__name__", "slotguard_engine_" + relpath.replace("/", "_").replace(".py", ""))
        namespace.setdefault("__file__", path)
        exec(_compile(wanted, path), namespace)  # noqa: S102 - the user's engine code, by design
        bound = {name: namespace[name] for name in names if name not in methods}
        for name, node in methods.items():  # each in a namespace of its own: a method's name is no global
            scope = dict(namespace)
            exec(_compile([node], path), scope)  # noqa: S102
            bound[name] = scope[node.name]
        return bound


def _compile(nodes, path):
    """The definitions, compiled with the file's name and line numbers, their annotations left unevaluated
    (`from __future__ import annotations`): they name the engine's classes, which are not there, and do not
    change what the code does (Triton reads `tl.constexpr` from the annotation's text)."""
    return compile(ast.Module(body=nodes, type_ignores=[]), path, "exec",
                   flags=__future__.annotations.compiler_flag, dont_inherit=True)


def _constant_assignment(node):
    """`NAME = <literal>` at the top of a module (PADDING_SLOT_ID = -1)."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
        return False
    value = node.value
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        value = value.operand
    return isinstance(value, ast.Constant) and isinstance(value.value, (int, float, str, bool))


def _git_commit(root):
    """HEAD of the git checkout whose top is `root` (not of a repository `root` merely lies in)."""
    try:
        out = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel", "HEAD"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.decode("utf-8", "replace").split()
    if out.returncode != 0 or len(lines) != 2 or os.path.realpath(lines[0]) != os.path.realpath(root):
        return None
    return lines[1] if len(lines[1]) == 40 else None


def find_tree(package, source=None):
    """The engine tree of `package` ("vllm"): the checkout `source` (a directory holding package/), or the
    installed package, found without importing it. BindingError when there is neither."""
    if source:
        root = os.path.abspath(source)
        if not os.path.isdir(os.path.join(root, package)):
            raise BindingError("--source %s: no %s/ directory there; expected a checkout of the engine's "
                               "repository (or a folder holding the engine's files under %s/)" %
                               (source, package, package))
        # The commit: a folder of carried files says it in COMMIT; a git checkout's HEAD; else its name.
        commit = None
        marker = os.path.join(root, "COMMIT")
        if os.path.isfile(marker):
            with open(marker) as f:
                commit = f.read().strip() or None
        if commit is None:
            commit = _git_commit(root)
        return EngineTree(root, "commit " + commit if commit else os.path.basename(root), "checkout")
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise BindingError("%s is not installed here (no package %s on sys.path); give a checkout with --source DIR"
                           % (package, package))
    package_dir = list(spec.submodule_search_locations)[0]
    try:
        from importlib import metadata
        version = "%s %s" % (package, metadata.version(package))
    except Exception:  # noqa: BLE001 - no metadata: an editable or odd install
        version = package + " (version unknown)"
    return EngineTree(os.path.dirname(package_dir), version, "installed")
