"""CMYK JPEGs for the decode package's tests of the JPEGs it hands to Go's
image/jpeg.

Run by hand (never by CI), from the repository root:

    python tools/tfref/jpegs_cmyk.py

with Pillow installed. It writes small Adobe CMYK JPEGs (inverted, as
Photoshop and Pillow write them) under decode/testdata/jpeg/: baseline and
progressive at 4:4:4, and one with its first component subsampled 2x2,
which image/jpeg refuses and TensorFlow decodes.
"""
import io
import os

import numpy as np
from PIL import Image

from jpegs import picture

OUT = "decode/testdata/jpeg"


def main():
    rgb = picture(24, 40, 400)
    k = (255 - rgb.max(axis=-1, keepdims=True)).astype(np.uint8)
    img = Image.fromarray(np.concatenate([255 - rgb, k], axis=-1), "CMYK")
    for name, opts in (("cmyk_444", {"subsampling": 0}),
                       ("cmyk_444_progressive", {"subsampling": 0, "progressive": True}),
                       ("cmyk_420", {"subsampling": 2})):
        b = io.BytesIO()
        img.save(b, "JPEG", quality=90, **opts)
        with open(os.path.join(OUT, name + ".jpg"), "wb") as f:
            f.write(b.getvalue())
    print("3 files")


if __name__ == "__main__":
    main()
