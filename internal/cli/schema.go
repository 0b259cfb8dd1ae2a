package cli

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"go/format"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/tensor"
	"github.com/spf13/cobra"
)

func newSchemaCmd() *cobra.Command {
	var (
		limit       int
		output      *outputFlag
		compression string
		from        string
		header      bool
		delimiter   string
	)
	cmd := &cobra.Command{
		Use:   "schema FILE...",
		Short: "Infer the features of Example records and the parse spec that reads them",
		Long: `schema reads Example or SequenceExample records and reports, for every
feature, its kind (bytes, float or int64), how many records hold it and how
many values it has, and a parse spec that every record it read satisfies:

  FixedLen       the feature is in every record with the same number of
                 values (a scalar when that number is 1)
  VarLen         the number of values varies, or some records lack it
  FixedLenSeq    a feature list whose steps all have the same number of
                 values (allowed to be missing when some records lack it)

--output go prints the spec as sluice's example.Spec, --output python as
TensorFlow's tf.io feature dictionaries and as a spec for sluice's Python
package, --output json (or --json) as data. A feature whose kind differs
between records has no spec: no parser reads it. More distinct features than
one a KiB of --max-record-size (262 144 by default, 1 024 at least) is an
error naming the record that brought the first one over.

--from csv reads CSV lines instead (GZIP or ZSTD compressed too) and reports
each column's type, the narrowest of int64, float and string that every
non-empty field parses as, and how many lines leave it empty; --output go
and python print the columns for sluice.CSV and sluice.csv (and TensorFlow's
record_defaults). --header takes the column names from each file's first
line, which must be the same in every file.

--from jsonl reads plain JSON objects, one a line, and reports the
Examples convert --from jsonl would write of them: each member's type,
inferred as convert infers it, and the spec that reads the converted files.
--from parquet does the same for the rows of Parquet files.`,
		Example: "  sluice schema 'data/train-*.tfrecord.gz'\n" +
			"  sluice schema --limit 1000 --output python data.tfrecord\n" +
			"  sluice schema --from csv --header --output python data.csv.gz\n" +
			"  sluice schema --from jsonl --output python events.jsonl\n" +
			"  sluice schema --from parquet --limit 10000 'part-*.parquet'",
		Args: cobra.MinimumNArgs(1),
		RunE: withTally(func(cmd *cobra.Command, args []string, t *tally) error {
			if err := checkLimit(cmd); err != nil {
				return err
			}
			format, err := output.get()
			if err != nil {
				return err
			}
			switch from {
			case "tfrecord":
			case "csv":
				if compression != "auto" {
					return fmt.Errorf("--compression: CSV's is found from each file's first bytes")
				}
				delim, err := csvDelimiter(delimiter)
				if err != nil {
					return err
				}
				names, err := expand(cmd.Context(), args)
				if err != nil {
					return err
				}
				s, err := readCSVSchema(cmd.Context(), names, delim, header, limit)
				if err != nil {
					return err
				}
				return csvSchemaWriters[format](cmd.OutOrStdout(), s)
			case "jsonl", "parquet":
			default:
				return fmt.Errorf("--from must be tfrecord, csv, jsonl or parquet, not %q", from)
			}
			if header || delimiter != "," {
				return fmt.Errorf("--header and --delimiter are for --from csv")
			}
			s := newSchema()
			s.maxFeatures = maxColumns(cmd.Context())
			if err := readSchema(cmd, args, from, compression, limit, t, s); err != nil {
				return err
			}
			return schemaWriters[format](cmd.OutOrStdout(), s)
		}),
	}
	f := cmd.Flags()
	f.IntVar(&limit, "limit", -1, "read at most this many records in all (-1: all)")
	output = addOutputFlag(cmd, "text", "go", "python", "json")
	f.StringVar(&compression, "compression", "auto", compressionUsage)
	f.StringVar(&from, "from", "tfrecord", "input format: tfrecord (Examples), csv, jsonl or parquet")
	f.BoolVar(&header, "header", false, "with --from csv: the files' first line names the columns")
	f.StringVar(&delimiter, "delimiter", ",", "with --from csv: the field delimiter, one character (\\t for a tab)")
	return cmd
}

// readSchema reads the records of the files args names into s: TFRecord
// files' records, or (from "jsonl" or "parquet") the Examples convert would
// write of those files.
func readSchema(cmd *cobra.Command, args []string, from, compression string, limit int, t *tally, s *schema) error {
	ctx := cmd.Context()
	if from == "jsonl" || from == "parquet" {
		if compression != "auto" && from == "jsonl" {
			return fmt.Errorf("--compression: JSON lines' is found from each file's first bytes")
		}
		if compression != "auto" {
			return fmt.Errorf("--compression: a Parquet file names its own")
		}
		names, err := expand(ctx, args)
		if err != nil {
			return err
		}
		add := s.add
		if from == "jsonl" {
			c := newJSONLConverter(settingsFrom(ctx).maxRecord, add)
			err = c.read(ctx, names, io.Discard, t, limit)
			s.files = c.opened
		} else {
			s.parquet = true
			s.files, err = readParquet(ctx, names, nil, nil, t, limit, add)
		}
		return err
	}
	rf, err := newRecordFiles(compression, t)
	if err != nil {
		return err
	}
	names, err := expand(ctx, args)
	if err != nil {
		return err
	}
	err = eachRecord(ctx, names, rf, limit, func(name string, offset int64, rec []byte) error {
		if err := s.add(rec); err != nil {
			return fmt.Errorf("%s: record at offset %d: %w", name, offset, err)
		}
		return nil
	})
	s.files = rf.opened // --limit may stop before the last files
	return err
}

// A schema accumulates what the records hold.
type schema struct {
	files     int
	records   int64
	examples  int64 // Examples, and SequenceExamples without feature lists
	sequences int64 // SequenceExamples with feature lists
	other     int64 // neither
	features  map[string]*featureStats
	lists     map[string]*featureStats
	sc        example.Scanner // reads the current record when it is an Example
	buf       featureValues   // the Scanner's values, when summarised
	r         recordRenderer  // its parse of the current record otherwise
	// messagesOnly reads every record as messages: FuzzSchema's reference.
	messagesOnly bool
	parquet      bool // the records are Parquet rows (schema --from parquet)
	values       bool // summarise the values too (the stats command)
	// maxFeatures bounds the features and feature lists summarised, a
	// kilobyte or two each (maxColumns); 0: no bound. Records of names
	// never seen again, a million of them in a 2 MB gzip file, took
	// stats past 3.5 GB (audit 62).
	maxFeatures int
}

// errTooManyFeatures reports more distinct features than schema.maxFeatures.
var errTooManyFeatures = errors.New("too many distinct features")

// featureStats describes one feature (or feature list) over the records.
// For a feature list, kinds and values are counted per step.
type featureStats struct {
	name       string
	kinds      [3]int64    // records (steps) holding bytes, float, int64 lists
	present    int64       // records holding it
	minN, maxN int         // values per record (per step); minN < 0: none seen
	total      int64       // values in all
	steps      int64       // feature lists: steps in all
	minS, maxS int         // feature lists: steps per record
	vals       *valueStats // with schema.values
}

func newSchema() *schema {
	return &schema{features: map[string]*featureStats{}, lists: map[string]*featureStats{}}
}

// add takes one record into account. A record is read as the cat
// command's auto format reads it. An Example, most records, is read by an
// example.Scanner; what it cannot read as one (a SequenceExample with
// feature lists, or other bytes) is decoded as a SequenceExample. The
// error is errTooManyFeatures, the record left half counted.
func (s *schema) add(rec []byte) error {
	s.records++
	if !s.messagesOnly && s.sc.Scan(rec) == nil && (!s.sc.Unknown() || scanExtended(&s.sc, rec)) {
		s.examples++
		for i := range s.sc.Len() {
			st := s.features[string(s.sc.Name(i))]
			if st == nil {
				var err error
				if st, err = s.stats(s.features, string(s.sc.Name(i))); err != nil {
					return err
				}
			}
			st.addRecord(s.scanned(i))
		}
		return nil
	}
	if !s.r.isSequence(rec, false) {
		if !s.messagesOnly || !s.r.extendedExample(rec) {
			s.other++
			return nil
		}
		s.examples++
		for name, f := range s.r.ex.GetFeatures().GetFeature() {
			st, err := s.stats(s.features, name)
			if err != nil {
				return err
			}
			st.addRecord(valuesOf(f))
		}
		return nil
	}
	lists := s.r.seq.GetFeatureLists().GetFeatureList()
	if len(lists) == 0 {
		s.examples++
	} else {
		s.sequences++
	}
	for name, f := range s.r.seq.GetContext().GetFeature() {
		st, err := s.stats(s.features, name)
		if err != nil {
			return err
		}
		st.addRecord(valuesOf(f))
	}
	for name, fl := range lists {
		st, err := s.stats(s.lists, name)
		if err != nil {
			return err
		}
		st.present++
		steps := fl.GetFeature()
		if st.present == 1 || len(steps) < st.minS {
			st.minS = len(steps)
		}
		st.maxS = max(st.maxS, len(steps))
		st.steps += int64(len(steps))
		for _, f := range steps {
			st.addValues(valuesOf(f))
		}
	}
	return nil
}

// stats returns the summary of the feature (or feature list) name, new if
// m has none.
func (s *schema) stats(m map[string]*featureStats, name string) (*featureStats, error) {
	st := m[name]
	if st == nil {
		if s.maxFeatures > 0 && len(s.features)+len(s.lists) >= s.maxFeatures {
			return nil, fmt.Errorf("%w: more than %d, the most that --max-record-size (about %d bytes a feature) allows", errTooManyFeatures, s.maxFeatures, columnCost)
		}
		st = &featureStats{name: name, minN: -1}
		if s.values {
			st.vals = &valueStats{}
		}
		m[name] = st
	}
	return st, nil
}

// featureValues is a feature's values in one record, or one step of a
// feature list: its kind (kindNames' index, -1 for a Feature of no kind)
// and count, and, when the values are summarised, the values themselves
// (bytes alias the record).
type featureValues struct {
	kind int
	n    int
	bs   [][]byte
	f32  []float32
	i64  []int64
}

func valuesOf(f *pb.Feature) featureValues {
	switch k := f.GetKind().(type) {
	case *pb.Feature_BytesList:
		return featureValues{kind: 0, n: len(k.BytesList.GetValue()), bs: k.BytesList.GetValue()}
	case *pb.Feature_FloatList:
		return featureValues{kind: 1, n: len(k.FloatList.GetValue()), f32: k.FloatList.GetValue()}
	case *pb.Feature_Int64List:
		return featureValues{kind: 2, n: len(k.Int64List.GetValue()), i64: k.Int64List.GetValue()}
	}
	return featureValues{kind: -1}
}

// scanned returns the Scanner's feature i, its values read only when they
// are summarised.
func (s *schema) scanned(i int) featureValues {
	return scannedValues(&s.sc, i, &s.buf, s.values)
}

// scannedValues returns feature i of sc, with its values when values is
// set, read into buf's slices, which are reused for each feature.
func scannedValues(sc *example.Scanner, i int, buf *featureValues, values bool) featureValues {
	v := featureValues{kind: -1, n: sc.Count(i)}
	switch sc.Kind(i) {
	case tensor.String:
		v.kind = 0
		if values {
			buf.bs = sc.AppendBytes(buf.bs[:0], i)
			v.bs = buf.bs
		}
	case tensor.Float32:
		v.kind = 1
		if values {
			buf.f32 = sc.AppendFloats(buf.f32[:0], i)
			v.f32 = buf.f32
		}
	case tensor.Int64:
		v.kind = 2
		if values {
			buf.i64 = sc.AppendInt64s(buf.i64[:0], i)
			v.i64 = buf.i64
		}
	}
	return v
}

// addRecord records one record's value of a feature.
func (st *featureStats) addRecord(v featureValues) {
	st.present++
	st.addValues(v)
}

// addValues counts v's values and kind. A feature with no kind set is an
// empty list, which every kind accepts.
func (st *featureStats) addValues(v featureValues) {
	if v.kind >= 0 {
		st.kinds[v.kind]++
	}
	if st.minN < 0 || v.n < st.minN {
		st.minN = v.n
	}
	st.maxN = max(st.maxN, v.n)
	st.total += int64(v.n)
	if st.vals != nil {
		st.vals.add(v)
	}
}

var kindNames = [3]string{"bytes", "float", "int64"}

// kind returns the feature's kind, "" when no record gave it one, or
// "mixed" when records disagree.
func (st *featureStats) kind() string {
	k := ""
	for i, n := range st.kinds {
		if n == 0 {
			continue
		}
		if k != "" {
			return "mixed"
		}
		k = kindNames[i]
	}
	return k
}

// A featureSpec is the inferred parse spec of one feature: how it is
// read (fixed, varlen or fixedseq; "" when nothing reads it), its
// dtype and its shape.
type featureSpec struct {
	how          string
	dtype        string // string, float32 or int64
	shape        []int
	allowMissing bool // fixedseq: some SequenceExamples lack the list
}

// spec infers the feature's spec. records is how many records could hold
// it: all Examples and SequenceExamples for a feature, the
// SequenceExamples for a feature list.
func (st *featureStats) spec(records int64, list bool) featureSpec {
	var sp featureSpec
	switch st.kind() {
	case "mixed":
		return sp
	case "bytes", "":
		sp.dtype = "string"
	case "float":
		sp.dtype = "float32"
	case "int64":
		sp.dtype = "int64"
	}
	sameCount := st.maxN > 0 && st.minN == st.maxN
	switch {
	case list && sameCount:
		sp.how = "fixedseq"
		sp.allowMissing = st.present < records
	case !list && sameCount && st.present == records:
		sp.how = "fixed"
	default:
		sp.how = "varlen"
		return sp
	}
	if st.maxN > 1 {
		sp.shape = []int{st.maxN}
	}
	return sp
}

func (sp featureSpec) String() string {
	switch sp.how {
	case "fixed":
		return fmt.Sprintf("FixedLen(%s, %s)", sp.dtype, shapeString(sp.shape))
	case "fixedseq":
		if sp.allowMissing {
			return fmt.Sprintf("FixedLenSeq(%s, %s, allow missing)", sp.dtype, shapeString(sp.shape))
		}
		return fmt.Sprintf("FixedLenSeq(%s, %s)", sp.dtype, shapeString(sp.shape))
	case "varlen":
		return fmt.Sprintf("VarLen(%s)", sp.dtype)
	}
	return "none: the kinds differ"
}

func shapeString(shape []int) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = strconv.Itoa(d)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// sorted returns the stats in name order.
func sorted(m map[string]*featureStats) []*featureStats {
	out := make([]*featureStats, 0, len(m))
	for _, st := range m {
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b *featureStats) int { return strings.Compare(a.name, b.name) })
	return out
}

// holders returns how many records could hold a feature or a feature list.
// Every Example, and every SequenceExample without lists, could hold a
// feature list too: parse_single_sequence_example reads an Example as a
// SequenceExample with none, so a list missing from such records must be
// allowed to be missing.
func (s *schema) holders() int64 {
	return s.examples + s.sequences
}

var schemaWriters = map[string]func(io.Writer, *schema) error{
	"text":   writeSchemaText,
	"go":     writeSchemaGo,
	"python": writeSchemaPython,
	"json":   writeSchemaJSON,
}

func (s *schema) summary() string {
	parts := []string{}
	if s.examples > 0 {
		parts = append(parts, fmt.Sprintf("%d Examples", s.examples))
	}
	if s.sequences > 0 {
		parts = append(parts, fmt.Sprintf("%d SequenceExamples", s.sequences))
	}
	if s.other > 0 {
		parts = append(parts, fmt.Sprintf("%d neither", s.other))
	}
	files := "files"
	if s.files == 1 {
		files = "file"
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%d records in %d %s", s.records, s.files, files)
	}
	return fmt.Sprintf("%d records in %d %s: %s", s.records, s.files, files, strings.Join(parts, ", "))
}

func writeSchemaText(w io.Writer, s *schema) error {
	fmt.Fprintln(w, s.summary())
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	s.eachSection(func(title string, list bool, m map[string]*featureStats) {
		n := s.holders()
		fmt.Fprintln(tw)
		if list {
			fmt.Fprintf(tw, "%s\tKIND\tIN RECORDS\tSTEPS\tVALUES/STEP\tSPEC\n", title)
		} else {
			fmt.Fprintf(tw, "%s\tKIND\tIN RECORDS\tVALUES\tSPEC\n", title)
		}
		for _, st := range sorted(m) {
			if list {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(st.name), st.kindText(), st.in(n),
					spread(st.minS, st.maxS, st.steps, st.present), spread(st.minN, st.maxN, st.total, st.steps), st.spec(n, true))
			} else {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cell(st.name), st.kindText(), st.in(n),
					spread(st.minN, st.maxN, st.total, st.present), st.spec(n, false))
			}
		}
	})
	return tw.Flush()
}

// eachSection calls fn with each section of a text report that has
// features: an Example's features, or a SequenceExample's context and
// feature lists.
func (s *schema) eachSection(fn func(title string, list bool, m map[string]*featureStats)) {
	type section struct {
		title string
		list  bool
	}
	sections := []section{{"FEATURE", false}}
	if s.sequences > 0 {
		sections = []section{{"CONTEXT", false}, {"FEATURE LIST", true}}
	}
	for _, sec := range sections {
		m := s.features
		if sec.list {
			m = s.lists
		}
		if len(m) > 0 {
			fn(sec.title, sec.list, m)
		}
	}
}

// kindText is the feature's kind in a text report.
func (st *featureStats) kindText() string {
	if k := st.kind(); k != "" {
		return k
	}
	return "(empty)"
}

// in shows how many of n records hold the feature.
func (st *featureStats) in(n int64) string {
	return fmt.Sprintf("%d (%s)", st.present, percent(st.present, n))
}

func percent(n, of int64) string {
	if n == of {
		return "100%"
	}
	return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%"
}

// spread shows counts that range from lo to hi with a mean of total/n.
func spread(lo, hi int, total, n int64) string {
	lo = max(lo, 0)
	if lo == hi || n == 0 {
		return strconv.Itoa(hi)
	}
	return fmt.Sprintf("%d–%d, mean %.1f", lo, hi, float64(total)/float64(n))
}

// A specSyntax is how one language writes the inferred specs: a comment,
// a named dictionary of specs, one spec.
type specSyntax struct {
	comment                        string
	parquet                        string // how the spec reads Parquet files, for schema --from parquet
	open                           string // format of a dictionary's first line, given its name
	indent                         string
	example, context, featureLists string // the dictionaries' names
	entry                          func(sp featureSpec) string
	// key spells a feature's name as a key of the dictionary, or "" if
	// the language or library cannot name it (goQuote when nil).
	key func(name string) string
}

// nameBase64 is name's bytes in base64 if they are not UTF-8, else "".
func nameBase64(name string) string {
	if utf8.ValidString(name) {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(name))
}

// goQuote is a name as a Go string literal, whose \x escapes are bytes.
func goQuote(name string) string { return strconv.Quote(name) }

// pyQuote is a name as a Python literal: a string, or bytes if the name
// is not UTF-8 (TensorFlow's parsers take either as a key; Go's quoting
// of such a name reads in Python as other characters, audit 60).
func pyQuote(name string) string {
	if utf8.ValidString(name) {
		return strconv.Quote(name) // \u, \U and \n-like escapes read alike in Python
	}
	b := []byte(`b"`)
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20 && c < 0x7f:
			b = append(b, c)
		default:
			b = fmt.Appendf(b, `\x%02x`, c)
		}
	}
	return string(append(b, '"'))
}

// sluicePyQuote is a name as a key of sluice's Python package, whose
// names travel as JSON text: none if it is not UTF-8.
func sluicePyQuote(name string) string {
	if !utf8.ValidString(name) {
		return ""
	}
	return strconv.Quote(name)
}

var goSyntax = specSyntax{
	comment: "//", open: "%s := example.Spec{", indent: "\t",
	parquet: "sluice.Examples(files, spec, sluice.Parquet()) reads the Parquet files; without the option, the TFRecord files convert --from parquet writes",
	example: "spec", context: "context", featureLists: "featureLists",
	entry: func(sp featureSpec) string {
		args := map[string]string{"string": "tensor.String", "float32": "tensor.Float32", "int64": "tensor.Int64"}[sp.dtype]
		for _, d := range sp.shape {
			args += ", " + strconv.Itoa(d)
		}
		switch sp.how {
		case "fixed":
			return "example.FixedLen(" + args + ")"
		case "fixedseq":
			if sp.allowMissing {
				return "example.FixedLenSequence(" + args + ").AllowMissing()"
			}
			return "example.FixedLenSequence(" + args + ")"
		}
		return "example.VarLen(" + args + ")"
	},
}

var pythonSyntax = specSyntax{
	comment: "#", open: "%s = {", indent: "    ", key: pyQuote,
	parquet: "tf.io reads the TFRecord files sluice convert --from parquet writes",
	example: "features", context: "context_features", featureLists: "sequence_features",
	entry: func(sp featureSpec) string {
		shape := strings.ReplaceAll(shapeString(sp.shape), ",", ", ")
		switch sp.how {
		case "fixed":
			return fmt.Sprintf("tf.io.FixedLenFeature(%s, tf.%s)", shape, sp.dtype)
		case "fixedseq":
			if sp.allowMissing {
				return fmt.Sprintf("tf.io.FixedLenSequenceFeature(%s, tf.%s, allow_missing=True)", shape, sp.dtype)
			}
			return fmt.Sprintf("tf.io.FixedLenSequenceFeature(%s, tf.%s)", shape, sp.dtype)
		}
		return fmt.Sprintf("tf.io.VarLenFeature(tf.%s)", sp.dtype)
	},
}

// writeSpecs writes the summary as a comment and the specs as syn's
// dictionaries: one for Examples, or the context and feature lists for
// SequenceExamples. A feature of two kinds is a comment.
func writeSpecs(w io.Writer, s *schema, syn specSyntax) {
	fmt.Fprintf(w, "%s %s\n", syn.comment, s.summary())
	if s.parquet {
		fmt.Fprintf(w, "%s %s\n", syn.comment, syn.parquet)
	}
	if s.sequences > 0 {
		writeSpecBlock(w, s, syn, syn.context, s.features, false)
		writeSpecBlock(w, s, syn, syn.featureLists, s.lists, true)
	} else {
		writeSpecBlock(w, s, syn, syn.example, s.features, false)
	}
}

// writeSpecBlock writes the specs of the features m as one dictionary
// named v.
func writeSpecBlock(w io.Writer, s *schema, syn specSyntax, v string, m map[string]*featureStats, list bool) {
	fmt.Fprintf(w, syn.open+"\n", v)
	key := syn.key
	if key == nil {
		key = goQuote
	}
	for _, st := range sorted(m) {
		k := key(st.name)
		sp := st.spec(s.holders(), list)
		switch {
		case k == "":
			fmt.Fprintf(w, "%s%s %s: not UTF-8, which this package cannot name (tf.io can)\n", syn.indent, syn.comment, goQuote(st.name))
		case sp.how != "":
			fmt.Fprintf(w, "%s%s: %s,\n", syn.indent, k, syn.entry(sp))
		default:
			fmt.Fprintf(w, "%s%s %s: the records disagree on its kind\n", syn.indent, syn.comment, k)
		}
	}
	fmt.Fprintln(w, "}")
}

// sluicePythonSyntax writes the spec for sluice's Python package
// (python/), whose FixedLenSequence allows a missing feature unless told
// otherwise.
var sluicePythonSyntax = specSyntax{
	comment: "#", open: "%s = {", indent: "    ", key: sluicePyQuote,
	example: "sluice_spec", context: "sluice_context", featureLists: "sluice_sequence",
	entry: func(sp featureSpec) string {
		dtype := sp.dtype
		if dtype == "string" {
			dtype = "bytes"
		}
		shape := strings.ReplaceAll(shapeString(sp.shape), ",", ", ")
		switch sp.how {
		case "fixed":
			return fmt.Sprintf("sluice.FixedLen(%s, %q)", shape, dtype)
		case "fixedseq":
			if !sp.allowMissing {
				return fmt.Sprintf("sluice.FixedLenSequence(%s, %q, allow_missing=False)", shape, dtype)
			}
			return fmt.Sprintf("sluice.FixedLenSequence(%s, %q)", shape, dtype)
		}
		return fmt.Sprintf("sluice.VarLen(%q)", dtype)
	},
}

// writeSchemaGo prints the spec as Go statements, formatted as gofmt
// would.
func writeSchemaGo(out io.Writer, s *schema) error {
	var w bytes.Buffer
	writeSpecs(&w, s, goSyntax)
	src, err := format.Source(w.Bytes())
	if err != nil {
		return err
	}
	_, err = out.Write(src)
	return err
}

// writeSchemaPython prints the spec as tf.io's feature dictionaries, and
// the same for sluice's Python package.
func writeSchemaPython(w io.Writer, s *schema) error {
	writeSpecs(w, s, pythonSyntax)
	if s.sequences > 0 {
		fmt.Fprintln(w, "\n# sluice's Python package: sluice.sequence_examples(files, sluice_context, sluice_sequence, batch_size=...)")
		writeSpecBlock(w, s, sluicePythonSyntax, sluicePythonSyntax.context, s.features, false)
		writeSpecBlock(w, s, sluicePythonSyntax, sluicePythonSyntax.featureLists, s.lists, true)
		return nil
	}
	if s.parquet {
		fmt.Fprintln(w, "\n# sluice's Python package: sluice.examples(files, sluice_spec, batch_size=..., format=\"parquet\")")
	} else {
		fmt.Fprintln(w, "\n# sluice's Python package: sluice.examples(files, sluice_spec, batch_size=...)")
	}
	writeSpecBlock(w, s, sluicePythonSyntax, sluicePythonSyntax.example, s.features, false)
	return nil
}

// jsonFeature is one feature in --output json.
type jsonFeature struct {
	Name string `json:"name"`
	// NameBase64 is the name's bytes when they are not UTF-8, which
	// Name, a JSON string, cannot hold.
	NameBase64 string `json:"name_base64,omitempty"`
	Kind       string `json:"kind"`
	Records    int64  `json:"records"`
	MinValues  int    `json:"min_values"`
	MaxValues  int    `json:"max_values"`
	Values     int64  `json:"values"`
	MinSteps   *int   `json:"min_steps,omitempty"`
	MaxSteps   *int   `json:"max_steps,omitempty"`
	Steps      *int64 `json:"steps,omitempty"`
	Spec       string `json:"spec,omitempty"`
	DType      string `json:"dtype,omitempty"`
	Shape      []int  `json:"shape,omitempty"`
	// AllowMissing is set on a fixed-length feature list that some
	// SequenceExamples lack.
	AllowMissing bool `json:"allow_missing,omitempty"`
}

func writeSchemaJSON(w io.Writer, s *schema) error {
	conv := func(m map[string]*featureStats, list bool) []jsonFeature {
		out := []jsonFeature{}
		for _, st := range sorted(m) {
			sp := st.spec(s.holders(), list)
			jf := jsonFeature{
				Name: st.name, Kind: st.kind(), Records: st.present,
				MinValues: max(st.minN, 0), MaxValues: st.maxN, Values: st.total,
				Spec: sp.how, DType: sp.dtype, Shape: sp.shape, AllowMissing: sp.allowMissing,
				NameBase64: nameBase64(st.name),
			}
			if list {
				jf.MinSteps, jf.MaxSteps, jf.Steps = &st.minS, &st.maxS, &st.steps
			}
			out = append(out, jf)
		}
		return out
	}
	return writeJSON(w, newJSONReport(s, conv))
}

// A jsonReport is schema's and stats' JSON document: what the records
// were, then an entry of F for each feature and feature list.
type jsonReport[F any] struct {
	Files            int   `json:"files"`
	Records          int64 `json:"records"`
	Examples         int64 `json:"examples"`
	SequenceExamples int64 `json:"sequence_examples"`
	Other            int64 `json:"other"`
	Features         []F   `json:"features"`
	FeatureLists     []F   `json:"feature_lists"`
}

func newJSONReport[F any](s *schema, conv func(m map[string]*featureStats, list bool) []F) jsonReport[F] {
	return jsonReport[F]{s.files, s.records, s.examples, s.sequences, s.other, conv(s.features, false), conv(s.lists, true)}
}
