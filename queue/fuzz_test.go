package queue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// FuzzOperations runs a sequence of operations, decoded from the input,
// on a FIFO or PaddingFIFO queue from one goroutine and checks every
// result against a model: a plain slice of rows. Each call gets an
// already-cancelled context, so a call that would block instead returns
// Q-46's cancellation, and the model predicts exactly what it did: a
// blocked EnqueueMany keeps the rows that fit, a blocked
// dequeue leaves the queue unchanged. Malformed elements (wrong
// type, rank or length) must be rejected with ErrInvalidArgument and
// change nothing. No input may panic.
func FuzzOperations(f *testing.F) {
	f.Add([]byte{3, 0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{0x84, 1, 0x21, 0x42, 3, 0x13, 0x25, 6, 0x36, 7, 0x31})
	f.Add([]byte{1, 0x11, 0x11, 0x12, 2, 0x23, 0x24, 0x16, 4, 7, 0x35})
	f.Add([]byte{0x87, 0x10, 0x21, 0x33, 0x44, 0x55, 0x66, 0x77, 0x08, 0x19})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		capacity := int(data[0]&7) + 1
		pad := data[0]&0x80 != 0
		var q local
		var err error
		if pad {
			q, err = NewPaddingFIFO(capacity, i32, []tensor.Shape{{tensor.Unknown}}, Name("fz"))
		} else {
			q, err = NewFIFO(capacity, i32, Shapes(tensor.Shape{2}), Name("fz"))
		}
		if err != nil {
			t.Fatal(err)
		}
		m := &fuzzModel{capacity: capacity, pad: pad}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for i, b := range data[1:] {
			if err := m.step(ctx, q, b); err != nil {
				t.Fatalf("op %d (%#02x): %v", i, b, err)
			}
			if q.Size() != len(m.rows) || q.IsClosed() != m.closed {
				t.Fatalf("op %d (%#02x): size %d closed %v, model %d %v", i, b, q.Size(), q.IsClosed(), len(m.rows), m.closed)
			}
		}
	})
}

type fuzzModel struct {
	capacity int
	pad      bool
	closed   bool
	next     int32
	rows     [][]int32
}

// row makes the next element's values: two copies of a fresh value (a
// FIFO's shape is [2]) or, padding, n copies.
func (m *fuzzModel) row(n int) []int32 {
	m.next++
	if !m.pad {
		n = 2
	}
	r := make([]int32, n)
	for i := range r {
		r[i] = m.next
	}
	return r
}

// step decodes one operation from b: the low 3 bits pick it, the high
// bits give its count or a malformation.
func (m *fuzzModel) step(ctx context.Context, q Queue, b byte) error {
	arg := int(b >> 4)
	switch b & 7 {
	case 0, 1: // Enqueue
		r := m.row(arg & 3)
		e := Element{tensor.New(r)}
		malformed := arg >= 12
		switch arg {
		case 12:
			e = Element{tensor.New(r, 1, len(r))} // rank 2
		case 13:
			e = Element{tensor.Zeros(tensor.Float32, tensor.Shape{len(r)})}
		case 14:
			e = Element{e[0], e[0]} // two components
		case 15:
			// Length 3: wrong for a FIFO's [2], fine for padding.
			r = []int32{m.next, m.next, m.next}
			e = Element{tensor.New(r)}
			malformed = !m.pad
		}
		err := q.Enqueue(ctx, e)
		if malformed {
			return wantErr(err, ErrInvalidArgument)
		}
		switch {
		case m.closed:
			return wantErr(err, ErrClosed)
		case len(m.rows) == m.capacity:
			return wantErr(err, context.Canceled)
		}
		m.rows = append(m.rows, r)
		return err
	case 2: // EnqueueMany of arg rows, all of one length
		n := arg & 7
		width := arg>>3 + 1
		var flatVals []int32
		var rows [][]int32
		for range n {
			r := m.row(width)
			rows = append(rows, r)
			flatVals = append(flatVals, r...)
		}
		w := 2
		if m.pad {
			w = width
		}
		err := q.EnqueueMany(ctx, Element{tensor.New(flatVals, n, w)})
		switch {
		case n == 0:
			return err // accepted even when closed or full
		case m.closed:
			return wantErr(err, ErrClosed)
		}
		fit := min(n, m.capacity-len(m.rows))
		m.rows = append(m.rows, rows[:fit]...)
		if fit < n {
			return wantErr(err, context.Canceled)
		}
		return err
	case 3: // Dequeue
		e, err := q.Dequeue(ctx)
		if len(m.rows) == 0 {
			if m.closed {
				return wantErr(err, io.EOF)
			}
			return wantErr(err, context.Canceled)
		}
		if err != nil {
			return err
		}
		want := m.rows[0]
		m.rows = m.rows[1:]
		if !slices.Equal(e[0].Int32s(), want) || !e[0].Shape().Equal(tensor.Shape{len(want)}) {
			return fmt.Errorf("Dequeue got %v, want %v", e[0], want)
		}
		return nil
	case 4, 5: // DequeueMany, DequeueUpTo
		upTo := b&7 == 5
		var e Element
		var err error
		if upTo {
			e, err = q.DequeueUpTo(ctx, arg)
		} else {
			e, err = q.DequeueMany(ctx, arg)
		}
		n := arg
		switch {
		case n <= len(m.rows):
		case m.closed && upTo && len(m.rows) > 0:
			n = len(m.rows)
		case m.closed:
			return wantErr(err, io.EOF)
		default:
			return wantErr(err, context.Canceled)
		}
		if err != nil {
			return err
		}
		return m.checkBatch(e[0], n)
	case 6: // Close, cancelling or not
		err := closeQueue(ctx, q, arg&1 == 1)
		if arg&1 == 0 && m.closed {
			return wantErr(err, ErrClosed)
		}
		// A blocked non-cancel close would wait behind enqueues, but with
		// one goroutine none is ever blocked, so it completes at once.
		m.closed = true
		return err
	default: // a dequeue of a negative count
		_, err := q.DequeueMany(ctx, -1-arg)
		return wantErr(err, ErrInvalidArgument)
	}
}

// checkBatch compares a dequeued batch with the model's first n rows,
// padded with zeros to the longest, and removes those rows.
func (m *fuzzModel) checkBatch(got tensor.Tensor, n int) error {
	width := 0
	if !m.pad {
		width = 2
	}
	for _, r := range m.rows[:n] {
		width = max(width, len(r))
	}
	want := make([]int32, 0, n*width)
	for _, r := range m.rows[:n] {
		want = append(want, r...)
		for range width - len(r) {
			want = append(want, 0)
		}
	}
	m.rows = m.rows[n:]
	if !got.Shape().Equal(tensor.Shape{n, width}) || !slices.Equal(got.Int32s(), want) {
		return fmt.Errorf("batch %v, want %v of shape [%d,%d]", got, want, n, width)
	}
	return nil
}

func wantErr(err, target error) error {
	if !errors.Is(err, target) {
		return fmt.Errorf("err = %v, want %v", err, target)
	}
	return nil
}
