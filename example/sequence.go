package example

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/tensor"
)

// A SequenceParser parses SequenceExamples: context features with a Spec
// of FixedLen and VarLen entries, feature lists with a Spec of
// FixedLenSequence and VarLen entries. It is not safe for concurrent use.
type SequenceParser struct {
	ctx, seq  *plan
	reference bool
}

// NewSequenceParser compiles the context and feature-list specs.
func NewSequenceParser(context, featureLists Spec) (*SequenceParser, error) {
	c, err := compile(context, inContext)
	if err != nil {
		return nil, err
	}
	s, err := compile(featureLists, inFeatureLists)
	if err != nil {
		return nil, err
	}
	return &SequenceParser{ctx: c, seq: s}, nil
}

// seqRecord is what scanning found in one SequenceExample.
type seqRecord struct {
	ctx   []featureRef // by context slot
	lists []listRef    // by feature-list slot
}

// listRef is what scanning found of one requested feature list in one
// record: where its steps are and a summary of them. It holds nothing per
// step, so a list of millions of empty steps costs what a list of one
// does; the build walks the steps again to check and decode them.
type listRef struct {
	present bool
	raw     []byte        // fast path: the FeatureList message
	msgs    []*pb.Feature // reference path: its steps
	steps   int
	// By the list kind of the steps (kindNone for an empty Feature): the
	// first step of that kind (valid if count or seen says so), the
	// values in all such steps and the most in one.
	seen     [4]bool
	first    [4]int
	count    [4]int
	maxCount [4]int
	// The fewest and most values in one step, of any kind.
	minAll, maxAll int
}

// add counts step r, the next step of l.
func (l *listRef) add(r *featureRef) {
	k := r.kind
	if !l.seen[k] {
		l.seen[k], l.first[k] = true, l.steps
	}
	l.count[k] += r.count
	l.maxCount[k] = max(l.maxCount[k], r.count)
	if l.steps == 0 {
		l.minAll, l.maxAll = r.count, r.count
	} else {
		l.minAll, l.maxAll = min(l.minAll, r.count), max(l.maxAll, r.count)
	}
	l.steps++
}

// each calls fn with every step of l in order, stopping at an error. The
// steps were validated by the scan; r is reused between calls.
func (l *listRef) each(fn func(step int, r *featureRef) error) error {
	for s, m := range l.msgs {
		r := refFromMessage(m)
		if err := fn(s, &r); err != nil {
			return err
		}
	}
	var r featureRef
	s := 0
	for b := l.raw; len(b) > 0; {
		g, rest, _ := next(b)
		b = rest
		if g.num != fieldFeatureListFeature || g.typ != protowire.BytesType {
			continue
		}
		scanFeature(g.val, g.val, &r)
		if err := fn(s, &r); err != nil {
			return err
		}
		s++
	}
	return nil
}

func (p *SequenceParser) scan(rec []byte, r *seqRecord) *wireError {
	r.ctx = make([]featureRef, len(p.ctx.slotNames))
	r.lists = make([]listRef, len(p.seq.slotNames))
	if p.reference {
		return p.scanMessage(rec, r)
	}
	for b := rec; len(b) > 0; {
		f, rest, bad := next(b)
		if bad != "" {
			return &wireError{offset: offsetIn(rec, b), what: bad}
		}
		b = rest
		if f.typ != protowire.BytesType {
			continue
		}
		var werr *wireError
		switch f.num {
		case fieldSequenceContext:
			werr = scanMap(rec, f.val, p.ctx, func(slot int, value []byte) *wireError {
				if werr := scanFeature(rec, value, &r.ctx[slot]); werr != nil {
					werr.feature = p.ctx.slotNames[slot]
					return werr
				}
				return nil
			})
		case fieldSequenceLists:
			werr = scanMap(rec, f.val, p.seq, func(slot int, value []byte) *wireError {
				l := listRef{present: true, raw: value}
				var step featureRef
				for b := value; len(b) > 0; {
					g, rest, bad := next(b)
					if bad != "" {
						return &wireError{offset: offsetIn(rec, b), feature: p.seq.slotNames[slot], what: bad}
					}
					b = rest
					if g.num != fieldFeatureListFeature || g.typ != protowire.BytesType {
						continue
					}
					if werr := scanFeature(rec, g.val, &step); werr != nil {
						werr.feature = p.seq.slotNames[slot]
						return werr
					}
					l.add(&step)
				}
				r.lists[slot] = l
				return nil
			})
		}
		if werr != nil {
			return werr
		}
	}
	return nil
}

// scanMessage is the reference path: proto.Unmarshal, then a walk.
func (p *SequenceParser) scanMessage(rec []byte, r *seqRecord) *wireError {
	var se pb.SequenceExample
	if err := proto.Unmarshal(rec, &se); err != nil {
		return unmarshalError(err)
	}
	cm := se.GetContext().GetFeature()
	for slot, name := range p.ctx.slotNames {
		if f, ok := cm[name]; ok {
			r.ctx[slot] = refFromMessage(f)
		}
	}
	lm := se.GetFeatureLists().GetFeatureList()
	for slot, name := range p.seq.slotNames {
		if fl, ok := lm[name]; ok {
			l := listRef{present: true, msgs: fl.GetFeature()}
			for _, f := range l.msgs {
				step := refFromMessage(f)
				l.add(&step)
			}
			r.lists[slot] = l
		}
	}
	return nil
}

// ParseSingle parses one serialized SequenceExample
// (tf.io.parse_single_sequence_example). Context outputs are as
// Parser.ParseSingle's; a FixedLenSequence feature list gives [steps]+shape
// and a VarLen one a sparse tensor with indices [[step, j]] and dense
// shape [steps, max count].
func (p *SequenceParser) ParseSingle(serialized []byte, key string) (context, featureLists *Parsed, err error) {
	c, l, err := p.Parse([][]byte{serialized}, []string{key})
	if err != nil {
		return nil, nil, err
	}
	return c.unbatch(), l.unbatch(), nil
}

// Parse parses a batch of serialized SequenceExamples
// (tf.io.parse_sequence_example). Context outputs are as Parser.Parse's.
// A FixedLenSequence feature list gives [batch, max steps]+shape, padded
// with its default (zero when none); a VarLen one gives indices
// [[i, step, j]] and dense shape [batch, max steps, max count]. Every
// feature list's step counts are given by Parsed.Lengths (TensorFlow gives
// them for dense feature lists only; a VarLen list's trailing empty steps
// show in no index, so only its lengths tell them).
func (p *SequenceParser) Parse(serialized [][]byte, keys []string) (context, featureLists *Parsed, err error) {
	recs := make([]seqRecord, len(serialized))
	nc := len(p.ctx.slotNames)
	ctxRefs := make([]featureRef, len(serialized)*nc)
	for i, rec := range serialized {
		if werr := p.scan(rec, &recs[i]); werr != nil {
			return nil, nil, werr.toParseError(recordName(keys, i), i, "SequenceExample")
		}
		copy(ctxRefs[i*nc:], recs[i].ctx)
	}
	context, err = p.ctx.build(ctxRefs, len(serialized), keys, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	featureLists, err = p.buildLists(recs, keys)
	if err != nil {
		return nil, nil, err
	}
	return context, featureLists, nil
}

// ParseSingleSequence parses one serialized SequenceExample; see
// SequenceParser.ParseSingle. key names the record in errors.
func ParseSingleSequence(serialized []byte, context, featureLists Spec, key string) (ctx, lists *Parsed, err error) {
	p, err := NewSequenceParser(context, featureLists)
	if err != nil {
		return nil, nil, err
	}
	return p.ParseSingle(serialized, key)
}

// ParseSequence parses a batch of serialized SequenceExamples; see
// SequenceParser.Parse. keys name the records in errors; it may be nil.
func ParseSequence(serialized [][]byte, context, featureLists Spec, keys []string) (ctx, lists *Parsed, err error) {
	p, err := NewSequenceParser(context, featureLists)
	if err != nil {
		return nil, nil, err
	}
	return p.Parse(serialized, keys)
}

// listError is an error about feature list list of the record called
// name; the caller sets its Record.
func listError(sentinel error, name, list string, format string, args ...any) *dataerr.Error {
	return at(&ParseError{Feature: list, At: -1, Err: sentinel,
		msg: fmt.Sprintf("Name: %s, ", name) + fmt.Sprintf(format, args...)}, name, -1)
}

func (p *SequenceParser) buildLists(recs []seqRecord, keys []string) (*Parsed, error) {
	n := len(recs)
	pl := p.seq
	out := &Parsed{
		names:   make([]string, len(pl.feats)),
		kinds:   make([]Kind, len(pl.feats)),
		dense:   make([]tensor.Tensor, len(pl.feats)),
		sparse:  make([]tensor.Sparse, len(pl.feats)),
		lengths: make([]tensor.Tensor, len(pl.feats)),
	}
	for fi := range pl.feats {
		c := &pl.feats[fi]
		out.names[fi], out.kinds[fi] = c.name, c.kind
		maxSteps, maxCount, total := 0, 0, 0
		lengths := make([]int64, n)
		for i := range recs {
			name := recordName(keys, i)
			l := &recs[i].lists[c.slot]
			if !l.present && c.kind == KindFixedLenSequence && !c.allowMissing {
				err := listError(ErrMissing, name, c.name, "Feature list '%s' is required but could not be found.  "+
					"Did you mean to include it in feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?", c.name)
				err.Record = int64(i)
				return nil, err
			}
			bad := -1
			for _, k := range []listKind{kindBytes, kindFloat, kindInt64} {
				if k != c.list && l.seen[k] && (bad < 0 || l.first[k] < bad) {
					bad = l.first[k]
				}
			}
			if bad >= 0 {
				err := listError(ErrDTypeMismatch, name, c.name, "Feature list: %s, Index: %d.  Data types don't match. Expected type: %s",
					c.name, bad, c.dtype.TFName())
				err.Record = int64(i)
				return nil, err
			}
			count := l.count[c.list]
			if c.kind == KindFixedLenSequence && (c.rowSize == 0 && count > 0 || c.rowSize > 0 && count%c.rowSize != 0) {
				err := listError(ErrValueCount, name, c.name, "Feature list '%s' has an unexpected number of values.  "+
					"Total values size: %d is not consistent with output shape: %v", c.name, count, c.shape.Prepend(tensor.Unknown))
				err.Record = int64(i)
				return nil, err
			}
			total += count
			maxCount = max(maxCount, l.maxCount[c.list])
			maxSteps = max(maxSteps, l.steps)
			lengths[i] = int64(l.steps)
		}
		if c.kind == KindFixedLenSequence {
			t, err := c.buildListDense(recs, keys, maxSteps)
			if err != nil {
				return nil, err
			}
			out.dense[fi] = t
			out.lengths[fi] = tensor.New(lengths)
			continue
		}
		// VarLen: indices [i, step, j].
		indices := make([]int64, 0, 3*total)
		values := tensor.Zeros(c.dtype, tensor.Shape{total})
		off := 0
		for i := range recs {
			recs[i].lists[c.slot].each(func(s int, r *featureRef) error {
				if r.kind == kindNone {
					return nil
				}
				decode(r, values, off)
				off += r.count
				for j := range r.count {
					indices = append(indices, int64(i), int64(s), int64(j))
				}
				return nil
			})
		}
		ownStrings(values)
		out.lengths[fi] = tensor.New(lengths)
		out.sparse[fi] = tensor.Sparse{Indices: tensor.New(indices, total, 3), Values: values,
			DenseShape: tensor.Shape{n, maxSteps, maxCount}}
	}
	return out, nil
}

// buildListDense decodes a FixedLenSequence feature list of every record
// into [n, maxSteps]+shape, padded with the default. Each step must hold
// exactly the values of one row, as in TensorFlow: a total that is a
// multiple of the row (checked by the caller) may still be spread wrongly
// over the steps, and must not be moved across them.
func (c *compiled) buildListDense(recs []seqRecord, keys []string, maxSteps int) (tensor.Tensor, error) {
	// Check before allocating: the output's size is steps times the row,
	// and only steps that hold their rows tie it to the record's size.
	for i := range recs {
		l := &recs[i].lists[c.slot]
		if l.steps == 0 || l.minAll == c.rowSize && l.maxAll == c.rowSize {
			continue
		}
		err := l.each(func(s int, r *featureRef) error {
			if r.count == c.rowSize {
				return nil
			}
			err := listError(ErrValueCount, recordName(keys, i), c.name, "Key: %s, Index: %d.  Number of values != expected.  "+
				"values size: %d but output shape: %v", c.name, s, r.count, c.shape)
			err.Record = int64(i)
			return err
		})
		if err != nil {
			return tensor.Tensor{}, err
		}
	}
	n := len(recs)
	shape := append(tensor.Shape{n, maxSteps}, c.shape...)
	if err := tensor.CheckMemory(c.dtype, shape); err != nil {
		return tensor.Tensor{}, c.paddingError(err, shape, n, keys, func(i int) int { return recs[i].lists[c.slot].steps })
	}
	t := tensor.Zeros(c.dtype, shape)
	if c.def.IsValid() {
		switch c.dtype {
		case tensor.Float32:
			fillRepeat(t.Float32s(), c.def.Float32s()[:1])
		case tensor.Int64:
			fillRepeat(t.Int64s(), c.def.Int64s()[:1])
		case tensor.String:
			fillRepeat(t.Strings(), c.def.Strings()[:1])
		}
	}
	row := maxSteps * c.rowSize
	for i := range recs {
		off := i * row
		recs[i].lists[c.slot].each(func(_ int, r *featureRef) error {
			if r.kind != kindNone {
				decode(r, t, off)
				off += r.count
			}
			return nil
		})
	}
	ownStrings(t)
	return t, nil
}

// Lengths returns the number of steps of each record, int64 [batch], for
// a feature list parsed by SequenceParser.Parse (TensorFlow's
// feature_list lengths, which it gives for dense feature lists only) and
// for a FixedLenSequence feature parsed by Parser.Parse, where it tells
// the steps of a record from the padding of the batch's longer ones (its
// values over the step's size; none when it is missing).
// TensorFlow's parse_example gives no such output. ParseSingle's outputs
// have no lengths: their steps are the dense tensor's first dimension.
func (p *Parsed) Lengths(name string) (tensor.Tensor, bool) {
	i := p.index(name)
	if i < 0 || i >= len(p.lengths) || !p.lengths[i].IsValid() {
		return tensor.Tensor{}, false
	}
	return p.lengths[i], true
}
