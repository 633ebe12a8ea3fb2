# SPDX-License-Identifier: MIT OR Apache-2.0
"""What the QEMU boards boot: the VM rig's kernel (scripts/vm-rig builds it
into ~/.cache/icbench/vm; ICB_LAB_KERNEL overrides), an initramfs built
here (busybox, a shell on ttyS0, lrzsz for labgrid's XMODEM transfers),
and the x86_64 release tarball from scripts/release (ICB_LAB_DIST, default
the repository's dist/)."""
import os
import shutil
import subprocess

import pytest

from icbench_labgrid.builds import Builds
from icbench_labgrid import qemu_image

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CACHE = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
RIG_KERNEL = os.path.join(CACHE, "icbench/vm/linux-source-6.1/arch/x86/boot/bzImage")
QEMU = shutil.which("qemu-system-x86_64") or "/usr/bin/qemu-system-x86_64"


def missing(what, how):
    # Under .ci/run (ICB_NO_SKIP=1) a missing input is a failure, not a skip.
    if os.environ.get("ICB_NO_SKIP", "0") != "0":
        pytest.fail(f"{what}: {how}")
    pytest.skip(f"SKIP {what}: {how}")


@pytest.fixture(scope="session")
def kernel(tmp_path_factory):
    src = os.environ.get("ICB_LAB_KERNEL", RIG_KERNEL)
    if not os.path.isfile(src):
        missing("no guest kernel", f"{src} is absent: run scripts/vm-rig kernel (or set ICB_LAB_KERNEL)")
    # A copy: the rig may rebuild its kernel while the boards boot.
    dst = tmp_path_factory.mktemp("kernel") / "bzImage"
    shutil.copy(src, dst)
    return str(dst)


@pytest.fixture(scope="session")
def dist():
    d = os.environ.get("ICB_LAB_DIST", os.path.join(REPO, "dist"))
    if not any(n.endswith("x86_64-unknown-linux-musl.tar.gz") for n in
               (os.listdir(d) if os.path.isdir(d) else [])):
        missing("no x86_64 release tarball", f"none in {d}: run scripts/release x86_64-unknown-linux-musl")
    return d


@pytest.fixture(scope="session")
def builds(dist, tmp_path_factory):
    b = Builds(cache_dir=str(tmp_path_factory.mktemp("builds")))
    b.add_dist(dist)
    return b


@pytest.fixture(scope="session")
def accel():
    """kvm only if a guest really boots under it within 10 s (a nested guest
    can hang with /dev/kvm present, as on the build machine); else tcg."""
    forced = os.environ.get("ICB_LAB_ACCEL")
    if forced in ("kvm", "tcg"):
        return forced
    if not (os.access("/dev/kvm", os.R_OK | os.W_OK) and os.path.isfile(RIG_KERNEL)):
        return "tcg"
    try:
        p = subprocess.run(["timeout", "10", QEMU, "-enable-kvm", "-cpu", "host", "-m", "128",
                            "-kernel", RIG_KERNEL, "-append", "console=ttyS0 panic=-1",
                            "-nographic", "-no-reboot", "-monitor", "none"],
                           capture_output=True, timeout=20)
        return "kvm" if b"Linux version" in p.stdout else "tcg"
    except (OSError, subprocess.TimeoutExpired):
        return "tcg"


@pytest.fixture(scope="session")
def image(builds, tmp_path_factory):
    """The boards' initramfs, carrying the x86_64 build (deploying 4 MB
    through XMODEM over an emulated console takes ~20 min: measured 3.8 KB/s),
    so the deploy step finds it by its sha256."""
    out = str(tmp_path_factory.mktemp("image") / "initrd.gz")
    qemu_image.build(out, icbench=builds.for_arch("x86_64")[2])
    return out
