"""Counts the TensorFlow reference cases the Go tests use, for CONFORMANCE.md.

Run from the repository root (plain Python 3, no TensorFlow needed):

    python3 tools/tfref/count_cases.py

It reads every reference file the tools/tfref scripts wrote under the
packages' testdata/ folders and prints a Markdown table: per TensorFlow op or
behaviour, the number of cases and how many of them are error cases (an
input TensorFlow rejects, with the message sluice must match). Paste the
table into CONFORMANCE.md after regenerating reference data.
"""
import collections
import json
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return json.load(f)


def is_error(case):
    """A case is an error case when TensorFlow's answer was an error."""
    if not isinstance(case, dict):
        return False
    if "error" in case and case["error"]:
        return True
    for k in ("output", "outputs"):
        v = case.get(k)
        if isinstance(v, dict) and v.get("error"):
            return True
    return False


def rows():
    out = []

    def add(op, rel, cases, script, what=""):
        cases = list(cases)
        out.append((op, len(cases), sum(is_error(c) for c in cases), script, rel, what))

    rel = "tfrecord/testdata/tf_reference.json"
    d = load(rel)
    add("TFRecordWriter / TFRecordDataset / TFRecordReader: framing, keys, compression",
        rel, d["files"].values(), "tfrecord.py gen", "files written by TensorFlow, records and key offsets")
    add("TFRecord corrupt input (CRC, truncation, gzip damage, huge length)",
        rel, [dict(v, error=True) for v in d["corrupt"].values()], "tfrecord.py gen",
        "TensorFlow's error for each damaged file")
    rel = "tfrecord/testdata/tf_reads_sluice.json"
    d = load(rel)
    add("TensorFlow reads sluice's TFRecord files", rel, d["files"].values(),
        "roundtrip.py", "NONE, ZLIB, GZIP (ZSTD recorded: TF 2.21 lacks it)")

    rel = "recordio/testdata/tf_readers.json"
    d = load(rel)
    by = collections.defaultdict(list)
    for c in d["cases"]:
        by[c["reader"]].append(c)
    for reader in sorted(by):
        add("tf.compat.v1.%s: records, keys, num_records_produced, work units" % reader,
            rel, by[reader], "readers.py")
    add("ReaderBase serialize_state / restore_state", rel,
        [{}] * 6 + [{"error": m} for m in d["state"]["restore_errors"].values()], "readers.py",
        "state bytes and restore errors")

    rel = "recordio/testdata/tf_textlines.json"
    add("tf.data.TextLineDataset(compression_type): lines of plain, ZLIB and GZIP text", rel,
        load(rel)["cases"], "textlines.py", "line ends, empty files, long lines, streams cut short")

    rel = "testdata/tf_crop_images.json"
    add("tf.io.decode_image + tf.image.resize_with_crop_or_pad (sluice.DecodeImage)", rel,
        load(rel)["cases"], "cropimages.py", "PNGs larger, smaller and across the target, 1, 3 and 4 channels")

    rel = "decode/testdata/tf_decode_csv.json"
    add("tf.io.decode_csv", rel, load(rel)["cases"], "decode.py",
        "types, defaults, quoting, delimiters, select_cols, NA values, errors")
    rel = "decode/testdata/tf_nan_bits.json"
    add("tf.io.decode_csv", rel, load(rel)["cases"], "nanbits.py",
        "the bits of each NaN: sign, payloads of nan(chars) in every base, past the type's payload bits")
    rel = "decode/testdata/tf_decode_raw.json"
    add("tf.io.decode_raw", rel, load(rel)["cases"], "decode.py", "every dtype, both byte orders")
    rel = "decode/testdata/tf_decode_image.json"
    add("tf.io.decode_image / decode_png / decode_jpeg / decode_gif / decode_bmp", rel,
        load(rel)["cases"], "decode.py", "pixels of each file at each channel count")
    rel = "decode/testdata/tf_decode_image_edge.json"
    add("tf.io.decode_image", rel, load(rel)["cases"], "imageedge.py",
        "images of no pixels; PNG chunks libpng skips (bad CRCs, invalid or opaque tRNS, PLTE in gray, "
        "palettes past the bit depth); PNG image data: zlib data after the last row, wrong zlib checksums, "
        "too little data, streams that do not end, IDAT CRCs; GIFs past or without a logical screen")
    rel = "decode/testdata/tf_png_gray.json"
    add("tf.io.decode_png(channels=1)", rel, load(rel)["cases"], "pnggray.py",
        "color PNGs (8- and 16-bit RGB, RGBA, palette) with sRGB, gAMA of many values, both, invalid ones, and sBIT")
    rel = "decode/testdata/tf_decode_jpeg.json"
    add("tf.io.decode_jpeg (dct_method default and INTEGER_ACCURATE)", rel, load(rel)["cases"], "jpegs.py",
        "pixels of 49 JPEGs, baseline and progressive: every subsampling, qualities 5-100, 16-bit tables, restarts, gray, partial MCUs, no DHT")
    for name, what in (
            ("sampling", "JPEGs cjpeg writes with other sampling factors (4:1:1, 4:1:0, luma 1×4 and 2×4, ratios of 3, "
                         "chroma above luma, chroma of two samplings; widths where libjpeg replicates), and one it refuses"),
            ("smoothing", "progressive JPEGs libjpeg block-smooths: successive approximation without refinement, DC only, "
                          "spectral selection cut short, in every sampling, gray with sampling factors, with restarts, last scan cut short"),
            ("resync", "JPEGs with restart intervals and a stray, missing, repeated or misnumbered marker, baseline and progressive")):
        rel = "decode/testdata/tf_decode_jpeg_%s.json" % name
        add("tf.io.decode_jpeg", rel, load(rel)["cases"], "jpegs_libjpeg.py", what)

    rel = "example/testdata/tfref.json"
    d = load(rel)
    names = {"single": "tf.io.parse_single_example", "batch": "tf.io.parse_example",
             "seq_single": "tf.io.parse_single_sequence_example",
             "seq_batch": "tf.io.parse_sequence_example"}
    by = collections.defaultdict(list)
    for c in d["cases"]:
        by[c["mode"]].append(c)
    for mode in ("single", "batch", "seq_single", "seq_batch"):
        add(names[mode], rel, by[mode], "example.py",
            "wire variants, defaults, shapes, sparse, ragged, hostile input")
    add("parse of ../shared/interop/mnist-1000.tfrecord", rel, [d["mnist"]], "example.py",
        "checksums of 1000 parsed images")
    rel = "example/testdata/tf_reads_sluice.json"
    d = load(rel)
    add("TensorFlow reads Examples / SequenceExamples from sluice's builders", rel,
        d["records"].values(), "roundtrip.py", "proto classes and parse ops, bit for bit")

    rel = "queue/testdata/queues_tf.json"
    add("FIFOQueue / PaddingFIFOQueue / RandomShuffleQueue / PriorityQueue", rel,
        load(rel)["scenarios"].values(), "queues.py", "order, shapes, close, dequeue_up_to, partial enqueue")
    rel = "queue/testdata/barrier_tf.json"
    add("Barrier", rel, load(rel)["scenarios"].values(), "barrier.py",
        "insert_many / take_many order, close, cancel, small batches")
    rel = "input/testdata/batching_tf.json"
    d = load(rel)
    by = collections.defaultdict(list)
    for c in d["cases"]:
        by[c.get("op") or c.get("producer")].append(c)
    add("tf.compat.v1.train.batch / maybe_batch / batch_join / maybe_batch_join / shuffle_batch variants", rel,
        [c for c in d["cases"] if c["kind"] == "batch"], "batching.py",
        "batches in order (one source, one thread) or their sizes and rows (joins, shuffling), end of input, "
        "enqueue_many, dynamic_pad, keep_input, errors")
    add("string_input_producer / range_input_producer / input_producer / slice_input_producer", rel,
        [c for c in d["cases"] if c["kind"] == "producer"], "batching.py",
        "num_epochs, capacity, dequeue / dequeue_many / dequeue_up_to, errors")
    rel = "coord/testdata/coord_tf.json"
    d = load(rel)
    add("Coordinator / QueueRunner", rel, [d["cascade"], d["names"], d["straggler_message"]],
        "coord.py", "error cascade, thread names, straggler message")

    for ds in ("mnist", "cifar10"):
        rel = "datasets/%s/testdata/tfref.json" % ds
        add("%s files (IDX / CIFAR-10 binary) read with FixedLengthRecordReader as the tutorials do" % ds, rel,
            [load(rel)], "datasets.py")
    rel = "internal/cli/testdata/tf_cli.json"
    d = load(rel)
    add("sluice cat (keys, JSON) and convert (CSV, MNIST) against TensorFlow", rel,
        [v for k, v in d.items() if k != "TensorFlow"], "cli.py")
    return out


def main():
    rs = rows()
    print("| TensorFlow op or behaviour | cases | of which errors | script | reference file |")
    print("|---|---:|---:|---|---|")
    for op, n, e, script, rel, what in rs:
        label = op + (" — " + what if what else "")
        print("| %s | %d | %d | `tools/tfref/%s` | `%s` |" % (label, n, e, script.split()[0], rel))
    print("| **total** | **%d** | **%d** | | |" % (sum(r[1] for r in rs), sum(r[2] for r in rs)))


if __name__ == "__main__":
    main()
