package input

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// The tests in this file are for bugs found by the audits of 2026-11-27.

// oneValue is a sparse tensor of one value, v, at index 0 of [1].
func oneValue(v float32) tensor.Sparse {
	return tensor.Sparse{Indices: tensor.New([]int64{0}, 1, 1), Values: tensor.New([]float32{v}), DenseShape: tensor.Shape{1}}
}

// TestSparseOfDroppedExamplesFreed checks that the sparse tensors of the
// examples a Maybe batcher drops are taken out of the pipeline's table:
// TensorFlow's _store_sparse_tensors stores only the kept ones (MB-04), so
// a filtering pipeline that runs for ever must not grow.
func TestSparseOfDroppedExamplesFreed(t *testing.T) {
	const n = 200 // examples; one in 10 kept
	// scalar returns a KeepStep that stores a sparse tensor for each of n
	// examples and keeps one in 10.
	scalar := func(p *Pipeline) KeepStep {
		inner := counter(n)
		return func(ctx context.Context) (queue.Element, tensor.Tensor, error) {
			e, err := inner(ctx)
			if err != nil {
				return nil, tensor.Tensor{}, err
			}
			i := e[0].Int64s()[0]
			h, err := p.StoreSparse(oneValue(float32(i)))
			return queue.Element{h}, tensor.Scalar(i%10 == 0), err
		}
	}
	// vector is scalar for EnqueueMany: batches of 10 examples with a
	// keep flag each, every batch's first kept.
	vector := func(p *Pipeline) KeepStep {
		inner := counter(n / 10)
		return func(ctx context.Context) (queue.Element, tensor.Tensor, error) {
			if _, err := inner(ctx); err != nil {
				return nil, tensor.Tensor{}, err
			}
			idx := make([]int64, 0, 20)
			for i := range 10 {
				idx = append(idx, int64(i), 0)
			}
			h, err := p.StoreSparseMany(tensor.Sparse{Indices: tensor.New(idx, 10, 2), Values: tensor.Zeros(tensor.Float32, tensor.Shape{10}), DenseShape: tensor.Shape{10, 1}})
			keep := make([]bool, 10)
			keep[0] = true
			return queue.Element{h}, tensor.New(keep), err
		}
	}
	tests := []struct {
		name  string
		build func(p *Pipeline) *Batches
	}{
		{"MaybeBatch", func(p *Pipeline) *Batches {
			return p.MaybeBatch(scalar(p), 5, Names("s"), SparseComponents("s"))
		}},
		{"MaybeBatch EnqueueMany", func(p *Pipeline) *Batches {
			return p.MaybeBatch(vector(p), 5, EnqueueMany(), Names("s"), SparseComponents("s"))
		}},
		{"MaybeShuffleBatch", func(p *Pipeline) *Batches {
			return p.MaybeShuffleBatch(scalar(p), 5, Capacity(20), MinAfterDequeue(5), Names("s"), SparseComponents("s"))
		}},
		{"MaybeBatchJoin", func(p *Pipeline) *Batches {
			return p.MaybeBatchJoin([]KeepStep{scalar(p), scalar(p)}, 5, Names("s"), SparseComponents("s"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPipeline()
			b := tt.build(p)
			start(t, p)
			kept := 0
			for _, batch := range drain(t, b) {
				kept += batch.Sparse("s").NNZ()
			}
			if kept == 0 {
				t.Fatal("no examples kept")
			}
			if left := p.sparse.len(); left != 0 {
				t.Errorf("%d examples kept; %d sparse tensors left in the table, want 0", kept, left)
			}
		})
	}
}

// TestSparseTakeMissingHandle checks that a batch with a handle the table
// does not hold loses no other example's tensor: take checks them all
// before it removes any.
func TestSparseTakeMissingHandle(t *testing.T) {
	var table sparseTable
	a, b := table.put(oneValue(1)), table.put(oneValue(2))
	if _, err := table.take([]int64{a, b, 999}); err == nil || !strings.Contains(err.Error(), "handle 999") {
		t.Fatalf("take with a missing handle: %v", err)
	}
	got, err := table.take([]int64{b, a})
	if err != nil {
		t.Fatalf("take after the failed one: %v", err)
	}
	if got[0].Values.Float32s()[0] != 2 || got[1].Values.Float32s()[0] != 1 || table.len() != 0 {
		t.Fatalf("take = %v, %d left", got, table.len())
	}
}

// TestStoreSparseBadDenseShape checks that StoreSparse and StoreSparseMany
// refuse a dense shape with a negative dimension, as TensorFlow's
// AddSparseToTensorsMap does ("Dimension -1 must be >= 0"), and that
// StoreSparseMany refuses a batch dimension that would size any amount of
// memory, rather than panic or try to allocate it.
func TestStoreSparseBadDenseShape(t *testing.T) {
	empty := func(dense ...int) tensor.Sparse {
		return tensor.Sparse{Indices: tensor.Zeros(tensor.Int64, tensor.Shape{0, len(dense)}), Values: tensor.New([]float32{}), DenseShape: dense}
	}
	tests := []struct {
		name string
		many bool
		s    tensor.Sparse
		want string
	}{
		{"negative batch", true, empty(-1, 3), "Dimension -1 must be >= 0"},
		{"negative row dimension", true, empty(2, -3), "Dimension -3 must be >= 0"},
		{"huge batch", true, empty(1<<50, 3), "batch dimension 1125899906842624"},
		{"batch above the limit", true, empty(maxSparseBatch+1, 3), "is above"},
		{"negative", false, tensor.Sparse{Indices: tensor.New([]int64{0, 5}, 1, 2), Values: tensor.New([]float32{1}), DenseShape: tensor.Shape{1, -3}}, "Dimension -3 must be >= 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPipeline()
			store := p.StoreSparse
			if tt.many {
				store = p.StoreSparseMany
			}
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panicked: %v", r)
					}
				}()
				_, err = store(tt.s)
			}()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if n := p.sparse.len(); n != 0 {
				t.Errorf("%d tensors stored", n)
			}
		})
	}
}

// TestNilStep checks that every batcher refuses a nil step when the
// pipeline starts, as the Maybe batchers did, instead of starting and
// panicking in its first enqueue.
func TestNilStep(t *testing.T) {
	tests := []struct {
		name  string
		build func(p *Pipeline)
		want  string
	}{
		{"Batch", func(p *Pipeline) { p.Batch(nil, 2) }, "batch: step 0 is nil"},
		{"ShuffleBatch", func(p *Pipeline) { p.ShuffleBatch(nil, 2, Capacity(10), MinAfterDequeue(2)) }, "shuffle_batch: step 0 is nil"},
		{"BatchJoin", func(p *Pipeline) { p.BatchJoin([]Step{counter(3), nil}, 2) }, "batch_join: step 1 is nil"},
		{"ShuffleBatchJoin", func(p *Pipeline) { p.ShuffleBatchJoin([]Step{nil}, 2) }, "shuffle_batch_join: step 0 is nil"},
		{"MaybeBatch", func(p *Pipeline) { p.MaybeBatch(nil, 2) }, "maybe_batch: step 0 is nil"},
	}
	for _, tt := range tests {
		p := NewPipeline()
		tt.build(p)
		err := p.Start(t.Context())
		if err == nil {
			p.Stop(context.Background())
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Start = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// TestEmptyJoinMessage checks the text of the join batchers' error for no
// steps: TensorFlow's _validate_join raises ValueError "Expected at least
// one set of tensors" (BJ-03), not batch()'s "Expected at least one tensor".
func TestEmptyJoinMessage(t *testing.T) {
	tests := []struct {
		name  string
		build func(p *Pipeline)
	}{
		{"BatchJoin", func(p *Pipeline) { p.BatchJoin(nil, 2) }},
		{"ShuffleBatchJoin", func(p *Pipeline) { p.ShuffleBatchJoin(nil, 2) }},
		{"MaybeBatchJoin", func(p *Pipeline) { p.MaybeBatchJoin(nil, 2) }},
		{"MaybeShuffleBatchJoin", func(p *Pipeline) { p.MaybeShuffleBatchJoin(nil, 2) }},
	}
	for _, tt := range tests {
		p := NewPipeline()
		tt.build(p)
		if err := p.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "Expected at least one set of tensors") {
			t.Errorf("%s: Start = %v", tt.name, err)
		}
	}
}

// TestShuffleSummaryNoMinAfterDequeue checks SB-02: a shuffle_batch
// queue's summary is fraction_over_<mad>_of_<capacity-mad>_full even when
// min_after_dequeue is 0, the default (TensorFlow 2.21 names it
// shuffle_batch/fraction_over_0_of_32_full); batch's is fraction_of_32_full.
func TestShuffleSummaryNoMinAfterDequeue(t *testing.T) {
	p := NewPipeline()
	p.ShuffleBatch(counter(10), 2)
	p.Batch(counter(10), 2)
	m := p.Metrics()
	if len(m) != 2 || m[0].Summary != "fraction_over_0_of_32_full" || m[1].Summary != "fraction_of_32_full" {
		t.Fatalf("summaries %+v", m)
	}
}

// TestKeepStepWithoutKeep checks that a Maybe batcher refuses a keep flag
// that is the zero Tensor, as TensorFlow refuses keep_input=None, with an
// error wrapping ErrKeepInput that names the stage; it kept everything.
func TestKeepStepWithoutKeep(t *testing.T) {
	p := NewPipeline()
	inner := counter(10)
	b := p.MaybeBatch(func(ctx context.Context) (queue.Element, tensor.Tensor, error) {
		e, err := inner(ctx)
		return e, tensor.Tensor{}, err
	}, 5)
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, err := b.Next(t.Context())
	p.Stop(context.Background())
	if !errors.Is(err, ErrKeepInput) || !strings.Contains(err.Error(), "maybe_batch") {
		t.Fatalf("Next = %v, want an ErrKeepInput error naming maybe_batch", err)
	}
}

// TestEmptyProducers checks that a range or slice producer over no rows
// ends at once with NumEpochs, as TensorFlow 2.21's range_input_producer(0,
// num_epochs=1) and slice_input_producer([tf.zeros([0,2])], num_epochs=1)
// give OutOfRange on the first dequeue (RIP-01, SLP-01: the epochs, then
// OutOfRange), and that a negative range fails as TensorFlow's tf.range.
func TestEmptyProducers(t *testing.T) {
	t.Run("range", func(t *testing.T) {
		p := NewPipeline()
		q := p.RangeInputProducer(0, NumEpochs(1))
		start(t, p)
		_, err := q.Dequeue(t.Context())
		expectEOF(t, err)
	})
	t.Run("slice", func(t *testing.T) {
		p := NewPipeline()
		step := p.SliceInputProducer([]tensor.Tensor{tensor.Zeros(tensor.Float32, tensor.Shape{0, 2})}, NumEpochs(1))
		b := p.Batch(step, 2, AllowSmallerFinalBatch())
		start(t, p)
		_, err := b.Next(t.Context())
		expectEOF(t, err)
	})
	t.Run("negative range", func(t *testing.T) {
		p := NewPipeline()
		p.RangeInputProducer(-1, NumEpochs(1))
		if err := p.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "Requires start <= limit when delta > 0: 0/-1") {
			t.Fatalf("Start = %v", err)
		}
	})
	// Beyond the int32 numbers, an error before a number is made (2^36
	// of them ended the process, audit 114).
	t.Run("range beyond int32", func(t *testing.T) {
		p := NewPipeline()
		p.RangeInputProducer(1<<36, NumEpochs(1))
		if err := p.Start(t.Context()); !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), "beyond the int32 numbers") {
			t.Fatalf("Start = %v", err)
		}
	})
}
