package demo

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func smallConfig(dir string) Config {
	cfg := DefaultConfig()
	cfg.Dir, cfg.Train, cfg.Test, cfg.Epochs, cfg.Shards, cfg.Readers, cfg.BatchSize = dir, 320, 64, 2, 3, 2, 32
	cfg.Out = nil
	return cfg
}

// Generated data is written in both formats for both splits; training
// reads every training example of every epoch and evaluation every test
// image.
func TestRunGenerated(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	var out bytes.Buffer
	cfg.Out = &out
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, pattern := range []string{"train-*-of-00003.tfrecord.gz", "test-*-of-00003.tfrecord", "train-*-of-00003.bin", "test-*-of-00003.bin"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) != 3 {
			t.Errorf("%s: %d files", pattern, len(m))
		}
	}
	if res.Kind != KindGenerated || res.TrainExamples != 640 || res.TestExamples != 64 || res.Accuracy < 0 || res.Accuracy > 1 {
		t.Fatalf("%+v", res)
	}
	if len(res.Queues) != 2 || len(res.EvalQueues) != 2 || res.Queues[1].Dequeued != 640 || res.EvalQueues[1].Dequeued != 64 {
		t.Fatalf("queues %+v %+v", res.Queues, res.EvalQueues)
	}
	res.Summary(&out)
	for _, want := range []string{"generating 320 training and 64 test images", "test accuracy", "queues (evaluation):", "files             " + dir} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	// A second run into the same folder with fewer shards does not read
	// the first run's.
	cfg.Shards, cfg.Out = 2, nil
	res, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.TrainFiles) != 2 || res.TrainExamples != 640 {
		t.Fatalf("rerun: %d files, %d examples", len(res.TrainFiles), res.TrainExamples)
	}
}

func TestRunBadConfig(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	cfg.Readers = 0
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "must be positive") {
		t.Fatalf("%v", err)
	}
	cfg = smallConfig(t.TempDir())
	cfg.Test = 0
	if _, err := Run(context.Background(), cfg); err == nil {
		t.Fatal("no test images: no error")
	}
}

// A cancelled context stops the pipelines and comes back as the error.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, smallConfig(t.TempDir())); err == nil {
		t.Fatal("cancelled run: no error")
	}
}

// A context cancelled while the digits are generated ends the run soon,
// not once they all are.
func TestRunCancelledWhileGenerating(t *testing.T) {
	stop := errors.New("stop")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(30*time.Millisecond, func() { cancel(stop) })
	cfg := smallConfig(t.TempDir())
	cfg.Train = 200_000 // seconds of work
	start := time.Now()
	if _, err := Run(ctx, cfg); !errors.Is(err, stop) {
		t.Fatalf("error %v, want %v", err, stop)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Run returned %v after the start, 30ms after which it was cancelled", d)
	}
}

func TestStandardize(t *testing.T) {
	img := []float32{0, 0, 1, 1}
	standardize(img)
	if img[0] != -1 || img[3] != 1 {
		t.Fatalf("%v", img)
	}
	flat := []float32{0.5, 0.5, 0.5, 0.5}
	standardize(flat)
	if flat[0] != 0 {
		t.Fatalf("uniform image: %v", flat)
	}
}

// A folder whose name holds glob characters is that folder: the run
// trained on x1/'s shards, and reported them as its folder's, when given
// x[1] beside an x1 of another run (audit 106).
func TestRunFolderWithGlobCharacters(t *testing.T) {
	base := t.TempDir()
	decoy := smallConfig(filepath.Join(base, "x1"))
	decoy.Train = 160
	if _, err := Run(context.Background(), decoy); err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig(filepath.Join(base, "x[1]"))
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.TrainExamples != 2*320 || len(res.OtherFiles) != 0 {
		t.Fatalf("read %d training examples (want 640, not the other folder's 320), other files %q",
			res.TrainExamples, res.OtherFiles)
	}
}
