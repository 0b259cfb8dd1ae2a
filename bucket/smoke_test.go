package bucket_test

import (
	"testing"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

func TestSmoke(t *testing.T) {
	p := input.NewPipeline()
	b := bucket.Bucket(p, counter(64, func(v int) (int, queue.Element) {
		return v % 2, queue.Element{tensor.Scalar(int64(v)), fill(v, v)}
	}), []int{32}, 2, bucket.DynamicPad())
	for _, g := range drain(t, p, nextOf(b)) {
		t.Log(g.id, g.batch.Component(0).Shape(), g.batch.Component(1).Shape())
	}
}
