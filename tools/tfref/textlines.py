"""TensorFlow reference for compressed text lines, for the Go package recordio.

Run by hand (never by CI), from the repository root, with TensorFlow 2.x:

    python tools/tfref/textlines.py

TensorFlow's TextLineReader reads plain text only; tf.data.TextLineDataset
takes a compression_type, which is what recordio's TextLine reader with
Compression follows. This writes small text files, plain, ZLIB and GZIP
compressed (line ends, a missing last newline, empty and "\\r"-only lines,
a long line, an empty file, a truncated stream), reads each with
TextLineDataset, and writes recordio/testdata/tf_textlines.json: for every
case the file (hex), its compression, the lines TensorFlow read (hex, or
"sha256:<digest>:<length>" for a long one) and the error class that ended
reading, if any.
"""
import gzip
import hashlib
import json
import os
import sys
import tempfile
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

OUT = os.path.join("recordio", "testdata", "tf_textlines.json")

TEXTS = {
    "lines": b"a,1\nb,2\nc,3\n",
    "crlf, no last newline": b"x\r\ny\r\n\r\nz",
    "empty lines and a lone cr": b"\n\n\r\nlast\r",
    "long line": b"short\n" + b"L" * 70000 + b"\nend\n",
    "empty file": b"",
}


def pack(data, c):
    if c == "GZIP":
        return gzip.compress(data, mtime=0)
    if c == "ZLIB":
        return zlib.compress(data)
    return data


def main():
    cases = []
    d = tempfile.mkdtemp()
    files = []
    for name, text in TEXTS.items():
        for c in ("", "ZLIB", "GZIP"):
            if c or len(text) < 1000:  # plain text's long lines are tf_readers.json's
                files.append((name, c, pack(text, c)))
    files += [("zero bytes", c, b"") for c in ("ZLIB", "GZIP")]
    numbers = b"".join(b"%d\n" % (i * 7919 % 100003) for i in range(1000))
    for c in ("ZLIB", "GZIP"):
        packed = pack(numbers, c)
        files.append(("truncated in the middle", c, packed[:len(packed) // 2]))
        files.append(("truncated in the trailer", c, packed[:-2]))
    for i, (name, c, data) in enumerate(files):
        p = os.path.join(d, "f%d" % i)
        with open(p, "wb") as f:
            f.write(data)
        lines, end = [], ""
        try:
            for line in tf.data.TextLineDataset(p, compression_type=c).as_numpy_iterator():
                lines.append(line.hex() if len(line) < 100 else "sha256:%s:%d" % (hashlib.sha256(line).hexdigest(), len(line)))
        except tf.errors.OpError as e:
            end = type(e).__name__
        cases.append({"name": name, "compression": c or "NONE", "file": data.hex(), "lines": lines, "end": end})
    with open(OUT, "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1)
        f.write("\n")
    print("wrote %s: %d cases" % (OUT, len(cases)), file=sys.stderr)


if __name__ == "__main__":
    main()
