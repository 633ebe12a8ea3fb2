#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Write an RP2040 UF2 file from an ELF image linked to run from SRAM.

    uf2.py IN.elf OUT.uf2

Every PT_LOAD segment with file contents is cut into 256-byte blocks at
256-byte-aligned addresses (the gaps padded with zeros), each in a 512-byte
UF2 block: the magic numbers, flag 0x2000 (family ID present), the target
address, 256 payload bytes, the block's number and the count, and the
RP2040 family ID 0xe48bff56 (the UF2 format: github.com/microsoft/uf2; the
RP2040 datasheet's bootrom section on UF2).  The bootrom in BOOTSEL mode
writes blocks that target SRAM straight into SRAM and, when all have
arrived, starts the image at its lowest address: rp2040.ld puts the entry
there.  Standard library only.
"""
import struct
import sys

UF2_MAGIC_START0 = 0x0A324655
UF2_MAGIC_START1 = 0x9E5D5157
UF2_MAGIC_END = 0x0AB16F30
UF2_FLAG_FAMILY_ID = 0x00002000
RP2040_FAMILY_ID = 0xE48BFF56
PAGE = 256
SRAM = (0x20000000, 0x20042000)


def load_segments(elf):
    """(address, bytes) of each PT_LOAD segment with file contents."""
    if elf[:4] != b"\x7fELF" or elf[4] != 1 or elf[5] != 1:
        raise SystemExit("uf2.py: not a 32-bit little-endian ELF file")
    (phoff,) = struct.unpack_from("<I", elf, 28)
    phentsize, phnum = struct.unpack_from("<HH", elf, 42)
    segments = []
    for i in range(phnum):
        p_type, p_offset, _vaddr, p_paddr, p_filesz = struct.unpack_from(
            "<IIIII", elf, phoff + i * phentsize)
        if p_type == 1 and p_filesz:
            segments.append((p_paddr, elf[p_offset:p_offset + p_filesz]))
    return segments


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: uf2.py IN.elf OUT.uf2")
    with open(sys.argv[1], "rb") as f:
        elf = f.read()
    pages = {}
    for addr, data in load_segments(elf):
        if addr < SRAM[0] or addr + len(data) > SRAM[1]:
            raise SystemExit("uf2.py: segment at 0x%08x is outside SRAM" % addr)
        for i, byte in enumerate(data):
            a = addr + i
            page = pages.setdefault(a - a % PAGE, bytearray(PAGE))
            page[a % PAGE] = byte
    if not pages:
        raise SystemExit("uf2.py: nothing to load")
    out = bytearray()
    for n, addr in enumerate(sorted(pages)):
        block = struct.pack("<IIIIIIII", UF2_MAGIC_START0, UF2_MAGIC_START1,
                            UF2_FLAG_FAMILY_ID, addr, PAGE, n, len(pages),
                            RP2040_FAMILY_ID)
        block += bytes(pages[addr]) + bytes(476 - PAGE)
        block += struct.pack("<I", UF2_MAGIC_END)
        out += block
    with open(sys.argv[2], "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
