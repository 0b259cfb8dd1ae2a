//go:build unix

package pyserve

import (
	"errors"
	"runtime/debug"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// The ring's slots together take at most half the memory a tensor may
// take: each keeps the size of the largest batch it held, so a batch
// padded to one long record, allowed alone up to the machine's memory,
// would fill every slot with it (audit 112). Under a memory limit of
// 1 GiB, two slots of 300 MB (375 with their room to grow) are refused.
func TestRingBudget(t *testing.T) {
	if limit := debug.SetMemoryLimit(-1); limit < 1<<30 {
		t.Skipf("GOMEMLIMIT is %d already", limit)
	}
	old := debug.SetMemoryLimit(1 << 30)
	defer debug.SetMemoryLimit(old)
	r := newRing(3)
	defer r.close()
	if _, _, err := r.reserve(0, 300<<20); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.reserve(0, 350<<20); err != nil {
		t.Fatalf("slot 0 grown alone: %v", err)
	}
	_, _, err := r.reserve(1, 300<<20)
	if !errors.Is(err, tensor.ErrResourceExhausted) {
		t.Fatalf("a second slot of 300 MB under a limit of 1 GiB: %v, want ErrResourceExhausted", err)
	}
	if len(r.slots[1].mem) != 0 || len(r.slots[0].mem) < 350<<20 {
		t.Errorf("slots of %d and %d bytes after the refusal", len(r.slots[0].mem), len(r.slots[1].mem))
	}
	if _, _, err := r.reserve(1, 10<<20); err != nil {
		t.Errorf("a small slot beside it: %v", err)
	}
}
