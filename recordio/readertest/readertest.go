// Package readertest is the conformance suite every record reader runs,
// built-in or custom: it checks the behaviour the recordio.Reader protocol
// promises for any format (READERS.md §1) — counters, end of input as the
// queue's io.EOF, ReadUpTo never mixing work units, empty units skipped,
// Reset, cancellation while waiting for work, and resuming from a saved
// state at the exact next record.
//
// A format's own test calls Run with a Case that describes some work units
// and the records each holds:
//
//	func TestConformance(t *testing.T) {
//		readertest.Run(t, readertest.Case{
//			New:    func(q queue.Queue) *recordio.Reader { return recordio.NewReader("MyReader", &myFormat{}, q) },
//			Units:  []string{"a.txt", "empty.txt", "b.txt"},
//			Values: [][]string{{"1", "2"}, {}, {"3"}},
//		})
//	}
package readertest

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tensor"
)

// A Case describes a reader under test.
type Case struct {
	// New returns a new reader of the work units in q.
	New func(q queue.Queue) *recordio.Reader
	// Units are the work units (normally file names) to read. Include an
	// empty unit, and one with several records, where the format allows.
	Units []string
	// Values lists, for each unit, the values of its records in order.
	Values [][]string
}

// eofText is TensorFlow's end-of-input message, which the queue's io.EOF
// error carries (READERS.md §1).
const eofText = "is closed and has insufficient elements (requested 1, current size 0)"

func workQueue(t *testing.T, units []string, closed bool) *queue.FIFO {
	t.Helper()
	q, err := queue.NewFIFO(len(units)+1, []tensor.DType{tensor.String}, queue.Shapes(tensor.Shape{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(units) > 0 {
		if err := q.EnqueueMany(context.Background(), queue.Element{tensor.Strings(units...)}); err != nil {
			t.Fatal(err)
		}
	}
	if closed {
		if err := q.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return q
}

// readAll reads to the end of input, which must be the queue's io.EOF.
func readAll(t *testing.T, r *recordio.Reader) []string {
	t.Helper()
	var out []string
	for {
		_, v, err := r.Read(context.Background())
		if errors.Is(err, io.EOF) {
			if !strings.Contains(err.Error(), eofText) {
				t.Fatalf("end of input %q does not say %q", err, eofText)
			}
			return out
		}
		if err != nil {
			t.Fatalf("read %d: %v", len(out), err)
		}
		out = append(out, string(v))
	}
}

// Run runs the conformance suite on c, one subtest per promise.
func Run(t *testing.T, c Case) {
	t.Helper()
	if len(c.Units) != len(c.Values) {
		t.Fatalf("readertest: %d units but %d value lists", len(c.Units), len(c.Values))
	}
	all := slices.Concat(c.Values...)
	bg := context.Background()

	t.Run("ReadAll", func(t *testing.T) {
		r := c.New(workQueue(t, c.Units, true))
		if r.NumRecordsProduced() != 0 || r.NumWorkUnitsCompleted() != 0 {
			t.Fatal("a new reader's counters are not zero")
		}
		if got := readAll(t, r); !slices.Equal(got, all) {
			t.Fatalf("values %q, want %q", got, all)
		}
		if r.NumRecordsProduced() != int64(len(all)) || r.NumWorkUnitsCompleted() != int64(len(c.Units)) {
			t.Fatalf("produced %d, completed %d; want %d and %d", r.NumRecordsProduced(), r.NumWorkUnitsCompleted(), len(all), len(c.Units))
		}
		if _, _, err := r.Read(bg); !errors.Is(err, io.EOF) {
			t.Fatalf("read after the end: %v", err)
		}
		if _, _, err := r.ReadUpTo(bg, 2); !errors.Is(err, io.EOF) {
			t.Fatalf("ReadUpTo after the end: %v", err)
		}
	})

	t.Run("CountersPerRecord", func(t *testing.T) {
		// A unit counts as completed when the reader reaches its end: with
		// its last record, for a format that knows it then, or while
		// reading the next record (or the end of input).
		r := c.New(workQueue(t, c.Units, true))
		read := 0
		for k, vs := range c.Values {
			for j := range vs {
				if _, _, err := r.Read(bg); err != nil {
					t.Fatal(err)
				}
				read++
				if r.NumRecordsProduced() != int64(read) {
					t.Fatalf("produced %d after %d reads", r.NumRecordsProduced(), read)
				}
				hi := int64(k)
				if j == len(vs)-1 {
					hi++
				}
				if got := r.NumWorkUnitsCompleted(); got < int64(k) || got > hi {
					t.Fatalf("completed %d after record %d of unit %d (%d records)", got, j, k, len(vs))
				}
			}
		}
	})

	t.Run("EmptyUnitsSkipped", func(t *testing.T) {
		// Only the empty units, then the last unit: the first record read
		// is the last unit's first, with no visible gap.
		var units []string
		var empty int
		for k, vs := range c.Values {
			if len(vs) == 0 {
				units = append(units, c.Units[k])
				empty++
			}
		}
		last := len(c.Units) - 1
		if empty == 0 || len(c.Values[last]) == 0 {
			t.Skip("the case has no empty unit, or its last unit is empty")
		}
		r := c.New(workQueue(t, append(units, c.Units[last]), true))
		if got := readAll(t, r); !slices.Equal(got, c.Values[last]) {
			t.Fatalf("values %q, want %q", got, c.Values[last])
		}
		if r.NumWorkUnitsCompleted() != int64(empty+1) {
			t.Fatalf("completed %d, want %d", r.NumWorkUnitsCompleted(), empty+1)
		}
	})

	t.Run("ReadUpToNeverMixesUnits", func(t *testing.T) {
		for _, n := range []int{1, 2, 3, 7} {
			var want []int
			for _, vs := range c.Values {
				for m := len(vs); m > 0; m -= n {
					want = append(want, min(m, n))
				}
			}
			r := c.New(workQueue(t, c.Units, true))
			var sizes []int
			var values []string
			for {
				keys, vs, err := r.ReadUpTo(bg, n)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(keys) != len(vs) || len(keys) == 0 {
					t.Fatalf("ReadUpTo(%d) gave %d keys and %d values", n, len(keys), len(vs))
				}
				sizes = append(sizes, len(vs))
				for _, v := range vs {
					values = append(values, string(v))
				}
			}
			if !slices.Equal(sizes, want) || !slices.Equal(values, all) {
				t.Fatalf("ReadUpTo(%d): batch sizes %v, want %v; values %q, want %q", n, sizes, want, values, all)
			}
			if r.NumRecordsProduced() != int64(len(all)) {
				t.Fatalf("produced %d, want %d", r.NumRecordsProduced(), len(all))
			}
		}
	})

	t.Run("Reset", func(t *testing.T) {
		// Reset drops the unit in progress and the counters, and leaves
		// the queue alone: reading goes on with the next unit.
		first := slices.IndexFunc(c.Values, func(vs []string) bool { return len(vs) > 1 })
		if first < 0 {
			t.Skip("no unit with two records")
		}
		q := workQueue(t, c.Units[first:], true)
		r := c.New(q)
		if _, _, err := r.Read(bg); err != nil {
			t.Fatal(err)
		}
		size := q.Size()
		if err := r.Reset(); err != nil {
			t.Fatal(err)
		}
		if r.NumRecordsProduced() != 0 || r.NumWorkUnitsCompleted() != 0 || q.Size() != size {
			t.Fatalf("after Reset: produced %d, completed %d, queue size %d (was %d)", r.NumRecordsProduced(), r.NumWorkUnitsCompleted(), q.Size(), size)
		}
		if got, want := readAll(t, r), slices.Concat(c.Values[first+1:]...); !slices.Equal(got, want) {
			t.Fatalf("after Reset read %q, want %q", got, want)
		}
	})

	t.Run("CancelWhileWaitingForWork", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := c.New(workQueue(t, nil, false))
			ctx, cancel := context.WithCancel(bg)
			done := make(chan error, 2)
			go func() { _, _, err := r.Read(ctx); done <- err }()
			synctest.Wait() // the read is blocked on the empty queue
			select {
			case err := <-done:
				t.Fatalf("Read returned %v on an empty, open queue", err)
			default:
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("Read after cancel: %v", err)
			}
			go func() { _, _, err := r.ReadUpTo(ctx, 3); done <- err }()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("ReadUpTo with a cancelled context: %v", err)
			}
		})
	})

	t.Run("CloseWhileWaitingForWork", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := workQueue(t, nil, false)
			r := c.New(q)
			done := make(chan error, 1)
			go func() { _, _, err := r.Read(bg); done <- err }()
			synctest.Wait()
			if err := q.Close(bg); err != nil {
				t.Fatal(err)
			}
			if err := <-done; !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), eofText) {
				t.Fatalf("Read when the queue closed: %v", err)
			}
		})
	})

	t.Run("ResumeFromState", func(t *testing.T) {
		for cut := 0; cut <= len(all); cut++ {
			r := c.New(workQueue(t, c.Units, true))
			for range cut {
				if _, _, err := r.Read(bg); err != nil {
					t.Fatal(err)
				}
			}
			state, err := r.SerializeState()
			if err != nil {
				t.Fatalf("after %d records: %v", cut, err)
			}
			// The restored reader's queue holds the units the first had not
			// taken: it takes a unit only when it needs a record from it.
			rest := c.Units[unitsTaken(c, cut):]
			r2 := c.New(workQueue(t, rest, true))
			if err := r2.RestoreState(bg, state); err != nil {
				t.Fatalf("after %d records: restore: %v", cut, err)
			}
			if r2.NumRecordsProduced() != int64(cut) || r2.NumWorkUnitsCompleted() != r.NumWorkUnitsCompleted() {
				t.Fatalf("after %d records: restored counters %d, %d; saved %d, %d", cut,
					r2.NumRecordsProduced(), r2.NumWorkUnitsCompleted(), cut, r.NumWorkUnitsCompleted())
			}
			again, err := r2.SerializeState()
			if err != nil || string(again) != string(state) {
				t.Fatalf("after %d records: restored reader saves %x, %v; want %x", cut, again, err, state)
			}
			if got := readAll(t, r2); !slices.Equal(got, all[cut:]) {
				t.Fatalf("after %d records: resumed with %q, want %q", cut, got, all[cut:])
			}
			if r2.NumRecordsProduced() != int64(len(all)) || r2.NumWorkUnitsCompleted() != int64(len(c.Units)) {
				t.Fatalf("after %d records: resumed reader ends with produced %d, completed %d", cut, r2.NumRecordsProduced(), r2.NumWorkUnitsCompleted())
			}
		}
	})

	t.Run("RestoreRejectsGarbage", func(t *testing.T) {
		r := c.New(workQueue(t, c.Units, true))
		for _, bad := range [][]byte{{0xff}, {0x22, 0x05, 'a'}, {0x08, 0x02, 0x10, 0x01}} {
			if err := r.RestoreState(bg, bad); !errors.Is(err, recordio.ErrState) {
				t.Errorf("RestoreState(%x) = %v, want an error wrapping ErrState", bad, err)
			}
		}
		if got := readAll(t, r); !slices.Equal(got, all) {
			t.Fatalf("after failed restores read %q, want %q", got, all)
		}
	})
}

// unitsTaken returns how many units a reader that has read cut records has
// taken from its queue.
func unitsTaken(c Case, cut int) int {
	if cut == 0 {
		return 0
	}
	n := 0
	for k, vs := range c.Values {
		n += len(vs)
		if n >= cut {
			return k + 1
		}
	}
	return len(c.Units)
}
