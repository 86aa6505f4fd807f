#!/usr/bin/python3
# pngstat.py FILE: "WIDTH HEIGHT COLOURS TOP" of an 8-bit, non-interlaced
# RGB or RGBA PNG (what Chromium's --screenshot writes): the number of
# distinct colours and the share of the most common one, from the standard
# library alone (zlib). Exit 1 on a PNG it cannot read.
import struct
import sys
import zlib
from collections import Counter


def rows(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit('pngstat: %s: not a PNG' % path)
    pos, idat, hdr = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit('pngstat: %s: depth %d, colour type %d, interlace %d not handled'
                 % (path, depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, at = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0
    for _ in range(h):
        f, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        yield w, h, [bytes(line[i:i + 3]) for i in range(0, stride, bpp)]


count, total, size = Counter(), 0, None
for w, h, px in rows(sys.argv[1]):
    size = (w, h)
    count.update(px)
    total += len(px)
print(size[0], size[1], len(count), round(count.most_common(1)[0][1] / total, 4))
