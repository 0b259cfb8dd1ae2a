package natsqueue_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/sluiceml/sluice/queue/natsqueue"
	"github.com/sluiceml/sluice/recordio"
)

// recordio's readers acknowledge each unit they finish to a queue that
// asks for it; a Queue does.
var _ recordio.WorkAcker = (*natsqueue.Queue)(nil)

// Two epochs, each its own queue (WithEpoch), fed as string_input_producer
// feeds its queue: the epoch's file list, shuffled, then Close. Three
// workers on their own connections read the files with TextLine readers
// until end of input, acknowledging each
// file they finish; together they read every line of every epoch once.
func TestReadersShareEpochs(t *testing.T) {
	url, _ := setup(t)
	dir := t.TempDir()
	var files, want []string
	for f := range 6 {
		name := filepath.Join(dir, fmt.Sprintf("part-%d.txt", f))
		var text []byte
		for l := range 5 {
			line := fmt.Sprintf("file %d line %d", f, l)
			text = fmt.Appendf(text, "%s\n", line)
			want = append(want, line)
		}
		if err := os.WriteFile(name, text, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	slices.Sort(want)
	for epoch := range 2 {
		producer := open(t, connect(t, url), "train_files", natsqueue.Epoch(epoch), natsqueue.Capacity(4))
		var mu sync.Mutex
		var got []string
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		wg.Go(func() {
			order := slices.Clone(files)
			rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			if err := producer.EnqueueStrings(bg, order...); err != nil {
				errs <- err
				return
			}
			errs <- producer.Close(bg)
		})
		for range 3 {
			q := open(t, connect(t, url), "train_files", natsqueue.Epoch(epoch), natsqueue.Capacity(4))
			r, err := recordio.NewTextLineReader(q)
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				for {
					_, v, err := r.Read(bg)
					if isEOF(err) {
						return
					}
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					got = append(got, string(v))
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(sorted(got), want) {
			t.Fatalf("epoch %d: read %d lines, want each of %d once", epoch, len(got), len(want))
		}
	}
}
