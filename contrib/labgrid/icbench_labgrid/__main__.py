# SPDX-License-Identifier: MIT OR Apache-2.0
"""python -m icbench_labgrid --env lab.yaml --plan plans/x.toml --store lab.db

Runs the plan on every target of the labgrid environment file (or those
given with --target), merges every board's database into the store, and
prints one line per board. Exit status: 0 when every board merged, 1 when
one failed (the others are merged all the same), 2 for bad arguments.
Arguments after `--` go to `icbench run` on the boards.
"""
import argparse
import logging
import os
import sys

from .builds import BuildError, Builds
from .lab import run_lab, summary


def parse(argv):
    run_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, run_args = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(prog="python -m icbench_labgrid", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", required=True, help="labgrid environment file (its targets are the boards)")
    ap.add_argument("--plan", required=True, help="icbench plan file (docs/plans.md)")
    ap.add_argument("--store", required=True, help="the lab's icbench database; created if absent")
    ap.add_argument("--target", action="append", help="only this target (repeatable)")
    ap.add_argument("--dist", default=None,
                    help="directory of scripts/release tarballs (default: dist/ if it exists)")
    ap.add_argument("--build", action="append", default=[], metavar="ARCH=PATH",
                    help="a tarball or binary for boards whose `uname -m` is ARCH (x86_64, aarch64, armv7l)")
    ap.add_argument("--icbench", help="icbench on this machine for merging (default: icbench on PATH, "
                    "else the build for this machine's architecture)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds a board's plan may take (900)")
    ap.add_argument("--acquire", action="store_true",
                    help="acquire each target's RemotePlace through the labgrid coordinator first, release it after")
    ap.add_argument("--fetched", help="where the boards' databases are kept (default: STORE.boards/)")
    a = ap.parse_args(argv)
    a.run_args = run_args
    return a


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    # The xmodem module warns about the duplicate first block every labgrid
    # get_bytes() starts with (it NAKs and goes on): not the user's concern.
    logging.getLogger("xmodem").setLevel(logging.ERROR)
    from labgrid import Environment  # after argument errors, which need no labgrid
    with Builds() as builds:
        return run(a, builds, Environment)


def run(a, builds, Environment):
    try:
        dist = a.dist or ("dist" if os.path.isdir("dist") else None)
        if dist:
            builds.add_dist(dist)
        for spec in a.build:
            arch, sep, path = spec.partition("=")
            if not sep:
                raise BuildError(f"--build {spec}: give ARCH=PATH, e.g. aarch64=dist/icbench-0.1.0-aarch64-unknown-linux-gnu.tar.gz")
            builds.add(arch, path)
        if not builds.targets():
            raise BuildError("no icbench build to deploy: run scripts/release, or pass --dist DIR or --build ARCH=PATH")
    except BuildError as e:
        print(f"icbench-labgrid: {e}", file=sys.stderr)
        return 2
    icbench = a.icbench
    if not icbench:
        from shutil import which
        icbench = which("icbench")
    try:
        env = Environment(a.env)
    except Exception as e:
        print(f"icbench-labgrid: {a.env}: cannot be read as a labgrid environment ({e})", file=sys.stderr)
        return 2
    try:
        results = run_lab(env, a.plan, a.store, builds, targets=a.target, icbench_host=icbench,
                          fetch_dir=a.fetched, run_args=a.run_args, timeout=a.timeout,
                          acquire=a.acquire)
    except (BuildError, FileNotFoundError, ValueError) as e:
        print(f"icbench-labgrid: {e}", file=sys.stderr)
        return 2
    finally:
        try:
            env.cleanup()
        except Exception:
            pass
    print(summary(results), flush=True)
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
