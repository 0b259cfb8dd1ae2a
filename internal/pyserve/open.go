package pyserve

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// maxReaders bounds an open's readers. Each is a goroutine with a decoder
// and the batch it is collecting, kilobytes to megabytes; decoding is
// CPU-bound, so readers beyond a few per core buy nothing, and reads from
// an object store, the most a reader waits on, are served well by a few
// hundred. A thousand is far above any useful count and still far below
// what would exhaust memory; more is a mistake (readers=10**6 took 4.4
// GB before the open replied).
const maxReaders = 1024

// stopGrace is how long stopping an iteration waits for its goroutines
// (sluice.GracePeriod): they see the stop within milliseconds unless
// blocked in a read nothing can cancel.
const stopGrace = time.Second

// DefaultSlots is the size of the ring of batches: one the client reads,
// and two the server fills meanwhile.
const DefaultSlots = 3

// A source is an opened data set with what the server needs to copy its
// batches out.
type source struct {
	ds        *sluice.Dataset
	features  []FeatureInfo   // sorted by name, as the batches' Names
	varlen    map[string]bool // VarLen features: padded, with lengths
	sparse    map[string]bool // SparseFeatures: values and indices
	raw       map[string]rawFeature
	images    map[string]bool // decoded by DecodeImage
	imageOpts []sluice.ExampleOption
	opts      []sluice.BatchOption
	n         int
	slots     int
	release   func() // after the iteration: what it holds outside the process
	nats      *natsFiles
}

// newSource builds the data set o describes. The errors are the client's
// mistakes, and wrap sluice.ErrInvalid.
func newSource(o *Open) (*source, error) {
	if len(o.Files) == 0 {
		return nil, fmt.Errorf("open: no files: %w", sluice.ErrInvalid)
	}
	s := &source{n: o.BatchSize, slots: o.Slots, varlen: map[string]bool{}, sparse: map[string]bool{}, raw: map[string]rawFeature{}, images: map[string]bool{}}
	if s.slots == 0 {
		s.slots = DefaultSlots
	}
	if s.slots < 2 || s.slots > 64 {
		return nil, fmt.Errorf("open: %d slots: %w (want 2 to 64)", s.slots, sluice.ErrInvalid)
	}
	if o.DropRemainder {
		s.opts = append(s.opts, sluice.DropRemainder())
	}
	if (o.Deterministic || o.GlobalShuffle) && s.slots > sluice.MaxCheckpointBefore {
		// A state goes back over the batches in the slots.
		return nil, fmt.Errorf("open: %d slots: %w (at most %d with deterministic or global_shuffle)", s.slots, sluice.ErrInvalid, sluice.MaxCheckpointBefore)
	}
	if len(o.Resume) > 0 && string(o.Resume) != "null" {
		if !o.Deterministic && !o.GlobalShuffle {
			return nil, fmt.Errorf("open: resume needs deterministic or global_shuffle: %w", sluice.ErrInvalid)
		}
		s.opts = append(s.opts, sluice.Resume(o.Resume))
	}
	var common []sluice.Option
	if len(o.Files) > 1 {
		common = append(common, sluice.Files(o.Files[1:]...))
	}
	if o.QueueURL != "" {
		q, err := newNATSFiles(o)
		if err != nil {
			return nil, err
		}
		s.release, s.nats = q.stop, q
		common = append(common, sluice.FilenameQueue(q))
		// The queue decides the files and the epochs; records are
		// still shuffled here.
		c := *o
		c.Epochs, c.Forever, c.ShuffleFiles = 0, false, false
		o = &c
	}
	switch {
	case o.Forever:
		common = append(common, sluice.Forever())
	case o.Epochs != 0:
		common = append(common, sluice.Epochs(o.Epochs))
	}
	if o.Shuffle != 0 {
		common = append(common, sluice.Shuffle(o.Shuffle))
	}
	if o.ShuffleFiles {
		common = append(common, sluice.ShuffleFiles())
	}
	if o.Readers < 0 || o.Readers > maxReaders {
		return nil, fmt.Errorf("open: readers %d: %w (want 0 for one per CPU, or 1 to %d)", o.Readers, sluice.ErrInvalid, maxReaders)
	}
	if o.Readers != 0 {
		common = append(common, sluice.Readers(o.Readers))
	}
	// A session that ends (the client closed it, or is gone) does not
	// wait two minutes for a reader blocked in a read nothing cancels;
	// the process exits, and the reader with it. A reopen's iteration
	// gives the stragglers no slot of its own (slotAlloc.stopped).
	common = append(common, sluice.GracePeriod(stopGrace))
	if o.Seed != nil {
		common = append(common, sluice.Seed(*o.Seed))
	}
	if o.Deterministic {
		common = append(common, sluice.Deterministic())
	}
	if o.Shard != nil {
		if len(o.Shard) != 2 || o.Shard[1] < 1 || o.Shard[0] < 0 || o.Shard[0] >= o.Shard[1] {
			return nil, fmt.Errorf("open: shard %v: %w (want [index, count], 0 <= index < count)", o.Shard, sluice.ErrInvalid)
		}
		common = append(common, sluice.Shard(o.Shard[0], o.Shard[1]))
	}
	switch {
	case o.Format != "" && o.Format != "tfrecord" && o.Format != "parquet":
		return nil, fmt.Errorf("open: format %q: %w (want tfrecord or parquet)", o.Format, sluice.ErrInvalid)
	case o.Format == "parquet" && o.Kind != "examples":
		return nil, fmt.Errorf("open: format parquet with kind %q: %w (Parquet rows are read as examples)", o.Kind, sluice.ErrInvalid)
	}
	var err error
	switch o.Kind {
	case "examples":
		err = s.examples(o, common)
	case "csv":
		err = s.csv(o, common)
	case "fixed":
		err = s.fixed(o, common)
	case "sequence_examples":
		err = s.sequenceExamples(o, common)
	case "records":
		err = s.records(o, common)
	default:
		err = fmt.Errorf("open: kind %q: %w (want examples, sequence_examples, records, csv or fixed)", o.Kind, sluice.ErrInvalid)
	}
	if err != nil {
		return nil, err
	}
	if len(s.features) == 0 {
		// Refused here, not at the first batch, where the open's reply
		// would have had no features to describe (audit 56).
		return nil, fmt.Errorf("open: %s: no features (an empty spec, columns or fields): %w", o.Kind, sluice.ErrInvalid)
	}
	return s, nil
}

func (s *source) examples(o *Open, common []sluice.Option) error {
	if o.Compression != "" {
		return fmt.Errorf("open: examples: compression is detected from each file: %w", sluice.ErrInvalid)
	}
	if o.Context != nil || o.Sequence != nil {
		return fmt.Errorf("open: examples: context and sequence are sequence_examples': %w", sluice.ErrInvalid)
	}
	spec, err := s.spec(o.Spec, inExample)
	if err != nil {
		return err
	}
	s.ds = sluice.Examples(o.Files[0], spec, append(s.exampleOptions(o, common), s.imageOpts...)...)
	s.describe(spec, false)
	return nil
}

// records opens Records: each record's bytes as the one feature.
func (s *source) records(o *Open, common []sluice.Option) error {
	if o.Compression != "" {
		return fmt.Errorf("open: records: compression is detected from each file: %w", sluice.ErrInvalid)
	}
	if o.Spec != nil || o.Context != nil || o.Sequence != nil || o.Columns != nil || o.Fields != nil {
		return fmt.Errorf("open: records: records are read as they are, without a spec: %w", sluice.ErrInvalid)
	}
	s.ds = sluice.Records(o.Files[0], s.exampleOptions(o, common)...)
	s.features = []FeatureInfo{featureInfo(sluice.RecordFeature, tensor.String, false)}
	return nil
}

// sequenceExamples opens SequenceExamples: the context spec's features as
// an Example's (raw numbers from bytes included), the sequence spec's as
// feature lists.
func (s *source) sequenceExamples(o *Open, common []sluice.Option) error {
	if o.Compression != "" {
		return fmt.Errorf("open: sequence_examples: compression is detected from each file: %w", sluice.ErrInvalid)
	}
	if o.Spec != nil {
		return fmt.Errorf("open: sequence_examples: the features are in context and sequence, not spec: %w", sluice.ErrInvalid)
	}
	context, err := s.spec(o.Context, inContext)
	if err != nil {
		return err
	}
	lists, err := s.spec(o.Sequence, inLists)
	if err != nil {
		return err
	}
	s.ds = sluice.SequenceExamples(o.Files[0], context, lists, s.exampleOptions(o, common)...)
	s.describe(context, false)
	s.describe(lists, true)
	return nil
}

// Where a spec's features are: an Example's, a SequenceExample's context
// or its feature lists.
const (
	inExample = iota
	inContext
	inLists
)

// spec builds the example.Spec of the features fs, which are in where.
func (s *source) spec(fs map[string]FeatureSpec, where int) (example.Spec, error) {
	spec := example.Spec{}
	for name, f := range fs {
		dt, err := parseDType(f.DType)
		if err != nil {
			return nil, fmt.Errorf("open: feature %q: %w", name, err)
		}
		if f.AllowMissing != nil && f.Kind != "sequence" {
			return nil, fmt.Errorf("open: feature %q: allow_missing is a sequence feature's: %w", name, sluice.ErrInvalid)
		}
		if f.DCTMethod != "" && f.Kind != "image" {
			return nil, fmt.Errorf("open: feature %q: dct_method is an image's: %w", name, sluice.ErrInvalid)
		}
		if f.MaxScans != 0 && f.Kind != "image" || f.MaxScans < 0 {
			return nil, fmt.Errorf("open: feature %q: max_scans %d: %w (an image's, at least 1)", name, f.MaxScans, sluice.ErrInvalid)
		}
		var fs example.FeatureSpec
		switch {
		case where == inLists && f.Kind != "sequence" && f.Kind != "varlen":
			return nil, fmt.Errorf("open: feature list %q: kind %q: %w (want sequence or varlen)", name, f.Kind, sluice.ErrInvalid)
		case where == inContext && f.Kind != "fixed" && f.Kind != "varlen":
			return nil, fmt.Errorf("open: context feature %q: kind %q: %w (want fixed or varlen)", name, f.Kind, sluice.ErrInvalid)
		case f.Kind == "fixed" && !exampleDType(dt):
			// Numbers of another type are kept in an Example as one
			// bytes value of their raw encoding (decode_raw), as MNIST's
			// image_raw holds its pixels.
			if len(f.Default) > 0 && string(f.Default) != "null" {
				return nil, fmt.Errorf("open: feature %q: a %v feature read from bytes has no default: %w", name, dt, sluice.ErrInvalid)
			}
			// Each record's bytes, checked: a product that wrapped would
			// let records of the wrong length through with a shape they do
			// not have.
			n := dt.Size()
			for _, d := range f.Shape {
				if d < 0 || d > 0 && n > maxRawBytes/d {
					return nil, fmt.Errorf("open: feature %q: shape %v of %v: %w (at most %d bytes a record)", name, f.Shape, dt, sluice.ErrInvalid, maxRawBytes)
				}
				n *= d
			}
			s.raw[name] = rawFeature{dtype: dt, shape: f.Shape, bytes: n}
			spec[name] = example.FixedLen(tensor.String)
			continue
		case f.Kind == "image":
			if where != inExample || dt != tensor.Uint8 || len(f.Shape) != 3 || len(f.Default) > 0 && string(f.Default) != "null" {
				return nil, fmt.Errorf("open: feature %q: an image is an Example's, uint8, of shape [height, width, channels], with no default: %w", name, sluice.ErrInvalid)
			}
			var opts []decode.ImageOption
			switch f.DCTMethod {
			case "", "INTEGER_FAST":
			case "INTEGER_ACCURATE":
				opts = append(opts, decode.AccurateDCT())
			default:
				return nil, fmt.Errorf("open: feature %q: dct_method %q: %w (want INTEGER_FAST or INTEGER_ACCURATE, as decode_jpeg)", name, f.DCTMethod, sluice.ErrInvalid)
			}
			if f.MaxScans > 0 {
				opts = append(opts, decode.MaxScans(f.MaxScans))
			}
			s.images[name] = true
			s.imageOpts = append(s.imageOpts, sluice.DecodeImage(name, f.Shape[0], f.Shape[1], f.Shape[2], opts...))
			spec[name] = example.FixedLen(tensor.String)
			continue
		case f.Kind == "fixed":
			fs = example.FixedLen(dt, f.Shape...)
		case f.Kind == "varlen":
			if f.Shape != nil {
				return nil, fmt.Errorf("open: feature %q: a varlen feature has no shape: %w", name, sluice.ErrInvalid)
			}
			fs = example.VarLen(dt)
			if where == inLists {
				// Steps of any number of values: sparse, as TensorFlow
				// gives them.
				s.sparse[name] = true
			} else {
				s.varlen[name] = true
			}
		case f.Kind == "sequence":
			fs = example.FixedLenSequence(dt, f.Shape...)
			switch {
			case f.AllowMissing == nil || *f.AllowMissing:
				fs = fs.AllowMissing()
			case where == inExample:
				return nil, fmt.Errorf("open: feature %q: a sequence feature of an Example must allow missing (as TensorFlow requires): %w", name, sluice.ErrInvalid)
			}
		case f.Kind == "sparse":
			if f.Shape != nil || len(f.Default) > 0 && string(f.Default) != "null" {
				return nil, fmt.Errorf("open: feature %q: a sparse feature has a size, no shape or default: %w", name, sluice.ErrInvalid)
			}
			fs = example.SparseFeature(f.IndexKeys, f.ValueKey, dt, f.Size, f.AlreadySorted)
			s.sparse[name] = true
		default:
			return nil, fmt.Errorf("open: feature %q: kind %q: %w (want fixed, varlen, sequence, sparse or image)", name, f.Kind, sluice.ErrInvalid)
		}
		if f.Kind != "sparse" && (f.IndexKeys != nil || f.ValueKey != "" || f.Size != nil || f.AlreadySorted) {
			return nil, fmt.Errorf("open: feature %q: index_keys, value_key, size and already_sorted are a sparse feature's: %w", name, sluice.ErrInvalid)
		}
		if len(f.Default) > 0 && string(f.Default) != "null" {
			def, err := parseDefault(f.Default, dt)
			if err != nil {
				return nil, fmt.Errorf("open: feature %q: default: %w", name, err)
			}
			fs = fs.WithDefault(def)
		}
		spec[name] = fs
	}
	return spec, nil
}

func (s *source) exampleOptions(o *Open, common []sluice.Option) []sluice.ExampleOption {
	opts := make([]sluice.ExampleOption, 0, len(common)+2)
	for _, c := range common {
		opts = append(opts, c)
	}
	if o.SkipCorrupt {
		opts = append(opts, sluice.SkipCorrupt())
	}
	if o.GlobalShuffle {
		opts = append(opts, sluice.GlobalShuffle())
	}
	if o.Format == "parquet" {
		opts = append(opts, sluice.Parquet())
	}
	return opts
}

// describe adds the features of spec to s.features; lists marks a
// SequenceExample's feature lists. Dense feature lists, and an Example's
// FixedLenSequence features, carry their records' step counts.
func (s *source) describe(spec example.Spec, lists bool) {
	for name, f := range spec {
		fi := featureInfo(name, f.DType(), s.varlen[name])
		switch _, raw := s.raw[name]; {
		case s.sparse[name]:
			fi.Kind = "sparse"
		case raw:
			fi.Kind, fi.DType = "raw", dtypeName(s.raw[name].dtype)
		case s.images[name]:
			fi.DType = dtypeName(tensor.Uint8)
		case lists || f.Kind() == example.KindFixedLenSequence:
			fi.Kind = "list"
		}
		s.features = append(s.features, fi)
	}
	sortFeatures(s.features)
}

func (s *source) csv(o *Open, common []sluice.Option) error {
	cols := make([]sluice.Column, len(o.Columns))
	for i, c := range o.Columns {
		dt, err := parseDType(c.DType)
		if err != nil {
			return fmt.Errorf("open: column %q: %w", c.Name, err)
		}
		col, err := csvColumn(c, dt)
		if err != nil {
			return fmt.Errorf("open: column %q: %w", c.Name, err)
		}
		cols[i] = sluice.Col(c.Name, col)
		s.features = append(s.features, featureInfo(c.Name, dt, false))
	}
	opts := make([]sluice.CSVOption, 0, len(common)+2)
	for _, c := range common {
		opts = append(opts, c)
	}
	if o.HeaderLines != 0 {
		opts = append(opts, sluice.SkipHeaderLines(o.HeaderLines))
	}
	if o.Delim != nil {
		// An empty or longer delimiter is refused, as TensorFlow's
		// decode_csv refuses it, not read as the default comma.
		if len(*o.Delim) != 1 {
			return fmt.Errorf("open: csv: delim %q: %w (want one byte, as TensorFlow's field_delim)", *o.Delim, sluice.ErrInvalid)
		}
		opts = append(opts, sluice.FieldDelim(*o.Delim))
	}
	if o.GlobalShuffle {
		return fmt.Errorf("open: csv: global_shuffle needs records that can be read in any order, which text lines are not: %w", sluice.ErrInvalid)
	}
	s.ds = sluice.CSV(o.Files[0], cols, opts...)
	sortFeatures(s.features)
	return nil
}

func csvColumn(c ColumnSpec, dt tensor.DType) (decode.Column, error) {
	if c.Required {
		return decode.Required(dt), nil
	}
	var def tensor.Tensor
	if len(c.Default) > 0 && string(c.Default) != "null" {
		var err error
		if def, err = parseDefault(c.Default, dt); err != nil {
			return decode.Column{}, err
		}
		if def.NumElements() != 1 {
			return decode.Column{}, fmt.Errorf("a column's default is one value: %w", sluice.ErrInvalid)
		}
	} else {
		def = tensor.Zeros(dt, tensor.Shape{1})
	}
	switch dt {
	case tensor.Float32:
		return decode.Float32Column(def.Float32s()[0]), nil
	case tensor.Float64:
		return decode.Float64Column(def.Float64s()[0]), nil
	case tensor.Int32:
		return decode.Int32Column(def.Int32s()[0]), nil
	case tensor.Int64:
		return decode.Int64Column(def.Int64s()[0]), nil
	case tensor.String:
		return decode.StringColumn(string(def.Strings()[0])), nil
	}
	return decode.Column{}, fmt.Errorf("a CSV column of %v: %w (want float32, float64, int32, int64 or bytes)", dt, sluice.ErrInvalid)
}

func (s *source) fixed(o *Open, common []sluice.Option) error {
	fields := make([]sluice.Field, len(o.Fields))
	for i, f := range o.Fields {
		dt, err := parseDType(f.DType)
		if err != nil {
			return fmt.Errorf("open: field %q: %w", f.Name, err)
		}
		fields[i] = sluice.Field{Name: f.Name, Offset: f.Offset, Size: f.Size, DType: dt, Shape: f.Shape, Transpose: f.Transpose, BigEndian: f.BigEndian}
		s.features = append(s.features, featureInfo(f.Name, dt, false))
	}
	opts := make([]sluice.RecordOption, 0, len(common)+3)
	for _, c := range common {
		opts = append(opts, c)
	}
	if o.HeaderBytes != 0 {
		opts = append(opts, sluice.HeaderBytes(o.HeaderBytes))
	}
	if o.FooterBytes != 0 {
		opts = append(opts, sluice.FooterBytes(o.FooterBytes))
	}
	if o.Compression != "" {
		c, err := tfrecord.ParseCompression(o.Compression)
		if err != nil {
			return fmt.Errorf("open: fixed-length records: compression %q: %w (want NONE, GZIP, ZLIB or ZSTD)", o.Compression, sluice.ErrInvalid)
		}
		opts = append(opts, sluice.Compression(c))
	}
	if o.GlobalShuffle {
		opts = append(opts, sluice.GlobalShuffle())
	}
	s.ds = sluice.FixedLengthRecords(o.Files[0], o.RecordBytes, fields, opts...)
	sortFeatures(s.features)
	return nil
}

// maxRawBytes bounds a raw feature's bytes a record: a TFRecord record's
// (tfrecord.DefaultMaxRecordSize), which holds the value, or an int's
// largest, on a 32-bit system.
const maxRawBytes = min(tfrecord.DefaultMaxRecordSize, math.MaxInt)

// A rawFeature is a bytes feature of an Example read as numbers: each
// record's one value is bytes of the values' little-endian encoding.
type rawFeature struct {
	dtype tensor.DType
	shape []int
	bytes int // per record
}

// exampleDType reports whether an Example holds values of dt in a list
// of their own (bytes_list, float_list, int64_list).
func exampleDType(dt tensor.DType) bool {
	return dt == tensor.String || dt == tensor.Float32 || dt == tensor.Int64
}

func featureInfo(name string, dt tensor.DType, varlen bool) FeatureInfo {
	kind := "dense"
	if varlen {
		kind = "varlen"
	}
	return FeatureInfo{Name: name, Kind: kind, DType: dtypeName(dt)}
}

// sortFeatures sorts fs by name. A spec may hold hundreds of thousands of
// features, in a map's random order: an insertion sort took 10 s for 80 000
// of them (audit 96).
func sortFeatures(fs []FeatureInfo) {
	slices.SortFunc(fs, func(a, b FeatureInfo) int { return strings.Compare(a.Name, b.Name) })
}

// parseDType reads a dtype as NumPy names it; bytes (or string) is
// tensor.String.
func parseDType(s string) (tensor.DType, error) {
	if s == "bytes" {
		return tensor.String, nil
	}
	dt, err := tensor.ParseDType(s)
	if err != nil || dt == tensor.Complex64 || dt == tensor.Complex128 {
		return tensor.Invalid, fmt.Errorf("dtype %q: %w", s, sluice.ErrInvalid)
	}
	return dt, nil
}

// dtypeName is parseDType's inverse.
func dtypeName(dt tensor.DType) string {
	if dt == tensor.String {
		return "bytes"
	}
	return dt.String()
}

// parseDefault reads a default value: a number or string, or a list of
// them, as a vector of dt. JSON has no NaN or infinities, nor bytes that
// are not UTF-8: a float's is a string ("nan", "inf", "-inf"), and a
// bytes value's an object {"base64": "..."}.
// flatten returns the values of nested lists in row-major order, or an
// error if the lists are ragged (sublists of one level differ in length
// or depth), which no array is.
func flatten(list []any) ([]any, error) {
	out, _, err := flattenDepth(list)
	return out, err
}

func flattenDepth(list []any) (out []any, depth int, err error) {
	n := -1
	for i, x := range list {
		sub, ok := x.([]any)
		if !ok {
			if depth > 0 {
				return nil, 0, fmt.Errorf("%w: a default mixes lists and values", sluice.ErrInvalid)
			}
			out = append(out, x)
			continue
		}
		vals, d, err := flattenDepth(sub)
		switch {
		case err != nil:
			return nil, 0, err
		case i > 0 && depth == 0:
			return nil, 0, fmt.Errorf("%w: a default mixes lists and values", sluice.ErrInvalid)
		case n >= 0 && (len(vals) != n || d+1 != depth):
			return nil, 0, fmt.Errorf("%w: a default of ragged lists, not an array", sluice.ErrInvalid)
		}
		n, depth = len(vals), d+1
		out = append(out, vals...)
	}
	return out, depth, nil
}

func parseDefault(raw json.RawMessage, dt tensor.DType) (tensor.Tensor, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return tensor.Tensor{}, fmt.Errorf("%w: %v", sluice.ErrInvalid, err)
	}
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	// A default of several dimensions (a NumPy array's tolist()) is
	// taken in row-major order, as TensorFlow reshapes one to the
	// feature's shape; its size is checked against the shape later.
	list, err := flatten(list)
	if err != nil {
		return tensor.Tensor{}, err
	}
	switch dt {
	case tensor.String:
		out := make([][]byte, len(list))
		for i, x := range list {
			switch x := x.(type) {
			case string:
				out[i] = []byte(x)
			case map[string]any:
				b64, ok := x["base64"].(string)
				var err error
				if ok && len(x) == 1 {
					out[i], err = base64.StdEncoding.DecodeString(b64)
				}
				if !ok || len(x) != 1 || err != nil {
					return tensor.Tensor{}, fmt.Errorf("%v is not a string or {\"base64\": ...}: %w", x, sluice.ErrInvalid)
				}
			default:
				return tensor.Tensor{}, fmt.Errorf("%v is not a string: %w", x, sluice.ErrInvalid)
			}
		}
		return tensor.New(out, len(out)), nil
	case tensor.Float32, tensor.Float64, tensor.Int32, tensor.Int64:
	default:
		return tensor.Tensor{}, fmt.Errorf("a default of %v: %w", dt, sluice.ErrInvalid)
	}
	nums := make([]json.Number, len(list))
	for i, x := range list {
		n, ok := x.(json.Number)
		if s, isString := x.(string); isString && (dt == tensor.Float32 || dt == tensor.Float64) {
			// NaN or an infinity, which the client spells as Python does.
			if _, ok = nonFinite(s); ok {
				n = json.Number(s)
			}
		}
		if !ok {
			return tensor.Tensor{}, fmt.Errorf("%v is not a number: %w", x, sluice.ErrInvalid)
		}
		nums[i] = n
	}
	switch dt {
	case tensor.Float32, tensor.Float64:
		fs := make([]float64, len(nums))
		for i, n := range nums {
			f, ok := nonFinite(string(n))
			if !ok {
				var err error
				if f, err = n.Float64(); err != nil {
					return tensor.Tensor{}, fmt.Errorf("%w: %v", sluice.ErrInvalid, err)
				}
			}
			fs[i] = f
		}
		if dt == tensor.Float64 {
			return tensor.New(fs, len(fs)), nil
		}
		return tensor.New(convert[float32](fs), len(fs)), nil
	}
	// Integers exactly, beyond float64's 53 bits.
	is := make([]int64, len(nums))
	for i, n := range nums {
		v, err := strconv.ParseInt(string(n), 10, 64)
		if err == nil && dt == tensor.Int32 && int64(int32(v)) != v {
			err = fmt.Errorf("%d is out of int32's range", v)
		}
		if err != nil {
			return tensor.Tensor{}, fmt.Errorf("%w: %v", sluice.ErrInvalid, err)
		}
		is[i] = v
	}
	if dt == tensor.Int32 {
		return tensor.New(convertInt[int32](is), len(is)), nil
	}
	return tensor.New(is, len(is)), nil
}

func convertInt[T int32](v []int64) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}

// nonFinite reads the client's spellings of NaN and the infinities (as
// Python's repr, and "-nan" for a NaN whose sign bit is set): the NaN is
// the one Python's and NumPy's are, quiet with no payload and the sign
// asked for, not Go's math.NaN(), whose payload is 1 (audit 81).
func nonFinite(s string) (float64, bool) {
	switch strings.ToLower(s) {
	case "nan", "+nan":
		return math.Float64frombits(0x7ff8000000000000), true
	case "-nan":
		return math.Float64frombits(0xfff8000000000000), true
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	}
	return 0, false
}

func convert[T float32](v []float64) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}
