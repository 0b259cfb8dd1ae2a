package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/datasets/mnist"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/model"
	"github.com/sluiceml/sluice/internal/sealed"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tensor"
)

// checkpointName is the file in Config.CheckpointDir that holds the last
// checkpoint: the model and the pipeline, saved together.
const checkpointName = "checkpoint.json"

// A savedRun is what a checkpoint holds.
type savedRun struct {
	Step     int             `json:"step"`     // batches trained on
	Loss     float32         `json:"loss"`     // the last batch's
	Model    []byte          `json:"model"`    // model.MarshalBinary
	Pipeline json.RawMessage `json:"pipeline"` // sluice.Iterator.Checkpoint
}

// trainResumable trains through package sluice's deterministic pipeline,
// saving the model and the pipeline together every cfg.CheckpointEvery
// steps, and goes on from the last checkpoint in cfg.CheckpointDir if
// there is one: a run killed at any point and started again ends with the
// weights an uninterrupted run ends with, bit for bit. It returns the step
// it resumed at (0: from the start). With dir empty it saves nothing.
func trainResumable(ctx context.Context, cfg Config, dir string, res *Result, nTrain int, m *model.Model, out io.Writer) (resumed int, err error) {
	pattern := filepath.Join(storage.QuoteMeta(res.Dir), fmt.Sprintf("train-*-of-%05d.tfrecord.gz", len(res.TrainFiles)))
	spec := example.Spec{
		mnist.FeatureImageRaw: example.FixedLen(tensor.String),
		mnist.FeatureLabel:    example.FixedLen(tensor.Int64),
	}
	ds := sluice.Examples(pattern, spec, sluice.Deterministic(), sluice.Epochs(cfg.Epochs),
		sluice.Readers(cfg.Readers), sluice.Shuffle(max(1, min(cfg.MinAfter, nTrain))), sluice.Seed(cfg.Seed))

	var opts []sluice.BatchOption
	step := 0
	var lastLoss atomic.Value
	lastLoss.Store(float32(0))
	if dir != "" {
		// What a run killed while saving left goes (a running one's
		// stays); a failure to remove it leaves it for the next run.
		storage.RemoveDeadLeftovers(ctx, filepath.Join(dir, checkpointName))
		saved, err := loadCheckpoint(dir)
		if err != nil {
			return 0, err
		}
		if saved != nil {
			if err := m.UnmarshalBinary(saved.Model); err != nil {
				return 0, fmt.Errorf("demo: %s: %w", filepath.Join(dir, checkpointName), err)
			}
			opts = append(opts, sluice.Resume(saved.Pipeline))
			step, resumed = saved.Step, saved.Step
			lastLoss.Store(saved.Loss)
			fmt.Fprintf(out, "resuming from %s at step %d\n", filepath.Join(dir, checkpointName), step)
		}
	}
	it, err := ds.Iterator(ctx, cfg.BatchSize, opts...)
	if err != nil {
		return 0, err
	}
	defer it.Close()

	total := nTrain * cfg.Epochs
	var seen atomic.Int64
	seen.Store(int64(step * cfg.BatchSize))
	stopProgress := startProgress(out, cfg, nil, total, &seen, &lastLoss)
	defer stopProgress()
	size := res.Layout.ImageBytes()
	var img []float32
	start := time.Now()
	for {
		b, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return resumed, err
		}
		raw, labels := b.Bytes(mnist.FeatureImageRaw), b.Int64(mnist.FeatureLabel)
		img = img[:0]
		for i, r := range raw {
			// The noise of example i of step s is drawn from a generator
			// of its own, so a resumed run adds the same noise.
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(step*cfg.BatchSize+i)))
			x, err := preprocess(r, size, fmt.Sprintf("step %d, example %d", step, i), rng, cfg.NoiseLevel)
			if err != nil {
				return resumed, err
			}
			img = append(img, x.Float32s()...)
		}
		lastLoss.Store(m.Train(img, labels))
		seen.Add(int64(len(labels)))
		step++
		if dir != "" && cfg.CheckpointEvery > 0 && step%cfg.CheckpointEvery == 0 {
			if err := saveCheckpoint(ctx, dir, step, lastLoss.Load().(float32), m, it); err != nil {
				return resumed, err
			}
			if cfg.onCheckpoint != nil {
				cfg.onCheckpoint(step)
			}
		}
	}
	res.TrainTime = time.Since(start)
	res.TrainExamples = int(seen.Load())
	res.ResumedExamples = resumed * cfg.BatchSize
	res.ExamplesPerSec = float64(res.TrainExamples-res.ResumedExamples) / res.TrainTime.Seconds()
	res.FinalTrainLoss = lastLoss.Load().(float32)
	return resumed, nil
}

// saveCheckpoint writes the model and the pipeline's position after step
// steps to dir, all or nothing: the file appears under its name only when
// complete, so a kill at any moment leaves the last whole checkpoint.
func saveCheckpoint(ctx context.Context, dir string, step int, loss float32, m *model.Model, it *sluice.Iterator) error {
	pipe, err := it.Checkpoint()
	if err != nil {
		return err
	}
	state, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	// Sealed, as the pipeline's checkpoint inside is, so that damaged
	// model weights are refused, not trained on.
	data, err := sealed.Marshal(savedRun{Step: step, Loss: loss, Model: state, Pipeline: pipe})
	if err != nil {
		return err
	}
	f, err := storage.CreatePending(ctx, filepath.Join(dir, checkpointName))
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// loadCheckpoint returns the checkpoint in dir, or nil if there is none.
func loadCheckpoint(dir string) (*savedRun, error) {
	data, err := os.ReadFile(filepath.Join(dir, checkpointName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// One saved before the demo sealed its checkpoints is read as it was.
	var s savedRun
	if _, err := sealed.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("demo: %s: %w", filepath.Join(dir, checkpointName), err)
	}
	return &s, nil
}
