"""Reference outputs of TensorFlow's decode_image for edge-case images.

Run by hand (never by CI), from the repository root:

    python tools/tfref/imageedge.py

with TensorFlow 2.21 installed (pip install tensorflow-cpu==2.21.0). It
writes decode/testdata/tf_decode_image_edge.json: images of no pixels, PNGs
with chunks libpng skips or ignores (a bad CRC on an ancillary chunk, tRNS
chunks of the wrong length, in images with alpha, longer than the palette,
duplicated, or all opaque), a PLTE in a grayscale PNG, GIFs whose first
frame extends past the logical screen or whose screen is 0 × 0, and PNG
image data libpng reads otherwise than Go's image/png: zlib data after the
last row (libpng warns), a wrong zlib checksum (Adler-32) read with the last
row's data (an error) or in a later read (libpng reads IDAT data 8 KiB at a
time; a warning), too little data, a stream that does not end, and IDAT
chunks with a bad CRC; with TensorFlow's output or error for channels 0, 1,
3 and 4. The files are in the JSON (base64). Rerunning rewrites the same
file (fixed random seed).
"""
import base64
import json
import os
import struct
import sys
import zlib

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(__file__))
from decode import _chunk, _lzw_literals, gif, png, tf_error  # noqa: E402


def png_head(w, h, color_type, depth, chunks=(), interlace=0):
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, interlace))
    for kind, data in chunks:
        out += _chunk(kind, data)
    return out


def raw_png(w, h, color_type, depth, rows, chunks, extra=b"", interlace=0):
    raw = b"".join(b"\x00" + r for r in rows) + extra
    return png_head(w, h, color_type, depth, chunks, interlace) + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")


def adam7_rows(w, h, bits, draw):
    """The rows of an interlaced image's seven passes, each of draw(bytes)."""
    rows = []
    for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)):
        pw, ph = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
        if pw > 0 and ph > 0:
            rows += [draw((pw * bits + 7) // 8) for _ in range(ph)]
    return rows


def deflate_open(raw):
    """Raw deflate data of raw, byte-aligned and not final, so stored blocks
    can follow."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(raw) + c.flush(zlib.Z_SYNC_FLUSH)


EMPTY_BLOCK = b"\x00\x00\x00\xff\xff"  # an empty stored block, not the last
LAST_BLOCK = b"\x01\x00\x00\xff\xff"  # an empty stored block, the last


def zlib_stream(deflate, adler):
    return b"\x78\x01" + deflate + struct.pack(">I", adler & 0xFFFFFFFF)


def with_idats(head, *datas):
    return head + b"".join(_chunk(b"IDAT", d) for d in datas) + _chunk(b"IEND", b"")


def files():
    rng = np.random.default_rng(15)
    u8 = lambda *s: rng.integers(0, 256, size=s, dtype=np.uint8)
    f = {}
    jpg = tf.io.encode_jpeg(u8(8, 8, 3)).numpy()
    sof = jpg.index(b"\xff\xc0")
    f["jpeg_height0.jpg"] = jpg[:sof + 5] + b"\x00\x00" + jpg[sof + 7:]
    f["jpeg_width0.jpg"] = jpg[:sof + 7] + b"\x00\x00" + jpg[sof + 9:]
    pal = bytes(u8(768))
    f["zero.gif"] = gif(0, 0, pal, [(0, 0, 0, 0, [])])
    f["frame_0x0.gif"] = gif(4, 3, pal, [(0, 0, 0, 0, [])])
    f["screen_0x0.gif"] = gif(0, 0, pal, [(0, 0, 3, 2, list(u8(6)))])
    f["frame_past_screen.gif"] = gif(4, 3, pal, [(0, 0, 5, 4, list(u8(20)))])
    f["frame_offset_past_screen.gif"] = gif(4, 3, pal, [(2, 1, 4, 3, list(u8(12)))])
    f["png_width0.png"] = png(0, 3, 0, 8, [b"" for _ in range(3)])
    idx = [bytes(rng.integers(0, 4, 4, dtype=np.uint8)) for _ in range(3)]
    plte = bytes(u8(12))
    f["palette_trns_opaque.png"] = png(4, 3, 3, 8, idx, plte=plte, trns=b"\xff\xff")
    f["palette_trns_long.png"] = raw_png(4, 3, 3, 8, idx, [(b"PLTE", plte), (b"tRNS", bytes([10, 20, 30, 40, 50]))])
    f["palette_trns_twice.png"] = raw_png(4, 3, 3, 8, idx, [(b"PLTE", plte), (b"tRNS", b"\x00\x80"), (b"tRNS", b"\x40")])
    f["palette_trns_before_plte.png"] = raw_png(4, 3, 3, 8, idx, [(b"tRNS", b"\x00\x80"), (b"PLTE", plte)])
    f["palette2_trns_past_depth.png"] = raw_png(4, 2, 3, 1, [b"\x50", b"\xa0"], [(b"PLTE", plte), (b"tRNS", b"\x00\x80\x40")])
    gray = [bytes(u8(4)) for _ in range(3)]
    f["gray_trns_short.png"] = raw_png(4, 3, 0, 8, gray, [(b"tRNS", b"\x00")])
    f["gray_plte.png"] = raw_png(4, 3, 0, 8, gray, [(b"PLTE", plte)])
    f["rgb_trns_short.png"] = raw_png(2, 2, 2, 8, [bytes(u8(6)) for _ in range(2)], [(b"tRNS", b"\x00\x01")])
    f["rgba_trns.png"] = raw_png(2, 2, 6, 8, [bytes(u8(8)) for _ in range(2)], [(b"tRNS", b"\x00\x01\x00\x02\x00\x03")])
    f["gray_alpha_trns.png"] = raw_png(2, 2, 4, 8, [bytes(u8(4)) for _ in range(2)], [(b"tRNS", b"\x00\x01")])
    ok = raw_png(4, 4, 2, 8, [bytes(u8(12)) for _ in range(4)], [])
    text = _chunk(b"tEXt", b"k\x00v")
    f["text_bad_crc.png"] = ok[:33] + text[:-4] + b"\x00\x00\x00\x00" + ok[33:]
    f["srgb_bad_crc.png"] = ok[:33] + _chunk(b"sRGB", b"\x00")[:-4] + b"\x00\x00\x00\x00" + ok[33:]
    f["extra_zlib_data.png"] = raw_png(4, 4, 2, 8, [bytes(u8(12)) for _ in range(4)], [], extra=b"\x00" * 20)

    # Image data: sluice inflates the rows only, libpng the whole stream.
    draw = lambda n: bytes(u8(n))
    f["extra_zlib_big.png"] = raw_png(4, 4, 2, 8, [draw(12) for _ in range(4)], [], extra=b"\x07" * 100000)
    f["extra_zlib_interlaced.png"] = raw_png(5, 3, 2, 8, adam7_rows(5, 3, 24, draw), [], extra=draw(9), interlace=1)
    f["extra_zlib_gray2.png"] = raw_png(5, 3, 0, 2, [draw(2) for _ in range(3)], [], extra=draw(3))
    f["extra_zlib_palette1_interlaced.png"] = raw_png(
        9, 9, 3, 1, adam7_rows(9, 9, 1, draw), [(b"PLTE", draw(6))], extra=draw(2), interlace=1)
    f["extra_zlib_rgba16_interlaced.png"] = raw_png(3, 5, 6, 16, adam7_rows(3, 5, 64, draw), [], extra=draw(1), interlace=1)
    rows = [draw(12) for _ in range(4)]
    raw = b"".join(b"\x00" + r for r in rows)
    head = png_head(4, 4, 2, 8)
    extra = zlib.compress(raw + b"\x00" * 20)
    f["extra_zlib_bad_adler.png"] = with_idats(head, extra[:-1] + bytes([extra[-1] ^ 1]))
    f["extra_zlib_idat.png"] = with_idats(head, extra[:len(extra) // 2], extra[len(extra) // 2:])
    f["extra_zlib_idat_bad_crc.png"] = (head + _chunk(b"IDAT", extra[:len(extra) // 2])
                                        + _chunk(b"IDAT", extra[len(extra) // 2:])[:-4] + b"\x00\x00\x00\x00"
                                        + _chunk(b"IEND", b""))
    f["extra_zlib_unterminated.png"] = with_idats(head, b"\x78\x01" + deflate_open(raw + b"\x00" * 20))
    good = zlib.compress(raw)
    bad = good[:-1] + bytes([good[-1] ^ 1])
    f["zlib_bad_adler.png"] = with_idats(head, bad)
    f["zlib_bad_adler_next_idat.png"] = with_idats(head, bad[:-4], bad[-4:])
    # The checksum more than 8 KiB after the rows, or the rows too.
    wrong = zlib.adler32(raw) ^ 1
    f["zlib_bad_adler_next_read.png"] = with_idats(head, zlib_stream(deflate_open(raw) + EMPTY_BLOCK * 1640 + LAST_BLOCK, wrong))
    f["zlib_bad_adler_same_read.png"] = with_idats(head, zlib_stream(EMPTY_BLOCK * 1640 + deflate_open(raw) + LAST_BLOCK, wrong))
    f["zlib_good_next_read.png"] = with_idats(head, zlib_stream(deflate_open(raw) + EMPTY_BLOCK * 1640 + LAST_BLOCK, zlib.adler32(raw)))
    f["zlib_short.png"] = with_idats(head, zlib.compress(raw[:-13]))
    f["zlib_unterminated.png"] = with_idats(head, b"\x78\x01" + deflate_open(raw))
    f["idat_bad_crc.png"] = head + _chunk(b"IDAT", good)[:-4] + b"\x00\x00\x00\x00" + _chunk(b"IEND", b"")
    f["idat_after_stream.png"] = with_idats(head, good + b"\x01\x02", b"\x03")
    return f


def main():
    cases = []
    for name, data in sorted(files().items()):
        for channels in [0, 1, 3, 4]:
            case = {"name": name, "data": base64.b64encode(data).decode(), "channels": channels}
            try:
                out = tf.io.decode_image(data, channels=channels, expand_animations=False).numpy()
                case["shape"] = list(out.shape)
                case["pixels"] = base64.b64encode(out.tobytes()).decode()
            except Exception as e:  # noqa: BLE001
                case["error"] = tf_error(e)
            cases.append(case)
    with open("decode/testdata/tf_decode_image_edge.json", "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1)


if __name__ == "__main__":
    main()
