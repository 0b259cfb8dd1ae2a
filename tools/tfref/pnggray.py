"""Reference outputs for color PNGs decoded to one channel, from TensorFlow.

Run by hand (never by CI), from the repository root:

    python tools/tfref/pnggray.py [side]

with TensorFlow 2.21 installed (pip install tensorflow-cpu==2.21.0). It
writes decode/testdata/tf_png_gray.json: color PNGs (8- and 16-bit, RGB,
RGBA and palette) with the chunks that set a file gamma in libpng (sRGB,
gAMA of many values, both, invalid and out-of-place ones) and sBIT, and
TensorFlow's decode_png(channels=1) of each, which libpng's
png_set_rgb_to_gray makes gamma-correct when the file gamma is not near 1.
Each image is side × side pixels (default 16) of random colors, grays and
primaries; a larger side checks more colors without committing them.
Rerunning rewrites the same file (fixed random seed).
"""
import base64
import json
import struct
import sys
import zlib

import numpy as np
import tensorflow as tf


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def gama(g):
    return (b"gAMA", struct.pack(">I", g))


SRGB = (b"sRGB", b"\x00")


def png(pixels, color_type, depth, before=(), after=(), plte=None):
    """pixels: H×W×C array of samples (indices for a palette)."""
    h, w = pixels.shape[:2]
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 0))
    for kind, data in before:
        out += chunk(kind, data)
    if plte is not None:
        out += chunk(b"PLTE", plte)
    for kind, data in after:
        out += chunk(kind, data)
    dt = ">u2" if depth == 16 else np.uint8
    raw = b"".join(b"\x00" + row.astype(dt).tobytes() for row in pixels)
    return out + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def colors(rng, n, top):
    """n colors of samples up to top: random, with grays, primaries and
    extremes among them."""
    c = rng.integers(0, top + 1, size=(n, 3))
    fixed = [[top, 0, 0], [0, top, 0], [0, 0, top], [top, top, 0], [0, 0, 0], [top, top, top], [1, 0, 0],
             [top, top, top - 1], [top // 2, top // 2, 0]]
    c[:len(fixed)] = fixed
    grays = rng.integers(0, top + 1, size=n // 8)
    c[len(fixed):len(fixed) + len(grays)] = np.stack([grays] * 3, axis=1)
    return c


def main():
    side = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    rng = np.random.default_rng(2021)
    n = side * side
    rgb8 = colors(rng, n, 255).reshape(side, side, 3)
    rgb16 = colors(rng, n, 65535).reshape(side, side, 3)
    # 16-bit samples whose high bytes are all alike, so the low bytes decide.
    rgb16[side // 2:, :, :] = (rgb16[side // 2:, :, :] & 0xFF) | 0x8000
    alpha8 = rng.integers(0, 256, size=(side, side, 1))
    pal = colors(rng, 256, 255).astype(np.uint8)
    idx = rng.integers(0, 256, size=(side, side, 1))

    gammas = {"srgb": [SRGB], "none": []}
    for g in [45455, 45454, 45000, 50000, 55556, 40000, 25000, 10000, 16, 94999, 95000, 100000, 105000, 105001,
              120000, 220000, 1000000, 625000000]:
        gammas[f"gama{g}"] = [gama(g)]
    gammas.update({
        "srgb_gama45455": [SRGB, gama(45455)],
        "gama45455_srgb": [gama(45455), SRGB],
        "srgb_gama100000": [SRGB, gama(100000)],   # does not match sRGB: the sRGB stays
        "gama100000_srgb": [gama(100000), SRGB],   # sRGB overrides
        "gama60000_gama100000": [gama(60000), gama(100000)],  # duplicate: invalid, the first stays
        "srgb_srgb": [SRGB, SRGB],
        "srgb_intent9": [(b"sRGB", b"\x09")],
        "gama0": [gama(0)],
        "gama0_srgb": [gama(0), SRGB],               # invalid stops the sRGB
        "gama_short": [(b"gAMA", b"\x00\x00\xb1")],
    })
    cases = []

    def add(name, data):
        try:
            out = tf.io.decode_png(data, channels=1).numpy()
            gray = base64.b64encode(out.tobytes()).decode()
        except Exception as e:  # noqa: BLE001
            print(name, e)
            return
        cases.append({"name": name, "png": base64.b64encode(data).decode(), "gray": gray})

    for gname, chunks in gammas.items():
        add(f"rgb8_{gname}", png(rgb8, 2, 8, chunks))
        add(f"rgb16_{gname}", png(rgb16, 2, 16, chunks))
    for gname in ["srgb", "gama45455", "gama25000", "gama220000", "none"]:
        chunks = gammas[gname]
        add(f"rgba8_{gname}", png(np.concatenate([rgb8, alpha8], axis=2), 6, 8, chunks))
        add(f"rgba16_{gname}", png(np.concatenate([rgb16, rgb16[:, :, :1]], axis=2), 6, 16, chunks))
        add(f"palette_{gname}", png(idx, 3, 8, chunks, plte=pal.tobytes()))
        add(f"palette_trns_{gname}", png(idx, 3, 8, chunks, plte=pal.tobytes(),
                                         after=[(b"tRNS", bytes(range(0, 256, 2)))]))
    # Out of place: after PLTE libpng ignores a gAMA.
    add("palette_gama_after_plte", png(idx, 3, 8, [], plte=pal.tobytes(), after=[gama(45455)]))
    # sBIT sets the precision of libpng's 16-bit tables.
    for bits in [1, 4, 8, 10, 11, 12, 13, 15, 16]:
        add(f"rgb16_srgb_sbit{bits}", png(rgb16, 2, 16, [SRGB, (b"sBIT", bytes([bits, max(bits - 1, 1), 1]))]))
        add(f"rgb16_gama25000_sbit{bits}", png(rgb16, 2, 16, [gama(25000), (b"sBIT", bytes([bits] * 3))]))
    add("rgb16_srgb_sbit_bad", png(rgb16, 2, 16, [SRGB, (b"sBIT", bytes([17, 3, 3]))]))
    add("rgb16_srgb_sbit_short", png(rgb16, 2, 16, [SRGB, (b"sBIT", bytes([4, 4]))]))
    # A gAMA with a bad CRC is skipped.
    bad = png(rgb8, 2, 8, [gama(25000)])
    bad = bad[:33 + 12] + b"\x00\x00\x00\x00" + bad[33 + 16:]  # the gAMA's CRC
    add("rgb8_gama_badcrc", bad)
    with open("decode/testdata/tf_png_gray.json", "w") as f:
        json.dump({"tensorflow": tf.__version__, "side": side, "cases": cases}, f, indent=1)


if __name__ == "__main__":
    main()
