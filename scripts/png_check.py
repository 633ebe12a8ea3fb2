#!/usr/bin/env python3
"""Checks one rendered icbench report (used by scripts/report-check).

Arguments: the HTML source, Chromium's --dump-dom output, and its
--screenshot PNG. Fails (exit 1) when
- the rendered DOM has fewer figures than the source,
- a figure has no drawn marks (points, bars, series or model lines, heat
  map squares), or
  says "no data",
- a string from the store appears unescaped (the test puts <b>x</b> in a
  link name: no <b> element may come out of it),
- the screenshot is (nearly) blank.
Only the standard library: the PNG is decoded with zlib.
"""
import html.parser
import struct
import sys
import zlib


class Figures(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.figs = []  # [id, marks, text]
        self.depth = 0
        self.bold = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "b":
            self.bold += 1
        if tag == "svg" and "figure" in (a.get("class") or ""):
            self.figs.append([a.get("id"), 0, ""])
            self.depth = 1
            return
        if self.depth:
            self.depth += 1
            cls = set((a.get("class") or "").split())
            # A marked cell's marker is "point marked" (issue #29).
            if cls & {"point", "bar", "series", "model", "cell"}:
                self.figs[-1][1] += 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.depth:
            self.depth -= 1

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.figs[-1][2] += data


def figures(text):
    p = Figures()
    p.feed(text)
    return p


def png_non_white_fraction(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), f"unsupported PNG {depth}/{ctype}"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    non_white = 0
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        for x in range(0, stride, bpp):
            if min(line[x:x + 3]) < 200:
                non_white += 1
        prev = line
    return non_white / (w * h)


def main():
    src, dom, png = sys.argv[1:4]
    want = figures(open(src, encoding="utf-8").read())
    got = figures(open(dom, encoding="utf-8").read())
    errors = []
    if len(got.figs) < len(want.figs) or not got.figs:
        errors.append(f"{len(got.figs)} figures rendered, {len(want.figs)} in the page")
    for fid, marks, text in got.figs:
        if marks == 0 or "no data" in text:
            errors.append(f"figure {fid} is empty")
    if got.bold:
        errors.append(f"{got.bold} <b> elements: a string from the store was not escaped")
    frac = png_non_white_fraction(png)
    if frac < 0.01:
        errors.append(f"screenshot nearly blank: {frac:.4f} of pixels not white")
    name = src.rsplit("/", 1)[-1]
    for e in errors:
        print(f"report-check: {name}: {e}")
    print(f"report-check: {name}: {len(got.figs)} figures, each with marks; "
          f"{frac:.1%} of the screenshot drawn" if not errors else f"report-check: {name}: FAILED")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
