// Package sample rebalances and reweights a stream of examples, as
// TensorFlow's contrib training sampling and resampling ops do.
//
//   - StratifiedSample keeps each example of class i with probability
//     a[i], chosen so that the batches it delivers have the target class
//     proportions; the class proportions of the input are given
//     (InitProbs), or estimated online from the labels seen
//     (AcceptanceProbs has the formula, SAMPLING.md §1).
//     StratifiedSampleUnknownDist draws each batch's class counts from a
//     multinomial and takes them from the examples it keeps by class.
//     RejectionSample keeps an example with a probability computed from
//     the example.
//   - ResampleAtRate emits each row of a batch Poisson(rate) times, every
//     component gathered with one index list so they stay aligned. A
//     WeightedResampler derives the rates from weights and a zero-debiased
//     running mean of the weights, and returns the rates, whose inverses
//     weight the resampled examples back to the input distribution.
//
// The resamplers exist as pure functions over a batch, for a training
// loop that already has its batch (ResampleAtRate,
// WeightedResampler.Resample), and as pipeline stages over a step that
// returns one example and its rate or weight (ResampleAtRateStage,
// WeightedResample). The samplers are stages. A stage runs its step in
// goroutines of the pipeline and delivers batches through package input's
// batching, so it starts, stops, reports errors and publishes metrics as
// every other stage:
//
//	p := input.NewPipeline(input.Seed(1))
//	batches := sample.StratifiedSample(p, step, []float64{0.5, 0.5}, 64,
//		sample.InitProbs([]float64{0.999, 0.001}), sample.Names("image"))
//	if err := p.Start(ctx); err != nil { ... }
//	for b, err := range batches.All(ctx) { ... b.Int64("label") ... }
//
// A step that produces batches rather than examples (TensorFlow's
// enqueue_many=True) is wrapped in UnbatchLabels, UnbatchRates or
// Unbatch:
//
//	batches := sample.StratifiedSample(p, sample.UnbatchLabels(batchStep), target, 64)
//
// Build errors (bad probabilities, rates, options) wrap [queue.ErrInvalidArgument]
// and are returned by Pipeline.Start, which then starts nothing. A bad
// label, rate, weight or acceptance probability met at run time is an
// error wrapping [queue.ErrInvalidArgument] that names the value and the
// example's position in the stream; it stops the pipeline through its
// Coordinator, and Next returns it.
//
// A stage's randomness comes from the pipeline's seed (input.Seed given to
// NewPipeline), as input's shuffling stages' does, or from its own Seed
// option, so a stage whose step runs in one goroutine (the default) is
// reproducible.
//
// # Differences from TensorFlow
//
//   - Probabilities are checked when the stage is built, and a bad label
//     or rate is an error naming the value and the example's position in
//     the stream; TensorFlow checks both at run time with generic assertion
//     messages. Its messages are kept where it has its own
//     ("Probability parameters must have the same length.").
//   - A stage's step returns one example. TensorFlow's enqueue_many=True
//     is an adapter around a step that returns batches (UnbatchLabels,
//     UnbatchRates, Unbatch), which checks the batch as TensorFlow does
//     and hands the examples on one at a time, as TensorFlow's internal
//     queue of batch size 1 does. So the online class estimate and
//     WeightedResample's running mean are updated per example (decay
//     MeanDecay per example, not per batch); the pure functions keep
//     TensorFlow's per-batch running mean.
//   - Poisson counts use inversion below a rate of 12 and Hörmann's PTRS
//     above (TensorFlow: its random_poisson kernel), so counts match
//     TensorFlow's in distribution, not draw for draw; only the
//     distribution is contractual (RE-04). Indices are grouped by input
//     row, as the newer TensorFlow.
//   - The high-rejection warning goes to a Warn function (default
//     log/slog's Warn) rather than to stderr, at most 10 times per stage,
//     as TensorFlow's first_n=10.
//   - StratifiedSample's online estimate is an option away from a fixed
//     one: Smoothing sets the starting count per class (TensorFlow fixes
//     it at 10).
//   - Batches carry labels and rates as components named "label" and
//     "rate" in front of the step's components, rather than as separate
//     return values.
//   - StratifiedSample and RejectionSample decide in the step's goroutine
//     and batch what they keep; TensorFlow first unbatches through a queue
//     of queue_capacity examples, which a Go step returning one example
//     does not need (UnbatchLabels and Unbatch hold a batch's examples
//     instead).
//   - RejectionSample always checks that the acceptance probability is in
//     [0, 1] (TensorFlow only with runtime_checks=True; without, a
//     negative value rejects and a value above 1 accepts).
//   - StratifiedSampleUnknownDist's probabilities are fixed when it is
//     built (TensorFlow's may be a placeholder fed at each run, SU-01);
//     build another stage for other probabilities.
//   - StratifiedSampleUnknownDist drops an example only when its class
//     holds ClassCapacity examples beyond the forming batch's share, or
//     has probability 0. TensorFlow's thread for each class drops every
//     example of another class it reads, and blocks when its class queue
//     is full.
//   - Rates, weights and probabilities are float64 (RE-03; TensorFlow also
//     takes float16 and float32 rates and computes probabilities in
//     float32), so Knuth's limits on large rates do not apply.
//   - A WeightedResampler leaves its running mean alone on an empty batch
//     and gives rate 0 while the mean weight is 0; TensorFlow's mean
//     becomes NaN, and so does every later rate.
package sample
