"""A tiny TFRecord, tf.train.Example and tf.train.SequenceExample writer
for the tests, in pure Python: no TensorFlow, no protobuf package."""

import struct


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc(data):
    c = crc32c(data)
    return ((c >> 15 | c << 17) + 0xA282EAD8) & 0xFFFFFFFF


def frame(record):
    """One record in TFRecord framing."""
    n = struct.pack("<Q", len(record))
    return n + struct.pack("<I", masked_crc(n)) + record + struct.pack("<I", masked_crc(record))


def _varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num, payload):
    """A length-delimited field."""
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _feature(value):
    # Feature: bytes_list = 1, float_list = 2, int64_list = 3; each list's
    # values are field 1 (numbers packed).
    kind, vals = value
    if kind == "bytes":
        return _field(1, b"".join(_field(1, v) for v in vals))
    if kind == "float":
        return _field(2, _field(1, struct.pack(f"<{len(vals)}f", *vals)))
    if kind == "int64":
        return _field(3, _field(1, b"".join(_varint(v) for v in vals)))
    raise ValueError(kind)


def example(features):
    """A serialized tf.train.Example of features {name: (kind, values)},
    kind one of bytes, float, int64."""
    return _field(1, _features(features))


def _features(features):
    # Features: a map from name to Feature, field 1.
    return b"".join(
        _field(1, _field(1, name.encode()) + _field(2, _feature(v))) for name, v in sorted(features.items()))


def sequence_example(context, feature_lists):
    """A serialized tf.train.SequenceExample: context features {name:
    (kind, values)} as example takes, and feature lists {name: [(kind,
    values), ...]}, one (kind, values) per step. A list of no steps is
    present and empty."""
    # SequenceExample: context = 1 (Features), feature_lists = 2
    # (FeatureLists: a map from name to FeatureList, field 1, whose steps
    # are its field 1).
    lists = b"".join(
        _field(1, _field(1, name.encode()) + _field(2, b"".join(_field(1, _feature(step)) for step in steps)))
        for name, steps in sorted(feature_lists.items()))
    return _field(1, _features(context)) + _field(2, lists)


def write(path, records, compress=None):
    """Writes records as a TFRecord file, gzip-compressed with
    compress="gzip"; returns each record's offset in the uncompressed
    stream."""
    offsets, data, off = [], bytearray(), 0
    for r in records:
        offsets.append(off)
        f = frame(r)
        data += f
        off += len(f)
    if compress == "gzip":
        import gzip
        data = gzip.compress(bytes(data))
    with open(path, "wb") as f:
        f.write(data)
    return offsets


def png(pixels):
    """A PNG of uint8 pixels [height, width, channels] (1, 3 or 4 channels),
    unfiltered, for tests without an imaging library."""
    import zlib
    h, w, c = pixels.shape
    color = {1: 0, 3: 2, 4: 6}[c]
    raw = b"".join(b"\0" + pixels[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
