package sequence_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/sealed"
	"github.com/sluiceml/sluice/sequence"
	"github.com/sluiceml/sluice/tensor"
)

// inputCheckpoint mirrors input's checkpoint format, field for field, so
// that a test can craft one that passes the seal.
type inputCheckpoint struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Seed    uint64 `json:"seed"`
	Stages  []struct {
		Stage string `json:"stage"`
		Files []struct {
			Name string `json:"name"`
			Size int64  `json:"size"`
		} `json:"files,omitempty"`
		Batches int64           `json:"batches,omitempty"`
		State   json.RawMessage `json:"state,omitempty"`
	} `json:"stages"`
}

// A checkpoint whose saved states do not fit the state saver (crafted:
// sealed again after an edit) fails the first batch with an error wrapping
// input.ErrCheckpoint, as Start's refusals do, rather than an error a
// program would not take for a bad checkpoint, or, for a state of a
// segment the replay never meets, no error at all, the segment starting
// again from its initial state (audit 95).
func TestCheckpointStatesThatDoNotFit(t *testing.T) {
	build := func(resume []byte) (*input.Pipeline, *sequence.StateSaver) { return countingStateSaver(resume) }
	ctx := t.Context()
	p, s := build(nil)
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SaveState(ctx, "n", tensor.New([]int32{41, 42}, 2)); err != nil {
		t.Fatal(err)
	}
	ck, err := p.Checkpoint(ctx)
	p.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new string }{
		{"another dtype", `"dtype":"int32"`, `"dtype":"float32"`},
		{"another shape", `"shape":[]`, `"shape":[3]`},
		{"a state not declared", `"n":{`, `"m":{`},
		{"not base64", `"data":"`, `"data":"!`},
		{"a segment the replay never meets", `"key":"`, `"key":"elsewhere`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c inputCheckpoint
			if err := json.Unmarshal(ck, &c); err != nil {
				t.Fatal(err)
			}
			st := &c.Stages[len(c.Stages)-1].State
			if !strings.Contains(string(*st), tc.old) {
				t.Fatalf("the states %s have no %s", *st, tc.old)
			}
			*st = json.RawMessage(strings.Replace(string(*st), tc.old, tc.new, 1))
			crafted, err := sealed.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			p, s := build(crafted)
			if err := p.Start(ctx); err != nil {
				t.Fatalf("Start: %v", err)
			}
			defer p.Stop(ctx)
			if _, err := s.Next(ctx); !errors.Is(err, input.ErrCheckpoint) {
				t.Errorf("the first batch: %v, want an error wrapping input.ErrCheckpoint", err)
			}
		})
	}
}
