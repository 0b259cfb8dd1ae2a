package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tfrecord"
	"github.com/spf13/cobra"
)

type convertOptions struct {
	from, to, out, compression, inCompression, columns, labels, bytes string
	shards                                                            int
	header                                                            bool
	shuffle                                                           bool
	seed                                                              uint64
	shuffleMiB                                                        int64
	skipCorrupt                                                       bool
	parquetDict                                                       bool
	salvage                                                           *salvage // set by runConvert with skipCorrupt
	csvOptions
}

func newConvertCmd() *cobra.Command {
	var o convertOptions
	cmd := &cobra.Command{
		Use:   "convert INPUT...",
		Short: "Convert CSV, JSON lines, Parquet, MNIST IDX, CIFAR-10 binaries or TFRecord files to TFRecord (or Examples to Parquet)",
		Long: `convert writes TFRecord files, streaming its input (- reads standard input):

  --from csv       one Example per line, one feature per column. Types come
                   from --columns (name:int64|float|string, comma-separated;
                   a column without :type is inferred) or are inferred from
                   the first 1000 lines or 64 MiB (int64, else float, else
                   string, by decode_csv's rules: " 5" is an int64, "1e39"
                   and "-nan" floats, "1_000" a string). Names come from
                   --columns, else the header
                   line (--header), else c0, c1, ...; a name that is not
                   UTF-8 is refused, as TensorFlow refuses a record holding
                   one (so is a Parquet column's). Empty fields take 0
                   or "", as decode_csv's defaults; quoting is decode_csv's.
                   Empty lines hold no record and are skipped (decode_csv
                   refuses them), so a one-column CSV's empty values are
                   lost: quote them ("").
  --from jsonl     plain JSON objects, one a line, one feature per member:
                   a number, string or boolean, or an array of them. A
                   member's type is int64 (integers, booleans as 0 and 1),
                   float, or string (bytes), the widest its values have in
                   the first 1000 lines or 64 MiB (numbers among strings
                   are their text), unless --columns gives it (name:int64|
                   float|string). The strings "NaN", "Infinity" and
                   "-Infinity" are floats, and {"b64":"..."} is bytes (its
                   base64 decoded), as cat --flat writes them; in a line
                   with "$bytes":"base64" (cat --flat --bytes base64) the
                   strings are base64, and "$bytes":"text" is refused. null
                   leaves the feature out; other nested objects and arrays
                   are refused (flatten them, with jq).
  --from json      the JSON lines cat prints, one record a line, back into
                   records: {"features":...} an Example, {"context":...,
                   "feature_lists":...} a SequenceExample, {"raw":...} the
                   record's bytes; a "key" is ignored. Bytes values are read
                   as cat's --bytes wrote them: text or {"b64":...} (auto),
                   or base64 strings in a line that says "bytes":"base64"
                   (cat --bytes base64 marks its lines so) or with --bytes
                   base64; a line that says "bytes":"text" is refused, cat
                   --bytes text being lossy. So
                   sluice cat | jq ... | sluice convert --from json - edits
                   or filters TFRecord data. The records parse as the ones
                   cat read; their bytes can differ (features in name order),
                   except cat --format raw's, which are copied.
  --from parquet   one Example per row, one feature per leaf column (a
                   struct's fields as struct.field, a list as its values):
                   integers, booleans, dates and timestamps as int64
                   (their stored counts; INT96 as Unix nanoseconds),
                   floating point and decimals as float, strings and
                   binary as bytes. A null leaves the feature out; an
                   empty list is a feature of no values. --columns a,b
                   keeps only those columns; maps and lists of lists are
                   refused unless left out. SNAPPY, GZIP, ZSTD and
                   uncompressed files are read, local or object store.
  --from mnist     an IDX image file (optionally gzipped) and --labels, the
                   IDX label file: features height, width, depth (1), label
                   and image_raw (the pixels), as TensorFlow's
                   convert_to_records.py writes them.
  --from cifar10   CIFAR-10 binary batches (1 label byte + 3072 pixel bytes):
                   the same features, depth 3, image_raw in height, width,
                   depth order (the file's channel planes interleaved), so
                   decode_raw + reshape [height, width, depth] gives the image.
  --from tfrecord  copies the records, to change compression or shard count.

CSV and JSON lines (jsonl and json) may be GZIP or ZSTD compressed, which their first bytes
tell; a line longer than --max-record-size is an error, as is a CSV line of
more columns than one a KiB of it (1 024 at least), or a JSON line of more
values than one each 16 bytes (65 536 at least): what they cost in memory.

Output goes to --out: OUT.tfrecord, or OUT-00000-of-0000N.tfrecord with
--shards N (records dealt round-robin), .gz, .zlib or .zst appended for
--compression GZIP, ZLIB or ZSTD (a .tfrecord --out ends in is replaced).
An --out that ends in a compression's extension (.gz, .zlib or .zz, .zst,
after .tfrecord or not) is written under that name in that compression:
--out x.tfrecord.gz writes x.tfrecord.gz, GZIP (with --shards 2,
x-00000-of-00002.tfrecord.gz and x-00001-of-00002.tfrecord.gz), and a
--compression that contradicts the extension is an error. Output that would write
over an input is refused, as is an --out that is a folder ("dir/": give a
prefix such as dir/data), an output name a folder holds, and an output
name longer than 229 bytes (its temporary name, below, adds 26 to it, and
a file name has at most 255), all before anything is read.

The output is all or nothing: files are written under temporary names
beside their own (.NAME.sluice-tmp-…) and renamed only when every one is
complete, so a failed or interrupted convert leaves no output and no
temporaries, and existing files of the same names are untouched until
then. One failure comes after the renames: a folder that cannot be
flushed to disk after them (one that can be written but not read) has
the whole output, and the error says its names might not survive a crash
of the machine. A killed convert (SIGKILL, a crash) leaves its temporaries behind:
verify reports them, and the next convert to the same --out removes them
(those of its output names, with any shard count, compression or format;
not those of another --out that merely begins alike). A writer holds its
temporaries locked (flock) until it is done: one a running process holds
means another convert is writing the same --out, and this one refuses to
run, writing nothing (the two would replace each other's files, each
saying it succeeded). It looks again once its own temporaries exist, so
of two converts whose writes overlap at least one refuses (both may, when
they start together); one that starts writing after the other has
finished replaces its output, as a later run would. One of an earlier sluice, or of an object store,
which holds no lock, is left, and convert says so, until it has gone an
hour unmodified; then it is removed. The renames themselves take a
millisecond or two for many shards: a kill inside them leaves the files
renamed so far new and the rest as they were, beside temporaries that
hold their new content, which verify reports; rerunning the convert
replaces them all.

--to parquet writes the Examples as Parquet files instead (OUT.parquet,
or OUT-00000-of-0000N.parquet with --shards N), a row a record, a column a
feature, named for it and sorted by name: int64 as INT64, float as FLOAT,
bytes as BYTE_ARRAY (annotated STRING when every value is UTF-8). A
feature every record that has it holds one value of is a nullable column
of values; any other is a nullable LIST column, so an empty list stays an
empty list; a record without the feature is a null. The column a feature
needs depends on every record, so the input is read twice (not standard
input): once for the columns, then for the rows. Pages are SNAPPY
compressed unless --compression says GZIP, ZSTD or NONE, and carry CRCs.
A column chunk is dictionary-encoded (RLE_DICTIONARY, a dictionary of up
to 1 MiB) when its first page takes fewer bytes so than PLAIN, as
parquet-mr decides: labels and repeated text usually are, most float
features are not; --parquet-dictionary=false writes every value PLAIN.
pandas, Polars and DuckDB read the files, and convert --from
parquet turns them back into the same Examples, but for a feature no
record gives a kind (an empty Feature), which holds no values of any type
and has no column. SequenceExamples with feature lists, a feature whose
kind differs between records, and a feature name that is empty or not
UTF-8 are refused, naming the record (file:offset). --columns a,b keeps only those features (with --from csv or
jsonl it still gives the input's columns and their types).

--skip-corrupt (--from tfrecord) salvages damaged files: it copies every
record whose CRCs check, skips the corrupt ones as verify finds them (after
a bad length it scans for the next valid record header), and keeps the
records before a truncated end or a broken compressed stream. Each skipped
stretch is reported on stderr with its file and offset, and the last line
counts them (in a compressed file as damaged stretches and bytes, as verify
does); the exit code is 0. If nothing but damage was found (no good
record at all, as in a file that is not TFRecord), nothing is written and
the exit code is 1. A file that cannot be read, or a record
over --max-record-size, still stops the convert.

--shuffle writes the records in a uniformly random order, the same for
the same --seed, holding at most --shuffle-memory MiB of them: records are
first dealt at random to temporary files in $TMPDIR (as much space as the
records take), then each file is shuffled in memory and written out (a
record larger than --shuffle-memory is held alone). Progress is a bar on a terminal, otherwise a line every
10 seconds on stderr.`,
		Example: "  sluice convert --from csv --header data.csv --out data --compression GZIP\n" +
			"  sluice convert --from jsonl --columns score:float events.jsonl.gz --out events --shards 4\n" +
			"  sluice convert --from csv --columns id:int64,score:float,name:string data.csv --out data\n" +
			"  sluice convert --from parquet 'part-*.parquet' --columns label,pixels --out train --shards 8\n" +
			"  sluice convert 'in-*.tfrecord' --out out --shards 8\n" +
			"  sluice cat in.tfrecord | jq -c 'select(.features.label.int64[0] == 7)' | sluice convert --from json - --out sevens\n" +
			"  sluice convert --skip-corrupt damaged.tfrecord.gz --out repaired --compression GZIP\n" +
			"  sluice convert 'in-*.tfrecord.gz' --out shuffled --shards 16 --shuffle --seed 7\n" +
			"  sluice convert --to parquet 'train-*.tfrecord.gz' --out train   # for pandas, Polars, DuckDB\n" +
			"  sluice convert --from mnist train-images-idx3-ubyte.gz --labels train-labels-idx1-ubyte.gz --out mnist-train\n" +
			"  sluice convert --from cifar10 'cifar-10-batches-bin/data_batch_*.bin' --out cifar-train --shards 5",
		Args: cobra.MinimumNArgs(1),
		RunE: withTally(func(cmd *cobra.Command, args []string, t *tally) error {
			if !o.shuffle && (cmd.Flags().Changed("seed") || cmd.Flags().Changed("shuffle-memory")) {
				return fmt.Errorf("--seed and --shuffle-memory go with --shuffle")
			}
			return runConvert(cmd, args, o, t)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.from, "from", "tfrecord", "input format: csv, jsonl, json, parquet, mnist, cifar10 or tfrecord")
	f.StringVar(&o.to, "to", "tfrecord", "output format: tfrecord or parquet (Examples only; see above)")
	f.StringVar(&o.out, "out", "", "output path prefix (required)")
	f.StringVar(&o.compression, "compression", "", "output compression: NONE, ZLIB, GZIP or ZSTD (default: the one --out's extension names, else NONE; ZSTD is smaller and faster, but TensorFlow cannot read ZSTD TFRecord files); with --to parquet, the pages': SNAPPY (the default), GZIP, ZSTD or NONE")
	f.StringVar(&o.inCompression, "input-compression", "auto", "--from tfrecord: "+compressionUsage)
	f.IntVar(&o.shards, "shards", 1, "number of output files (at most 10000)")
	f.StringVar(&o.columns, "columns", "", "CSV columns as name:type,... (types int64, float, string); with --from jsonl, types of members; with --from parquet, or with --to parquet from other input, the columns to keep (name,...)")
	f.BoolVar(&o.header, "header", false, "the CSV files' first line names the columns")
	f.StringVar(&o.delimiter, "delimiter", ",", "CSV field delimiter, one character (\\t for a tab)")
	f.StringVar(&o.labels, "labels", "", "--from mnist: the IDX label file")
	f.StringVar(&o.bytes, "bytes", "auto", "--from json: bytes values of lines that do not say (\"bytes\":...), auto (text, or {\"b64\":...}) or base64")
	f.BoolVar(&o.shuffle, "shuffle", false, "write the records in a random order (see --seed, --shuffle-memory)")
	f.Uint64Var(&o.seed, "seed", 1, "with --shuffle: the random seed; the same seed gives the same order")
	f.Int64Var(&o.shuffleMiB, "shuffle-memory", 1024, "with --shuffle: MiB of records held in memory at once")
	f.BoolVar(&o.parquetDict, "parquet-dictionary", true, "with --to parquet: dictionary-encode a column chunk when its first page takes fewer bytes so (see above); false writes every value PLAIN")
	f.BoolVar(&o.skipCorrupt, "skip-corrupt", false, "--from tfrecord: copy every readable record, skipping corrupt ones and reporting each on stderr, and keep the records before a truncated or broken end (the records lost are reported)")
	cmd.MarkFlagRequired("out")
	return cmd
}

// inputColumns reports whether --columns is the converter's, describing
// the input's columns (CSV, JSON lines, Parquet); for other input it can
// only name the features convert --to parquet keeps.
func (o convertOptions) inputColumns() bool {
	return o.from == "csv" || o.from == "jsonl" || o.from == "parquet"
}

// A converter reads its inputs and writes one serialized Example per
// record with write. It reports input bytes to prog and records to t.
type converter func(ctx context.Context, names []string, o convertOptions, prog *progress, t *tally, write func([]byte) error) error

// maxShards is the most output files convert (and the demo) writes at
// once; maxReaders and maxBatch bound bench's and the demo's readers and
// batch size.
const (
	maxShards  = 10000
	maxReaders = 1024
	maxBatch   = 1 << 20
)

func runConvert(cmd *cobra.Command, args []string, o convertOptions, t *tally) error {
	ctx := cmd.Context()
	var conv converter
	switch o.from {
	case "tfrecord":
		conv = convertTFRecord
	case "csv":
		conv = convertCSV
	case "mnist":
		conv = convertMNIST
	case "cifar10":
		conv = convertCIFAR
	case "json":
		conv = convertJSON
	case "jsonl":
		conv = convertJSONL
	case "parquet":
		conv = convertParquet
	default:
		return fmt.Errorf("--from must be csv, jsonl, json, parquet, mnist, cifar10 or tfrecord, not %q", o.from)
	}
	if o.bytes != "auto" && o.from != "json" {
		return fmt.Errorf("--bytes goes with --from json")
	}
	if o.skipCorrupt {
		if o.from != "tfrecord" {
			return fmt.Errorf("--skip-corrupt goes with --from tfrecord")
		}
		o.salvage = &salvage{w: cmd.ErrOrStderr()}
	}
	if o.shards < 1 || o.shards > maxShards {
		// Every shard is an open file and a compressor, written at
		// once: 2^31 of them ended the process before a file was made
		// (audit 114).
		return fmt.Errorf("--shards must be from 1 to %d, not %d", maxShards, o.shards)
	}
	// --columns is the converter's for CSV, JSON lines and Parquet input;
	// for other input only Parquet output has a use for it.
	if o.columns != "" && !o.inputColumns() && o.to != "parquet" {
		return fmt.Errorf("--columns goes with --from csv, jsonl or parquet, or with --to parquet (the features to keep)")
	}
	if cmd.Flags().Changed("parquet-dictionary") && o.to != "parquet" {
		return fmt.Errorf("--parquet-dictionary goes with --to parquet")
	}
	switch o.to {
	case "tfrecord":
	case "parquet":
		return runConvertParquet(cmd, args, conv, o, t)
	default:
		return fmt.Errorf("--to must be tfrecord or parquet, not %q", o.to)
	}
	c, given := tfrecord.None, cmd.Flags().Changed("compression")
	if given {
		var err error
		if c, err = parseOutputCompression(o.compression); err != nil {
			return err
		}
	}
	if o.from == "tfrecord" {
		// Checked before the output is begun, and in the flag's own name.
		if _, _, err := parseCompression(o.inCompression, "--input-compression"); err != nil {
			return err
		}
	}
	if err := checkOut(o.out); err != nil {
		return err
	}
	outputs, c, err := outputNames(o.out, o.shards, c, given)
	if err != nil {
		return err
	}
	if c == tfrecord.Zstd {
		// sluice's own extension: warn before the hours of work, not
		// when the training job fails to open the result.
		fmt.Fprintln(cmd.ErrOrStderr(), "sluice: warning: TensorFlow cannot read ZSTD TFRecord files; write GZIP or ZLIB for data TensorFlow will read")
	}
	names, err := expand(ctx, args)
	if err != nil {
		return err
	}
	inputs := names
	if o.labels != "" {
		inputs = append(inputs[:len(inputs):len(inputs)], o.labels)
	}
	if err := checkOutputs(inputs, outputs); err != nil {
		return err
	}
	total := inputSize(ctx, inputs)
	if err := removeLeftovers(ctx, inputs, outputStem(o.out), outputs, cmd.ErrOrStderr()); err != nil {
		return err
	}
	out, err := recordio.NewShardedWriter(ctx, outputs, c)
	if err != nil {
		return err
	}
	if err := refuseOtherWriters(ctx, outputStem(o.out), outputs, out.Temporaries()); err != nil {
		return errors.Join(err, out.Abort())
	}
	err = convertAll(cmd, conv, names, o, total, t, out.Write)
	if err == nil && out.Count() == 0 && o.salvage.skippedAny() {
		// Nothing salvaged is no salvage: an empty file and exit 0 would
		// pass for a repaired data set, when the input is most likely not
		// TFRecord at all (stderr says what it looks like).
		err = fmt.Errorf("--skip-corrupt found no good record to copy (skipped %s): nothing was written", o.salvage.skippedText())
	}
	if err != nil {
		// Nothing appears under the output names; a temporary that
		// could not be removed is named.
		return errors.Join(err, out.Abort())
	}
	if err := out.Close(); err != nil {
		return err
	}
	shuffled := ""
	if o.shuffle {
		shuffled = fmt.Sprintf(" (shuffled, seed %d)", o.seed)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %d records to %s%s%s\n", out.Count(), fileList(out.Names()), shuffled, o.salvage.summary())
	return nil
}

// convertAll runs conv over names, shuffled if asked, into write, showing
// progress through inputBytes; it returns ctx's error if the run was cut
// short.
func convertAll(cmd *cobra.Command, conv converter, names []string, o convertOptions, inputBytes int64, t *tally, write func([]byte) error) error {
	ctx := cmd.Context()
	counted := func(rec []byte) error {
		t.wrote()
		return write(rec)
	}
	prog := newProgress(cmd.ErrOrStderr(), "convert", inputBytes)
	var err error
	if o.shuffle {
		err = convertShuffled(ctx, conv, names, o, inputBytes, prog, t, counted)
	} else {
		err = conv(ctx, names, o, prog, t, func(rec []byte) error {
			prog.record()
			return counted(rec)
		})
	}
	prog.finish()
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// convertShuffled runs conv into a shuffler, then writes the shuffled
// records. inputBytes sizes the shuffler's first pass.
func convertShuffled(ctx context.Context, conv converter, names []string, o convertOptions, inputBytes int64,
	prog *progress, t *tally, write func([]byte) error) error {
	if o.shuffleMiB < 1 {
		return fmt.Errorf("--shuffle-memory must be at least 1 (MiB), not %d", o.shuffleMiB)
	}
	s, err := newShuffler("", inputBytes, o.shuffleMiB<<20, o.seed)
	if err != nil {
		return err
	}
	defer s.remove()
	err = conv(ctx, names, o, prog, t, func(rec []byte) error {
		prog.record()
		return s.add(rec)
	})
	if err != nil {
		return err
	}
	return s.emit(ctx, write)
}

func convertTFRecord(ctx context.Context, names []string, o convertOptions, prog *progress, t *tally, write func([]byte) error) error {
	var opts []tfrecord.Option
	if o.salvage != nil {
		opts = append(opts, tfrecord.SkipCorrupt())
	}
	rf, err := newRecordFiles(o.inCompression, t, opts...)
	if err != nil {
		return err
	}
	rf.tee = prog
	rf.flag = "--input-compression"
	if o.salvage != nil {
		return o.salvage.copyRecords(ctx, names, rf, write)
	}
	return eachRecord(ctx, names, rf, -1, func(name string, off int64, rec []byte) error { return located(name, off, write(rec)) })
}

// outputExt is the file name ending for each output compression.
var outputExt = map[tfrecord.Compression]string{
	tfrecord.None: ".tfrecord",
	tfrecord.Gzip: ".tfrecord.gz",
	tfrecord.Zlib: ".tfrecord.zlib",
	tfrecord.Zstd: ".tfrecord.zst",
}

// parseOutputCompression reads convert's --compression. There is no
// auto: the inputs, as many as they are, need not share one compression,
// and taking auto for NONE wrote uncompressed files to a user who asked
// for none of that.
func parseOutputCompression(s string) (tfrecord.Compression, error) {
	if strings.EqualFold(s, "auto") {
		return 0, fmt.Errorf("--compression auto is for reading: convert writes NONE, ZLIB, GZIP or ZSTD (without --compression, the one --out's extension says, .gz, .zlib, .zz or .zst, else NONE)")
	}
	c, err := tfrecord.ParseCompression(strings.ToUpper(s))
	if err != nil || s == "" {
		return 0, fmt.Errorf("--compression must be NONE, ZLIB, GZIP or ZSTD, not %q", s)
	}
	return c, nil
}

// impliedExts are the compression extensions an --out may end in, after
// .tfrecord or not, as the Python writer takes them: such a name is
// written as it is, in that compression, never as another file (the
// .tfrecord beside it, say, which may be the data being converted).
var impliedExts = []struct {
	ext string
	c   tfrecord.Compression
}{
	{".gz", tfrecord.Gzip}, {".zlib", tfrecord.Zlib}, {".zz", tfrecord.Zlib}, {".zst", tfrecord.Zstd},
}

// outputLayout splits --out into the stem the output names begin with and
// the extension they end in, when out ends in a compression's extension
// (ext, and the compression it implies, c); otherwise ext is "" and the
// stem is out without a .tfrecord extension.
func outputLayout(out string) (stem, ext string, c tfrecord.Compression, implied bool) {
	for _, ie := range impliedExts {
		s, ok := strings.CutSuffix(out, ie.ext)
		if !ok || s == "" {
			continue
		}
		ext = ie.ext
		if t, ok := strings.CutSuffix(s, ".tfrecord"); ok {
			s, ext = t, ".tfrecord"+ext
		}
		return s, ext, ie.c, true
	}
	return strings.TrimSuffix(out, ".tfrecord"), "", tfrecord.None, false
}

// outputNames returns the names of the n files convert writes to out and
// their compression: TensorFlow's "stem-00000-of-00004" convention, or
// the stem alone for one file, and an extension. An out that ends in a
// compression's extension keeps it, and that compression, which c, if
// given (--compression), must not contradict; any other out gets c's
// extension, replacing a .tfrecord it ends in.
func outputNames(out string, n int, c tfrecord.Compression, given bool) ([]string, tfrecord.Compression, error) {
	stem, ext, implied, ok := outputLayout(out)
	if ok {
		if given && c != implied {
			return nil, 0, fmt.Errorf("--compression %v, but --out %s ends in %s, %v's extension: leave --compression out (or give %v), or give another --out",
				c, out, ext[strings.LastIndex(ext, "."):], implied, implied)
		}
		c = implied
	} else {
		ext = outputExt[c]
	}
	if n == 1 {
		return []string{stem + ext}, c, nil
	}
	return recordio.ShardNames(stem, n, ext), c, nil
}

// outputStem returns the stem of --out's output names (see outputLayout):
// the leftovers of earlier runs to the same --out, with any shard count or
// compression, are those of names it begins.
func outputStem(out string) string {
	stem, _, _, _ := outputLayout(out)
	return stem
}
