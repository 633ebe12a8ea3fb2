#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""End-to-end check of build/icb-peer over a pty and over stdio, for each protocol.
Run by `make -C firmware peer-test`. Uses the independent encoder of testdata/frames/gen.py."""
import os
import pty
import struct
import subprocess
import sys
import time
import tty

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "testdata", "frames"))
import gen  # noqa: E402

PEER = os.path.join(HERE, "..", "build", "icb-peer")


def over_pty(args, data, want_len):
    master, slave = pty.openpty()
    tty.setraw(master)
    proc = subprocess.Popen([PEER, "--path", os.ttyname(slave)] + args)
    os.close(slave)
    time.sleep(0.3)  # let the peer set raw mode before the first byte
    os.write(master, data)
    got, t0 = b"", time.time()
    while len(got) < want_len and time.time() - t0 < 5:
        got += os.read(master, 65536)
    os.close(master)  # the peer sees EIO and must exit 0
    return got, proc.wait(timeout=5)


def main():
    failed = 0

    def check(name, ok):
        nonlocal failed
        print("%-40s %s" % (name, "ok" if ok else "FAILED"))
        failed += not ok

    hello = gen.encode(ty=1, seq=1, payload=gen.caps(65551, 0x7F, 10**9, 1, 0, 0))
    body = bytes(range(256)) * 4
    echo = gen.encode(ty=3, seq=2, ts=(5, 0, 0), payload=body)
    got, rc = over_pty([], b"garbage" + hello + echo, 40 + len(echo))
    check("icb: exit 0 on EIO", rc == 0)
    check("icb: CAPS reply", got[:6] == bytes([0xCB, 0x1C, 1, 2, 1, 0]) and len(got) >= 40)
    e = got[40:]
    check("icb: echo with REPLY|TS", len(e) == len(echo) and e[4] == 3 and e[12 + 24:-4] == body)
    check("icb: CRC of the echo", struct.unpack("<I", e[-4:])[0] == gen.crc32_mpeg2(e[:-4]))

    buf = bytearray(bytes(i & 0xFF for i in range(4096)))
    buf[0:6] = struct.pack("<HHH", 0xABCD, 4096, 0)
    got, rc = over_pty(["--protocol", "dimtass"], bytes(buf), 2)
    check("dimtass: 2-byte count reply", got == struct.pack("<H", 4096) and rc == 0)

    got, rc = over_pty(["--protocol", "raw"], b"hello raw", 9)
    check("raw: byte-exact echo", got == b"hello raw" and rc == 0)

    p = subprocess.run([PEER, "--stdio"], input=hello, capture_output=True, timeout=5)
    check("stdio: CAPS, exit 0 on EOF", p.returncode == 0 and p.stdout[3] == 2)
    p = subprocess.run([PEER, "--stdio", "--protocol", "nope"], capture_output=True, timeout=5)
    check("bad option: exit 2", p.returncode == 2)
    print("%d passed, %d failed" % (8 - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
