package pyserve

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"
)

// A client that says through the control page which batches it is done
// with gets their slots back before its next request: the server writes
// the next batch into the slot freed last, so that a steady stream keeps
// as few slots busy as the client holds, whatever its keep says. A batch
// the page has not released stays intact.
func TestServeControlFreesSlots(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 40)
	// A bytes feature: each batch is copied into a slot of the ring,
	// which the server takes when it answers, so which one it takes is
	// not a matter of the readers' timing.
	spec := map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"},
		"name": map[string]any{"kind": "fixed", "dtype": "bytes"}}
	tests := []struct {
		name    string
		release bool // through the page; else keep alone
		slots   []int
	}{
		{"released", true, []int{0, 1}},
		{"kept", false, []int{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startServer(t)
			open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4, "readers": 1,
				"slots": 4, "spec": spec}
			if r := c.call(open); r.Error != nil {
				t.Fatal(r.Error)
			}
			if c.ctl == nil {
				t.Fatal("the open reply named no control file")
			}
			for _, f := range c.files() {
				if strings.Contains(f, "-ctl-") {
					t.Errorf("control file %s is still there after mapped", f)
				}
			}
			var used []int
			var prev []int64 // the labels of the batch held
			prevSlot, prevOff := -1, 0
			n := uint64(0) // batches received
			for want := int64(0); ; want += 4 {
				if tt.release && n > 0 {
					// Done with all but the last.
					c.release(n - 1)
				}
				// The last two as far as keep says: with 4 slots,
				// keep alone writes each batch into a third.
				c.keep = min(int(n), 2)
				b, r := c.next()
				if prev != nil {
					if got := int64s(c.slots[prevSlot][prevOff:], 4); !slices.Equal(got, prev) {
						t.Fatalf("batch %v overwritten with %v while held", prev, got)
					}
				}
				if b == nil {
					if !r.End || want != 40 {
						t.Fatalf("after %d labels: %+v", want, r)
					}
					break
				}
				n++
				labels := slices.Clone(int64s(b["label"].raw, 4))
				if labels[0] != want {
					t.Fatalf("labels %v, want from %d", labels, want)
				}
				a := r.Batch.Arrays[slices.IndexFunc(r.Batch.Arrays, func(a ArrayInfo) bool { return a.Name == "label" })]
				prev, prevSlot, prevOff = labels, r.Batch.Slot, a.Offset
				if !slices.Contains(used, r.Batch.Slot) {
					used = append(used, r.Batch.Slot)
				}
			}
			slices.Sort(used)
			if !slices.Equal(used, tt.slots) {
				t.Errorf("batches written into slots %v, want %v", used, tt.slots)
			}
		})
	}
}

// The page is the client's to write: a count past the batches sent (a
// broken client) frees what the server holds and no more, and keep goes
// on bounding the rest.
func TestServeControlCountPastSent(t *testing.T) {
	pat := writeExamples(t, t.TempDir(), 1, 40)
	c := startServer(t)
	open := map[string]any{"op": "open", "kind": "examples", "files": []string{pat}, "batch_size": 4, "readers": 2,
		"spec": map[string]any{"label": map[string]any{"kind": "fixed", "dtype": "int64"}}}
	for pass := range 2 {
		if r := c.call(open); r.Error != nil {
			t.Fatal(r.Error)
		}
		c.release(1 << 40)
		c.keep = 1
		got := 0
		for {
			b, r := c.next()
			if b == nil {
				if !r.End {
					t.Fatalf("pass %d: %+v", pass, r)
				}
				break
			}
			if l := int64s(b["label"].raw, 1)[0]; l != int64(got) {
				t.Fatalf("pass %d: batch from %d, want from %d", pass, l, got)
			}
			got += r.Batch.Rows
		}
		if got != 40 {
			t.Fatalf("pass %d: %d records, want 40", pass, got)
		}
	}
}

// The pool gives back, through the page, the batches before the count
// and no others, oldest first, their slots freed last taken first.
func TestPoolReclaim(t *testing.T) {
	t.Setenv("SLUICE_SHM_DIR", t.TempDir())
	ctl, err := newControl(shmDir(), "sluice-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.close()
	p := newPool(3, 2, ctl)
	// Three batches sent: two in lent slots (3, 4) with tokens 0 and 1,
	// one copied into slot 2.
	for i, r := range []result{{batch: &BatchInfo{Slot: 3}, token: 0}, {batch: &BatchInfo{Slot: 4}, token: 1}, {batch: &BatchInfo{Slot: 2}, token: 2}} {
		if k, _ := p.tokens.take(); k != r.token {
			t.Fatalf("batch %d: token %d, want %d", i, k, r.token)
		}
		if r.batch.Slot != r.token {
			if k, _ := p.lent.take(); k != r.batch.Slot {
				t.Fatalf("batch %d: lent slot %d, want %d", i, k, r.batch.Slot)
			}
		}
		r.seq = uint64(10 + i)
		p.sent(r)
	}
	release := func(n uint64) { atomic.StoreUint64((*uint64)(unsafe.Pointer(&ctl.mem[0])), n) }
	tests := []struct {
		done         uint64
		tokens, lent []int // free, top last
	}{
		{0, nil, nil},
		{10, nil, nil}, // batches 10 on are not done
		{12, []int{0, 1}, []int{3, 4}},
		{11, []int{0, 1}, []int{3, 4}}, // a count that goes back frees nothing
		{13, []int{0, 1, 2}, []int{3, 4}},
	}
	for _, tt := range tests {
		release(tt.done)
		p.reclaim()
		if !slices.Equal(p.tokens.ks, tt.tokens) || !slices.Equal(p.lent.ks, tt.lent) {
			t.Errorf("released %d: free tokens %v and lent slots %v, want %v and %v", tt.done, p.tokens.ks, p.lent.ks, tt.tokens, tt.lent)
		}
	}
}
