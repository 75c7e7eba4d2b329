"""python -m slotguard.engines ENGINE --family F [--source DIR] [--option K=V] [--check | --list]

A --kernel-cmd provider that runs the engine's own code for family F, loaded from the installed
package or the checkout DIR (docs/conformance.md). --check binds and prints one line; --list prints
the bindings."""

import argparse
import sys

from .engine_provider import ENGINES, make_provider, bind
from .source import BindingError


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m slotguard.engines", description=__doc__.split("\n\n")[1])
    parser.add_argument("engine", choices=sorted(ENGINES), help="the engine whose code runs")
    parser.add_argument("--family", action="append", default=[], help="a family to bind (repeatable)")
    parser.add_argument("--source", default=None, help="a checkout of the engine (DIR/vllm/...); default: installed")
    parser.add_argument("--option", action="append", default=[], metavar="K=V",
                        help="a binding's option (dsv4_compressed: caller=sparse_mla|indexer; "
                             "vllm_parallel_drafting: num_speculative_tokens=K, shift=0|1)")
    parser.add_argument("--check", action="store_true", help="bind, print one line per family, exit 0 (2 if missing)")
    parser.add_argument("--list", action="store_true",
                        help="print the bindings: family, files (comma-separated), functions, needs")
    args = parser.parse_args(argv)
    bindings = ENGINES[args.engine][1]
    if args.list:
        for family in sorted(bindings):
            b = bindings[family]
            names = b.names + [name for _, extra in b.extra for name in extra]
            print("%s\t%s\t%s\t%s" % (family, ",".join(b.paths), " ".join(names), b.needs))
        return 0
    if not args.family:
        parser.error("--family is required (see --list)")
    options = {}
    for item in args.option:
        key, eq, value = item.partition("=")
        if not eq:
            parser.error("--option %s: expected K=V" % item)
        options[key] = value
    try:
        if args.check:
            from .engine_provider import _stand_in_modules
            from .ops import NumpyOps
            for family in args.family:
                b, fns, tree = bind(args.engine, family, args.source, NumpyOps(_stand_in_modules()))
                print("%s: %s from %s at %s" % (family, b.function, b.path, tree.describe()))
            return 0
        provider = make_provider(args.engine, args.family, args.source, options)
    except BindingError as e:
        sys.stderr.write("slotguard.engines: %s\n" % e)
        return 2
    provider.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
