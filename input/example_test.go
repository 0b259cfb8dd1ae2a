package input_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// writeShards writes three GZIP TFRecord files of 10 Examples each.
func writeShards(dir string) {
	for s := range 3 {
		f, _ := os.Create(filepath.Join(dir, fmt.Sprintf("train-%d.tfrecord.gz", s)))
		w := tfrecord.NewWriter(f, tfrecord.Gzip)
		for i := range 10 {
			v := int64(s*10 + i)
			w.Write(example.New().Floats("image", []float32{float32(v), -float32(v)}).Int64("label", v).Marshal())
		}
		w.Close()
		f.Close()
	}
}

// The seed guide's input_pipeline: a shuffled filename queue with an epoch
// limit, two readers sharing it, Example parsing, and shuffle_batch_join.
func Example() {
	dir, _ := os.MkdirTemp("", "sluice-example")
	defer os.RemoveAll(dir)
	writeShards(dir)
	ctx := context.Background()

	p := input.NewPipeline(input.Seed(42))
	files, _ := input.MatchFilenamesOnce(ctx, filepath.Join(dir, "train-*.tfrecord.gz"))
	names := p.StringInputProducer(files, input.NumEpochs(2))
	spec := example.Spec{
		"image": example.FixedLen(tensor.Float32, 2),
		"label": example.FixedLen(tensor.Int64),
	}
	readers := make([]input.Step, 2) // two readers share one filename queue
	for i := range readers {
		r := recordio.NewTFRecordReader(names, tfrecord.Gzip)
		readers[i] = func(ctx context.Context) (queue.Element, error) {
			key, rec, err := r.Read(ctx)
			if err != nil {
				return nil, err
			}
			ex, err := example.ParseSingle(rec, spec, key)
			if err != nil {
				return nil, err
			}
			// The components with their names: batches are read by name.
			return input.Named(ctx, ex.Components(), ex.ComponentNames()...), nil
		}
	}
	batches := p.ShuffleBatchJoin(readers, 8, input.Capacity(40), input.MinAfterDequeue(10),
		input.AllowSmallerFinalBatch())
	if err := p.Start(ctx); err != nil {
		panic(err)
	}
	seen := map[int64]int{}
	n := 0
	for b, err := range batches.All(ctx) { // ends at end of input, after the last epoch
		if err != nil {
			panic(err)
		}
		for _, l := range b.Int64("label") {
			seen[l]++
		}
		n += b.Len()
	}
	if err := p.Join(ctx); err != nil {
		panic(err)
	}
	twice := 0
	for _, c := range seen {
		if c == 2 {
			twice++
		}
	}
	fmt.Printf("%d examples; %d of %d labels seen exactly twice\n", n, twice, len(seen))
	// Output: 60 examples; 30 of 30 labels seen exactly twice
}

// Feeding: a step reads values the caller supplies for each run.
func ExamplePlaceholder() {
	x := input.NewPlaceholder("x", tensor.Float32, tensor.Shape{tensor.Unknown})
	step := func(ctx context.Context) (tensor.Tensor, error) { return x.Value(ctx) }

	var feed input.Feed
	feed.Set(x, tensor.New([]float32{1, 2, 3}))
	v, _ := step(input.WithFeed(context.Background(), &feed))
	fmt.Println(v.Float32s())

	_, err := step(context.Background())
	fmt.Println(err)
	fmt.Println(feed.Set(x, tensor.New([]int32{1})))
	// Output:
	// [1 2 3]
	// input: you must feed a value for placeholder tensor "x" with dtype float and shape [?]
	// input: cannot feed a int32 value to placeholder "x" of type float
}

// Each of three workers builds the same pipeline with its own shard of the
// file list; together they read every file once per epoch.
func ExampleShard() {
	ctx := context.Background()
	files := []string{"a.tfrecord", "b.tfrecord", "c.tfrecord", "d.tfrecord", "e.tfrecord"}
	for worker := range 3 {
		p := input.NewPipeline()
		names := p.StringInputProducer(files, input.NumEpochs(1), input.Shuffle(false), input.Shard(worker, 3))
		if err := p.Start(ctx); err != nil {
			panic(err)
		}
		var mine []string
		for {
			e, err := names.Dequeue(ctx)
			if err != nil {
				break // end of input
			}
			mine = append(mine, string(e[0].Strings()[0]))
		}
		if err := p.Join(ctx); err != nil {
			panic(err)
		}
		fmt.Println("worker", worker, mine)
	}
	// Output:
	// worker 0 [a.tfrecord d.tfrecord]
	// worker 1 [b.tfrecord e.tfrecord]
	// worker 2 [c.tfrecord]
}

// A step declares its components' names with Named; the stage matches them
// to Names by name, so the order of Names does not matter.
func ExampleNamed() {
	ctx := context.Background()
	p := input.NewPipeline()
	n := int64(0)
	step := func(ctx context.Context) (queue.Element, error) {
		if n == 3 {
			return nil, io.EOF
		}
		n++
		e := queue.Element{tensor.New([]float32{float32(n), 0}), tensor.Scalar(n)}
		return input.Named(ctx, e, "image", "label"), nil
	}
	batches := p.Batch(step, 3, input.Names("label", "image"))
	if err := p.Start(ctx); err != nil {
		panic(err)
	}
	b, err := batches.Next(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(b.Names(), b.Int64("label"), b.Float32("image"))
	if err := p.Join(ctx); err != nil {
		panic(err)
	}
	// Output: [label image] [1 2 3] [1 0 2 0 3 0]
}

// A deterministic pipeline saves a checkpoint between two batches, and a
// pipeline built the same way resumes from it in another process: its
// next batch is the one the first run would have delivered next.
func ExamplePipeline_Checkpoint() {
	ctx := context.Background()
	build := func(opts ...input.PipelineOption) (*input.Pipeline, *input.Batches) {
		p := input.NewPipeline(append([]input.PipelineOption{input.Deterministic(), input.Seed(7)}, opts...)...)
		numbers := p.RangeInputProducer(20, input.NumEpochs(1), input.Shuffle(true))
		step := func(ctx context.Context) (queue.Element, error) {
			return numbers.Dequeue(ctx)
		}
		return p, p.ShuffleBatch(step, 4, input.Capacity(10), input.MinAfterDequeue(5))
	}

	p, batches := build()
	p.Start(ctx)
	for range 2 {
		b, _ := batches.Next(ctx)
		fmt.Println("first run:", b.Component(0).Int32s())
	}
	ck, _ := p.Checkpoint(ctx) // save it beside the model
	third, _ := batches.Next(ctx)
	fmt.Println("first run:", third.Component(0).Int32s())
	p.Stop(ctx)

	resumed, batches := build(input.Resume(ck))
	if err := resumed.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer resumed.Stop(ctx)
	b, _ := batches.Next(ctx)
	fmt.Println("resumed:  ", b.Component(0).Int32s())
	// Output:
	// first run: [15 2 18 13]
	// first run: [7 19 10 3]
	// first run: [11 12 6 9]
	// resumed:   [11 12 6 9]
}

// The seed pipeline without an allocation per example: readers that make
// no keys, steps parsing into the elements the batcher hands back
// (Recycle, Recycled, example.Parser.ParseSingleInto), and a consumer
// reusing its batch (NextInto). Each reader has its own Parser, as a
// Parser is not safe for concurrent use.
func ExampleRecycled() {
	dir, _ := os.MkdirTemp("", "sluice-example")
	defer os.RemoveAll(dir)
	writeShards(dir)
	ctx := context.Background()

	p := input.NewPipeline(input.Seed(42))
	files, _ := input.MatchFilenamesOnce(ctx, filepath.Join(dir, "train-*.tfrecord.gz"))
	names := p.StringInputProducer(files, input.NumEpochs(2))
	spec := example.Spec{
		"image": example.FixedLen(tensor.Float32, 2),
		"label": example.FixedLen(tensor.Int64),
	}
	readers := make([]input.Step, 2)
	for i := range readers {
		r := recordio.NewTFRecordReader(names, tfrecord.Gzip)
		parser, err := example.NewParser(spec)
		if err != nil {
			panic(err)
		}
		readers[i] = func(ctx context.Context) (queue.Element, error) {
			rec, err := r.ReadValue(ctx)
			if err != nil {
				return nil, err
			}
			// Components in sorted-name order: image, label.
			return parser.ParseSingleInto(input.Recycled(ctx), rec, "")
		}
	}
	batches := p.ShuffleBatchJoin(readers, 8, input.Capacity(40), input.MinAfterDequeue(10),
		input.AllowSmallerFinalBatch(), input.Names("image", "label"), input.Recycle())
	if err := p.Start(ctx); err != nil {
		panic(err)
	}
	var sum, n int64
	var b input.Batch
	for {
		var err error
		b, err = batches.NextInto(ctx, b) // b's memory is reused
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		for _, l := range b.Int64("label") {
			sum += l
		}
		n += int64(b.Len())
	}
	if err := p.Join(ctx); err != nil {
		panic(err)
	}
	fmt.Printf("%d examples, labels summing to %d\n", n, sum)
	// Output: 60 examples, labels summing to 870
}
