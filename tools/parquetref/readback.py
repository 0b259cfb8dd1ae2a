"""Read the Parquet files sluice's writer made with other readers.

    go test ./parquet -run TestWriterMatchesPyarrow -update
    python tools/parquetref/readback.py parquet/testdata/sluice_*.parquet

For each NAME.parquet it writes NAME.json, the rows as pyarrow reads them
(checking every page's CRC), in gen.py's form, which the Go tests compare
with the rows written. DuckDB and Polars must read the same rows, and
pyarrow's schema must say which byte columns are strings and which lists
are lists, and every column chunk's statistics (nulls of a column that is
not a list; least and greatest values, NaNs left out, bytes over 64 bytes
leaving them out) must be the rows' as pyarrow and DuckDB read them.
A column chunk must have a dictionary page, before its data pages, exactly
when its encodings include RLE_DICTIONARY (pyarrow and DuckDB must agree
on where it is); sluice_plain.parquet must have none, the other files
some. The script stops with an error otherwise.
"""

import json
import math
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(__file__))
from gen import expected, record  # noqa: E402


def main(paths):
    import duckdb
    import polars as pl

    con = duckdb.connect()
    for path in paths:
        t = pq.read_table(path, page_checksum_verification=True)
        exp = expected(path, t)
        for other, tab in (("duckdb", con.sql("select * from '%s'" % path).to_arrow_table()),
                           ("polars", pl.read_parquet(path).to_arrow())):
            got = expected(path, tab)
            if json.dumps(got) != json.dumps(exp):
                sys.exit("%s: %s reads other rows than pyarrow" % (path, other))
        for f in t.schema:
            typ = f.type.value_type if pa.types.is_list(f.type) else f.type
            print("%s: %s %s" % (os.path.basename(path), f.name, f.type))
            if f.name in ("word", "slist") and not pa.types.is_string(typ):
                sys.exit("%s: %s is %s, not a string" % (path, f.name, f.type))
        check_statistics(path, t, con)
        check_dictionaries(path, con)
        out, name = os.path.split(path)
        record(out, name[: -len(".parquet")], exp)


def check_statistics(path, t, con):
    md = pq.ParquetFile(path).metadata
    duck = {(r[0], r[1]): r[2:] for r in con.sql(
        "select row_group_id, path_in_schema, stats_null_count, stats_min_value, stats_max_value "
        "from parquet_metadata('%s')" % path).fetchall()}
    start = 0
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        rows = t.slice(start, rg.num_rows)
        start += rg.num_rows
        for j in range(rg.num_columns):
            col = rg.column(j)
            st = col.statistics
            field = t.schema.field(j)
            values = rows.column(j).to_pylist()
            islist = pa.types.is_list(field.type)
            flat = [v for r in values if r is not None for v in (r if islist else [r])]
            flat = [v for v in flat if not (isinstance(v, float) and math.isnan(v))]
            where = "%s: row group %d, column %s" % (path, g, field.name)
            if not islist and st.null_count != sum(v is None for v in values):
                sys.exit("%s: null_count %s" % (where, st.null_count))
            long = any(isinstance(v, (bytes, str)) and len(v.encode() if isinstance(v, str) else v) > 64 for v in flat)
            if bool(flat) and not long != st.has_min_max:
                sys.exit("%s: has_min_max %s" % (where, st.has_min_max))
            if st.has_min_max and (st.min != min(flat) or st.max != max(flat)):
                sys.exit("%s: min %r max %r, want %r %r" % (where, st.min, st.max, min(flat), max(flat)))
            d = duck[(g, col.path_in_schema.replace(".", ", "))]
            if (d[1] is not None) != st.has_min_max or not islist and d[0] != st.null_count:
                sys.exit("%s: DuckDB reads statistics %r" % (where, d))


def check_dictionaries(path, con):
    md = pq.ParquetFile(path).metadata
    duck = {(r[0], r[1]): r[2] for r in con.sql(
        "select row_group_id, path_in_schema, dictionary_page_offset "
        "from parquet_metadata('%s')" % path).fetchall()}
    chunks, dicts = 0, 0
    for g in range(md.num_row_groups):
        for j in range(md.num_columns):
            col = md.row_group(g).column(j)
            enc = set(col.encodings)
            where = "%s: row group %d, column %s" % (path, g, col.path_in_schema)
            if not {"PLAIN", "RLE"} <= enc <= {"PLAIN", "RLE", "RLE_DICTIONARY"}:
                sys.exit("%s: encodings %s" % (where, col.encodings))
            if col.has_dictionary_page != ("RLE_DICTIONARY" in enc):
                sys.exit("%s: encodings %s, has_dictionary_page %s" % (where, col.encodings, col.has_dictionary_page))
            if col.has_dictionary_page and not col.dictionary_page_offset < col.data_page_offset:
                sys.exit("%s: dictionary page at %d, data pages at %d" % (where, col.dictionary_page_offset, col.data_page_offset))
            d = duck[(g, col.path_in_schema.replace(".", ", "))]
            if (d or None) != (col.dictionary_page_offset if col.has_dictionary_page else None):
                sys.exit("%s: DuckDB reads the dictionary page offset as %r" % (where, d))
            chunks += 1
            dicts += col.has_dictionary_page
    if (dicts > 0) == os.path.basename(path).startswith("sluice_plain"):
        sys.exit("%s: %d column chunks have a dictionary page" % (path, dicts))
    print("%s: %d of %d column chunks dictionary-encoded" % (os.path.basename(path), dicts, chunks))


if __name__ == "__main__":
    main(sys.argv[1:])
