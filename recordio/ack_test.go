package recordio

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tfrecord"
)

// ackingQueue is a work queue that records, with each acknowledgement,
// how many records the reader had returned by then.
type ackingQueue struct {
	*queue.FIFO
	acks     []string
	produced []int
	r        *Reader
	err      error // returned by every WorkDone when set
}

func (q *ackingQueue) WorkDone(ctx context.Context, unit string) error {
	q.acks = append(q.acks, unit)
	q.produced = append(q.produced, int(q.r.produced))
	return q.err
}

// A Reader acknowledges each unit once, after the unit's last record and
// before the next unit, with Read and with ReadUpTo; an abandoned unit is
// not acknowledged.
func TestWorkAcker(t *testing.T) {
	names := writeTFRecords(t, t.TempDir(), tfrecord.None, 3, 4)
	for _, tc := range []struct {
		name string
		read func(r *Reader) (int, error)
	}{
		{"Read", func(r *Reader) (int, error) {
			_, _, err := r.Read(bg)
			return 1, err
		}},
		{"ReadUpTo", func(r *Reader) (int, error) {
			k, _, err := r.ReadUpTo(bg, 3)
			return len(k), err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &ackingQueue{FIFO: closedQueue(t, names)}
			q.r = NewTFRecordReader(q, tfrecord.None)
			total := 0
			for {
				n, err := tc.read(q.r)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				total += n
			}
			if total != 12 {
				t.Fatalf("read %d records, want 12", total)
			}
			if !slices.Equal(q.acks, names) {
				t.Errorf("acknowledged %q, want %q", q.acks, names)
			}
			if !slices.Equal(q.produced, []int{4, 8, 12}) {
				t.Errorf("records returned at each acknowledgement %v, want [4 8 12]", q.produced)
			}
		})
	}

	t.Run("abandoned", func(t *testing.T) {
		q := &ackingQueue{FIFO: closedQueue(t, names)}
		q.r = NewTFRecordReader(q, tfrecord.None)
		for range 3 { // part of the first unit only
			if _, _, err := q.r.Read(bg); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.r.Reset(); err != nil {
			t.Fatal(err)
		}
		if len(q.acks) != 0 {
			t.Errorf("acknowledged %q for an abandoned unit", q.acks)
		}
	})

	t.Run("error", func(t *testing.T) {
		q := &ackingQueue{FIFO: closedQueue(t, names[:1]), err: errors.New("nats: timeout")}
		q.r = NewTFRecordReader(q, tfrecord.None)
		var err error
		for err == nil {
			_, _, err = q.r.Read(bg)
		}
		if errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "acknowledging") || !strings.Contains(err.Error(), names[0]) {
			t.Fatalf("error %v, want the acknowledgement's, naming the unit", err)
		}
		if _, _, err := q.r.Read(bg); !errors.Is(err, io.EOF) {
			t.Fatalf("after a failed acknowledgement: %v, want end of input", err)
		}
	})
}
