// Package example builds, marshals and parses tf.train.Example and
// tf.train.SequenceExample protocol buffers, byte-compatible with
// TensorFlow.
//
// Writing: a Builder (or the Features map form) collects named lists of
// int64, float or byte-string values and appends the wire encoding to a
// buffer; Reset makes a Builder reusable, so writing many Examples
// allocates nothing in steady state:
//
//	rec := example.New().Int64("label", 7).Floats("image", pix).Marshal()
//
// Parsing: a Spec maps feature names to one of TensorFlow's four feature
// kinds — FixedLen (dense, with an optional default), VarLen (sparse),
// SparseFeature (sparse with indices read from other features) and
// FixedLenSequence (dense with a variable leading dimension). ParseSingle
// parses one record, Parse a batch (outputs gain a leading batch
// dimension), ParseSingleSequence and ParseSequence parse SequenceExamples.
// The result, Parsed, gives tensors by name and as a flat list of
// components in sorted-name order, ready to enqueue.
//
// Parsing follows TensorFlow's FastParseExample: it walks the wire format
// with protowire, looks only at the features the spec names, and decodes
// packed lists straight into the output tensors. A Parser holds the
// compiled spec and its scratch space, so parsing batch after batch
// allocates only the output tensors. The same semantics are also
// implemented over the generated message types (package pb, via
// proto.Unmarshal); that path is the reference the tests and fuzzers
// compare the fast path against. Like TensorFlow's parser, the fast path
// does not look inside features the spec does not name, so it accepts a
// record whose unrequested features are corrupt, which proto.Unmarshal
// rejects.
//
// Semantics are TensorFlow's (spec DECODERS.md, "tf.train.Example and
// SequenceExample"): packed and unpacked numeric lists are both accepted,
// map entries may come in any order, unknown fields are skipped, a key
// that occurs twice takes its last value, and an empty record is an
// Example with no features. Errors carry TensorFlow's message texts,
// prefixed with the record's name and batch index ("Name: <key>, Key:
// <feature>, Index: <i>.  ...") and, for malformed input, the byte offset
// inside the record; they wrap the sentinel errors below for errors.Is.
// A parse error is a [*dataerr.Error] with the record's Key and its Record
// index in the batch, holding a [*ParseError] with the feature.
//
// Hostile input costs memory in proportion to its bytes: counts come from
// values actually present, a feature list is summarized per list rather
// than per step, and a FixedLenSequence list must hold one row in every
// step before its output is allocated. A spec's shapes are checked when
// the parser is built: a row of more than MaxRowElements values (which no
// record can hold), or a shape whose size overflows, is ErrInvalidSpec.
package example
