// Package seqdemo is the demonstration behind `sluice demo sequence`: the
// contrib side of TensorFlow's input pipeline, end to end, on data it
// generates.
//
// It writes variable-length time series — AR(1) processes
// x[t] = φ·x[t-1] + ε[t], each with its own φ and length — as sharded
// GZIP TFRecord files of tf.train.SequenceExample, then reads them through
// two file pipelines (filename queue, parallel TFRecord readers,
// SequenceExample parsing):
//
//   - bucketed: bucket.BySequenceLength batches whole sequences of similar
//     length with dynamic padding, and a direct estimate of each series' φ
//     is computed from its whole sequence (least squares, φ̂ = Σx[t-1]x[t] /
//     Σx[t-1]²);
//   - stateful: sequence.BatchSequencesWithStates cuts every series into
//     segments of num_unroll steps and batches segments of different series;
//     a tiny stateful model carries its sufficient statistics (the two sums
//     and the last value) from segment to segment with SaveState and
//     estimates φ at each series' last segment.
//
// The carried state is then checked against the truth: every series must
// come out of the state saver exactly once, its segments in order, and the
// estimate from the carried state must equal the direct estimate bit for
// bit (both add the same float64 terms in the same order). The summary
// shows the padding saved by bucketing, segments/s through the state saver,
// the estimates' error against the true φ, and the queues' blocked time.
package seqdemo
