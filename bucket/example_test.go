package bucket_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sluiceml/sluice/bucket"
	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// Sentences of varied length, bucketed by length and padded per batch: a
// batch of short sentences is not padded to the longest of the corpus.
func ExampleBySequenceLength() {
	ctx := context.Background()
	sentences := []string{
		"the cat sat",
		"dogs bark",
		"a quick brown fox jumps over",
		"hello",
		"the rain in spain falls mainly",
		"to be or not to be that is the question",
		"one two three four five",
		"go",
		"it is what it is",
		"all you need is love and a little patience now",
		"never gonna give you up never gonna let you down",
	}
	next := 0
	// One goroutine runs the step (Threads defaults to 1), so it needs
	// no lock.
	step := func(context.Context) (int, queue.Element, error) {
		if next == len(sentences) {
			return 0, nil, io.EOF
		}
		words := strings.Fields(sentences[next])
		next++
		return len(words), queue.Element{tensor.Strings(words...)}, nil
	}

	p := input.NewPipeline()
	// Buckets: fewer than 4 words, 4 to 7, 8 and more.
	batches := bucket.BySequenceLength(p, step, []int{4, 8}, []int{2},
		bucket.DynamicPad(), bucket.AllowSmallerFinalBatch(), bucket.Names("words"))
	if err := p.Start(ctx); err != nil {
		panic(err)
	}
	var lines []string
	for {
		lengths, batch, err := batches.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		words := batch.Tensor("words")
		lines = append(lines, fmt.Sprintf("lengths %v shape %v first row %q", lengths, words.Shape(), words.Row(0).Strings()))
	}
	if err := p.Join(ctx); err != nil {
		panic(err)
	}
	// Buckets fill in input order, but their batches race to the top
	// queue; sort for a stable output.
	slices.Sort(lines)
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// lengths [1 1] shape [2,1] first row ["hello"]
	// lengths [10 10] shape [2,10] first row ["to" "be" "or" "not" "to" "be" "that" "is" "the" "question"]
	// lengths [10] shape [1,10] first row ["never" "gonna" "give" "you" "up" "never" "gonna" "let" "you" "down"]
	// lengths [3 2] shape [2,3] first row ["the" "cat" "sat"]
	// lengths [5 5] shape [2,5] first row ["one" "two" "three" "four" "five"]
	// lengths [6 6] shape [2,6] first row ["a" "quick" "brown" "fox" "jumps" "over"]
}

// Bucket with a step that chooses the bucket: even and odd numbers, with
// batch sizes per bucket. Next returns the bucket id with each batch.
func ExampleBucket() {
	ctx := context.Background()
	n := 0
	step := func(context.Context) (int, queue.Element, error) {
		if n == 10 {
			return 0, nil, io.EOF
		}
		n++
		return n % 2, queue.Element{tensor.Scalar(int64(n))}, nil
	}
	p := input.NewPipeline()
	batches := bucket.Bucket(p, step, []int{2, 3}, 2, bucket.AllowSmallerFinalBatch())
	if err := p.Start(ctx); err != nil {
		panic(err)
	}
	var lines []string
	for {
		id, batch, err := batches.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		lines = append(lines, fmt.Sprintf("bucket %d: %v", id, batch.Component(0).Int64s()))
	}
	if err := p.Join(ctx); err != nil {
		panic(err)
	}
	slices.Sort(lines)
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// bucket 0: [10]
	// bucket 0: [2 4]
	// bucket 0: [6 8]
	// bucket 1: [1 3 5]
	// bucket 1: [7 9]
}

// A consumer done with each batch before it asks for the next hands it
// back with NextInto: its memory goes to a later batch of its bucket, so
// that once the pipeline runs no batch is allocated.
func ExampleSequenceBuckets_NextInto() {
	ctx := context.Background()
	n := 0
	step := func(context.Context) (int, queue.Element, error) {
		if n == 12 {
			return 0, nil, io.EOF
		}
		n++
		tokens := make([]int64, n%4+1) // lengths 1 to 4
		for i := range tokens {
			tokens[i] = int64(n)
		}
		return len(tokens), queue.Element{tensor.New(tokens)}, nil
	}
	p := input.NewPipeline(input.Deterministic())
	batches := bucket.BySequenceLength(p, step, []int{3}, []int{3},
		bucket.DynamicPad(), bucket.Names("tokens"))
	if err := p.Start(ctx); err != nil {
		panic(err)
	}
	var batch input.Batch
	for {
		var lengths []int
		var err error
		lengths, batch, err = batches.NextInto(ctx, batch)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		fmt.Println(lengths, batch.Tensor("tokens").Shape(), batch.Int64("tokens"))
	}
	if err := p.Join(ctx); err != nil {
		panic(err)
	}
	// Output:
	// [2 1 2] [3,2] [1 1 4 0 5 5]
	// [3 4 3] [3,4] [2 2 2 0 3 3 3 3 6 6 6 0]
	// [4 3 4] [3,4] [7 7 7 7 10 10 10 0 11 11 11 11]
	// [1 2 1] [3,2] [8 0 9 9 12 0]
}
