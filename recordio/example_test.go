package recordio_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tensor"
	"google.golang.org/protobuf/encoding/protowire"
)

// wordFormat is a complete custom format: each work unit is a sentence and
// each record one of its words. It implements the four hooks and, to be
// resumable mid-unit, Positioner.
type wordFormat struct {
	work  string
	words []string
	next  int
}

func (f *wordFormat) OnWorkStarted(ctx context.Context, work string) error {
	f.work, f.words, f.next = work, strings.Fields(work), 0
	return nil
}

func (f *wordFormat) Read(ctx context.Context) (key string, value []byte, produced, atEnd bool, err error) {
	if f.next == len(f.words) {
		return "", nil, false, true, nil
	}
	f.next++
	return f.work + ":" + strconv.Itoa(f.next-1), []byte(f.words[f.next-1]), true, false, nil
}

func (f *wordFormat) OnWorkFinished() error { return nil }
func (f *wordFormat) Reset() error          { *f = wordFormat{}; return nil }

func (f *wordFormat) Position() ([]byte, error) {
	return protowire.AppendVarint(nil, uint64(f.next)), nil
}

func (f *wordFormat) Seek(ctx context.Context, work string, pos []byte) error {
	n, m := protowire.ConsumeVarint(pos)
	if m < 0 {
		return recordio.ErrState
	}
	f.OnWorkStarted(ctx, work)
	f.next = int(n)
	return nil
}

func init() {
	recordio.Register("WordReader", func() recordio.Format { return &wordFormat{} })
}

// A custom format registered by name, reading work units from a queue.
func Example_customFormat() {
	ctx := context.Background()
	q, _ := queue.NewFIFO(10, []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}))
	q.EnqueueMany(ctx, queue.Element{tensor.Strings("to be", "or not")})
	q.Close(ctx)

	r, _ := recordio.Open("WordReader", q)
	for {
		key, value, err := r.Read(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		fmt.Printf("%s %s\n", key, value)
	}
	fmt.Println(r.NumRecordsProduced(), "records from", r.NumWorkUnitsCompleted(), "units")
	// Output:
	// to be:0 to
	// to be:1 be
	// or not:0 or
	// or not:1 not
	// 4 records from 2 units
}
