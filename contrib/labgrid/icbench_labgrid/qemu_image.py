# SPDX-License-Identifier: MIT OR Apache-2.0
"""The initramfs of the QEMU test boards: busybox-static, a shell on the
serial console, and the XMODEM tools (lrzsz's rz/sz with the glibc they
link to) that labgrid's ShellDriver uses for put/get over that console.

No icbench is put in the image unless asked (``icbench=PATH``): a board is
deployed by the lab run, as a real board would be.

    python -m icbench_labgrid.qemu_image OUT.cpio.gz [--icbench PATH]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

PROMPT = "icb-lab# "

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/shm /dev/mqueue /root
mount -t tmpfs tmp /tmp
mount -t tmpfs shm /dev/shm
mount -t mqueue mq /dev/mqueue 2>/dev/null
# The guest's own host name, not the board's: the lab store names the board
# from the environment (merge --board), whatever the board calls itself.
hostname "guest-$(sed -n 's/.*icb_board=\\([^ ]*\\).*/\\1/p' /proc/cmdline)"
echo "icbench-lab board $(hostname): $(nproc) CPUs, $(uname -r)"
export HOME=/root PATH=/bin:/sbin:/usr/bin:/usr/local/bin PS1='%s'
while true; do setsid cttyhack sh; done
""" % PROMPT


class ImageError(Exception):
    pass


def _libs(binary):
    """The shared objects a dynamic binary needs, from ldd."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True)
    libs = []
    for line in out.stdout.splitlines():
        parts = line.split()
        for p in parts:
            if p.startswith("/"):
                libs.append(p)
                break
    return libs


def build(out, icbench=None):
    """Writes the gzip'd newc initramfs to ``out``."""
    busybox = shutil.which("busybox") or "/bin/busybox"
    if not os.path.exists(busybox):
        raise ImageError("no busybox: apt-get install busybox-static")
    if b"program interpreter" in subprocess.run(
            ["readelf", "-l", busybox], capture_output=True).stdout:
        raise ImageError(f"{busybox} is not static: apt-get install busybox-static")
    tools = [shutil.which(t) for t in ("rz", "sz")]
    if not all(tools):
        raise ImageError("no rz/sz for XMODEM transfers: apt-get install lrzsz")
    root = tempfile.mkdtemp(prefix="icb-lab-initramfs-")
    try:
        for d in ("bin", "sbin", "proc", "sys", "dev", "tmp", "etc", "usr/bin",
                  "usr/local/bin"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        shutil.copy(busybox, os.path.join(root, "bin/busybox"))
        for t in tools:
            shutil.copy(t, os.path.join(root, "usr/bin", os.path.basename(t)))
            for lib in _libs(t):
                dest = os.path.join(root, lib.lstrip("/"))
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                shutil.copy(lib, dest)
        if icbench:
            shutil.copy(icbench, os.path.join(root, "usr/local/bin/icbench"))
        with open(os.path.join(root, "init"), "w") as f:
            f.write(INIT)
        os.chmod(os.path.join(root, "init"), 0o755)
        with open(os.path.join(root, "etc/passwd"), "w") as f:
            f.write("root:x:0:0:root:/root:/bin/sh\n")
        files = subprocess.run(["find", "."], cwd=root, capture_output=True,
                               check=True).stdout
        cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root,
                              input=files, capture_output=True)
        if cpio.returncode:
            raise ImageError(f"cpio failed: {cpio.stderr.decode().strip()}")
        import gzip
        tmp = out + ".tmp"
        with gzip.open(tmp, "wb", compresslevel=1) as f:
            f.write(cpio.stdout)
        os.replace(tmp, out)
    finally:
        shutil.rmtree(root)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m icbench_labgrid.qemu_image")
    ap.add_argument("out")
    ap.add_argument("--icbench", help="a static icbench to put in /usr/local/bin")
    a = ap.parse_args(argv)
    try:
        build(a.out, a.icbench)
    except ImageError as e:
        print(f"qemu_image: {e}", file=sys.stderr)
        return 1
    print(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
