// Package parquet reads and writes Apache Parquet files row by row, as the
// values a tf.train.Example can hold: each leaf column is a list of
// int64s, float32s or byte strings, and a null is a value that is not
// there.
//
// It reads what pyarrow, Polars, DuckDB and fastparquet write (its tests
// read files of each): flat columns, structs (whose fields become dotted
// names, "address.city"), lists of
// primitive values (three-level LIST groups and the older two-level
// ones), data pages of both versions, the PLAIN, dictionary, RLE,
// DELTA_* and BYTE_STREAM_SPLIT encodings, and SNAPPY, GZIP and ZSTD
// compression. Maps, lists of lists, LZ4 and BROTLI are refused with an
// error wrapping [ErrUnsupported]; a caller can leave such columns out.
//
// Types become an Example's three kinds:
//
//	BOOLEAN, INT32, INT64        int64 (unsigned as unsigned; a UINT_64 above
//	                             math.MaxInt64 is an error, not a wrapped value)
//	INT96 (legacy timestamps)    int64 nanoseconds since the Unix epoch
//	DATE, TIME, TIMESTAMP        int64, the stored count of days or units
//	FLOAT, DOUBLE, FLOAT16       float32 (DOUBLE rounded, as TensorFlow's
//	                             float_list holds it)
//	DECIMAL                      float32 of the unscaled value / 10^scale
//	BYTE_ARRAY, FIXED_LEN_...    bytes (strings as their UTF-8 bytes)
//
// A [Writer] writes flat files of such columns: a column of at most one
// value a row, or a LIST of them, nullable either way; strings annotated
// as such; values dictionary-encoded (RLE_DICTIONARY) where a chunk's
// first page shows that it pays, as parquet-mr decides, PLAIN otherwise
// and after a dictionary grows past 1 MiB; RLE levels in checksummed pages, compressed with SNAPPY, GZIP or
// ZSTD or not at all; each column chunk's statistics.
//
// Files are hostile until read: every length, count and offset in the
// footer and the page headers is checked against the file before anything
// is allocated for it, a page may take at most [MaxPageSize] bytes
// decompressed and is decoded a few thousand entries at a time, so that
// the entries it claims cost no memory, a row's values may take at most
// MaxPageSize bytes too, and an error names the file, the row, the column,
// the row group and the byte offset of the page, wrapped in a
// [dataerr.Error]. The limit is a page's: a reader holds the current page
// of every column it reads, so a file of many columns, each of pages near
// the limit (a decompression bomb of eight columns, say), takes as many
// times the limit; a reader that must bound its memory more tightly reads
// fewer columns or sets a lower limit.
package parquet
