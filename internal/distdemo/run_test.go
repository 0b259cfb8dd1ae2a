package distdemo

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

func smallConfig() Config {
	cfg := DefaultConfig()
	cfg.Images = 1200
	cfg.Shards = 6
	cfg.KillAfter = 30
	cfg.AckWait = time.Second
	cfg.Out = nil
	return cfg
}

// The whole demo: two epochs over a shared JetStream queue, files in the
// in-process S3 server, one worker killed mid-file in the first epoch.
func TestRun(t *testing.T) {
	cfg := smallConfig()
	var out bytes.Buffer
	cfg.Out = &out
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(res.Epochs) != cfg.Epochs || len(res.Files) != cfg.Shards || res.Examples != cfg.Images {
		t.Fatalf("result %+v", res)
	}
	k := res.Epochs[0].Killed
	if k == nil || k.Read != cfg.KillAfter || k.FinishedBy == k.Worker {
		t.Errorf("epoch 1 kill: %+v", k)
	}
	if res.Epochs[1].Killed != nil {
		t.Errorf("epoch 2 kill: %+v", res.Epochs[1].Killed)
	}
	for _, e := range res.Epochs {
		if e.Examples != cfg.Images {
			t.Errorf("epoch %d: %d examples, want %d", e.Epoch, e.Examples, cfg.Images)
		}
		sum := 0
		for _, n := range e.PerWorker {
			sum += n
		}
		if sum != cfg.Images {
			t.Errorf("epoch %d: per-worker counts %v", e.Epoch, e.PerWorker)
		}
	}
	// Each file is a few hundred KB, one block: a handful of GETs per
	// file read, never one per record.
	if reads := int64(len(res.Files) * len(res.Epochs)); res.S3Gets < reads || res.S3Gets > 4*reads {
		t.Errorf("%d GET requests for %d file reads", res.S3Gets, reads)
	}
	var sum bytes.Buffer
	res.Summary(&sum)
	if !strings.Contains(sum.String(), "exactly once") || !strings.Contains(out.String(), "was killed after 30 records") {
		t.Errorf("output:\n%s\nsummary:\n%s", out.String(), sum.String())
	}
}

// More files than a queue's default capacity (32): the producer fills
// the epoch's queue before any worker starts, so the queue must hold them
// all.
func TestRunManyShards(t *testing.T) {
	cfg := smallConfig()
	cfg.Images = 400
	cfg.Shards = 40
	cfg.KillAfter = -1
	cfg.Epochs = 1
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Examples != cfg.Images || res.Epochs[0].Examples != cfg.Images {
		t.Errorf("result %+v", res)
	}
}

func TestRunBadConfig(t *testing.T) {
	for _, mod := range []func(*Config){
		func(c *Config) { c.Workers = 1 },
		func(c *Config) { c.Images = 0 },
		func(c *Config) { c.AckWait = 0 },
		func(c *Config) { c.KillAfter = c.Images / c.Shards },
	} {
		cfg := smallConfig()
		mod(&cfg)
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("config %+v: no error", cfg)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, smallConfig()); err == nil {
		t.Fatal("cancelled run: no error")
	}
}

// Numbers beyond any use are refused before a server starts or a file is
// sized by them (audit 115).
func TestRunBounds(t *testing.T) {
	for _, cfg := range []Config{
		{Images: 100, Shards: 100000, Workers: 2, Epochs: 1, AckWait: time.Second},
		{Images: 100, Shards: 2, Workers: 5000, Epochs: 1, AckWait: time.Second},
		{Images: math.MaxInt, Shards: 2, Workers: 2, Epochs: 1, AckWait: time.Second, KillAfter: -1},
	} {
		if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "must be at most") {
			t.Errorf("shards %d, workers %d: %v", cfg.Shards, cfg.Workers, err)
		}
	}
}
