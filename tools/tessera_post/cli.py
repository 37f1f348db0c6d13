"""Command-line entry: `tessera-post SUBCOMMAND ...`. Each module registers its subcommands."""
import argparse
import importlib

# Modules that add subcommands; a module whose solver has not landed is simply absent.
MODULES = ["bench", "nbody", "fdtd", "fdtd_flux", "scan", "bfs", "spmv", "scaling_model"]


class UsageError(Exception):
    """A problem the user can fix (missing file, dataset, bad option): exit code 2."""


def build_parser():
    parser = argparse.ArgumentParser(prog="tessera-post", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    for name in MODULES:
        try:
            module = importlib.import_module(f"tessera_post.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"tessera_post.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args) or 0
    except UsageError as e:
        print(f"tessera-post: error: {e}", flush=True)
        return 2
