"""Reference outcomes for JPEGs whose Huffman tables are missing, from
TensorFlow itself.

Run by hand (never by CI), from the repository root, after jpegs.py:

    python tools/tfref/jpegs_tables.py

with TensorFlow 2.21. It takes JPEGs jpegs.py wrote under
decode/testdata/jpeg/ and leaves out some of their DHT segments: a
sequential JPEG without them is a motion-JPEG frame, which libjpeg decodes
with the standard tables, while a progressive one (whose tables libjpeg's
encoder always optimizes) is refused. decode/testdata/
tf_decode_jpeg_tables.json then holds what tf.io.decode_jpeg makes of each,
for channels 0, 1 and 3 (and 3 with dct_method="INTEGER_ACCURATE"): the
shape and SHA-256 of the pixels, or TensorFlow's error.
"""
import json
import os

import tensorflow as tf

from jpegs_libjpeg import case

OUT = "decode/testdata"


def segments(data):
    """The JPEG's marker segments and entropy-coded data, in order, as
    (marker, bytes) pairs; entropy-coded data has the marker None."""
    out, i = [(0xD8, data[:2])], 2
    while i < len(data):
        marker = data[i + 1]
        if marker == 0xD9:
            out.append((marker, data[i:i + 2]))
            return out
        length = data[i + 2] << 8 | data[i + 3]
        out.append((marker, data[i:i + 2 + length]))
        i += 2 + length
        if marker == 0xDA:
            # The scan's data runs to the next marker that is neither a
            # stuffed 0xff00 nor a restart marker.
            j = i
            while not (data[j] == 0xFF and data[j + 1] not in (0x00, *range(0xD0, 0xD8))):
                j += 1
            out.append((None, data[i:j]))
            i = j
    return out


def without_tables(data, keep):
    """data without the DHT segments for which keep(index of the scan
    they come before) is false."""
    out, scan = b"", 0
    for marker, seg in segments(data):
        if marker == 0xDA:
            scan += 1
        if marker == 0xC4 and not keep(scan):
            continue
        out += seg
    return out


def main():
    files = {}
    for base in ("tf_progressive_420", "tf_progressive_gray", "pil_progressive_422"):
        with open(os.path.join(OUT, "jpeg", base + ".jpg"), "rb") as f:
            data = f.read()
        # No tables at all; none for the first scan; none for the scans
        # after the first.
        files[f"tables_none_{base}.jpg"] = without_tables(data, lambda scan: False)
        files[f"tables_nofirst_{base}.jpg"] = without_tables(data, lambda scan: scan > 0)
        files[f"tables_onlyfirst_{base}.jpg"] = without_tables(data, lambda scan: scan == 0)
    for base in ("tf_q95_420_37x23", "tf_gray_q60"):
        with open(os.path.join(OUT, "jpeg", base + ".jpg"), "rb") as f:
            files[f"tables_none_{base}.jpg"] = without_tables(f.read(), lambda scan: False)
    cases = []
    for name, data in sorted(files.items()):
        with open(os.path.join(OUT, "jpeg", name), "wb") as f:
            f.write(data)
        for channels, accurate in ((0, False), (1, False), (3, False), (3, True)):
            cases.append(case(name, data, channels, accurate, False))
    with open(os.path.join(OUT, "tf_decode_jpeg_tables.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=0)
        f.write("\n")
    print(f"{len(files)} files, {len(cases)} cases")


if __name__ == "__main__":
    main()
