"""Reference pixels for the JPEGs that only libjpeg-turbo's own encoder
(cjpeg) writes, or that are damaged, from TensorFlow itself.

Run by hand (never by CI), from the repository root:

    python tools/tfref/jpegs_libjpeg.py

with TensorFlow 2.21 (which bundles libjpeg-turbo 2.1.4) and cjpeg from
libjpeg-turbo (apt install libjpeg-turbo-progs). It writes small JPEG files
under decode/testdata/jpeg/ and what tf.io.decode_jpeg makes of each into
three files the Go tests in package decode read:

  - tf_decode_jpeg_sampling.json: every sampling-factor combination
    libjpeg upsamples (4:1:1, 4:1:0, luma 1x4 and 2x4, ratios of 3, chroma
    sampled above luma, chroma of two samplings), at widths where libjpeg's
    fancy upsampling gives way to replication, and one it refuses;
  - tf_decode_jpeg_smoothing.json: progressive JPEGs whose scans leave
    some of the first AC coefficients imprecise or unsent, which libjpeg
    smooths across blocks (jdcoefct.c, decompress_smooth_data);
  - tf_decode_jpeg_resync.json: JPEGs with restart intervals and a stray,
    missing or misnumbered marker in their entropy-coded data.

Each case is a file and a channel count (0, 1, 3; and 3 with
dct_method="INTEGER_ACCURATE"), with the shape and SHA-256 of TensorFlow's
pixels (for channels 3 of the default method also the pixels), or
TensorFlow's error. Rerunning rewrites the same files (fixed random seed).
"""
import base64
import hashlib
import json
import os
import subprocess
import tempfile

import numpy as np
import tensorflow as tf

from jpegs import picture

OUT = "decode/testdata"


def cjpeg(img, *args):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.pnm")
        h, w, c = img.shape
        with open(src, "wb") as f:
            f.write(b"P%d\n%d %d\n255\n" % (6 if c == 3 else 5, w, h) + img.tobytes())
        out = os.path.join(tmp, "out.jpg")
        subprocess.run(["cjpeg", *args, "-outfile", out, src], check=True, capture_output=True)
        with open(out, "rb") as f:
            return f.read()


def scans(text, gray):
    """A cjpeg -scans file's text, for a gray image without the chroma
    scans."""
    lines = [l.strip() for l in text.strip().split(";") if l.strip()]
    if gray:
        lines = [l.replace("0,1,2:", "0:") for l in lines if not l.startswith(("1:", "2:"))]
    return ";\n".join(lines) + ";\n"


def progressive(img, script, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write(scans(script, img.shape[2] == 1))
        f.flush()
        return cjpeg(img, "-quality", "85", "-scans", f.name, *args)


def sampling_files():
    files = {}
    sizes = {"17x9": (9, 17), "3x5": (5, 3), "4x7": (7, 4), "5x6": (6, 5), "33x65": (65, 33)}
    samplings = {"h2v1": "2x1", "h2v2": "2x2", "h4v1": "4x1", "h4v2": "4x2", "h1v4": "1x4", "h2v4": "2x4",
                 "h3v1": "3x1", "h1v3": "1x3", "y22_cb12_cr11": "2x2,1x2,1x1", "y11_c22": "1x1,2x2,2x2",
                 "y21_c21": "2x1,2x1,2x1", "y12_cb21_cr11": "1x2,2x1,1x1", "y21_cb12_cr12": "2x1,1x2,1x2"}
    for i, (size, (h, w)) in enumerate(sizes.items()):
        img = picture(h, w, 100 + i)
        for name, s in samplings.items():
            files[f"cj_{name}_{size}.jpg"] = cjpeg(img, "-quality", "85", "-sample", s)
        files[f"cj_h4v2_prog_{size}.jpg"] = cjpeg(img, "-quality", "85", "-sample", "4x2", "-progressive")
        files[f"cj_y11_c22_rst_{size}.jpg"] = cjpeg(img, "-quality", "85", "-sample", "1x1,2x2,2x2", "-restart", "1B")
        gray = img.mean(axis=-1, keepdims=True).astype(np.uint8)
        files[f"cj_gray2x2_{size}.jpg"] = cjpeg(gray, "-quality", "85", "-sample", "2x2")
    # 2 does not divide 3: libjpeg refuses to upsample it (cjpeg to write
    # it, so Cb's factors are changed in the frame header).
    data = bytearray(cjpeg(picture(9, 17, 7), "-sample", "3x1"))
    sof = data.index(b"\xff\xc0")
    data[sof + 10 + 3 + 1] = 0x21
    files["cj_y31_cb21_cr11_17x9.jpg"] = bytes(data)
    return files


# Scan scripts (cjpeg -scans) that leave coefficients 1-9 imprecise or
# unsent in some component.
SCRIPTS = {
    # Successive approximation without the refinement scans.
    "noref": "0,1,2: 0-0, 0, 1; 0: 1-63, 0, 2; 1: 1-63, 0, 1; 2: 1-63, 0, 1;",
    # The DC terms only.
    "dconly": "0,1,2: 0-0, 0, 0;",
    # Luma's first five AC coefficients only.
    "ac5": "0,1,2: 0-0, 0, 0; 0: 1-5, 0, 0; 1: 1-63, 0, 0; 2: 1-63, 0, 0;",
    # Coefficients 1-9 exact, the rest not: no smoothing.
    "ac10": "0,1,2: 0-0, 0, 0; 0: 1-9, 0, 0; 0: 10-63, 0, 1; 1: 1-63, 0, 0; 2: 1-63, 0, 0;",
    # Luma complete, chroma DC only.
    "chromadc": "0,1,2: 0-0, 0, 0; 0: 1-63, 0, 0;",
    # Refined part of the way: DC to bit 1, luma's AC to bit 1.
    "halfref": "0,1,2: 0-0, 0, 2; 0,1,2: 0-0, 2, 1; 0: 1-5, 0, 3; 0: 6-63, 0, 3; 0: 1-63, 3, 2;"
               " 0: 1-63, 2, 1; 1: 1-63, 0, 0; 2: 1-63, 0, 0;",
    # libjpeg's own progression cut short before the last refinements.
    "cut": "0,1,2: 0-0, 0, 1; 0: 1-5, 0, 2; 2: 1-63, 0, 1; 1: 1-63, 0, 1; 0: 6-63, 0, 2; 0: 1-63, 2, 1;",
}


def smoothing_files():
    files = {}
    # Widths of 1, 2, 3 and 5 blocks, heights of 1 to 3, for the edges of
    # libjpeg's 5×5 neighbourhood of blocks.
    sizes = {"17x9": (9, 17), "9x17": (17, 9), "37x23": (23, 37)}
    for i, (size, (h, w)) in enumerate(sizes.items()):
        img = picture(h, w, 200 + i)
        gray = img.mean(axis=-1, keepdims=True).astype(np.uint8)
        for name, script in SCRIPTS.items():
            files[f"cj_prog_{name}_444_{size}.jpg"] = progressive(img, script, "-sample", "1x1")
            files[f"cj_prog_{name}_420_{size}.jpg"] = progressive(img, script, "-sample", "2x2")
            files[f"cj_prog_{name}_gray_{size}.jpg"] = progressive(gray, script)
        for name in ("noref", "dconly"):
            for s in ("2x1", "1x2", "1x4", "1x1,2x2,2x2"):
                tag = s.replace(",", "_")
                files[f"cj_prog_{name}_{tag}_{size}.jpg"] = progressive(img, SCRIPTS[name], "-sample", s)
            files[f"cj_prog_{name}_rst_{size}.jpg"] = progressive(img, SCRIPTS[name], "-sample", "2x2",
                                                                   "-restart", "1B")
            # Gray with sampling factors in the frame header, which
            # group its block rows into libjpeg's iMCU rows.
            for s in ("2x2", "1x2"):
                files[f"cj_prog_{name}_gray{s}_{size}.jpg"] = progressive(gray, SCRIPTS[name], "-sample", s)
    # The last scan cut short by an EOI in its data: past the last iMCU row
    # it had data for, libjpeg smooths with the bits known before it.
    for name in ("noref_420_37x23", "noref_444_9x17", "dconly_420_37x23", "halfref_444_37x23",
                 "noref_rst_37x23", "noref_gray2x2_37x23", "ac5_420_17x9"):
        files[f"cj_prog_eoi_{name}.jpg"] = cut_last_scan(files[f"cj_prog_{name}.jpg"])
    return files


def cut_last_scan(data):
    """data with an EOI marker in the middle of its last scan's
    entropy-coded data."""
    i = data.rindex(b"\xff\xda")
    start = i + 2 + (data[i + 2] << 8 | data[i + 3])
    mid = (start + len(data) - 2) // 2
    if data[mid - 1] == 0xff:  # not between a 0xff and its stuffed 0x00
        mid += 1
    return data[:mid] + b"\xff\xd9" + data[mid:]


def entropy_start(data):
    """The offset of the first scan's entropy-coded data."""
    i = data.index(b"\xff\xda")
    return i + 2 + (data[i + 2] << 8 | data[i + 3])


def resync_files():
    files = {}
    img = picture(48, 64, 300)
    bases = {
        "444": cjpeg(img, "-quality", "90", "-sample", "1x1", "-restart", "2B"),
        "420": cjpeg(img, "-quality", "90", "-sample", "2x2", "-restart", "1B"),
        "prog": cjpeg(img, "-quality", "90", "-sample", "2x2", "-restart", "1B", "-progressive"),
    }
    for name, data in bases.items():
        start = entropy_start(data)
        rst = [i for i in range(start, len(data) - 1) if data[i] == 0xff and 0xd0 <= data[i + 1] <= 0xd7]
        mid = (rst[3] + rst[4]) // 2  # inside the fifth interval
        # A stray marker inside an interval: each restart number, a
        # marker libjpeg skips (TEM) and one it stops at (DHT).
        for m in list(range(0xd0, 0xd8)) + [0x01]:
            files[f"cj_rst_{name}_ins{m:02x}.jpg"] = data[:mid] + bytes([0xff, m]) + data[mid:]
        # Restart markers missing, repeated, renumbered.
        r = rst[4]
        files[f"cj_rst_{name}_drop1.jpg"] = data[:r] + data[r + 2:]
        files[f"cj_rst_{name}_drop2.jpg"] = data[:r] + data[r + 2:rst[5]] + data[rst[5] + 2:]
        files[f"cj_rst_{name}_dup.jpg"] = data[:r] + data[r:r + 2] + data[r:]
        for k in (1, 2, 3, 6, 7):
            m = 0xd0 + (data[r + 1] - 0xd0 + k) % 8
            files[f"cj_rst_{name}_renum{k}.jpg"] = data[:r + 1] + bytes([m]) + data[r + 2:]
    return files


def case(name, data, channels, accurate, with_pixels):
    c = {"file": "jpeg/" + name, "channels": channels}
    if accurate:
        c["accurate"] = True
    try:
        px = tf.io.decode_jpeg(data, channels=channels,
                               dct_method="INTEGER_ACCURATE" if accurate else "").numpy()
    except tf.errors.OpError as e:
        c["error"] = e.message.split("\n")[0]
        return c
    c["shape"] = list(px.shape)
    c["sha256"] = hashlib.sha256(px.tobytes()).hexdigest()
    if with_pixels:
        c["pixels"] = base64.b64encode(px.tobytes()).decode()
    return c


def main():
    os.makedirs(os.path.join(OUT, "jpeg"), exist_ok=True)
    # Not a reference case: the smoothed progressive JPEG BenchmarkImage
    # reads, jpegs.py's 224 x 224 picture without refinement scans.
    with open(os.path.join(OUT, "bench-progressive-noref-224.jpg"), "wb") as f:
        f.write(progressive(picture(224, 224, 9), SCRIPTS["noref"], "-sample", "2x2"))
    for ref, files in (("sampling", sampling_files()), ("smoothing", smoothing_files()),
                       ("resync", resync_files())):
        cases = []
        for name, data in sorted(files.items()):
            with open(os.path.join(OUT, "jpeg", name), "wb") as f:
                f.write(data)
            for channels, accurate in ((0, False), (1, False), (3, False), (3, True)):
                # The pixels of the small images, to show where a
                # difference is; the hash of the rest.
                shape = tf.io.extract_jpeg_shape(data).numpy()
                small = channels == 3 and not accurate and shape[0] * shape[1] <= 400
                cases.append(case(name, data, channels, accurate, small))
        with open(os.path.join(OUT, f"tf_decode_jpeg_{ref}.json"), "w") as f:
            json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=0)
            f.write("\n")
        print(f"{ref}: {len(files)} files, {len(cases)} cases")


if __name__ == "__main__":
    main()
