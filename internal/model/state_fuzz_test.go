package model

import (
	"bytes"
	"testing"
)

// FuzzUnmarshalBinary gives a model arbitrary saved states: each is
// refused, leaving the model as it was, or restores a state that saves
// back to the same bytes.
func FuzzUnmarshalBinary(f *testing.F) {
	cfg := Config{Inputs: 4, Classes: 3, Hidden: 2, LearningRate: 0.1, Momentum: 0.5, Seed: 9}
	m, err := New(cfg)
	if err != nil {
		f.Fatal(err)
	}
	good, _ := m.MarshalBinary()
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add([]byte(stateMagic))
	f.Add([]byte("sluice-model-0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		before := m.Digest()
		if err := m.UnmarshalBinary(data); err != nil {
			if m.Digest() != before {
				t.Fatalf("a refused state (%v) changed the model", err)
			}
			return
		}
		again, _ := m.MarshalBinary()
		if !bytes.Equal(again, data) {
			for i := range min(len(again), len(data)) {
				if again[i] != data[i] {
					t.Fatalf("restored state saves as other bytes, from byte %d of %d (%d bytes)", i, len(data), len(again))
				}
			}
			t.Fatalf("restored state of %d bytes saves as %d", len(data), len(again))
		}
	})
}
