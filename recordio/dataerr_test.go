package recordio

import (
	"context"
	"errors"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
)

// badFormat's units hold one bad record, whose error knows only its offset.
type badFormat struct{}

func (badFormat) OnWorkStarted(context.Context, string) error { return nil }
func (badFormat) Read(context.Context) (string, []byte, bool, bool, error) {
	return "", nil, false, false, &dataerr.Error{Offset: 42, Record: -1, Err: errors.New("bad")}
}
func (badFormat) OnWorkFinished() error { return nil }
func (badFormat) Reset() error          { return nil }

// A format's data error that does not name its unit gets the unit's file
// from the Reader, on the same *dataerr.Error.
func TestReaderFillsFile(t *testing.T) {
	r := NewReader("BadReader", badFormat{}, workQueue(t, "unit-7"))
	_, _, err := r.Read(bg)
	e, ok := errors.AsType[*dataerr.Error](err)
	if !ok || e.File != "unit-7" || e.Offset != 42 || err.Error() != "unit-7: bad" {
		t.Fatalf("error %v (%#v), want one at unit-7, offset 42", err, e)
	}
}
