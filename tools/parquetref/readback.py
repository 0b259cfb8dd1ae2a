"""Read the Parquet files sluice's writer made with other readers.

    go test ./parquet -run TestWriterMatchesPyarrow -update
    python tools/parquetref/readback.py parquet/testdata/sluice_*.parquet

For each NAME.parquet it writes NAME.json, the rows as pyarrow reads them
(checking every page's CRC), in gen.py's form, which the Go tests compare
with the rows written. DuckDB and Polars must read the same rows, and
pyarrow's schema must say which byte columns are strings and which lists
are lists; the script stops with an error otherwise.
"""

import json
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
        out, name = os.path.split(path)
        record(out, name[: -len(".parquet")], exp)


if __name__ == "__main__":
    main(sys.argv[1:])
