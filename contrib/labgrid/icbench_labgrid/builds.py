# SPDX-License-Identifier: MIT OR Apache-2.0
"""Which icbench build goes on which board: the release tarballs of
scripts/release (dist/icbench-VERSION-TARGET.tar.gz) or a binary given per
architecture, keyed by what the board's `uname -m` says."""
import hashlib
import os
import re
import tarfile
import tempfile

# `uname -m` on the board -> the Rust target scripts/release builds for it.
TARGETS = {
    "x86_64": "x86_64-unknown-linux-musl",
    "amd64": "x86_64-unknown-linux-musl",
    "aarch64": "aarch64-unknown-linux-gnu",
    "arm64": "aarch64-unknown-linux-gnu",
    "armv7l": "armv7-unknown-linux-gnueabihf",
    "armv7": "armv7-unknown-linux-gnueabihf",
    "armhf": "armv7-unknown-linux-gnueabihf",
}

TARBALL = re.compile(r"^icbench-(?P<version>[^-]+(?:-[^-]+)*?)-(?P<target>"
                     + "|".join(sorted(set(map(re.escape, TARGETS.values())))) + r")\.tar\.gz$")


class BuildError(Exception):
    """No build for a board, or an unreadable one: refused before deploying."""


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class Builds:
    """Maps a board's architecture to a local icbench binary."""

    def __init__(self, cache_dir=None):
        self._by_target = {}  # rust target -> (source, binary path)
        # Without a cache_dir the unpacked binaries live in a directory of
        # this object's own, removed by close() (or leaving a `with`): a lab
        # run left one behind in /tmp each time, 30 MB with three targets.
        self._own = None if cache_dir else tempfile.TemporaryDirectory(prefix="icbench-lab-builds-")
        self._cache = cache_dir or self._own.name

    def close(self):
        if self._own is not None:
            self._own.cleanup()
            self._own = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def add(self, arch_or_target, path):
        """A tarball from scripts/release or a bare binary, for an `uname -m`
        value (x86_64, aarch64, armv7l) or a Rust target."""
        target = TARGETS.get(arch_or_target, arch_or_target)
        if target not in TARGETS.values():
            known = ", ".join(sorted(TARGETS))
            raise BuildError(f"unknown architecture '{arch_or_target}': give one of {known}")
        if not os.path.isfile(path):
            raise BuildError(f"{path}: no such file (build it with scripts/release {target})")
        binary = self._unpack(path, target) if path.endswith(".tar.gz") else path
        self._by_target[target] = (path, binary)

    def add_dist(self, dist_dir):
        """Every tarball scripts/release left in dist_dir."""
        found = 0
        for name in sorted(os.listdir(dist_dir)):
            m = TARBALL.match(name)
            if m:
                self.add(m.group("target"), os.path.join(dist_dir, name))
                found += 1
        if not found:
            raise BuildError(f"{dist_dir}: no icbench-*-TARGET.tar.gz (run scripts/release)")

    def _unpack(self, tarball, target):
        dest = os.path.join(self._cache, target)
        os.makedirs(dest, exist_ok=True)
        try:
            with tarfile.open(tarball) as tf:
                member = next((m for m in tf.getmembers()
                               if m.isfile() and m.name.endswith("/bin/icbench")), None)
                if member is None:
                    raise BuildError(f"{tarball}: no bin/icbench inside (not a scripts/release tarball)")
                out = os.path.join(dest, "icbench")
                with tf.extractfile(member) as src, open(out, "wb") as dst:
                    dst.write(src.read())
        except (tarfile.TarError, OSError, EOFError) as e:
            why = (str(e).strip().splitlines() or [type(e).__name__])[0].rstrip(":")
            raise BuildError(f"{tarball}: cannot be read ({why}); build it again with scripts/release")
        os.chmod(out, 0o755)
        return out

    def targets(self):
        return sorted(self._by_target)

    def for_arch(self, arch):
        """(rust target, source file, binary) for a board's `uname -m`."""
        target = TARGETS.get(arch)
        if target is None:
            raise BuildError(f"board architecture '{arch}' has no icbench build "
                             f"(scripts/release builds {', '.join(sorted(set(TARGETS.values())))})")
        if target not in self._by_target:
            have = ", ".join(self.targets()) or "none"
            raise BuildError(f"no icbench build for {arch} ({target}); have {have}: "
                             f"run scripts/release {target} or pass --build {arch}=PATH")
        source, binary = self._by_target[target]
        return target, source, binary

    def host_binary(self):
        """A build this machine can run itself (for `icbench merge`)."""
        arch = os.uname().machine
        try:
            return self.for_arch(arch)[2]
        except BuildError:
            return None
