"""Reference pixels for JPEG decoding from TensorFlow itself.

Run by hand (never by CI), from the repository root:

    python tools/tfref/jpegs.py

with TensorFlow 2.21 and Pillow installed (pip install tensorflow-cpu==2.21.0
pillow). It writes small JPEG files under decode/testdata/jpeg/, made by
TensorFlow's encode_jpeg and by Pillow (both libjpeg-turbo) with the settings
that change how a decoder must read them: chroma subsampling 4:4:4, 4:2:2 and
4:2:0, qualities from 5 to 100, 16-bit quantization tables, optimized Huffman
tables, restart markers, grayscale, sizes that are not whole MCUs, files
without Huffman tables (as motion-JPEG frames are), and progressive files
of each kind. decode/testdata/tf_decode_jpeg.json then holds what
tf.io.decode_jpeg (default dct_method, the accurate integer IDCT; fancy
upscaling) makes of each, for channels 0, 1 and 3: the shape and the pixels (for channels 0 their
SHA-256); and the SHA-256 of the pixels for channels 3 with
dct_method="INTEGER_ACCURATE".
The Go tests in package decode compare against it. Rerunning rewrites the
same files (fixed random seed).
"""
import base64
import hashlib
import io
import json
import os

import numpy as np
import tensorflow as tf
from PIL import Image

OUT = "decode/testdata"


def picture(h, w, seed):
    """Something like a photograph: smooth gradients, an edge, texture and
    noise, so that blocks have both few and many nonzero coefficients."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    r = 128 + 100 * np.sin(x / 7.0) * np.cos(y / 11.0)
    g = 255 * x / max(w - 1, 1)
    b = np.where(x + y > (h + w) / 2, 220.0, 30.0)
    img = np.stack([r, g, b], axis=-1) + rng.normal(0, 12, (h, w, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def pillow(img, **kw):
    buf = io.BytesIO()
    Image.fromarray(img if img.shape[-1] == 3 else img[:, :, 0]).save(buf, "JPEG", **kw)
    return buf.getvalue()


def tfjpeg(img, **kw):
    return tf.io.encode_jpeg(img, **kw).numpy()


def without_dht(data):
    """data, a JPEG made with the standard Huffman tables, without its DHT
    segments."""
    out, i = bytearray(data[:2]), 2
    while True:
        marker, length = data[i + 1], data[i + 2] << 8 | data[i + 3]
        if marker == 0xDA:
            return bytes(out + data[i:])
        if marker != 0xC4:
            out += data[i:i + 2 + length]
        i += 2 + length


def main():
    files = {}
    sizes = {"8x8": (8, 8), "16x16": (16, 16), "17x9": (9, 17), "37x23": (23, 37), "1x1": (1, 1),
             "64x48": (48, 64), "33x65": (65, 33), "96x72": (72, 96)}
    for i, (name, (h, w)) in enumerate(sizes.items()):
        img = picture(h, w, i)
        files[f"tf_q95_420_{name}.jpg"] = tfjpeg(img, quality=95)
        files[f"tf_q75_444_{name}.jpg"] = tfjpeg(img, quality=75, chroma_downsampling=False)
        files[f"pil_q85_422_{name}.jpg"] = pillow(img, quality=85, subsampling="4:2:2")
    img = picture(48, 64, 42)
    gray = img.mean(axis=-1, keepdims=True).astype(np.uint8)
    for q in (5, 50, 100):
        files[f"pil_q{q}_420.jpg"] = pillow(img, quality=q, subsampling="4:2:0")
        files[f"pil_q{q}_444.jpg"] = pillow(img, quality=q, subsampling="4:4:4")
    files["pil_optimized_420.jpg"] = pillow(img, quality=90, optimize=True)
    files["tf_optimized_420.jpg"] = tfjpeg(img, quality=90, optimize_size=True)
    files["pil_restart_rows_420.jpg"] = pillow(img, quality=90, restart_marker_rows=1)
    files["pil_restart_blocks_444.jpg"] = pillow(img, quality=90, subsampling="4:4:4", restart_marker_blocks=3)
    # Quantization values above 255 need 16-bit tables.
    files["pil_qtables16_420.jpg"] = pillow(img, qtables=[[300] * 64, [511] * 64], subsampling="4:2:0")
    files["pil_gray_q90.jpg"] = pillow(gray, quality=90)
    files["tf_gray_q60.jpg"] = tfjpeg(gray, quality=60)
    files["pil_gray_restart.jpg"] = pillow(gray, quality=90, restart_marker_blocks=5)
    files["tf_progressive_420.jpg"] = tfjpeg(img, quality=90, progressive=True)
    # Progressive JPEGs: libjpeg's progression (spectral selection, then
    # successive approximation), every subsampling, partial MCUs, restarts.
    files["tf_progressive_444_q100.jpg"] = tfjpeg(img, quality=100, progressive=True, chroma_downsampling=False)
    files["tf_progressive_gray.jpg"] = tfjpeg(gray, quality=75, progressive=True)
    for name, (h, w) in (("37x23", (23, 37)), ("1x1", (1, 1)), ("33x65", (65, 33))):
        files[f"tf_progressive_420_{name}.jpg"] = tfjpeg(picture(h, w, 7), quality=85, progressive=True)
    files["pil_progressive_422.jpg"] = pillow(img, quality=80, progressive=True, subsampling="4:2:2")
    files["pil_progressive_restart_420.jpg"] = pillow(img, quality=90, progressive=True, restart_marker_blocks=2)
    files["pil_progressive_q5.jpg"] = pillow(img, quality=5, progressive=True)
    # Motion-JPEG frames leave out the standard Huffman tables, which the
    # decoder must then assume.
    files["tf_nodht_420.jpg"] = without_dht(files["tf_q95_420_37x23.jpg"])
    files["tf_nodht_gray.jpg"] = without_dht(files["tf_gray_q60.jpg"])

    # Not a reference case: the progressive JPEG decode's BenchmarkImage
    # reads, a 224 x 224 picture as Pillow writes it.
    with open(os.path.join(OUT, "bench-progressive-224.jpg"), "wb") as f:
        f.write(pillow(picture(224, 224, 9), quality=90, progressive=True))

    os.makedirs(os.path.join(OUT, "jpeg"), exist_ok=True)
    cases = []
    for name, data in sorted(files.items()):
        with open(os.path.join(OUT, "jpeg", name), "wb") as f:
            f.write(data)
        for channels in (0, 1, 3):
            px = tf.io.decode_jpeg(data, channels=channels).numpy()
            case = {"file": "jpeg/" + name, "channels": channels, "shape": list(px.shape)}
            if channels == 0:  # the same pixels as channels 1 or 3: their hash keeps the file small
                case["sha256"] = hashlib.sha256(px.tobytes()).hexdigest()
            else:
                case["pixels"] = base64.b64encode(px.tobytes()).decode()
            cases.append(case)
        # dct_method="INTEGER_ACCURATE", libjpeg's JDCT_ISLOW
        # (decode.AccurateDCT).
        px = tf.io.decode_jpeg(data, channels=3, dct_method="INTEGER_ACCURATE").numpy()
        cases.append({"file": "jpeg/" + name, "channels": 3, "accurate": True, "shape": list(px.shape),
                      "sha256": hashlib.sha256(px.tobytes()).hexdigest()})
    with open(os.path.join(OUT, "tf_decode_jpeg.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=0)
        f.write("\n")
    print(f"{len(files)} files, {len(cases)} cases")


if __name__ == "__main__":
    main()
