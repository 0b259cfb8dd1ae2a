package dataerr_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
)

func TestError(t *testing.T) {
	cause := errors.New("bad value")
	for _, tt := range []struct {
		name string
		e    dataerr.Error
		want string
	}{
		{"key", dataerr.Error{File: "a.csv", Line: 3, Key: "a.csv:3", Record: 1, Offset: -1, Err: cause}, "a.csv:3: bad value"},
		{"file and line", dataerr.Error{File: "a.csv", Line: 3, Record: -1, Offset: -1, Err: cause}, "a.csv:3: bad value"},
		{"file", dataerr.Error{File: "a.tfrecord", Offset: 19, Record: -1, Err: cause}, "a.tfrecord: bad value"},
		{"nothing known", dataerr.Error{Offset: -1, Record: -1, Err: cause}, "bad value"},
		{"no cause", dataerr.Error{File: "f", Offset: -1, Record: -1}, "f: bad data"},
		// TensorFlow's messages name the record already.
		{"key in the message", dataerr.Error{Key: "f:7", Record: 0, Offset: -1, Err: errors.New("Name: f:7, Index: 0.  Can't parse")}, "Name: f:7, Index: 0.  Can't parse"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFill(t *testing.T) {
	e := &dataerr.Error{Offset: -1, Record: 2, Key: "k", Err: io.ErrUnexpectedEOF}
	e.Fill(dataerr.Error{File: "f", Offset: 100, Line: 4, Record: 9, Key: "other"})
	want := dataerr.Error{File: "f", Offset: 100, Line: 4, Record: 2, Key: "k", Err: io.ErrUnexpectedEOF}
	if *e != want {
		t.Errorf("after Fill: %+v, want %+v", *e, want)
	}
	// What is known stays.
	e.Fill(dataerr.Error{File: "g", Offset: 5, Line: 1, Record: 0})
	if *e != want {
		t.Errorf("after a second Fill: %+v, want %+v", *e, want)
	}
	if !errors.Is(e, io.ErrUnexpectedEOF) {
		t.Errorf("%v does not unwrap to its cause", e)
	}
}

func Example() {
	// A lower layer knows the record's key and index in its batch...
	var err error = &dataerr.Error{Offset: -1, Record: 3, Key: "train.tfrecord:1234", Err: errors.New("malformed")}
	err = fmt.Errorf("field %q: %w", "image", err)

	// ...and the layer that knows where the record came from completes it.
	if e, ok := errors.AsType[*dataerr.Error](err); ok {
		e.Fill(dataerr.Error{File: "train.tfrecord", Offset: 1234})
	}

	var e *dataerr.Error
	if errors.As(err, &e) {
		fmt.Printf("%s, byte %d, record %d of the batch, key %s\n", e.File, e.Offset, e.Record, e.Key)
	}
	fmt.Println(err)
	// Output:
	// train.tfrecord, byte 1234, record 3 of the batch, key train.tfrecord:1234
	// field "image": train.tfrecord:1234: malformed
}
