#!/usr/bin/env python3
# pnginfo.py FILE [R,G,B@X0,Y0,X1,Y1]... - decodes an 8-bit RGBA or RGB PNG with the standard
# library only (chunk CRCs, IHDR, IDAT inflated and un-filtered) and prints "W H COLOURS MAGENTA
# SATURATED SHA256 CHANNELS [COUNT]...": the number of distinct colours, of magenta pixels, of
# saturated pixels, a hash of the pixels (not of the file, so compression settings cannot
# matter), 4 (RGBA) or 3 (RGB), and for each R,G,B@X0,Y0,X1,Y1 the number of pixels of exactly
# that colour in the rectangle x0 <= x < x1, y0 <= y < y1 (y = 0 the top row); "ERR why" for a
# bad file. Used by the demos' end-to-end tests (tests/demo_lib.sh).
import sys, zlib, struct, hashlib
def info(path, specs):
    try:
        d = open(path, 'rb').read()
    except OSError as e:
        return 'ERR ' + str(e)
    if d[:8] != b'\x89PNG\r\n\x1a\n':
        return 'ERR bad signature'
    p = 8; idat = b''; ihdr = None; end = False
    while p + 8 <= len(d):
        ln, typ = struct.unpack('>I4s', d[p:p + 8])
        if p + 12 + ln > len(d):
            return 'ERR truncated chunk'
        body = d[p + 8:p + 8 + ln]
        if struct.unpack('>I', d[p + 8 + ln:p + 12 + ln])[0] != zlib.crc32(typ + body) & 0xffffffff:
            return 'ERR CRC of ' + typ.decode('latin1')
        if typ == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
        elif typ == b'IDAT': idat += body
        elif typ == b'IEND': end = True; break
        p += 12 + ln
    if not ihdr or not end:
        return 'ERR no IHDR or IEND'
    w, h, depth, ctype, comp, filt, inter = ihdr
    if depth != 8 or ctype not in (2, 6) or inter != 0:
        return 'ERR not 8-bit non-interlaced RGBA or RGB (depth %d, colour type %d)' % (depth, ctype)
    raw = zlib.decompress(idat); bpp = 4 if ctype == 6 else 3; stride = w * bpp
    if len(raw) != h * (stride + 1):
        return 'ERR image data size'
    out = bytearray(); prev = bytearray(stride)
    for y in range(h):
        o = y * (stride + 1); f = raw[o]; cur = bytearray(raw[o + 1:o + 1 + stride])
        for i in range(stride):
            a = cur[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
            if f == 1: cur[i] = (cur[i] + a) & 255
            elif f == 2: cur[i] = (cur[i] + b) & 255
            elif f == 3: cur[i] = (cur[i] + ((a + b) >> 1)) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif f != 0: return 'ERR filter type %d' % f
        out += cur; prev = cur
    px = [bytes(out[i:i + bpp]) for i in range(0, len(out), bpp)]
    # magenta: R and B both above G + 128 (the wave demo's NaN colour, whatever G comes out as)
    mag = sum(1 for q in px if q[0] > q[1] + 128 and q[2] > q[1] + 128)
    # saturated: max - min of R, G, B above 60 (the cubes demo's coloured cubes)
    sat = sum(1 for q in px if max(q[:3]) - min(q[:3]) > 60)
    counts = []
    for spec in specs:
        rgb, rect = spec.split('@')
        want = bytes(int(v) for v in rgb.split(','))
        x0, y0, x1, y1 = (int(v) for v in rect.split(','))
        counts.append(sum(1 for y in range(max(y0, 0), min(y1, h)) for x in range(max(x0, 0), min(x1, w))
                          if px[y * w + x][:3] == want))
    return '%d %d %d %d %d %s %d' % (w, h, len(set(px)), mag, sat, hashlib.sha256(out).hexdigest(), bpp) + \
        ''.join(' %d' % c for c in counts)
print(info(sys.argv[1], sys.argv[2:]))
