package seqdemo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// runBucketed runs the bucketed pipeline: whole series batched by length
// with dynamic padding, and a direct estimate of each series' φ from its
// whole sequence. It returns the estimates by series id.
func runBucketed(ctx context.Context, cfg Config, res *Result, out io.Writer) (map[int64]estimate, error) {
	p := input.NewPipeline(input.Seed(cfg.Seed))
	src, err := newSeriesSource(ctx, p, cfg, res)
	if err != nil {
		return nil, err
	}
	step := func(ctx context.Context) (int, queue.Element, error) {
		s, err := src.next(ctx)
		if err != nil {
			return 0, nil, err
		}
		return s.x.Len(), queue.Element{tensor.Scalar(s.id), tensor.Scalar(s.phi), s.x}, nil
	}
	buckets := bucket.BySequenceLength(p, step, cfg.Boundaries, cfg.BucketBatch,
		bucket.DynamicPad(), bucket.AllowSmallerFinalBatch(), bucket.Threads(cfg.Readers),
		bucket.Capacity(4*maxInt(cfg.BucketBatch)), bucket.Names(featureID, featurePhi, featureX), bucket.Name("by_length"))
	if cfg.OnPipeline != nil {
		cfg.OnPipeline("bucketed", p)
	}
	if err := p.Start(ctx); err != nil {
		return nil, err
	}
	defer p.Stop(ctx)
	var done atomic.Int64
	stop := startProgress(out, cfg, p, "bucketed", "series", cfg.Series, &done)
	defer stop()

	direct := map[int64]estimate{}
	var arrival []int // series lengths in the order the readers produced them
	start := time.Now()
	for {
		lengths, b, err := buckets.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		x := b.Tensor(featureX) // [batch, padded length]
		ids, phis := b.Int64(featureID), b.Float32(featurePhi)
		padded := x.Shape()[1]
		for i, l := range lengths {
			if _, dup := direct[ids[i]]; dup {
				return nil, fmt.Errorf("demo sequence: series %d batched twice", ids[i])
			}
			row := x.Row(i).Float32s()
			for _, v := range row[l:] {
				if v != 0 {
					return nil, fmt.Errorf("demo sequence: series %d: padding holds %v", ids[i], v)
				}
			}
			direct[ids[i]] = estimate{phi: directPhi(row[:l]), truth: phis[i], length: l}
			arrival = append(arrival, l)
		}
		res.BucketBatches++
		res.PaddedSteps += len(lengths) * padded
		done.Add(int64(len(lengths)))
	}
	res.BucketTime = time.Since(start)
	stop()
	res.BucketQueues = p.Metrics()
	if err := p.Join(ctx); err != nil {
		return nil, err
	}
	// What the same series would have cost batched without buckets, in
	// the order they arrived, with the state saver's batch size.
	for lo := 0; lo < len(arrival); lo += cfg.BatchSize {
		hi := min(lo+cfg.BatchSize, len(arrival))
		res.UnbucketedSteps += (hi - lo) * maxInt(arrival[lo:hi])
	}
	return direct, nil
}

func maxInt(v []int) int {
	m := 0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
