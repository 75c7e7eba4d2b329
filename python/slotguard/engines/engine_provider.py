"""A binding as a slotguard provider: bind at start, then one call per group (mode 0)."""

import sys

from ..provider import Provider, Skip, device
from .source import BindingError, find_tree
from . import vllm

# The engines with bindings: name -> (package directory, bindings by family).
ENGINES = {"vllm": ("vllm", vllm.BINDINGS)}


def bind(engine, family, source=None, ops=None):
    """(binding, fns, tree) of `family` in `engine`'s tree (installed, or the checkout `source`).
    BindingError (one line) when the family has no binding or its function is not in the tree."""
    if engine not in ENGINES:
        raise BindingError("no engine %r; expected one of: %s" % (engine, ", ".join(sorted(ENGINES))))
    package, bindings = ENGINES[engine]
    if family not in bindings:
        raise BindingError("%s has no binding for family %r; expected one of: %s" %
                           (engine, family, ", ".join(sorted(bindings))))
    binding = bindings[family]
    tree = find_tree(package, source)
    namespace = dict(ops.namespace()) if ops is not None else {}
    namespace.update(binding.namespace())
    fns = tree.bind(binding.path, binding.names, namespace)
    for path, names in binding.extra:  # further files the adapter calls, each in a namespace of its own
        extra = dict(ops.namespace()) if ops is not None else {}
        extra.update(binding.namespace())
        fns.update(tree.bind(path, names, extra))
    return binding, fns, tree


def _ops_for(binding):
    """The arrays the engine's code gets here, or None with the reason it cannot run on this device."""
    dev = device()
    if binding.needs == "python":
        from .ops import NumpyOps
        return NumpyOps(), None
    try:
        import torch  # noqa: F401
    except ImportError:
        return None, "%s's engine code needs torch" % binding.family
    if binding.needs == "triton":
        if dev != "cuda":
            return None, "%s's engine kernel is Triton: run with --backend gpu" % binding.family
        try:
            import triton  # noqa: F401
        except ImportError:
            return None, "%s's engine kernel is Triton, and triton is not importable" % binding.family
    from .ops import TorchOps
    return TorchOps("cuda" if dev == "cuda" else "cpu"), None


def make_provider(engine, families, source=None, options=None):
    """The Provider that runs `families`' engine code; BindingError before it serves when one is missing."""
    options = dict(options or {})
    bound = []
    version = None
    for family in families:
        binding = ENGINES[engine][1].get(family) if engine in ENGINES else None
        ops, why = _ops_for(binding) if binding is not None else (None, None)
        # Bind even where it cannot run: a missing function is said at start, whatever the device.
        from .ops import NumpyOps
        b, fns, tree = bind(engine, family, source, ops if ops is not None else NumpyOps(_stand_in_modules()))
        for key in options:
            if key not in b.options:
                raise BindingError("--option %s: family %s takes %s" % (
                    key, family, ", ".join(sorted(b.options)) or "no option"))
        bound.append((b, fns, ops, why))
        version = tree.version
    name = "%s-%s (%s)" % (engine, "+".join(families), version)
    provider = Provider(name, arrays="numpy", fork_server=None)
    for b, fns, ops, why in bound:
        provider.family(b.family)(_runner(b, fns, ops, why, dict(b.options, **{k: v for k, v in options.items()
                                                                             if k in b.options})))
    return provider


def _runner(binding, fns, ops, why, options):
    def run(call):
        if ops is None:
            raise Skip(why)
        binding.run(call, fns, ops, options)
    return run


def _stand_in_modules():
    """torch/triton names for binding where they are absent: a decorator that leaves a function as it is.
    The bound code is then never run (the family's calls are skipped, saying why)."""
    import types

    def jit(fn=None, **kw):
        return fn if fn is not None else (lambda f: f)

    triton = types.SimpleNamespace(jit=jit, cdiv=lambda a, b: -(-a // b), next_power_of_2=lambda n: 1)
    tl = types.SimpleNamespace(constexpr=object, int64="int64", int32="int32")
    return {"triton": triton, "tl": tl, "torch": types.SimpleNamespace()}
