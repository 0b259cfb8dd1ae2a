package example

import (
	"errors"
	"fmt"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/tensor"
)

// Sentinel errors, wrapped by every parse error so callers can test the
// condition with errors.Is. All of them are TensorFlow's InvalidArgument.
var (
	// ErrMalformed reports bytes that are not a valid serialized Example
	// or SequenceExample (TensorFlow: "Can't parse serialized Example").
	ErrMalformed = errors.New("can't parse serialized Example")
	// ErrMissing reports a required feature that is absent.
	ErrMissing = errors.New("required feature is missing")
	// ErrDTypeMismatch reports a feature whose list kind differs from the
	// spec's dtype (TensorFlow: "Data types don't match").
	ErrDTypeMismatch = errors.New("data types don't match")
	// ErrValueCount reports a feature with the wrong number of values for
	// its spec's shape.
	ErrValueCount = errors.New("wrong number of values")
	// ErrInvalidSpec reports a Spec that cannot be used: an unsupported
	// dtype, a bad shape or default, an inconsistent SparseFeature, a key
	// read as both dense and sparse, or as sparse with two dtypes.
	ErrInvalidSpec = errors.New("invalid feature spec")
)

// A ParseError is what is wrong with a record that could not be parsed.
// Parsers return it as the Err of a [*dataerr.Error] that says which
// record: its Key (the name the caller gave) and its Record index in the
// batch (0 for a single record). errors.As reaches either.
type ParseError struct {
	Feature string // the feature (or feature list) concerned, if any
	// At is the byte offset, in the serialized record, of malformed data,
	// or -1.
	At  int
	Err error // one of the sentinel errors
	msg string
}

// Error returns TensorFlow's message text, which begins with the record's
// name ("Name: <key>, ..."; spec EXAMPLE items).
func (e *ParseError) Error() string { return e.msg }

// Unwrap returns the sentinel error.
func (e *ParseError) Unwrap() error { return e.Err }

// unknownName is the name TensorFlow's messages give a record without one.
const unknownName = "<unknown>"

func recordName(keys []string, i int) string {
	if i < len(keys) && keys[i] != "" {
		return keys[i]
	}
	return unknownName
}

// at returns the *dataerr.Error of pe, about the record of the given name
// at index i of its batch.
func at(pe *ParseError, name string, i int) *dataerr.Error {
	e := &dataerr.Error{Offset: -1, Record: int64(i), Err: pe}
	if name != unknownName {
		e.Key = name
	}
	return e
}

// featureError formats TensorFlow's per-feature message prefix:
// "Name: n, Key: k, Index: i.  " followed by the detail.
func featureError(sentinel error, name, feature string, index int, format string, args ...any) *dataerr.Error {
	return at(&ParseError{
		Feature: feature, At: -1, Err: sentinel,
		msg: fmt.Sprintf("Name: %s, Key: %s, Index: %d.  ", name, feature, index) + fmt.Sprintf(format, args...),
	}, name, index)
}

// missingError is TensorFlow's message for an absent required feature.
func missingError(name, feature string, index int, dtypeName string) *dataerr.Error {
	return at(&ParseError{
		Feature: feature, At: -1, Err: ErrMissing,
		msg: fmt.Sprintf("Name: %s, Feature: %s (data type: %s) is required but could not be found.", name, feature, dtypeName),
	}, name, index)
}

// wireError is a malformed record: where it is, and what was wrong.
type wireError struct {
	offset  int
	feature string // the feature being read, if known
	what    string
}

func (w *wireError) toParseError(name string, index int, kind string) *dataerr.Error {
	e := &ParseError{Feature: w.feature, At: w.offset, Err: ErrMalformed}
	if w.feature != "" {
		e.msg = fmt.Sprintf("Name: %s, Key: %s, Index: %d.  Can't parse serialized %s: %s", name, w.feature, index, kind, w.what)
	} else {
		e.msg = fmt.Sprintf("Name: %s, Index: %d.  Can't parse serialized %s: %s", name, index, kind, w.what)
	}
	if w.offset >= 0 {
		e.msg += fmt.Sprintf(" at byte %d", w.offset)
	}
	return at(e, name, index)
}

// paddingError is err, a padded batch of shape too large for memory
// (tensor.CheckMemory), as the error of the record of the n with the
// most steps, which the batch was padded to.
func (c *compiled) paddingError(err error, shape tensor.Shape, n int, keys []string, steps func(i int) int) *dataerr.Error {
	most := 0
	for i := range n {
		if steps(i) > steps(most) {
			most = i
		}
	}
	return featureError(err, recordName(keys, most), c.name, most,
		"padding the batch's %d steps of feature %q, record %d's, to %v: %v", steps(most), c.name, most, shape, err)
}
