package input

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// FuzzResume gives Start arbitrary checkpoints: each is refused with an
// error, or restores a pipeline whose batches then come (or end) without
// a panic or a hang.
func FuzzResume(f *testing.F) {
	build := func(opts ...PipelineOption) (*Pipeline, *Batches) {
		p := NewPipeline(append([]PipelineOption{Seed(2), Deterministic()}, opts...)...)
		values := p.RangeInputProducer(10, NumEpochs(1), Shuffle(true))
		step := func(ctx context.Context) (queue.Element, error) {
			e, err := values.Dequeue(ctx)
			if err != nil {
				return nil, err
			}
			return queue.Element{tensor.Scalar(int64(e[0].Int32s()[0]))}, nil
		}
		return p, p.ShuffleBatch(step, 3, Capacity(6), MinAfterDequeue(2), AllowSmallerFinalBatch())
	}
	p, out := build()
	if err := p.Start(context.Background()); err != nil {
		f.Fatal(err)
	}
	for range 2 {
		if _, err := out.Next(context.Background()); err != nil {
			f.Fatal(err)
		}
	}
	ck, err := p.Checkpoint(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	if err := p.Stop(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Add(ck)
	// The same as version 1 wrote it, without its checksum: the fuzzer's
	// changes to a sealed one are refused by the seal, where those to a
	// version 1 one reach the checks past it.
	var old checkpoint
	if err := json.Unmarshal(ck, &old); err != nil {
		f.Fatal(err)
	}
	old.Version = 1
	if b, err := json.Marshal(old); err != nil {
		f.Fatal(err)
	} else {
		f.Add(b)
	}
	f.Add([]byte(`{"format":"sluice.input.checkpoint","version":1,"seed":2,"stages":[{"stage":"x"},{"stage":"y","batches":-3}]}`))
	f.Add([]byte(`{"format":"sluice.input.checkpoint","version":1,"seed":2,"stages":[]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, out := build(Resume(data))
		ctx := t.Context()
		if err := p.Start(ctx); err != nil {
			return
		}
		defer p.Stop(ctx)
		var ck checkpoint
		if err := json.Unmarshal(data, &ck); err != nil {
			t.Fatalf("Start accepted a checkpoint that is not JSON: %q", data)
		}
		for range 5 {
			if _, err := out.Next(ctx); err != nil {
				return
			}
		}
	})
}
