package seqdemo

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func smallConfig(dir string) Config {
	cfg := DefaultConfig()
	cfg.Dir = dir
	cfg.Series = 300
	cfg.MaxLen = 150
	cfg.Shards = 3
	cfg.Boundaries = []int{30, 60}
	cfg.BucketBatch = []int{16, 8, 4}
	cfg.Out = nil
	return cfg
}

func TestRun(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	var out bytes.Buffer
	cfg.Out = &out
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Matched != cfg.Series || res.Series != cfg.Series {
		t.Errorf("matched %d of %d series, want %d", res.Matched, res.Series, cfg.Series)
	}
	if len(res.Files) != cfg.Shards {
		t.Errorf("%d files, want %d", len(res.Files), cfg.Shards)
	}
	// Series of 16 to 150 steps: the least-squares error is about
	// sqrt((1-φ²)/n), so the mean stays well under 0.15.
	if res.MeanAbsError <= 0 || res.MeanAbsError > 0.15 {
		t.Errorf("mean |φ̂ - φ| = %v", res.MeanAbsError)
	}
	if res.PaddedSteps < res.Steps || res.PaddedSteps >= res.UnbucketedSteps {
		t.Errorf("padded steps %d with buckets, %d without, %d real", res.PaddedSteps, res.UnbucketedSteps, res.Steps)
	}
	if res.SegmentsPerSec <= 0 || res.SegmentBatches == 0 || res.BucketBatches == 0 {
		t.Errorf("result %+v", res)
	}
	var sum bytes.Buffer
	res.Summary(&sum)
	for _, want := range []string{"300 of 300 series", "segments/s", "state_saver", "bucketing"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
}

func TestRunBadConfig(t *testing.T) {
	for _, mod := range []func(*Config){
		func(c *Config) { c.Series = 0 },
		func(c *Config) { c.NumUnroll = 0 },
		func(c *Config) { c.MinLen = 1 },
		func(c *Config) { c.MaxLen = c.MinLen - 1 },
		func(c *Config) { c.BucketBatch = c.BucketBatch[:1] },
	} {
		cfg := smallConfig(t.TempDir())
		mod(&cfg)
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("config %+v: no error", cfg)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, smallConfig(t.TempDir())); err == nil {
		t.Fatal("cancelled run: no error")
	}
}

// Sizes beyond any use are refused before a file or series is made: each
// flag on its own (audit 116), and series × steps beyond memory, which
// both in bounds can make (audit 117).
func TestRunBounds(t *testing.T) {
	cases := []struct {
		series, maxLen, shards int
		want                   string
	}{
		{1_000_001, 10, 1, "--series must be at most 1000000, not 1000001"},
		{10, 1_000_001, 1, "--max-len must be at most 1000000, not 1000001"},
		{10, 10, 10_001, "--shards must be at most 10000, not 10001"},
		{1_000_000, 1_000_000, 1, "1000000 series of up to 1000000 steps: resource exhausted"},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		cfg.Series, cfg.MinLen, cfg.MaxLen, cfg.Shards = c.series, 2, c.maxLen, c.shards
		if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("series %d, max-len %d, shards %d: %v, want %q", c.series, c.maxLen, c.shards, err, c.want)
		}
	}
}
