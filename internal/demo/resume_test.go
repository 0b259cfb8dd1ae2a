package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/internal/sealed"
	"github.com/sluiceml/sluice/storage"
)

func resumableConfig(dir string) Config {
	cfg := smallConfig("")
	cfg.CheckpointDir, cfg.CheckpointEvery, cfg.Train, cfg.MinAfter, cfg.Quiet = dir, 5, 640, 300, true
	return cfg
}

// A run killed with SIGKILL after its second checkpoint and started again
// resumes there and ends with the weights of a run never interrupted,
// which Run itself checks; a run never interrupted ends with them too.
func TestResumeAfterKill(t *testing.T) {
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), killChildEnv+"="+dir)
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Scan()
		line <- sc.Text()
	}()
	select {
	case l := <-line:
		if !strings.HasPrefix(l, "checkpointed") {
			child.Process.Kill()
			child.Wait()
			t.Fatalf("child said %q", l)
		}
	case <-time.After(2 * time.Minute):
		child.Process.Kill()
		child.Wait()
		t.Fatal("the child saved no second checkpoint")
	}
	child.Process.Kill() // SIGKILL: nothing of the child's runs after it
	child.Wait()
	// What a run killed while saving a checkpoint leaves, which the next
	// run removes (audit 57: one more with each such kill).
	dead := filepath.Join(dir, "."+checkpointName+storage.TempMarker+storage.LockedTag+"dead01")
	if err := os.WriteFile(dead, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}

	res, err := Run(context.Background(), resumableConfig(dir))
	if err != nil {
		t.Fatal(err)
	}
	if res.ResumedAt != 10 || res.Digest == "" || res.Digest != res.UninterruptedDigest {
		t.Fatalf("resumed at %d with weights %s, an uninterrupted run's %s", res.ResumedAt, res.Digest, res.UninterruptedDigest)
	}
	if _, err := os.Stat(dead); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the killed save's temporary %s is still there (%v)", dead, err)
	}
	if res.TrainExamples != 2*640 {
		t.Errorf("trained on %d examples in all, want %d", res.TrainExamples, 2*640)
	}

	// From the start, without a checkpoint, the same weights.
	fresh, err := Run(context.Background(), resumableConfig(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if fresh.ResumedAt != 0 || fresh.Digest != res.Digest {
		t.Errorf("an uninterrupted run ends with %s, the resumed one with %s", fresh.Digest, res.Digest)
	}
}

// With Deterministic and a seed, two runs end with the same weights and
// accuracy, bit for bit.
func TestDeterministicRunsAgree(t *testing.T) {
	var digests []string
	var acc []float64
	for range 2 {
		cfg := smallConfig(t.TempDir())
		cfg.Deterministic = true
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		digests, acc = append(digests, res.Digest), append(acc, res.Accuracy)
	}
	if digests[0] == "" || digests[0] != digests[1] || acc[0] != acc[1] {
		t.Errorf("two deterministic runs: weights %v, accuracy %v", digests, acc)
	}
}

// A checkpoint whose model weights were damaged on disk is refused, not
// trained on; one saved before checkpoints were sealed is read as it was.
func TestLoadCheckpointSealed(t *testing.T) {
	dir := t.TempDir()
	run := savedRun{Step: 40, Loss: 0.25, Model: []byte{1, 2, 3, 4, 5, 6}, Pipeline: []byte(`{"format":"x"}`)}
	good, err := sealed.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, checkpointName)
	write := func(b []byte) {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(good)
	if s, err := loadCheckpoint(dir); err != nil || s.Step != 40 || string(s.Model) != string(run.Model) {
		t.Fatalf("loadCheckpoint: %+v, %v", s, err)
	}
	write([]byte(strings.Replace(string(good), `"model":"AQIDBAUG"`, `"model":"AQIDBAUH"`, 1)))
	if _, err := loadCheckpoint(dir); !errors.Is(err, sealed.ErrDamaged) || !strings.Contains(err.Error(), name) {
		t.Errorf("damaged weights: %v, want an error naming %s, damaged", err, name)
	}
	old, _ := json.Marshal(run)
	write(old)
	if s, err := loadCheckpoint(dir); err != nil || s.Step != 40 {
		t.Errorf("a checkpoint saved before the seal: %+v, %v", s, err)
	}
}
