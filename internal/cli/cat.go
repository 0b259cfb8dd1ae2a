package cli

import (
	"bufio"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
)

// catOptions are the flags of cat and head.
type catOptions struct {
	limit       int
	keys        bool
	format      string
	compression string
	bytes       string
	int64s      string
	flat        bool
}

func newCatCmd() *cobra.Command { return catCmd(-1, "") }

// catCmd builds cat, or head's variant of it with a default limit.
func catCmd(defaultLimit int, limitShorthand string) *cobra.Command {
	var o catOptions
	cmd := &cobra.Command{
		Use:   "cat FILE...",
		Short: "Print TFRecord records as JSON, one object per line",
		Long: `cat prints every record of the given TFRecord files (names or globs) as one
JSON object per line:

  {"features":{"image":{"float":[0.5,1]},"label":{"int64":[7]}}}   an Example
  {"context":{...},"feature_lists":{"tokens":[{"bytes":["hi"]}]}}  a SequenceExample
  {"raw":"AAECAw=="}                                               anything else

With --format auto (the default) each record is shown as a SequenceExample if
it parses as one with feature lists, else as an Example if it parses as one
with no unknown fields, or with at least one feature beside them (fields a
newer writer added, which TensorFlow's parsers skip: so does cat), else as
base64; --format example reads any record that parses as an Example
without feature lists. A
SequenceExample without feature lists is byte for byte an Example. Feature names are sorted. A record with
a feature name that is not UTF-8, which TensorFlow's parsers accept and
JSON cannot hold, is shown as base64 too (--format example or sequence
refuses it, naming it).

A bytes value that is valid UTF-8 with no control characters (but tab and
line ends) is shown as a JSON string of its text; any other is shown as an object holding its base64, {"b64":"/wA="}, so that no
text can be taken for base64. --bytes text shows every value as text (bytes
that are not UTF-8 become U+FFFD), --bytes base64 every value as a base64
string, as protobuf's JSON mapping does; with either, each object says so,
"bytes":"text" or "bytes":"base64" ("$bytes" with --flat, where a feature's
value is always an array), so that convert reads base64 back to the bytes
it stands for and refuses text, which is lossy, rather than write other
bytes. An int64 beyond ±2^53 (9007199254740992),
which jq and JavaScript would round, is a JSON string of its exact digits;
--int64 number prints every int64 as a number, --int64 string every one as
a string. A float NaN is "NaN" whatever its sign and payload bits, which
only --format raw keeps. --keys adds TensorFlow's record key "file:offset"
(the offset in the uncompressed stream, as TFRecordReader forms it).

--flat shows each feature as its list of values alone and an Example as
its features, {"image":[0.5,1.0],"label":[7]}, the shape DuckDB's
read_json, pandas' read_json(lines=True) and jq read most easily, and
convert --from jsonl reads back: int64s are always numbers (exact in
every reader that keeps integers as integers) and floats always have a
point or an exponent. A bytes value whose text is NaN, Infinity or
-Infinity, the strings a float takes for them, is {"b64":...} as bytes
that are not text are, and jsonl reads both back as bytes (with --bytes
auto, the default, or base64; --bytes text is refused). A SequenceExample keeps its two members, each
list of steps an array of arrays, which convert does not read back (it
reads cat's SequenceExamples without --flat); --keys goes without
--flat, since a feature may be named key.`,
		Example: "  sluice cat --limit 3 'data/train-*.tfrecord.gz'\n" +
			"  sluice cat --keys --format raw file.tfrecord\n" +
			"  sluice cat data.tfrecord | jq -c '.features.label.int64[0]'",
		Args: cobra.MinimumNArgs(1),
		RunE: withTally(func(cmd *cobra.Command, args []string, t *tally) error {
			return runCat(cmd, args, o, t)
		}),
	}
	f := cmd.Flags()
	f.IntVarP(&o.limit, "limit", limitShorthand, defaultLimit, "print at most this many records in all (-1: all)")
	f.BoolVar(&o.keys, "keys", false, `start each object with TensorFlow's record key, "key":"file:offset"`)
	f.StringVar(&o.format, "format", "auto", "record format: auto, example, sequence or raw")
	f.StringVar(&o.compression, "compression", "auto", compressionUsage)
	f.StringVar(&o.bytes, "bytes", "auto", "bytes values: auto (text if valid UTF-8, else {\"b64\":...}), text or base64")
	f.StringVar(&o.int64s, "int64", "exact", "int64 values: exact (strings beyond ±2^53), number or string")
	f.BoolVar(&o.flat, "flat", false, `each feature as its list alone, an Example as {"label":[7],"x":[0.5]}: for JSON tools and convert --from jsonl`)
	return cmd
}

func newHeadCmd() *cobra.Command {
	cmd := catCmd(10, "n")
	cmd.Use = "head FILE..."
	cmd.Short = "Print the first records of TFRecord files as JSON (cat --limit 10)"
	cmd.Long = "head prints the first N records (in all, not per file) as cat does; see sluice cat --help."
	cmd.Example = "  sluice head data/train-00000-of-00008.tfrecord.gz\n  sluice head -n 1 --keys data.tfrecord"
	return cmd
}

func runCat(cmd *cobra.Command, patterns []string, o catOptions, t *tally) error {
	if err := checkLimit(cmd); err != nil {
		return err
	}
	format, err := parseFormat(o.format)
	if err != nil {
		return err
	}
	bm, err := parseBytesMode(o.bytes)
	if err != nil {
		return err
	}
	im, err := parseInt64Mode(o.int64s)
	if err != nil {
		return err
	}
	if o.flat && o.keys {
		return fmt.Errorf("--keys goes without --flat, whose objects are the features (one may be named key)")
	}
	if o.flat && cmd.Flags().Changed("int64") {
		return fmt.Errorf("--int64 goes without --flat, whose int64s are always numbers")
	}
	rf, err := newRecordFiles(o.compression, t)
	if err != nil {
		return err
	}
	names, err := expand(cmd.Context(), patterns)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(cmd.OutOrStdout(), 256<<10)
	r := &recordRenderer{format: format, bytes: bm, int64s: im, flat: o.flat}
	var key []byte
	err = eachRecord(cmd.Context(), names, rf, o.limit, func(name string, off int64, rec []byte) error {
		key = key[:0]
		if o.keys {
			key = strconv.AppendInt(append(append(key, name...), ':'), off, 10)
		}
		line, err := r.render(key, rec)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, off, err)
		}
		_, err = w.Write(line)
		return err
	})
	// What was printed before an error is flushed, so the output shows
	// how far the command got.
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}
