"""Command-line entry: `tessera-post SUBCOMMAND ...`. Each module registers its subcommands."""
import argparse
import importlib

# Modules that add subcommands; a module whose solver has not landed is simply absent.
MODULES = ["bench", "nbody", "fdtd", "fdtd_flux", "fdtd_geometry", "scan", "bfs", "spmv", "scaling_model"]


class UsageError(Exception):
    """A problem the user can fix (missing file, dataset, bad option): exit code 2."""


# What `tessera-post --help` opens with: for the user, not the developer (the module docstring).
DESCRIPTION = """\
tessera-post: plots and checks of tessera's outputs (HDF5 files in a run's output folder) and of
its benchmark JSON. Each subcommand reads one kind of file, prints what it measured, and writes a
PNG beside its input (or where -o says).

example:
  tessera-post fdtd-probes output/fdtd/pec_cavity/probes.h5
  tessera-post SUBCOMMAND --help      (the options of one subcommand)

docs/user-guide.md (installed: share/tessera/docs/user-guide.md) shows every plot."""


def build_parser():
    parser = argparse.ArgumentParser(prog="tessera-post", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
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
