// Package sample rebalances and reweights a stream of examples, as
// TensorFlow's contrib training sampling and resampling ops do.
//
//   - StratifiedSample keeps each example of class i with probability
//     a[i], chosen so that the batches it delivers have the target class
//     proportions; the class proportions of the input are given, or
//     estimated online from the labels seen (AcceptanceProbs has the
//     formula, SAMPLING.md §1). StratifiedSampleUnknownDist draws each
//     batch's class counts from a multinomial and takes them from one
//     queue per class. RejectionSample keeps an example with a probability
//     computed from the example.
//   - ResampleAtRate emits each example Poisson(rate) times, every
//     component gathered with one index list so they stay aligned;
//     WeightedResample derives the rates from weights and a zero-debiased
//     running mean of the weights, and returns the rates, whose inverses
//     weight the resampled examples back to the input distribution.
//
// Each sampler exists as a pure function over a batch (for a training
// loop that already has its batch) and as a pipeline stage that runs a step
// in goroutines and delivers batches through package input's batching, so
// it starts, stops, reports errors and publishes metrics as every other
// stage:
//
//	batches := sample.StratifiedSample(p, step, []float64{0.5, 0.5}, 64,
//		sample.InitProbs([]float64{0.999, 0.001}), sample.Names("image"))
//	for b, err := range batches.All(ctx) { ... b.Int64("label") ... }
//
// A stage's randomness comes from the pipeline's seed (Pipeline.StageSeed)
// or its own Seed option, so a single-threaded stage is reproducible.
//
// # Differences from TensorFlow
//
//   - Probabilities are checked when the stage is built, and a bad label
//     or rate is an error naming the value and the example's position in
//     the stream; TensorFlow checks both at run time with generic assertion
//     messages.
//   - A stage's step returns one example; TensorFlow's enqueue_many form is
//     the pure functions' job.
//   - Poisson counts use inversion below a rate of 12 and Hörmann's PTRS
//     above (TensorFlow: its random_poisson kernel); only the distribution
//     is contractual (RE-04). Indices are grouped by input row.
//   - The high-rejection warning goes to a Warn function (default
//     log/slog), at most 10 times per stage, as TensorFlow's first_n=10.
package sample
