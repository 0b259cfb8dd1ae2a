package model

import (
	"strings"
	"testing"
)

// A model restored from a saved state trains on exactly as the model that
// saved it: same digests after the same batches.
func TestStateRoundTrip(t *testing.T) {
	cfg := Config{Inputs: 6, Classes: 3, Hidden: 5, LearningRate: 0.1, Momentum: 0.9, Seed: 3}
	x, y := blobs(40, 6, 3, 1)
	a := mustNew(t, cfg)
	a.Train(x[:20*6], y[:20])
	state, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b := mustNew(t, cfg)
	if b.Digest() == a.Digest() {
		t.Fatal("an untrained model has the trained one's digest")
	}
	if err := b.UnmarshalBinary(state); err != nil {
		t.Fatal(err)
	}
	if b.Digest() != a.Digest() {
		t.Fatal("restored model differs")
	}
	a.Train(x[20*6:], y[20:])
	b.Train(x[20*6:], y[20:])
	if b.Digest() != a.Digest() {
		t.Error("restored model trained on differently: the momentum was not restored")
	}

	other := mustNew(t, Config{Inputs: 6, Classes: 3, Hidden: 4, LearningRate: 0.1, Seed: 3})
	if err := other.UnmarshalBinary(state); err == nil || !strings.Contains(err.Error(), "5 hidden") {
		t.Errorf("state of another shape: %v", err)
	}
	if err := b.UnmarshalBinary(state[:len(state)-1]); err == nil {
		t.Error("a truncated state was accepted")
	}
	if err := b.UnmarshalBinary([]byte("junk")); err == nil {
		t.Error("junk was accepted")
	}
}
