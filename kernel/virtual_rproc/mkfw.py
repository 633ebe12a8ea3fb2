#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the virtual remote's firmware image: an ELF32 (little endian) with
one PT_LOAD segment at the remote's SRAM (device address 0x10000000, see
vrproc.h) holding a `.resource_table` section, which is what remoteproc's
ELF helpers look for (drivers/remoteproc/remoteproc_elf_loader.c:
find_table() matches the section by name, rproc_elf_find_loaded_rsc_table()
uses its sh_addr).  The table declares one vdev: VIRTIO_ID_RPMSG with
VIRTIO_RPMSG_F_NS, two vrings (device address FW_RSC_ADDR_ANY: Linux
allocates them), 4096-byte alignment, NUM buffers each.  Linux's
virtio_rpmsg_bus fixes the buffer size at 512 bytes.

There is no code in the image: the "program" is the module's kernel thread.

usage: mkfw.py [--num N] OUT
"""
import argparse
import struct

SRAM_DA = 0x10000000
RSC_VDEV = 3
VIRTIO_ID_RPMSG = 7
VIRTIO_RPMSG_F_NS = 1 << 0
FW_RSC_ADDR_ANY = 0xFFFFFFFF
VRING_ALIGN = 4096


def resource_table(num: int) -> bytes:
    vring = struct.pack("<5I", FW_RSC_ADDR_ANY, VRING_ALIGN, num, 0, 0)
    # struct fw_rsc_vdev: id notifyid dfeatures gfeatures config_len
    #                     status num_of_vrings reserved[2]
    vdev = struct.pack("<5IBB2x", VIRTIO_ID_RPMSG, 0, VIRTIO_RPMSG_F_NS, 0, 0, 0, 2)
    entry = struct.pack("<I", RSC_VDEV) + vdev + vring + vring
    header = struct.pack("<4I", 1, 1, 0, 0)  # ver, num, reserved[2]
    offsets = struct.pack("<I", len(header) + 4)
    return header + offsets + entry


def elf(table: bytes) -> bytes:
    shstr = b"\0.resource_table\0.shstrtab\0"
    ehsize, phsize, shsize = 52, 32, 40
    table_off = 0x100
    shstr_off = table_off + len(table)
    sh_off = (shstr_off + len(shstr) + 3) & ~3
    ident = b"\x7fELF" + bytes([1, 1, 1, 0]) + bytes(8)
    eh = ident + struct.pack("<HHIIIIIHHHHHH", 2, 0, 1, SRAM_DA, ehsize, sh_off, 0,
                             ehsize, phsize, 1, shsize, 3, 2)
    ph = struct.pack("<8I", 1, table_off, SRAM_DA, SRAM_DA, len(table), len(table), 6, 4)
    sh = bytes(shsize)
    sh += struct.pack("<10I", 1, 1, 3, SRAM_DA, table_off, len(table), 0, 0, 4, 0)
    sh += struct.pack("<10I", 17, 3, 0, 0, shstr_off, len(shstr), 0, 0, 1, 0)
    out = bytearray(sh_off + len(sh))
    out[0:ehsize] = eh
    out[ehsize:ehsize + phsize] = ph
    out[table_off:table_off + len(table)] = table
    out[shstr_off:shstr_off + len(shstr)] = shstr
    out[sh_off:] = sh
    return bytes(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num", type=int, default=256,
                    help="buffers per vring, a power of 2 up to 256 (default 256)")
    ap.add_argument("out")
    a = ap.parse_args()
    if a.num < 1 or a.num > 256 or a.num & (a.num - 1):
        ap.error(f"--num {a.num}: must be a power of 2 from 1 to 256")
    with open(a.out, "wb") as f:
        f.write(elf(resource_table(a.num)))


if __name__ == "__main__":
    main()
