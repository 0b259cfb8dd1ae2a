package decode

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sluiceml/sluice/tensor"
)

// A Column declares one output column of a CSV decoder: its type and the
// value an empty field takes (TensorFlow's record_defaults). A column made
// with Required has no default: an empty field there is an error.
type Column struct {
	dtype    tensor.DType
	required bool
	i        int64
	f        float64
	b        []byte // the string default
}

// Int32Column is an int32 column whose empty fields are def.
func Int32Column(def int32) Column { return Column{dtype: tensor.Int32, i: int64(def)} }

// Int64Column is an int64 column whose empty fields are def.
func Int64Column(def int64) Column { return Column{dtype: tensor.Int64, i: def} }

// Float32Column is a float32 column whose empty fields are def.
func Float32Column(def float32) Column { return Column{dtype: tensor.Float32, f: float64(def)} }

// Float64Column is a float64 column whose empty fields are def.
func Float64Column(def float64) Column { return Column{dtype: tensor.Float64, f: def} }

// StringColumn is a string column whose empty fields are def.
func StringColumn(def string) Column { return Column{dtype: tensor.String, b: []byte(def)} }

// Required is a column of the given type that must not be empty: Int32,
// Int64, Float32, Float64 or String. RequiredInt32 and the like say the
// same at call sites where the type is fixed.
func Required(dtype tensor.DType) Column { return Column{dtype: dtype, required: true} }

// RequiredInt32 is an int32 column that must not be empty.
func RequiredInt32() Column { return Required(tensor.Int32) }

// RequiredInt64 is an int64 column that must not be empty.
func RequiredInt64() Column { return Required(tensor.Int64) }

// RequiredFloat32 is a float32 column that must not be empty.
func RequiredFloat32() Column { return Required(tensor.Float32) }

// RequiredFloat64 is a float64 column that must not be empty.
func RequiredFloat64() Column { return Required(tensor.Float64) }

// RequiredString is a string column that must not be empty.
func RequiredString() Column { return Required(tensor.String) }

// DType returns the column's type.
func (c Column) DType() tensor.DType { return c.dtype }

// ErrCSV is wrapped by every error about a malformed CSV record.
var ErrCSV = errors.New("invalid CSV record")

// A CSVError is what is wrong with a record that could not be decoded.
// The decoder returns it as the Err of a [*dataerr.Error] that names the
// record: its Record index in the batch and its Key, if the caller gave
// keys.
type CSVError struct {
	Field int    // index of the offending field among the columns, or -1
	Msg   string // TensorFlow's message, which names the field and its text
}

// Error returns TensorFlow's message (spec DECODERS "decode_csv").
func (e *CSVError) Error() string { return e.Msg }

// Unwrap returns ErrCSV.
func (e *CSVError) Unwrap() error { return ErrCSV }

// CSV decodes comma-separated records into columns, TensorFlow's
// decode_csv. A CSV is safe for use by one goroutine at a time; its
// scratch space is reused from record to record.
type CSV struct {
	columns    []Column
	delim      byte
	quote      bool
	naValue    string
	selectCols []int

	fields  [][]byte
	over    int // fields of the record past len(columns), counted, not kept
	scratch []byte
	outs    []columnValues // the destination's values, typed once per batch

	reuseStrings bool
	arena        []byte // the strings of the batch before, with reuseStrings
}

// columnValues are one destination column's values, in the slice of its
// type: asserting the type once per batch rather than once per field
// saves a tenth of decoding a numeric record.
type columnValues struct {
	i32 []int32
	i64 []int64
	f32 []float32
	f64 []float64
	str [][]byte
}

// A CSVOption configures a CSV decoder.
type CSVOption func(*csvConfig)

type csvConfig struct {
	delim      string
	quote      bool
	naValue    string
	selectCols []int
}

// FieldDelim sets the field delimiter, one byte (default ",").
func FieldDelim(d string) CSVOption { return func(c *csvConfig) { c.delim = d } }

// UseQuoteDelim sets whether double quotes enclose fields, as RFC 4180
// describes (default true). Without it quotes are ordinary characters.
func UseQuoteDelim(on bool) CSVOption { return func(c *csvConfig) { c.quote = on } }

// NAValue sets a field text that, like an empty field, takes the column's
// default.
func NAValue(s string) CSVOption { return func(c *csvConfig) { c.naValue = s } }

// SelectCols decodes only the columns at these indices, which must be
// strictly increasing; the decoder's columns then describe just them.
func SelectCols(cols ...int) CSVOption {
	return func(c *csvConfig) { c.selectCols = slices.Clone(cols) }
}

// NewCSV returns a decoder of records with the given columns.
func NewCSV(columns []Column, opts ...CSVOption) (*CSV, error) {
	cfg := csvConfig{delim: ",", quote: true}
	for _, o := range opts {
		o(&cfg)
	}
	if len(cfg.delim) != 1 {
		return nil, fmt.Errorf("decode: field_delim should be only 1 char")
	}
	if len(columns) == 0 {
		return nil, fmt.Errorf("decode: decode_csv needs at least one column")
	}
	for i, c := range columns {
		switch c.dtype {
		case tensor.Int32, tensor.Int64, tensor.Float32, tensor.Float64, tensor.String:
		default:
			return nil, fmt.Errorf("decode: column %d has unsupported type %v", i, c.dtype)
		}
	}
	if cfg.selectCols != nil {
		if len(cfg.selectCols) != len(columns) {
			return nil, fmt.Errorf("decode: Length of select_cols and record_defaults do not match.")
		}
		for i, c := range cfg.selectCols {
			if c < 0 {
				return nil, fmt.Errorf("decode: select_cols contains negative values.")
			}
			if i > 0 && c <= cfg.selectCols[i-1] {
				return nil, fmt.Errorf("decode: select_cols is not strictly increasing.")
			}
		}
	}
	return &CSV{columns: slices.Clone(columns), delim: cfg.delim[0], quote: cfg.quote, naValue: cfg.naValue, selectCols: cfg.selectCols,
		fields: make([][]byte, 0, len(columns)+1), outs: make([]columnValues, 0, len(columns))}, nil
}

// Decode decodes one record into one scalar tensor per column.
func (d *CSV) Decode(record []byte) ([]tensor.Tensor, error) {
	cols, err := d.DecodeBatch([][]byte{record}, nil)
	if err != nil {
		return nil, err
	}
	for i, c := range cols {
		cols[i], _ = c.Reshape(tensor.Shape{})
	}
	return cols, nil
}

// DecodeBatch decodes records into one column tensor of shape
// [len(records)] per column. keys, if not nil, name the records in errors
// (such as "data.csv:12"). Numbers are parsed straight from the record
// bytes and the strings of a batch share one allocation, so a batch costs
// a few allocations whatever its size.
func (d *CSV) DecodeBatch(records [][]byte, keys []string) ([]tensor.Tensor, error) {
	out := d.NewBatch(len(records))
	if err := d.DecodeBatchInto(out, records, keys); err != nil {
		return nil, err
	}
	return out, nil
}

// NewBatch returns zeroed column tensors for n records, to be filled by
// DecodeBatchInto.
func (d *CSV) NewBatch(n int) []tensor.Tensor {
	out := make([]tensor.Tensor, len(d.columns))
	for i, c := range d.columns {
		out[i] = tensor.Zeros(c.dtype, tensor.Shape{n})
	}
	return out
}

// ReuseStrings makes DecodeBatchInto write the bytes of string columns
// over those of the call before, in memory the decoder keeps, instead of
// allocating it for every batch. The caller must be done with a batch's
// strings before the next call. It returns d.
func (d *CSV) ReuseStrings() *CSV {
	d.reuseStrings = true
	return d
}

// DecodeBatchInto decodes records into dst, column tensors of the
// decoder's types and shape [len(records)] such as NewBatch makes, so that
// a loop decoding batch after batch into the same tensors allocates
// nothing for numeric columns. String columns take one allocation per
// batch for their bytes, which do not alias records, unless ReuseStrings.
// On error dst holds a partial result.
func (d *CSV) DecodeBatchInto(dst []tensor.Tensor, records [][]byte, keys []string) error {
	n := len(records)
	if len(dst) != len(d.columns) {
		return fmt.Errorf("decode: DecodeBatchInto: %d tensors for %d columns", len(dst), len(d.columns))
	}
	if keys != nil && len(keys) != n {
		return fmt.Errorf("decode: %d keys for %d records", len(keys), n)
	}
	var arena []byte
	for i, c := range d.columns {
		if dst[i].DType() != c.dtype || !dst[i].Shape().Equal(tensor.Shape{n}) {
			return fmt.Errorf("decode: DecodeBatchInto: column %d is %v %v, want %v [%d]", i, dst[i].DType(), dst[i].Shape(), c.dtype, n)
		}
		if c.dtype == tensor.String && arena == nil {
			size := 0
			for _, r := range records {
				size += len(r)
			}
			if d.reuseStrings && cap(d.arena) >= size {
				arena = d.arena[:0]
			} else {
				arena = make([]byte, 0, size)
			}
		}
	}
	if d.reuseStrings {
		// Kept however the batch ends: longer defaults may have grown it.
		defer func() { d.arena = arena }()
	}
	d.outs = d.outs[:0]
	for i, c := range d.columns {
		var v columnValues
		switch c.dtype {
		case tensor.Int32:
			v.i32 = dst[i].Int32s()
		case tensor.Int64:
			v.i64 = dst[i].Int64s()
		case tensor.Float32:
			v.f32 = dst[i].Float32s()
		case tensor.Float64:
			v.f64 = dst[i].Float64s()
		case tensor.String:
			v.str = dst[i].Strings()
		}
		d.outs = append(d.outs, v)
	}
	for r, rec := range records {
		if err := d.decodeRecord(d.outs, r, rec, &arena); err != nil {
			return recordError(err, r, keys)
		}
	}
	return nil
}

// decodeRecord decodes record r into element r of the columns.
func (d *CSV) decodeRecord(dst []columnValues, r int, rec []byte, arena *[]byte) *CSVError {
	if msg := d.split(rec); msg != "" {
		return &CSVError{Field: -1, Msg: msg}
	}
	if n := len(d.fields) + d.over; n != len(d.columns) {
		return &CSVError{Field: -1, Msg: fmt.Sprintf("Expect %d fields but have %d in record %d", len(d.columns), n, r)}
	}
	for f, field := range d.fields {
		col := &d.columns[f]
		missing := len(field) == 0 || (d.naValue != "" && string(field) == d.naValue)
		if missing && col.required {
			return &CSVError{Field: f, Msg: fmt.Sprintf("Field %d is required but missing in record %d!", f, r)}
		}
		switch col.dtype {
		case tensor.Int32:
			v := col.i
			if !missing {
				var ok bool
				if v, ok = parseInt(field, 32); !ok {
					return d.invalid(r, f, field)
				}
			}
			dst[f].i32[r] = int32(v)
		case tensor.Int64:
			v := col.i
			if !missing {
				var ok bool
				if v, ok = parseInt(field, 64); !ok {
					return d.invalid(r, f, field)
				}
			}
			dst[f].i64[r] = v
		case tensor.Float32:
			v := col.f
			if !missing {
				var ok bool
				if v, ok = parseFloat(field, 32); !ok {
					return d.invalid(r, f, field)
				}
			}
			dst[f].f32[r] = float32(v)
		case tensor.Float64:
			v := col.f
			if !missing {
				var ok bool
				if v, ok = parseFloat(field, 64); !ok {
					return d.invalid(r, f, field)
				}
			}
			dst[f].f64[r] = v
		case tensor.String:
			if missing {
				field = col.b
			}
			start := len(*arena)
			*arena = append(*arena, field...)
			dst[f].str[r] = (*arena)[start:len(*arena):len(*arena)]
		}
	}
	return nil
}

// ValidField reports whether field, a field that is not missing, holds a
// value of type dtype as a CSV decoder reads one: TensorFlow's decode_csv
// rules, spaces around a number, C's spellings of infinity and NaN and a
// float too large for float32 (infinite) included, Go's digit separators
// not. A program that infers a column's type from its fields asks here, so
// that what it infers is what decoding accepts. Every field is a valid
// string; an unsupported dtype has no valid field.
func ValidField(dtype tensor.DType, field []byte) bool {
	var ok bool
	switch dtype {
	case tensor.Int32:
		_, ok = parseInt(field, 32)
	case tensor.Int64:
		_, ok = parseInt(field, 64)
	case tensor.Float32:
		_, ok = parseFloat(field, 32)
	case tensor.Float64:
		_, ok = parseFloat(field, 64)
	case tensor.String:
		ok = true
	}
	return ok
}

// invalid is TensorFlow's error for a field that is not a number of its
// column's type.
func (d *CSV) invalid(r, f int, field []byte) *CSVError {
	return &CSVError{Field: f, Msg: fmt.Sprintf("Field %d in record %d is not a valid %s: %s", f, r, d.columns[f].dtype.TFName(), field)}
}

// split cuts rec into d.fields exactly as TensorFlow's decode_csv does,
// keeping only the selected columns, and returns TensorFlow's message for
// a malformed record, or "". Fields point into rec, or into d.scratch for
// quoted fields with doubled quotes.
//
// Fields past the columns are counted in d.over rather than kept: a line
// of millions of empty fields would otherwise cost a slice header each
// before its count is found wrong (audit 62).
func (d *CSV) split(rec []byte) string {
	d.fields, d.over = d.fields[:0], 0
	keep := func(field []byte) {
		if len(d.fields) > len(d.columns) {
			d.over++
			return
		}
		d.fields = append(d.fields, field)
	}
	// A field already cut keeps the scratch array it points into, should
	// a later field's append move the scratch.
	d.scratch = d.scratch[:0]
	if len(rec) == 0 {
		return ""
	}
	parsed, sel := 0, 0
	include := func() bool { return d.selectCols == nil || (sel < len(d.selectCols) && d.selectCols[sel] == parsed) }
	i := 0
	for i < len(rec) {
		if rec[i] == '\n' || rec[i] == '\r' {
			i++
			continue
		}
		inc := include()
		var field []byte
		if d.quote && rec[i] == '"' {
			i++
			start, copied := i, false
			for i < len(rec)-1 && (rec[i] != '"' || rec[i+1] != d.delim) {
				if rec[i] != '"' {
					if copied {
						d.scratch = append(d.scratch, rec[i])
					}
					i++
					continue
				}
				if rec[i+1] != '"' {
					return "Quote inside a string has to be escaped by another quote"
				}
				if !copied {
					d.scratch = append(d.scratch, rec[start:i]...)
					start, copied = len(d.scratch)-(i-start), true
				}
				d.scratch = append(d.scratch, '"')
				i += 2
			}
			if i >= len(rec) || rec[i] != '"' || (i != len(rec)-1 && rec[i+1] != d.delim) {
				return "Quoted field has to end with quote followed by delim or end"
			}
			if copied {
				field = d.scratch[start:len(d.scratch):len(d.scratch)]
			} else {
				field = rec[start:i]
			}
			i += 2
		} else {
			start := i
			for i < len(rec) && rec[i] != d.delim {
				if (d.quote && rec[i] == '"') || rec[i] == '\n' || rec[i] == '\r' {
					return "Unquoted fields cannot have quotes/CRLFs inside"
				}
				i++
			}
			field = rec[start:i]
			i++
		}
		parsed++
		if inc {
			keep(field)
			sel++
			if d.selectCols != nil && sel == len(d.selectCols) {
				return ""
			}
		}
	}
	if include() && rec[len(rec)-1] == d.delim {
		keep(nil)
	}
	return ""
}
