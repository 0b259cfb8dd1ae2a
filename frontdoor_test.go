package sluice

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

// Next after Close fails with ErrClosed in every engine: not the batches
// the engine still held, and not io.EOF, which would pass a cut-short
// iteration for a finished one.
func TestNextAfterClose(t *testing.T) {
	pat := writeNamed(t, t.TempDir(), []int{300, 200}, nil, false)
	for _, tc := range []struct {
		name string
		opts []ExampleOption
		next int // batches read before Close
	}{
		{"default", []ExampleOption{Readers(2)}, 1},
		{"default shuffle", []ExampleOption{Readers(2), Shuffle(50)}, 1},
		{"default unread", []ExampleOption{Readers(2)}, 0},
		{"deterministic", []ExampleOption{Deterministic()}, 1},
		{"global", []ExampleOption{GlobalShuffle()}, 1},
		{"default at end", []ExampleOption{Readers(2)}, 51},
		{"deterministic at end", []ExampleOption{Deterministic()}, 51},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it, err := Records(pat, tc.opts...).Iterator(t.Context(), 10)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.next {
				if _, err := it.Next(); err != nil && (err != io.EOF || i < 50) {
					t.Fatal(err)
				}
			}
			it.Close()
			for range 2 {
				b, err := it.Next()
				if b != nil || !errors.Is(err, ErrClosed) || err == io.EOF {
					t.Fatalf("Next after Close: %v, %v (want an error wrapping ErrClosed)", b, err)
				}
			}
			if got := fmt.Sprint(it.Close()); got != "<nil>" {
				t.Errorf("second Close: %s", got)
			}
		})
	}
}
