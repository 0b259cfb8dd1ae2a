"""TensorFlow reference for sluice.DecodeImage, the front door's image
decoding of Example features.

Run by hand (never by CI), from the repository root, with TensorFlow 2.x:

    python tools/tfref/cropimages.py

It encodes small PNG images (exact to decode) of several sizes and channel
counts, decodes each with tf.io.decode_image(channels=c,
expand_animations=False) and fits it to a fixed height and width with
tf.image.resize_with_crop_or_pad, and writes testdata/tf_crop_images.json:
for every case the PNG (hex), the channels and target size asked for, and
TensorFlow's pixels (hex) and shape.
"""
import json
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

OUT = os.path.join("testdata", "tf_crop_images.json")


def main():
    rng = np.random.default_rng(7)
    cases = []
    sizes = [(6, 6), (5, 7), (7, 5), (9, 4), (4, 9), (1, 1), (10, 10), (6, 11)]
    for h, w in sizes:
        for src_channels in (1, 3, 4):
            pixels = rng.integers(0, 256, (h, w, src_channels), dtype=np.uint8)
            png = tf.io.encode_png(pixels).numpy()
            for channels in (1, 3):
                for th, tw in ((6, 6), (4, 8)):
                    img = tf.io.decode_image(png, channels=channels, expand_animations=False)
                    out = tf.image.resize_with_crop_or_pad(img, th, tw).numpy()
                    cases.append({"png": png.hex(), "channels": channels, "height": th, "width": tw,
                                  "shape": list(out.shape), "pixels": out.tobytes().hex()})
    with open(OUT, "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1)
        f.write("\n")
    print("wrote %s: %d cases" % (OUT, len(cases)), file=sys.stderr)


if __name__ == "__main__":
    main()
