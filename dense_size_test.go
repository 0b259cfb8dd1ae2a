package sluice

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// A VarLen feature list of one step of N values and N-1 empty steps, a
// record of about 3N bytes, pads to [1, N, N]: with N = 2^18, 512 GiB of
// int64s from 800 KB. Its batch is an error naming the feature and the
// record, wrapping queue.ErrResourceExhausted, as a PaddingFIFO's dequeue
// of such a batch is, where Batch.Dense asked the Go runtime for the
// memory, which ends the process when the system refuses (audit 42). A
// VarLen feature pads only to [records, longest], and its batches of
// ordinary records are read as before.
func TestDenseSizeRefused(t *testing.T) {
	const n = 1 << 18
	steps := []example.Feature{example.Int64List(make([]int64, n)...)}
	for range n - 1 {
		steps = append(steps, example.Int64List())
	}
	var b bytes.Buffer
	w := tfrecord.NewWriter(&b, tfrecord.None)
	w.Write(example.NewSequence().List("v", example.Int64List(1, 2)).Marshal())
	w.Write(example.NewSequence().List("v", steps...).Marshal())
	w.Close()
	name := filepath.Join(t.TempDir(), "padding.tfrecord")
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ds := SequenceExamples(name, nil, example.Spec{"v": example.VarLen(tensor.Int64)})
	var batches int
	for batch, err := range ds.Batches(t.Context(), 1) {
		if err == nil {
			if batches++; batches > 1 {
				t.Fatalf("the record padding to [1 %d %d] was read: %v", n, n, batch.Sparse("v").DenseShape)
			}
			continue
		}
		de, ok := errors.AsType[*dataerr.Error](err)
		if !errors.Is(err, queue.ErrResourceExhausted) || !ok || de.File != name || de.Offset <= 0 ||
			!strings.Contains(err.Error(), `feature "v"`) {
			t.Fatalf("the record padding to [1 %d %d]: %v; want ErrResourceExhausted naming the feature, file and offset", n, n, err)
		}
		break
	}
	if batches != 1 {
		t.Errorf("%d batches before the error, want 1", batches)
	}
}
