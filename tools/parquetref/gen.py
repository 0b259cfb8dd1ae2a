"""Write the Parquet test files of package parquet and what each holds.

Run with pyarrow (26.0.1 made the committed files):

    python tools/parquetref/gen.py parquet/testdata

For each NAME it writes NAME.parquet and NAME.json, the rows as pyarrow
reads them back, in the form the Go tests compare with: for each row, one
entry per leaf column, null when the column is null in that row, else a
list of its values (one value for a scalar column); bytes are base64,
floats are the float32 an Example holds, booleans 0 and 1, timestamps
and dates their stored integers, decimals as floats. Files that sluice
must refuse have an "error" naming what the error message says instead of
rows; files of the same rows as an earlier one say "same_as" its name.
"""

import base64
import datetime
import decimal
import json
import math
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 300


def table():
    rng = np.random.default_rng(7)
    n = ROWS
    i32 = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    i64 = rng.integers(-(2**62), 2**62, n, dtype=np.int64)
    f32 = rng.standard_normal(n).astype(np.float32)
    f64 = rng.standard_normal(n) * 1e3
    words = ["alpha", "beta", "gamma", "delta", "", "ünïcødé", "x" * 40]
    strs = [words[k] for k in rng.integers(0, len(words), n)]
    bins = [bytes(rng.integers(0, 256, int(k), dtype=np.uint8)) for k in rng.integers(0, 20, n)]
    opt = [None if k % 7 == 0 else int(k) for k in range(n)]
    optstr = [None if k % 5 == 0 else strs[k] for k in range(n)]
    ilists = []
    for k in range(n):
        if k % 11 == 0:
            ilists.append(None)
        elif k % 13 == 0:
            ilists.append([])
        else:
            ilists.append([int(v) for v in rng.integers(-1000, 1000, int(k % 6) + 1)])
    flists = [[float(np.float32(v)) for v in rng.standard_normal(int(k % 4))] for k in range(n)]
    slists = [None if k % 9 == 0 else [strs[(k + j) % n] for j in range(k % 3)] for k in range(n)]
    structs = [None if k % 8 == 0 else {"a": int(k), "b": None if k % 3 == 0 else strs[k]} for k in range(n)]
    return pa.table(
        {
            "i32": pa.array(i32, pa.int32()),
            "i64": pa.array(i64, pa.int64()),
            "f32": pa.array(f32, pa.float32()),
            "f64": pa.array(f64, pa.float64()),
            "flag": pa.array([bool(k % 3 == 0) for k in range(n)], pa.bool_()),
            "word": pa.array(strs, pa.string()),
            "blob": pa.array(bins, pa.binary()),
            "opt": pa.array(opt, pa.int64()),
            "optword": pa.array(optstr, pa.string()),
            "ilist": pa.array(ilists, pa.list_(pa.int64())),
            "flist": pa.array(flists, pa.list_(pa.float32())),
            "slist": pa.array(slists, pa.list_(pa.string())),
            "rec": pa.array(structs, pa.struct([("a", pa.int32()), ("b", pa.string())])),
        }
    )


def logical():
    n = 50
    base = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
    return pa.table(
        {
            "u8": pa.array([k * 5 % 256 for k in range(n)], pa.uint8()),
            "u32": pa.array([2**32 - 1 - k for k in range(n)], pa.uint32()),
            "u64": pa.array([k * 1000 for k in range(n)], pa.uint64()),
            "i8": pa.array([(k * 7) % 256 - 128 for k in range(n)], pa.int8()),
            "day": pa.array([datetime.date(2021, 3, 1) + datetime.timedelta(days=k) for k in range(n)], pa.date32()),
            "ts_ms": pa.array([base + datetime.timedelta(seconds=k * 3601) for k in range(n)], pa.timestamp("ms", tz="UTC")),
            "ts_us": pa.array([base + datetime.timedelta(microseconds=k * 123457) for k in range(n)], pa.timestamp("us")),
            "ts_ns": pa.array([1_600_000_000_000_000_000 + k * 999 for k in range(n)], pa.timestamp("ns")),
            "dec": pa.array([decimal.Decimal(k * 137 - 2000) / 100 for k in range(n)], pa.decimal128(9, 2)),
            "bigdec": pa.array([decimal.Decimal(k * 10**15 + 12345) / 1000 for k in range(n)], pa.decimal128(30, 3)),
            "half": pa.array(np.array([k / 8 - 3 for k in range(n)], np.float16), pa.float16()),
            "fixed": pa.array([bytes([k, k + 1, k + 2, k + 3]) for k in range(n)], pa.binary(4)),
            "large": pa.array(["row %d" % k for k in range(n)], pa.large_string()),
        }
    )


def expected_value(v, typ):
    if pa.types.is_boolean(typ):
        return int(v)
    if pa.types.is_floating(typ):
        return float(np.float32(v))
    if pa.types.is_decimal(typ):
        return float(np.float32(float(v)))
    if pa.types.is_timestamp(typ) or pa.types.is_date(typ):
        return int(v)
    if pa.types.is_binary(typ) or pa.types.is_large_binary(typ) or pa.types.is_fixed_size_binary(typ):
        return base64.b64encode(v).decode()
    if pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_string_view(typ):
        return base64.b64encode(v.encode()).decode()
    return int(v)


def leaves(name, typ, col):
    """Yields (name, type, per-row values) for each leaf column."""
    if pa.types.is_struct(typ):
        for k in range(typ.num_fields):
            f = typ.field(k)
            sub = [None if r is None else r[f.name] for r in col]
            yield from leaves(name + "." + f.name, f.type, sub)
    elif pa.types.is_list(typ) or pa.types.is_large_list(typ):
        yield name, typ.value_type, [None if r is None else list(r) for r in col]
    else:
        yield name, typ, [None if r is None else [r] for r in col]


def to_int(typ, arr):
    # Timestamps and dates as their stored integers.
    if pa.types.is_timestamp(typ) or pa.types.is_date(typ):
        return arr.cast(pa.int64() if pa.types.is_timestamp(typ) else pa.int32())
    return arr


def expected(path, t=None):
    if t is None:
        t = pq.read_table(path)
    cols, data = [], []
    for name in t.column_names:
        typ = t.schema.field(name).type
        arr = to_int(typ, t.column(name).combine_chunks())
        for leaf, ltyp, rows in leaves(name, typ, arr.to_pylist()):
            kind = "float" if (pa.types.is_floating(ltyp) or pa.types.is_decimal(ltyp)) else (
                "bytes" if (pa.types.is_binary(ltyp) or pa.types.is_large_binary(ltyp) or pa.types.is_string(ltyp)
                            or pa.types.is_large_string(ltyp) or pa.types.is_string_view(ltyp) or pa.types.is_fixed_size_binary(ltyp)) else "int64")
            islist = pa.types.is_list(typ) or pa.types.is_large_list(typ)
            cols.append({"name": leaf, "kind": kind, "list": islist and leaf == name})
            data.append([None if r is None else [expected_value(v, ltyp) for v in r] for r in rows])
    rows = [[d[i] for d in data] for i in range(t.num_rows)]
    return {"columns": cols, "rows": rows}


_written = {}


def write(out, name, tab, expect=None, **kw):
    path = os.path.join(out, name + ".parquet")
    pq.write_table(tab, path, **kw)
    record(out, name, expect if expect is not None else expected(path))


def record(out, name, exp):
    """Writes NAME.json; files of the same rows name the first one's."""
    key = json.dumps(exp)
    if key in _written and len(key) > 1000:
        exp = {"same_as": _written[key]}
    else:
        _written.setdefault(key, name)
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(exp, f, indent=None, separators=(",", ":"))
        f.write("\n")


def others(out, t):
    """Files of the same rows written by Polars, DuckDB and fastparquet."""
    import duckdb
    import polars as pl

    def expect_and_record(name, reader=None):
        path = os.path.join(out, name + ".parquet")
        record(out, name, expected(path, reader(path) if reader else None))

    pl.from_arrow(t).write_parquet(os.path.join(out, "polars.parquet"), row_group_size=128, data_page_size=512)
    expect_and_record("polars")
    pl.from_arrow(t).write_parquet(os.path.join(out, "polars_v2.parquet"), compression="snappy", statistics=False,
                                   use_pyarrow=False, data_page_size=512)
    expect_and_record("polars_v2")
    con = duckdb.connect()
    con.register("t", t)
    con.execute("COPY t TO '%s' (FORMAT parquet, ROW_GROUP_SIZE 128)" % os.path.join(out, "duckdb.parquet"))
    expect_and_record("duckdb")
    con.execute("COPY t TO '%s' (FORMAT parquet, PARQUET_VERSION V2, COMPRESSION zstd)" % os.path.join(out, "duckdb_v2.parquet"))
    # pyarrow 26 cannot read this file ("Unexpected end of stream:
    # InitBlock EOF"), DuckDB can: its rows are DuckDB's.
    expect_and_record("duckdb_v2", lambda path: con.sql("select * from '%s'" % path).to_arrow_table())
    import fastparquet
    flat = t.select(["i32", "i64", "f32", "f64", "flag", "word", "optword"]).to_pandas()
    fastparquet.write(os.path.join(out, "fastparquet.parquet"), flat, row_group_offsets=100, compression="GZIP")
    expect_and_record("fastparquet")


def main(out):
    t = table()
    small = dict(row_group_size=128, data_page_size=512)
    write(out, "default", t)  # pyarrow's defaults: SNAPPY, dictionaries, v1 pages, one row group
    write(out, "pages", t, compression="NONE", **small)
    write(out, "gzip_v2", t, compression="GZIP", data_page_version="2.0", **small)
    write(out, "zstd", t, compression="ZSTD", **small)
    write(out, "plain", t, compression="NONE", use_dictionary=False, **small)
    write(out, "delta", t, compression="SNAPPY", use_dictionary=False, data_page_version="2.0",
          column_encoding={"i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED", "opt": "DELTA_BINARY_PACKED",
                           "word": "DELTA_BYTE_ARRAY", "blob": "DELTA_LENGTH_BYTE_ARRAY", "optword": "DELTA_LENGTH_BYTE_ARRAY",
                           "f32": "BYTE_STREAM_SPLIT", "f64": "BYTE_STREAM_SPLIT", "ilist": "DELTA_BINARY_PACKED",
                           "slist": "DELTA_BYTE_ARRAY", "flist": "BYTE_STREAM_SPLIT"},
          **small)
    write(out, "legacy", t.select(["i64", "ilist", "slist"]), compression="NONE", use_compliant_nested_type=False, **small)
    write(out, "logical", logical(), compression="NONE")
    write(out, "int96", pa.table({"t": pa.array([datetime.datetime(2001, 2, 3, 4, 5, 6, k) for k in range(20)], pa.timestamp("ns"))}),
          expect={"columns": [{"name": "t", "kind": "int64", "list": False}],
                  "rows": [[[981173106000000 * 1000 + k * 1000]] for k in range(20)]},
          compression="NONE", use_deprecated_int96_timestamps=True)
    write(out, "brotli", t.select(["i64"]), compression="BROTLI", expect={"error": "BROTLI"})
    write(out, "map", pa.table({"id": [1, 2], "m": pa.array([[("a", 1)], [("b", 2), ("c", 3)]], pa.map_(pa.string(), pa.int64()))}),
          compression="NONE", expect={"error": "map"})
    write(out, "nested_list", pa.table({"ll": pa.array([[[1, 2], [3]], [[4]]], pa.list_(pa.list_(pa.int64())))}),
          compression="NONE", expect={"error": "nested"})
    write(out, "null_element", pa.table({"l": pa.array([[1, None, 3]], pa.list_(pa.int64()))}),
          compression="NONE", expect={"error": "null"})
    # A value with no Example value (an unsigned one above int64's range)
    # at row 5, after a null: the error names that row, not the page's
    # first, whether the page holds the values or a dictionary does.
    big = pa.table({"u": pa.array([1, 2, None, 3, 4, 2**63 + 5, 6, 7, 8, 9], pa.uint64())})
    write(out, "uint64_big", big, compression="NONE", use_dictionary=False, expect={"error": 'row 5, column "u"'})
    write(out, "uint64_big_dict", big, compression="NONE", expect={"error": 'row 5, column "u"'})
    write(out, "empty", t.slice(0, 0), compression="NONE")
    # A column named "a.b" beside a struct a with a field b: package
    # parquet reads both, but as features of an Example they are one, which
    # sluice.Parquet and convert --from parquet refuse.
    write(out, "dup_feature", pa.table({"a.b": pa.array([1, 2, 3], pa.int64()),
                                        "a": pa.array([{"b": 100}, {"b": 200}, {"b": 300}], pa.struct([("b", pa.int64())]))}),
          compression="NONE")
    others(out, t)
    write(out, "crc", t.select(["i64", "word"]), compression="NONE", write_page_checksum=True, **small)


def column_refusals(out):
    """Files of a column sluice cannot read beside one it can: pages in
    LZ4, and a column of its own key under a footer in the clear (Parquet
    modular encryption). Each is refused as a column, before any row is
    read, and the other column reads."""
    import pyarrow.parquet.encryption as pe

    t = pa.table({"a": list(range(10)), "b": [float(i) for i in range(10)]})
    write(out, "lz4_column", t, compression={"a": "SNAPPY", "b": "LZ4"}, expect={"error": "LZ4"})

    class Kms(pe.KmsClient):  # keys in the clear: a test's
        def __init__(self, config):
            pe.KmsClient.__init__(self)

        def wrap_key(self, key, master):
            return base64.b64encode(key)

        def unwrap_key(self, wrapped, master):
            return base64.b64decode(wrapped)

    config = pe.EncryptionConfiguration(footer_key="k1", column_keys={"k2": ["b"]}, plaintext_footer=True,
                                        double_wrapping=False)
    props = pe.CryptoFactory(Kms).file_encryption_properties(pe.KmsConnectionConfig(), config)
    path = os.path.join(out, "encrypted_column.parquet")
    with pq.ParquetWriter(path, t.schema, encryption_properties=props) as w:
        w.write_table(t)
    record(out, "encrypted_column", {"error": "encrypted"})


if __name__ == "__main__":
    main(sys.argv[1])
    column_refusals(sys.argv[1])
