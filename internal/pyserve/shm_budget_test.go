//go:build unix

package pyserve

import (
	"errors"
	"runtime/debug"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// The ring's slots together take at most half the machine's memory: each
// keeps the size of the largest batch it held, so a batch padded to one
// long record, allowed alone up to the machine's memory, would fill every
// slot with it (audit 112). Two slots of a third of the memory each are
// refused, one is not, and the Go memory limit, which bounds the heap and
// not the slots' mapped files, does not lower the bound (audit 113). The
// slots are anonymous files, sized and never written: no memory is used.
func TestRingBudget(t *testing.T) {
	mem := tensor.PhysicalMemory()
	if mem == 0 {
		t.Skip("the machine's memory is not known")
	}
	if shmDir() != "" {
		t.Skip("slots are named files here, which are allocated")
	}
	old := debug.SetMemoryLimit(64 << 20)
	defer debug.SetMemoryLimit(old)
	third := int(mem / 3)
	r := newRing(3)
	defer r.close()
	if _, _, err := r.reserve(0, third); err != nil {
		t.Fatalf("a slot of a third of the memory, under a Go memory limit of 64 MiB: %v", err)
	}
	_, _, err := r.reserve(1, third)
	if !errors.Is(err, tensor.ErrResourceExhausted) {
		t.Fatalf("a second slot of a third of the memory: %v, want ErrResourceExhausted", err)
	}
	if len(r.slots[1].mem) != 0 || len(r.slots[0].mem) < third {
		t.Errorf("slots of %d and %d bytes after the refusal", len(r.slots[0].mem), len(r.slots[1].mem))
	}
	if _, _, err := r.reserve(1, 10<<20); err != nil {
		t.Errorf("a small slot beside it: %v", err)
	}
}
