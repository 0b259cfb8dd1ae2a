//go:build unix

package pyserve

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"runtime"
	"testing"
)

// TestServeSteadyAllocs checks that a steady stream of batches costs the
// server's collector (nearly) nothing: requests of four batches, as the
// Python client sends them, of batches copied into the ring and of
// batches the readers decode into lent slots, allocate less than one
// object a batch in the whole process, the reading goroutines, the
// parser and a forever pass's file opens included. Before the
// descriptors, the copy's scratch and the parser's Parsed were reused, a
// batch of these two features took 10 to 14, and ten features (bench/
// small10) drove the server's collector 40 times a second.
func TestServeSteadyAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	// One file, not compressed: a gzip reader made at each pass would
	// count.
	pat := writeExamples(t, t.TempDir(), 1, 6000)
	for _, tt := range []struct {
		name     string
		minBytes int // minLentBytes: the features take 12 bytes a record
	}{{"copied", 64}, {"lent", 12}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Cleanup(func(m int) func() { return func() { minLentBytes = m } }(minLentBytes))
			minLentBytes = tt.minBytes
			c := startServer(t)
			open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 32, "forever": true,
				"readers": 2, "slots": 9, "spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"},
					"image": map[string]any{"kind": "fixed", "dtype": "float32", "shape": []int{4}}}}
			if r := c.call(open); r.Error != nil {
				t.Fatal(r.Error)
			}
			req := []byte(`{"op":"next","keep":0,"count":4}`)
			msg := append(binary.LittleEndian.AppendUint32(nil, uint32(len(req))), req...)
			buf := make([]byte, 1<<16)
			// The replies read into one buffer, without decoding: only a
			// slot's new file (the first batches of each) is decoded,
			// mapped and said so.
			var news []BatchInfo
			fours := func(n int) {
				for range n {
					if _, err := c.in.Write(msg); err != nil {
						t.Fatal(err)
					}
					for range 4 {
						if _, err := io.ReadFull(c.out, buf[:4]); err != nil {
							t.Fatal(err)
						}
						size := binary.LittleEndian.Uint32(buf)
						if _, err := io.ReadFull(c.out, buf[:size]); err != nil {
							t.Fatal(err)
						}
						r := buf[:size]
						if !bytes.HasPrefix(r, []byte(`{"batch":`)) {
							t.Fatalf("reply %s, want a batch", r)
						}
						if bytes.Contains(r, []byte(`"file"`)) {
							var reply Reply
							if err := json.Unmarshal(r, &reply); err != nil {
								t.Fatal(err)
							}
							news = append(news, *reply.Batch)
						}
					}
					for i := range news {
						c.mapSlot(&news[i])
					}
					news = news[:0]
				}
			}
			// What allocates once is done at some point, and when depends
			// on timing: a decoder's first batch in a lent slot makes its
			// rows, a batch a reader could not decode into a lent slot
			// may be the first in its ring slot, which makes a file. So
			// the steady state is any window of 200 batches of the first
			// 30 that allocates less than one object a batch; the old
			// code never had one (10 to 14 in every window).
			const n, windows = 50, 30
			var least float64
			for w := range windows {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				fours(n)
				runtime.ReadMemStats(&after)
				perBatch := float64(after.Mallocs-before.Mallocs) / (4 * n)
				if w == 0 || perBatch < least {
					least = perBatch
				}
				if perBatch < 1 {
					t.Logf("%.2f allocations a batch in window %d", perBatch, w)
					return
				}
			}
			t.Errorf("at least %.2f allocations a batch in each of %d windows of %d, want fewer than 1 in one", least, windows, 4*n)
		})
	}
}
