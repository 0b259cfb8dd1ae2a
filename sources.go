package sluice

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/batchhook"
	"github.com/sluiceml/sluice/internal/recordhook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// Examples returns the data set of the tf.train.Example records in the
// TFRecord files that files names (a name or a glob pattern; Files adds
// more), parsed by spec. Each file's compression (none, GZIP, ZLIB or ZSTD)
// is detected from its first bytes, so files of mixed compression can be
// read together. The batch's features are spec's: FixedLen and
// FixedLenSequence features dense, VarLen and SparseFeature features
// sparse, or padded by Batch.Dense. A FixedLenSequence feature is padded
// to the batch's most steps; Batch.Lengths gives each record's steps. A
// SparseFeature index outside the feature's size, or repeated within its
// record, fails its batch with ErrSparseIndex.
func Examples(files string, spec example.Spec, opts ...ExampleOption) *Dataset {
	s := exampleSettings{settings: settings{files: []string{files}}}
	for _, o := range opts {
		o.applyExample(&s)
	}
	d := &Dataset{kind: "Examples", settings: s.settings}
	if len(spec) == 0 {
		d.err = fmt.Errorf("sluice: Examples: the spec names no feature: %w", ErrInvalid)
		return d
	}
	if _, err := example.NewParser(spec); err != nil {
		d.err = fmt.Errorf("sluice: Examples: %w", err)
		return d
	}
	if err := checkImages(s.images, spec); err != nil {
		d.err = fmt.Errorf("sluice: Examples: %w", err)
		return d
	}
	var fs []feature
	for name, f := range spec {
		sparse := f.Kind() == example.KindVarLen || f.Kind() == example.KindSparse
		dt := f.DType()
		if slices.ContainsFunc(s.images, func(im imageFeature) bool { return im.name == name }) {
			dt = tensor.Uint8
		}
		fs = append(fs, feature{name: name, dtype: dt, sparse: sparse, steps: f.Kind() == example.KindFixedLenSequence})
	}
	d.layout = newLayout(fs)
	// A SparseFeature's indices come from the data; ones outside its size
	// fail the batch here, naming the record, rather than Batch.Dense.
	bounded := make([]bool, len(d.layout.features))
	for i, f := range d.layout.features {
		bounded[i] = spec[f.name].Kind() == example.KindSparse
	}
	if s.parquet {
		if d.err = parquetConflicts(d.kind, s); d.err != nil {
			return d
		}
		d.readParquet(slices.Collect(maps.Keys(spec)))
	} else {
		d.readTFRecords(s.skipCorrupt)
	}
	l := d.layout
	parse := func(reuse bool) (decoder, error) {
		p, err := example.NewParser(spec)
		if err != nil {
			return nil, err
		}
		if reuse {
			p.ReuseOutputs()
		}
		images, err := imageDecoders(s.images, l, reuse)
		if err != nil {
			return nil, err
		}
		var elem queue.Element // the batch's components, with reuse
		return func(recs [][]byte, keys []string) (queue.Element, error) {
			out, err := p.Parse(recs, keys)
			if err != nil {
				return nil, err
			}
			e := elem[:0]
			if e == nil {
				e = make(queue.Element, 0, len(l.dtypes))
			}
			if reuse {
				elem = e
			}
			for i, f := range l.features {
				if !f.sparse {
					t, _ := out.Dense(f.name)
					if im := images[i]; im != nil {
						if t, err = im.decode(t, keys); err != nil {
							return nil, err
						}
					}
					e = append(e, t)
					if f.steps {
						n, _ := out.Lengths(f.name)
						e = append(e, n)
					}
					continue
				}
				s, _ := out.Sparse(f.name)
				if bounded[i] {
					// A SparseFeature's dense shape is its spec's, not a
					// padding of the batch: a hashed feature space of
					// 2^32 is read as the sparse tensor it is (its
					// dense form was refused, audit 114).
					if err := checkSparseBounds(f.name, s, keys); err != nil {
						return nil, err
					}
				} else if err := checkDenseSize(f.name, s, keys); err != nil {
					return nil, err
				}
				e = append(e, s.Indices, s.Values, shapeTensor(s.DenseShape))
			}
			return e, nil
		}, nil
	}
	d.newDecoderInto = examplesInto(spec, l, parse)
	d.newDecoder = reusingInto(d.newDecoderInto, parse)
	return d
}

// RecordFeature is the name of the one feature of a Records batch.
const RecordFeature = "record"

// Records returns the data set of the records of the TFRecord files that
// files names, as they are: a batch's one feature, RecordFeature, holds
// each record's bytes (Batch.Bytes), for records that are not Examples —
// serialized protos of another type, images, JSON — or Examples a caller
// parses itself. Compression is detected per file as Examples detects
// it, and Records takes the options of Examples, GlobalShuffle and
// SkipCorrupt included.
func Records(files string, opts ...ExampleOption) *Dataset {
	s := exampleSettings{settings: settings{files: []string{files}}}
	for _, o := range opts {
		o.applyExample(&s)
	}
	d := &Dataset{kind: "Records", settings: s.settings}
	if s.parquet {
		d.err = fmt.Errorf("sluice: Records: Parquet: %w (Parquet rows are read as Examples)", ErrInvalid)
		return d
	}
	if len(s.images) > 0 {
		d.err = fmt.Errorf("sluice: Records: DecodeImage(%q): %w (images are decoded from Examples' features)", s.images[0].name, ErrInvalid)
		return d
	}
	d.layout = newLayout([]feature{{name: RecordFeature, dtype: tensor.String}})
	d.readTFRecords(s.skipCorrupt)
	d.newDecoder = func(reuse bool) (decoder, error) {
		var buf []byte         // the batch's bytes, with reuse
		var elem queue.Element // the batch's one component, with reuse
		var vals tensor.Tensor // its tensor, with reuse
		return func(recs [][]byte, keys []string) (queue.Element, error) {
			// The records are the reader's, valid during the call: the
			// batch gets a copy, all of it in one buffer.
			n := 0
			for _, r := range recs {
				n += len(r)
			}
			b := buf[:0]
			if !reuse || cap(b) < n {
				b = make([]byte, 0, n)
			}
			t := vals
			if !reuse || !t.IsValid() || t.Len() != len(recs) {
				t = tensor.New(make([][]byte, len(recs)), len(recs))
			}
			out := t.Strings()
			for i, r := range recs {
				b = append(b, r...)
				out[i] = b[len(b)-len(r) : len(b) : len(b)]
			}
			e := elem
			if e == nil || !reuse {
				e = make(queue.Element, 1)
			}
			e[0] = t
			if reuse {
				buf, elem, vals = b, e, t
			}
			return e, nil
		}, nil
	}
	return d
}

// SequenceExamples returns the data set of the tf.train.SequenceExample
// records in the TFRecord files that files names, read as Examples reads
// Examples: context features parsed by context (FixedLen and VarLen), as
// Examples parses features, and feature lists by featureLists
// (FixedLenSequence and VarLen), as tf.io.parse_sequence_example does. A
// FixedLenSequence list is dense, [Len(), most steps]+shape, each record
// padded to the batch's longest with the feature's default (zero when
// none); a VarLen list is sparse with dense shape [Len(), most steps,
// most values in a step]. Batch.Lengths gives every feature list's steps
// per record. Context features and feature lists share the batch's names,
// so a name may be in only one of the two specs.
//
// SequenceExamples takes the options of Examples, GlobalShuffle
// included.
func SequenceExamples(files string, context, featureLists example.Spec, opts ...ExampleOption) *Dataset {
	s := exampleSettings{settings: settings{files: []string{files}}}
	for _, o := range opts {
		o.applyExample(&s)
	}
	d := &Dataset{kind: "SequenceExamples", settings: s.settings}
	if s.parquet {
		d.err = fmt.Errorf("sluice: SequenceExamples: Parquet: %w (Parquet rows are read as Examples)", ErrInvalid)
		return d
	}
	if len(s.images) > 0 {
		d.err = fmt.Errorf("sluice: SequenceExamples: DecodeImage(%q): %w (Examples' only, for now)", s.images[0].name, ErrInvalid)
		return d
	}
	if len(context)+len(featureLists) == 0 {
		d.err = fmt.Errorf("sluice: SequenceExamples: the specs name no feature: %w", ErrInvalid)
		return d
	}
	for name := range featureLists {
		if _, ok := context[name]; ok {
			d.err = fmt.Errorf("sluice: SequenceExamples: %q is both a context feature and a feature list: %w (a batch has one feature of a name)", name, ErrInvalid)
			return d
		}
	}
	if _, err := example.NewSequenceParser(context, featureLists); err != nil {
		d.err = fmt.Errorf("sluice: SequenceExamples: %w", err)
		return d
	}
	var fs, lists []feature
	for name, f := range context {
		fs = append(fs, feature{name: name, dtype: f.DType(), sparse: f.Kind() != example.KindFixedLen})
	}
	for name, f := range featureLists {
		lists = append(lists, feature{name: name, dtype: f.DType(), sparse: f.Kind() == example.KindVarLen, steps: true})
	}
	d.layout = newLayout(append(fs, lists...))
	// Which features are lists, for a checkpoint's description of the
	// data set (whose features it names with their types only).
	names := make([]string, len(lists))
	for i, f := range lists {
		names[i] = f.name
	}
	slices.Sort(names)
	d.extra = "lists=" + strings.Join(names, ",")
	d.readTFRecords(s.skipCorrupt)
	l := d.layout
	d.newDecoder = func(bool) (decoder, error) {
		p, err := example.NewSequenceParser(context, featureLists)
		if err != nil {
			return nil, err
		}
		return func(recs [][]byte, keys []string) (queue.Element, error) {
			c, fl, err := p.Parse(recs, keys)
			if err != nil {
				return nil, err
			}
			e := make(queue.Element, 0, len(l.dtypes))
			for _, f := range l.features {
				out := c
				if f.steps {
					out = fl
				}
				if f.sparse {
					s, _ := out.Sparse(f.name)
					if f.steps || context[f.name].Kind() != example.KindSparse { // a SparseFeature's shape is its spec's
						if err := checkDenseSize(f.name, s, keys); err != nil {
							return nil, err
						}
					}
					e = append(e, s.Indices, s.Values, shapeTensor(s.DenseShape))
				} else {
					t, _ := out.Dense(f.name)
					e = append(e, t)
				}
				if f.steps {
					n, _ := fl.Lengths(f.name)
					e = append(e, n)
				}
			}
			return e, nil
		}, nil
	}
	return d
}

func shapeTensor(s tensor.Shape) tensor.Tensor {
	v := make([]int64, len(s))
	for i, d := range s {
		v[i] = int64(d)
	}
	return tensor.New(v, len(v))
}

// A Column is one named column of CSV.
type Column struct {
	name string
	col  decode.Column
}

// Col returns a CSV column called name, of c's type and default (see
// decode.Float32Column, decode.RequiredInt64, ...).
func Col(name string, c decode.Column) Column { return Column{name: name, col: c} }

// CSV returns the data set of the lines of the text files that files
// names, each decoded as comma-separated values into columns, in order
// (TensorFlow's TextLineReader and decode_csv). A column's default fills
// an empty field; a required column's empty field is an error naming the
// file and line. A file whose first bytes are a GZIP or ZSTD header is
// decompressed (files of mixed compression can be read together); ZLIB
// is not looked for, since its header can begin a line of text.
func CSV(files string, columns []Column, opts ...CSVOption) *Dataset {
	s := csvSettings{settings: settings{files: []string{files}}}
	for _, o := range opts {
		o.applyCSV(&s)
	}
	d := &Dataset{kind: "CSV", settings: s.settings}
	cols := make([]decode.Column, len(columns))
	fs := make([]feature, len(columns))
	for i, c := range columns {
		cols[i] = c.col
		fs[i] = feature{name: c.name, dtype: c.col.DType()}
	}
	if err := uniqueNames(fs); err != nil {
		d.err = fmt.Errorf("sluice: CSV: %w", err)
		return d
	}
	if s.headerLines < 0 {
		d.err = fmt.Errorf("sluice: CSV: %w: SkipHeaderLines(%d)", ErrInvalid, s.headerLines)
		return d
	}
	var copts []decode.CSVOption
	for _, o := range s.csvOpts {
		copts = append(copts, decode.FieldDelim(o.delim))
	}
	if _, err := decode.NewCSV(cols, copts...); err != nil {
		d.err = fmt.Errorf("sluice: CSV: %w", err)
		return d
	}
	order := d.setLayout(fs)
	d.readerKind, d.extra = "TextLineReader", fmt.Sprintf("header=%d", s.headerLines)
	d.newFormat = func() (recordhook.Format, error) { return recordhook.NewTextLineFormat(s.headerLines), nil }
	// Keys are "file:line".
	d.origin = keyOrigin(func(e *dataerr.Error, line int64) { e.Line = line })
	d.newDecoder = func(reuse bool) (decoder, error) {
		c, err := decode.NewCSV(cols, copts...)
		if err != nil {
			return nil, err
		}
		if reuse {
			c.ReuseStrings()
		}
		var reused []tensor.Tensor
		var elem queue.Element // the batch's components, with reuse
		return func(recs [][]byte, keys []string) (queue.Element, error) {
			out := reused
			if !reuse || len(out) == 0 || out[0].Len() != len(recs) {
				out = c.NewBatch(len(recs))
			}
			if err := c.DecodeBatchInto(out, recs, keys); err != nil {
				return nil, err
			}
			e := elem
			if e == nil {
				e = make(queue.Element, len(order))
			}
			if reuse {
				reused, elem = out, e
			}
			for i, j := range order {
				e[i] = out[j]
			}
			return e, nil
		}, nil
	}
	return d
}

// A Field is one named part of a fixed-length record: Size bytes at
// Offset, decoded as numbers of DType (decode.Raw, little-endian unless
// BigEndian) into a tensor of Shape per record, or as the bytes themselves
// when DType is tensor.String. A nil Shape is a vector of every value.
//
// Transpose, if set, permutes the dimensions of Shape in every record, as
// tf.transpose after decode_raw and reshape does: CIFAR-10's image, stored
// as three planes (Shape [3, 32, 32]), becomes height × width × channels
// with Transpose [1, 2, 0]. A transposed field's Shape must be that of
// its Size bytes of DType, which FixedLengthRecords checks when it makes
// the data set (an error wrapping ErrInvalid); another field's is checked
// with the first batch.
//
// Decode, if set, decodes the field's bytes instead, into a tensor of
// DType of the same shape for every record; Shape and Transpose are then
// ignored. The bytes are valid only during the call.
type Field struct {
	Name         string
	Offset, Size int
	DType        tensor.DType
	Shape        []int
	Transpose    []int
	BigEndian    bool
	Decode       func(b []byte) (tensor.Tensor, error)
}

// FixedLengthRecords returns the data set of the records of recordBytes
// bytes each in the files that files names (TensorFlow's
// FixedLengthRecordReader, as CIFAR-10 is read), each cut into fields. A
// last record cut short is dropped, as TensorFlow drops it; a compressed
// file whose stream is itself cut short is an error after its last whole
// record.
func FixedLengthRecords(files string, recordBytes int, fields []Field, opts ...RecordOption) *Dataset {
	s := recordSettings{settings: settings{files: []string{files}}}
	for _, o := range opts {
		o.applyRecord(&s)
	}
	d := &Dataset{kind: "FixedLengthRecords", settings: s.settings}
	fs := make([]feature, len(fields))
	// The fields' decoders and transposers, which hold no state of a
	// batch: every goroutine's decoder shares them.
	raws := make([]*decode.Raw, len(fields))
	trs := make([]*transposer, len(fields))
	for i, f := range fields {
		fs[i] = feature{name: f.Name, dtype: f.DType}
		if f.Offset < 0 || f.Size < 0 || f.Offset+f.Size > recordBytes {
			d.err = fmt.Errorf("sluice: FixedLengthRecords: field %q: bytes [%d, %d) are not inside a record of %d bytes: %w", f.Name, f.Offset, f.Offset+f.Size, recordBytes, ErrInvalid)
			return d
		}
		if f.DType != tensor.String && f.Decode == nil {
			var err error
			if raws[i], err = decode.NewRaw(f.DType, !f.BigEndian); err != nil {
				d.err = fmt.Errorf("sluice: FixedLengthRecords: field %q: %w", f.Name, err)
				return d
			}
		}
		if f.Transpose != nil && f.Decode == nil {
			// The transposer's index is sized by Shape, so Shape must
			// be that of Size's values before it is built: a Shape
			// that is wrong only at decode time elsewhere would
			// otherwise size any amount of memory here, from a
			// caller's (or sluice-serve client's) arguments.
			if n, err := tensor.Shape(f.Shape).CheckedNumElements(); err != nil || f.DType == tensor.String || n*f.DType.Size() != f.Size {
				d.err = fmt.Errorf("sluice: FixedLengthRecords: field %q: Transpose %v: %d bytes of %v do not make shape %v: %w", f.Name, f.Transpose, f.Size, f.DType, f.Shape, ErrInvalid)
				return d
			}
			var err error
			if trs[i], err = newTransposer(f.Shape, f.Transpose); err != nil {
				d.err = fmt.Errorf("sluice: FixedLengthRecords: field %q: Transpose %v of Shape %v of %v: %w", f.Name, f.Transpose, f.Shape, f.DType, ErrInvalid)
				return d
			}
		}
	}
	if err := uniqueNames(fs); err != nil {
		d.err = fmt.Errorf("sluice: FixedLengthRecords: %w", err)
		return d
	}
	order := d.setLayout(fs)
	if _, err := recordhook.NewFixedLengthFormat(recordBytes, s.headerBytes, s.footerBytes, s.compression); err != nil {
		d.err = fmt.Errorf("sluice: FixedLengthRecords: %w", err)
		return d
	}
	if s.globalShuffle && s.compression != tfrecord.None {
		// Known now: a compressed stream has no offsets to read a
		// record at.
		d.err = fmt.Errorf("sluice: FixedLengthRecords: Compression(%v) with GlobalShuffle: %w (a global shuffle reads records where they are, in uncompressed files)", s.compression, ErrInvalid)
		return d
	}
	d.readerKind = "FixedLengthRecordReader"
	d.fixed.recordBytes, d.fixed.headerBytes, d.fixed.footerBytes, d.fixed.compression = recordBytes, s.headerBytes, s.footerBytes, s.compression
	d.extra = fmt.Sprintf("record=%d header=%d footer=%d %v", recordBytes, s.headerBytes, s.footerBytes, s.compression)
	d.newFormat = func() (recordhook.Format, error) {
		return recordhook.NewFixedLengthFormat(recordBytes, s.headerBytes, s.footerBytes, s.compression)
	}
	// Keys are "file:index"; offsets count bytes of the decompressed
	// stream when the files are compressed. Records follow each other:
	// the footer ends the file, not each record.
	d.origin = keyOrigin(func(e *dataerr.Error, i int64) {
		e.Offset, e.Record = int64(s.headerBytes)+i*int64(recordBytes), i
	})
	d.newDecoder = func(reuse bool) (decoder, error) {
		fds := make([]fieldDecoder, len(fields))
		for i, f := range fields {
			fds[i] = fieldDecoder{f: f, raw: raws[i], tr: trs[i], reuse: reuse}
		}
		var elem queue.Element // the batch's components, with reuse
		return func(recs [][]byte, keys []string) (queue.Element, error) {
			e := elem
			if e == nil {
				e = make(queue.Element, len(order))
			}
			if reuse {
				elem = e
			}
			for i, j := range order {
				t, err := fds[j].decode(recs, keys)
				if err != nil {
					return nil, err
				}
				e[i] = t
			}
			return e, nil
		}, nil
	}
	d.newDecoderInto = fixedInto(fields, raws, trs, order, d.newDecoder)
	return d
}

// into decodes a numeric field of recs into dst, a tensor of the batch's
// shape, whose values as [records, values per record] are flat.
func (fd *fieldDecoder) into(recs [][]byte, dst, flat tensor.Tensor) error {
	fd.cut(recs)
	if fd.tr != nil {
		t, err := fd.transposed(nil, dst)
		if err == nil && batchhook.Pointer(t) != batchhook.Pointer(dst) {
			// Not written into dst (its shape was not the batch's).
			return fd.shapeError()
		}
		return err
	}
	if !flat.IsValid() {
		return fd.shapeError()
	}
	return fd.raw.DecodeBatchInto(flat, fd.parts, nil)
}

// cut sets parts to the field's bytes in each of recs.
func (fd *fieldDecoder) cut(recs [][]byte) {
	f := fd.f
	if cap(fd.parts) < len(recs) {
		fd.parts = make([][]byte, 0, len(recs))
	}
	fd.parts = fd.parts[:0]
	for _, r := range recs {
		fd.parts = append(fd.parts, r[f.Offset:f.Offset+f.Size])
	}
}

// A fieldDecoder decodes one field of FixedLengthRecords' batches. With
// reuse, it writes each batch over the tensor it returned before when
// that holds as many records, so that a decoder reused batch after batch
// allocates nothing.
type fieldDecoder struct {
	f     Field
	raw   *decode.Raw // nil for String and Decode fields
	tr    *transposer // with Transpose, unless Decode
	reuse bool
	parts [][]byte // the field's bytes in each record of the batch

	out  tensor.Tensor // the batch returned last, with reuse
	flat tensor.Tensor // out's values as [records, values per record]
	// src is the batch's values before they are transposed, reused
	// whether or not out is: a transposed field's values other than
	// bytes are decoded there first.
	src   tensor.Tensor
	bytes []byte          // a String field's bytes, with reuse
	rows  []tensor.Tensor // a Decode field's records
}

func (fd *fieldDecoder) decode(recs [][]byte, keys []string) (tensor.Tensor, error) {
	f := fd.f
	fd.cut(recs)
	var dst tensor.Tensor
	if fd.reuse && fd.out.IsValid() && fd.out.Len() == len(recs) {
		dst = fd.out
	}
	var t tensor.Tensor
	var err error
	switch {
	case f.Decode != nil:
		t, err = fd.custom(keys, dst)
	case fd.raw == nil:
		t = fd.strings(dst)
	case fd.tr != nil:
		t, err = fd.transposed(keys, dst)
	default:
		t, err = fd.numbers(keys, dst)
	}
	if err != nil {
		return t, err
	}
	if fd.reuse {
		fd.out = t
	}
	return t, nil
}

// numbers decodes a numeric field, into dst if it is valid.
func (fd *fieldDecoder) numbers(keys []string, dst tensor.Tensor) (tensor.Tensor, error) {
	f := fd.f
	if dst.IsValid() {
		if err := fd.raw.DecodeBatchInto(fd.flat, fd.parts, keys); err != nil {
			return dst, fmt.Errorf("field %q: %w", f.Name, err)
		}
		return dst, nil
	}
	flat, err := fd.raw.DecodeBatch(fd.parts, keys)
	if err != nil {
		return flat, fmt.Errorf("field %q: %w", f.Name, err)
	}
	t := flat
	if f.Shape != nil {
		if t, err = flat.Reshape(append(tensor.Shape{len(fd.parts)}, f.Shape...)); err != nil {
			return flat, fd.shapeError()
		}
	}
	fd.flat = flat
	return t, nil
}

func (fd *fieldDecoder) shapeError() error {
	f := fd.f
	return fmt.Errorf("field %q: %d bytes of %v do not make shape %v: %w", f.Name, f.Size, f.DType, f.Shape, ErrInvalid)
}

// transposed decodes a field with Transpose, into dst if it is valid.
func (fd *fieldDecoder) transposed(keys []string, dst tensor.Tensor) (tensor.Tensor, error) {
	tr, n := fd.tr, len(fd.parts)
	if fd.f.DType == tensor.Uint8 && tr.rgb > 0 && interleaveRGB {
		// The bytes are the values: interleaved straight from the
		// records, without first copying them, 10% faster. (A gather
		// byte by byte is the other way round: from the records it
		// took 2.5 times as long as from a copy of them aligned as its
		// output, for reasons of the memory system that were not
		// found.)
		if fd.f.Size != len(tr.idx) {
			return tensor.Tensor{}, fd.shapeError()
		}
		if !dst.IsValid() {
			dst = tensor.Zeros(tensor.Uint8, append(tensor.Shape{n}, tr.shape...))
		}
		tr.interleaveRecords(dst.Uint8s(), fd.parts)
		return dst, nil
	}
	if fd.src.IsValid() && fd.src.Len() == n {
		if err := fd.raw.DecodeBatchInto(fd.src, fd.parts, keys); err != nil {
			return fd.src, fmt.Errorf("field %q: %w", fd.f.Name, err)
		}
	} else {
		src, err := fd.raw.DecodeBatch(fd.parts, keys)
		if err != nil {
			return src, fmt.Errorf("field %q: %w", fd.f.Name, err)
		}
		if src.NumElements() != n*len(tr.idx) {
			return src, fd.shapeError()
		}
		fd.src = src
	}
	return tr.transpose(fd.src, dst), nil
}

// strings returns a String field's bytes, copied (the records are
// reused) into one buffer, and into dst if it is valid.
func (fd *fieldDecoder) strings(dst tensor.Tensor) tensor.Tensor {
	n := len(fd.parts)
	var buf []byte
	if fd.reuse && cap(fd.bytes) >= n*fd.f.Size {
		buf = fd.bytes[:0]
	} else {
		buf = make([]byte, 0, n*fd.f.Size)
	}
	if !dst.IsValid() {
		dst = tensor.New(make([][]byte, n), n)
	}
	vals := dst.Strings()
	for i, p := range fd.parts {
		buf = append(buf, p...)
		vals[i] = buf[len(buf)-len(p) : len(buf) : len(buf)]
	}
	if fd.reuse {
		fd.bytes = buf
	}
	return dst
}

// custom decodes a field with its Decode function, record by record, and
// stacks the results, into dst if it is valid and of their shape.
func (fd *fieldDecoder) custom(keys []string, dst tensor.Tensor) (tensor.Tensor, error) {
	f := fd.f
	rows := fd.rows[:0]
	// The rows are the Decode function's: they are not kept.
	defer func() { clear(rows); fd.rows = rows[:0] }()
	for i, p := range fd.parts {
		t, err := f.Decode(p)
		if err == nil && t.DType() != f.DType {
			err = fmt.Errorf("Decode returned %v, not %v: %w", t.DType(), f.DType, ErrInvalid)
		}
		if err == nil && i > 0 && !slices.Equal(t.Shape(), rows[0].Shape()) {
			err = fmt.Errorf("Decode returned shape %v after %v: %w", t.Shape(), rows[0].Shape(), ErrInvalid)
		}
		if err != nil {
			// An error about record i: the Decode function's own
			// *dataerr.Error (decode.Image's, say), completed, or a new one.
			where := dataerr.Error{Offset: -1, Record: int64(i)}
			if keys != nil {
				where.Key = keys[i]
			}
			if de, ok := errors.AsType[*dataerr.Error](err); ok {
				// Decode saw one record, which it may call record 0.
				de.Record = where.Record
				de.Fill(where)
				return tensor.Tensor{}, fmt.Errorf("field %q: %w", f.Name, err)
			}
			where.Err = fmt.Errorf("field %q: %w", f.Name, err)
			return tensor.Tensor{}, &where
		}
		rows = append(rows, t)
	}
	if dst.IsValid() && slices.Equal(dst.Shape()[1:], rows[0].Shape()) {
		if err := tensor.StackInto(dst, rows); err == nil {
			return dst, nil
		}
	}
	return tensor.Stack(rows)
}

func uniqueNames(fs []feature) error {
	if len(fs) == 0 {
		return fmt.Errorf("no features: %w", ErrInvalid)
	}
	seen := make(map[string]bool, len(fs))
	for i, f := range fs {
		if f.name == "" {
			return fmt.Errorf("feature %d has no name: %w", i, ErrInvalid)
		}
		if seen[f.name] {
			return fmt.Errorf("two features are named %q: %w", f.name, ErrInvalid)
		}
		seen[f.name] = true
	}
	return nil
}

// setLayout lays out the features fs, given in the order the records hold
// them, by name, and returns order: order[i] is the position in fs of the
// layout's feature i.
func (d *Dataset) setLayout(fs []feature) []int {
	d.layout = newLayout(slices.Clone(fs))
	// By a map: a search of fs for each feature took 100 000 CSV columns
	// past a minute (audit 114).
	at := make(map[string]int, len(fs))
	for i, f := range fs {
		at[f.name] = i
	}
	order := make([]int, len(fs))
	for i, f := range d.layout.features {
		order[i] = at[f.name]
	}
	return order
}

// readTFRecords makes d read TFRecord files, compressed or not (detected
// per file), skipping corrupt records if skipCorrupt. Keys are
// "file:offset".
func (d *Dataset) readTFRecords(skipCorrupt bool) {
	if skipCorrupt && d.settings.globalShuffle {
		// An index holds the offsets of a sound file's records; a global
		// shuffle reads each record where its index puts it.
		d.err = fmt.Errorf("sluice: %s: SkipCorrupt with GlobalShuffle: %w (a file's index is built of its records in one pass, which a corrupt record stops)", d.kind, ErrInvalid)
		return
	}
	var ropts []tfrecord.Option
	if skipCorrupt {
		ropts = append(ropts, tfrecord.SkipCorrupt())
	}
	d.readerKind = "TFRecordReader"
	d.newFormat = func() (recordhook.Format, error) { return recordhook.NewTFRecordFormat(ropts), nil }
	d.origin = keyOrigin(func(e *dataerr.Error, off int64) { e.Offset = off })
}
