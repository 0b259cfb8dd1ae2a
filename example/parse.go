package example

import (
	"fmt"
	"slices"

	"github.com/sluiceml/sluice/tensor"
)

// A Parser parses Examples for one Spec. It keeps the compiled spec and
// its scratch space between calls, so parsing batch after batch allocates
// only the output tensors. A Parser is not safe for concurrent use; give
// each goroutine its own.
type Parser struct {
	plan  *plan
	refs  []featureRef
	scan  func(rec []byte, p *plan, refs []featureRef) *wireError
	reuse []tensor.Tensor // FixedLen outputs kept for reuse, by feature; nil unless ReuseOutputs
	out   *Parsed         // the last Parse's, written over by the next with ReuseOutputs
	// components counts Parsed.Components' tensors, once ParseSingleInto
	// has needed it.
	components int
}

// ReuseOutputs makes p write the dense FixedLen outputs of each Parse into
// the tensors it returned from the previous call when the batch size is
// the same, instead of allocating new ones, and return the same *Parsed,
// written over. The caller must be done with a batch's Parsed and its
// FixedLen tensors before the next Parse. It is for loops that copy
// each batch elsewhere (into a model's input buffers, say); it saves the
// allocation and zeroing of the largest outputs.
func (p *Parser) ReuseOutputs() *Parser {
	p.reuse = make([]tensor.Tensor, len(p.plan.feats))
	return p
}

// NewParser compiles spec into a Parser.
func NewParser(spec Spec) (*Parser, error) {
	p, err := compile(spec, inExample)
	if err != nil {
		return nil, err
	}
	return &Parser{plan: p, scan: scanExample}, nil
}

// newReferenceParser is a Parser over the generated-message path, the
// reference the tests and fuzzers compare the fast path against.
func newReferenceParser(spec Spec) (*Parser, error) {
	p, err := NewParser(spec)
	if err == nil {
		p.scan = messageExample
	}
	return p, err
}

// Parse parses a batch of serialized Examples (tf.io.parse_example). Each
// output has a leading batch dimension: FixedLen [batch]+shape,
// FixedLenSequence [batch, max steps]+shape padded with its default,
// VarLen indices [[i, j]] and dense shape [batch, max count], SparseFeature
// indices [[i, index...]] and dense shape [batch]+size. keys name the
// records in errors (TensorFlow's example_names); it may be nil.
// String values are copied out of serialized.
func (p *Parser) Parse(serialized [][]byte, keys []string) (*Parsed, error) {
	ns := len(p.plan.slotNames)
	p.refs = slices.Grow(p.refs[:0], len(serialized)*ns)[:len(serialized)*ns]
	for i, rec := range serialized {
		if werr := p.scan(rec, p.plan, p.refs[i*ns:(i+1)*ns]); werr != nil {
			return nil, werr.toParseError(recordName(keys, i), i, "Example")
		}
	}
	if p.reuse == nil {
		return p.plan.build(p.refs, len(serialized), keys, nil, nil)
	}
	if p.out == nil {
		p.out = p.plan.newParsed()
	}
	return p.plan.build(p.refs, len(serialized), keys, p.reuse, p.out)
}

// ParseSingle parses one serialized Example (tf.io.parse_single_example):
// outputs have no batch dimension, VarLen indices are [[j]] with dense
// shape [count], and SparseFeature dense shape is its size. key names the
// record in errors.
func (p *Parser) ParseSingle(serialized []byte, key string) (*Parsed, error) {
	out, err := p.Parse([][]byte{serialized}, []string{key})
	if err != nil {
		return nil, err
	}
	return out.unbatch(), nil
}

// ParseSingleInto is ParseSingle for a loop that reuses memory: it
// returns the record's outputs as Parsed.Components would, writing each
// FixedLen float32 or int64 feature into dst's tensor at the same
// position when that tensor has the feature's type and shape, and making
// new tensors for the other outputs. dst is typically the Components of
// an earlier record the caller is done with (input.Recycled gives such
// an element to a pipeline's step); when it has one tensor per component,
// the returned slice is dst itself, else a new one. Once
// ParseSingleInto has overwritten a tensor of dst, the tensor's earlier
// values are gone, even if the call fails. Errors are ParseSingle's.
//
// For the common case of a spec of FixedLen numeric features, a parse
// into a fitting dst allocates nothing.
func (p *Parser) ParseSingleInto(dst []tensor.Tensor, serialized []byte, key string) ([]tensor.Tensor, error) {
	pl := p.plan
	ns := len(pl.slotNames)
	p.refs = slices.Grow(p.refs[:0], ns)[:ns]
	if werr := p.scan(serialized, pl, p.refs); werr != nil {
		return nil, werr.toParseError(singleName(key), 0, "Example")
	}
	if p.components == 0 {
		for i := range pl.feats {
			p.components += componentCount(pl.feats[i].kind)
		}
	}
	out := dst
	if len(out) != p.components {
		out = make([]tensor.Tensor, p.components)
	}
	k := 0
	for fi := range pl.feats {
		c := &pl.feats[fi]
		if c.kind == KindFixedLen && (c.dtype == tensor.Float32 || c.dtype == tensor.Int64) {
			r := &p.refs[c.slot]
			// Checked before a row is made: the spec's shape sizes it,
			// and a mistaken one (2^23 values for records of 4) made it
			// before the record said it was wrong (audit 113).
			if err := c.checkSingle(key, r); err != nil {
				return nil, err
			}
			t := out[k]
			if t.DType() != c.dtype || !t.Shape().Equal(c.shape) {
				t = tensor.Zeros(c.dtype, append(tensor.Shape{}, c.shape...))
			}
			c.fillSingle(t, r)
			out[k] = t
			k++
			continue
		}
		// The other kinds allocate their outputs anyway: build a batch
		// of one and take its row.
		d, sp, err := pl.buildFeature(fi, p.refs, 1, []string{key}, tensor.Tensor{})
		if err != nil {
			return nil, err
		}
		if c.kind == KindFixedLen || c.kind == KindFixedLenSequence {
			out[k] = unbatchDense(d)
			k++
			continue
		}
		sp = unbatchSparse(sp)
		shape := make([]int64, len(sp.DenseShape))
		for j, d := range sp.DenseShape {
			shape[j] = int64(d)
		}
		out[k], out[k+1], out[k+2] = sp.Indices, sp.Values, tensor.New(shape)
		k += 3
	}
	return out, nil
}

// componentCount is how many of Parsed.Components a feature of kind k
// has.
func componentCount(k Kind) int {
	if k == KindVarLen || k == KindSparse {
		return 3
	}
	return 1
}

// singleName is a single record's name in messages.
func singleName(key string) string {
	if key == "" {
		return unknownName
	}
	return key
}

// checkSingle returns the error of one record's float32 or int64 feature
// r if fillSingle cannot write it: absent without a default, of another
// kind, or of another number of values.
func (c *compiled) checkSingle(key string, r *featureRef) error {
	switch {
	case !r.present || r.kind == kindNone:
		if !c.defRow.IsValid() {
			return missingError(singleName(key), c.name, 0, c.dtype.TFName())
		}
	case r.kind != c.list:
		return c.typeMismatchFixed(singleName(key), 0, r)
	case r.count != c.rowSize:
		return featureError(ErrValueCount, singleName(key), c.name, 0,
			"Number of %s values != expected.  Values size: %d but output shape: %v", r.kind.name(), r.count, c.shape)
	}
	return nil
}

// fillSingle is buildFixedLen for one record of a float32 or int64
// feature that checkSingle found right, into out, of the feature's shape.
func (c *compiled) fillSingle(out tensor.Tensor, r *featureRef) {
	if !r.present || r.kind == kindNone {
		switch c.dtype {
		case tensor.Float32:
			copy(out.Float32s(), c.defRow.Float32s())
		case tensor.Int64:
			copy(out.Int64s(), c.defRow.Int64s())
		}
		return
	}
	decode(r, out, 0)
}

// Parse parses a batch of serialized Examples with spec; see Parser.Parse.
// To parse many batches, make a Parser once with NewParser.
func Parse(serialized [][]byte, spec Spec, keys []string) (*Parsed, error) {
	p, err := NewParser(spec)
	if err != nil {
		return nil, err
	}
	return p.Parse(serialized, keys)
}

// ParseSingle parses one serialized Example with spec; see
// Parser.ParseSingle. key names the record in errors.
func ParseSingle(serialized []byte, spec Spec, key string) (*Parsed, error) {
	p, err := NewParser(spec)
	if err != nil {
		return nil, err
	}
	return p.ParseSingle(serialized, key)
}

// build turns the refs of n records (n*len(slots), record-major) into
// output tensors.
// reuse, if not nil, holds FixedLen outputs to overwrite (see
// ReuseOutputs) and receives the new ones.
// out, if not nil, is a Parsed of pl's (newParsed) to write over.
func (pl *plan) build(refs []featureRef, n int, keys []string, reuse []tensor.Tensor, out *Parsed) (*Parsed, error) {
	if out == nil {
		out = pl.newParsed()
	}
	for fi := range pl.feats {
		c := &pl.feats[fi]
		out.names[fi], out.kinds[fi] = c.name, c.kind
		var prev tensor.Tensor
		if reuse != nil {
			prev = reuse[fi]
		}
		var err error
		out.dense[fi], out.sparse[fi], err = pl.buildFeature(fi, refs, n, keys, prev)
		if err != nil {
			return nil, err
		}
		if reuse != nil && c.kind == KindFixedLen {
			reuse[fi] = out.dense[fi]
		}
		if c.kind == KindFixedLenSequence {
			if out.lengths == nil {
				out.lengths = make([]tensor.Tensor, len(pl.feats))
			}
			out.lengths[fi] = c.stepCounts(out.lengths[fi], n, func(i int) *featureRef { return &refs[i*len(pl.slotNames)+c.slot] })
		}
	}
	return out, nil
}

// stepCounts returns each of n records' number of steps of c, a
// FixedLenSequence feature of Examples whose values buildSequenceDense
// has checked: its values over the step's size, none when it is missing.
// prev, the counts of an earlier batch, is written over if it fits.
func (c *compiled) stepCounts(prev tensor.Tensor, n int, ref func(int) *featureRef) tensor.Tensor {
	t := prev
	if !t.IsValid() || t.Len() != n {
		t = tensor.Zeros(tensor.Int64, tensor.Shape{n})
	}
	steps := t.Int64s()
	for i := range n {
		steps[i] = 0
		if r := ref(i); r.present && r.kind != kindNone && c.rowSize > 0 {
			steps[i] = int64(r.count / c.rowSize)
		}
	}
	return t
}

// newParsed returns an empty Parsed for pl's features.
func (pl *plan) newParsed() *Parsed {
	return &Parsed{
		names:  make([]string, len(pl.feats)),
		kinds:  make([]Kind, len(pl.feats)),
		dense:  make([]tensor.Tensor, len(pl.feats)),
		sparse: make([]tensor.Sparse, len(pl.feats)),
	}
}

// checkFirstBytes is the size of a FixedLen batch above which its records
// are checked before it is allocated. Below it the check is made as each
// row is written, in one pass, which costs a parse of small features
// about 5 % less.
const checkFirstBytes = 1 << 20

// buildFeature builds feature fi's output for n records: a dense tensor
// or a sparse one. prev, a FixedLen output of an earlier call, is
// overwritten if it fits.
func (pl *plan) buildFeature(fi int, refs []featureRef, n int, keys []string, prev tensor.Tensor) (tensor.Tensor, tensor.Sparse, error) {
	ns := len(pl.slotNames)
	c := &pl.feats[fi]
	ref := func(i, slot int) *featureRef { return &refs[i*ns+slot] }
	switch c.kind {
	case KindFixedLen:
		var shape tensor.Shape
		reuse := prev.IsValid() && prev.Len() == n && c.dtype != tensor.String
		if !reuse {
			// A row is at most MaxRowElements, but a batch of them
			// can still be more than a tensor may hold.
			shape = c.shape.Prepend(n)
			if _, err := shape.CheckedNumElements(); err != nil {
				return tensor.Tensor{}, tensor.Sparse{}, fmt.Errorf("example: feature %q: a batch of %d records: %w", c.name, n, err)
			}
		}
		dst := prev
		if !reuse {
			// A large batch is made only once every record is found to
			// fill its rows: its size is the spec's, which a mistaken
			// shape can make of any size, and only records that hold
			// their rows tie it to the data's (a shape of [2^30] for
			// records of 4 values asked for 256 GiB before the first
			// record said it was wrong, audit 112).
			if size := shape.NumElements() * max(c.dtype.Size(), 24); size > checkFirstBytes { // 24: a string's slice header
				if err := c.checkFixedLen(n, keys, func(i int) *featureRef { return ref(i, c.slot) }); err != nil {
					return tensor.Tensor{}, tensor.Sparse{}, err
				}
			}
			dst = tensor.Zeros(c.dtype, shape)
		}
		t, err := c.buildFixedLen(dst, n, keys, func(i int) *featureRef { return ref(i, c.slot) })
		return t, tensor.Sparse{}, err
	case KindFixedLenSequence:
		t, err := c.buildSequenceDense(n, keys, func(i int) *featureRef { return ref(i, c.slot) })
		return t, tensor.Sparse{}, err
	case KindVarLen:
		s, err := c.buildVarLen(n, keys, func(i int) *featureRef { return ref(i, c.slot) })
		return tensor.Tensor{}, s, err
	case KindSparse:
		s, err := c.buildSparse(n, keys, ref)
		return tensor.Tensor{}, s, err
	}
	return tensor.Tensor{}, tensor.Sparse{}, fmt.Errorf("example: feature %q has no kind", c.name)
}

// decode writes r's values into dst[off:], which has room for r.count.
func decode(r *featureRef, dst tensor.Tensor, off int) {
	switch r.kind {
	case kindFloat:
		r.floats(dst.Float32s()[off : off+r.count])
	case kindInt64:
		r.int64s(dst.Int64s()[off : off+r.count])
	case kindBytes:
		r.bytes(dst.Strings()[off : off+r.count])
	}
}

// ownStrings copies the strings of t, which alias records or defaults,
// into one new buffer, so the output outlives the input.
func ownStrings(t tensor.Tensor) {
	if t.DType() != tensor.String {
		return
	}
	ss := t.Strings()
	total := 0
	for _, s := range ss {
		total += len(s)
	}
	buf := make([]byte, 0, total)
	for i, s := range ss {
		start := len(buf)
		buf = append(buf, s...)
		ss[i] = buf[start:len(buf):len(buf)]
	}
}

func (c *compiled) typeMismatchFixed(name string, i int, r *featureRef) error {
	return featureError(ErrDTypeMismatch, name, c.name, i,
		"Data types don't match. Data type: %s but expected type: %s", r.kind.dtypeName(), c.dtype.TFName())
}

func (c *compiled) typeMismatchVar(name, feature string, i int, want tensor.DType, r *featureRef) error {
	return featureError(ErrDTypeMismatch, name, feature, i,
		"Data types don't match. Expected type: %s, Actual type: %s", want.TFName(), r.kind.dtypeName())
}

// checkFixedLen returns the error of the first of n records whose
// feature buildFixedLen cannot write.
func (c *compiled) checkFixedLen(n int, keys []string, ref func(int) *featureRef) error {
	for i := range n {
		if err := c.checkFixedRow(ref(i), keys, i); err != nil {
			return err
		}
	}
	return nil
}

// checkFixedRow returns the error of record i's feature r if it cannot
// be a row: absent without a default, of another kind, or of another
// number of values.
func (c *compiled) checkFixedRow(r *featureRef, keys []string, i int) error {
	switch {
	case !r.present || r.kind == kindNone:
		if !c.defRow.IsValid() {
			return missingError(recordName(keys, i), c.name, i, c.dtype.TFName())
		}
	case r.kind != c.list:
		return c.typeMismatchFixed(recordName(keys, i), i, r)
	case r.count != c.rowSize:
		return featureError(ErrValueCount, recordName(keys, i), c.name, i,
			"Number of %s values != expected.  Values size: %d but output shape: %v", r.kind.name(), r.count, c.shape)
	}
	return nil
}

// buildFixedLen fills out, of shape [n]+shape; every row is written.
func (c *compiled) buildFixedLen(out tensor.Tensor, n int, keys []string, ref func(int) *featureRef) (tensor.Tensor, error) {
	rs := c.rowSize
	for i := range n {
		r := ref(i)
		if r.present && r.kind == c.list && r.count == rs {
			decode(r, out, i*rs)
			continue
		}
		if err := c.checkFixedRow(r, keys, i); err != nil {
			return tensor.Tensor{}, err
		}
		// Absent, with a default.
		if err := out.SetRow(i, c.defRow); err != nil {
			return tensor.Tensor{}, err
		}
	}
	ownStrings(out)
	return out, nil
}

func (c *compiled) buildSequenceDense(n int, keys []string, ref func(int) *featureRef) (tensor.Tensor, error) {
	stride := c.rowSize
	maxSteps := 0
	for i := range n {
		r := ref(i)
		if !r.present || r.kind == kindNone {
			continue
		}
		if r.kind != c.list {
			return tensor.Tensor{}, c.typeMismatchFixed(recordName(keys, i), i, r)
		}
		if (stride == 0 && r.count > 0) || (stride > 0 && r.count%stride != 0) {
			return tensor.Tensor{}, featureError(ErrValueCount, recordName(keys, i), c.name, i,
				"Number of %s values is not a multiple of stride length. Saw %d values but output shape is: %v",
				r.kind.name(), r.count, c.shape.Prepend(tensor.Unknown))
		}
		if stride > 0 {
			maxSteps = max(maxSteps, r.count/stride)
		}
	}
	shape := append(tensor.Shape{n, maxSteps}, c.shape...)
	if err := tensor.CheckMemory(c.dtype, shape); err != nil {
		return tensor.Tensor{}, c.paddingError(err, shape, n, keys, func(i int) int {
			if r := ref(i); r.present && r.kind != kindNone && stride > 0 {
				return r.count / stride
			}
			return 0
		})
	}
	out := tensor.Zeros(c.dtype, shape)
	if c.def.IsValid() {
		switch c.dtype {
		case tensor.Float32:
			fillRepeat(out.Float32s(), c.def.Float32s()[:1])
		case tensor.Int64:
			fillRepeat(out.Int64s(), c.def.Int64s()[:1])
		case tensor.String:
			fillRepeat(out.Strings(), c.def.Strings()[:1])
		}
	}
	row := maxSteps * stride
	for i := range n {
		if r := ref(i); r.present && r.kind != kindNone {
			decode(r, out, i*row)
		}
	}
	ownStrings(out)
	return out, nil
}

func (c *compiled) buildVarLen(n int, keys []string, ref func(int) *featureRef) (tensor.Sparse, error) {
	total, maxCount := 0, 0
	for i := range n {
		r := ref(i)
		if !r.present || r.kind == kindNone {
			continue
		}
		if r.kind != c.list {
			return tensor.Sparse{}, c.typeMismatchVar(recordName(keys, i), c.name, i, c.dtype, r)
		}
		total += r.count
		maxCount = max(maxCount, r.count)
	}
	indices := make([]int64, 2*total)
	values := tensor.Zeros(c.dtype, tensor.Shape{total})
	off := 0
	for i := range n {
		r := ref(i)
		if !r.present || r.kind == kindNone {
			continue
		}
		decode(r, values, off)
		for j := range r.count {
			indices[2*(off+j)] = int64(i)
			indices[2*(off+j)+1] = int64(j)
		}
		off += r.count
	}
	ownStrings(values)
	return tensor.Sparse{Indices: tensor.New(indices, total, 2), Values: values, DenseShape: tensor.Shape{n, maxCount}}, nil
}

func (c *compiled) buildSparse(n int, keys []string, ref func(i, slot int) *featureRef) (tensor.Sparse, error) {
	rank := len(c.idx)
	total := 0
	for i := range n {
		name := recordName(keys, i)
		v := ref(i, c.slot)
		count := 0
		if v.present && v.kind != kindNone {
			if v.kind != c.list {
				return tensor.Sparse{}, c.typeMismatchVar(name, c.valueKey, i, c.dtype, v)
			}
			count = v.count
		}
		for k, s := range c.idx {
			r := ref(i, s)
			ic := 0
			if r.present && r.kind != kindNone {
				if r.kind != kindInt64 {
					return tensor.Sparse{}, c.typeMismatchVar(name, c.indexKeys[k], i, tensor.Int64, r)
				}
				ic = r.count
			}
			if ic != count {
				return tensor.Sparse{}, featureError(ErrValueCount, name, c.name, i,
					"Number of elements in indices (%d) and values (%d) do not match", ic, count)
			}
		}
		total += count
	}
	cols := rank + 1
	indices := make([]int64, cols*total)
	values := tensor.Zeros(c.dtype, tensor.Shape{total})
	var col []int64
	var perm []int
	off := 0
	for i := range n {
		v := ref(i, c.slot)
		if !v.present || v.kind == kindNone || v.count == 0 {
			continue
		}
		count := v.count
		decode(v, values, off)
		for e := range count {
			indices[(off+e)*cols] = int64(i)
		}
		for k, s := range c.idx {
			col = slices.Grow(col[:0], count)[:count]
			ref(i, s).int64s(col)
			for e, x := range col {
				indices[(off+e)*cols+1+k] = x
			}
		}
		if !c.sorted {
			sortSparse(indices[off*cols:(off+count)*cols], cols, values.Slice(off, off+count), &perm)
		}
		off += count
	}
	ownStrings(values)
	shape := append(tensor.Shape{n}, c.size...)
	return tensor.Sparse{Indices: tensor.New(indices, total, cols), Values: values, DenseShape: shape}, nil
}

// sortSparse orders one record's entries by index, lexicographically,
// keeping equal indices in their original order.
func sortSparse(indices []int64, cols int, values tensor.Tensor, perm *[]int) {
	count := values.Len()
	p := slices.Grow((*perm)[:0], count)[:count]
	for i := range p {
		p[i] = i
	}
	slices.SortStableFunc(p, func(a, b int) int {
		return slices.Compare(indices[a*cols+1:(a+1)*cols], indices[b*cols+1:(b+1)*cols])
	})
	*perm = p
	if slices.IsSorted(p) {
		return
	}
	idx := slices.Clone(indices)
	for dst, src := range p {
		copy(indices[dst*cols:(dst+1)*cols], idx[src*cols:(src+1)*cols])
	}
	switch vs := values.Data().(type) {
	case []float32:
		permute(vs, p)
	case []int64:
		permute(vs, p)
	case [][]byte:
		permute(vs, p)
	}
}

func permute[T any](vs []T, p []int) {
	old := slices.Clone(vs)
	for dst, src := range p {
		vs[dst] = old[src]
	}
}

// unbatch turns the outputs of a batch of one into single-record outputs.
func (p *Parsed) unbatch() *Parsed {
	// A record's steps are its dense tensor's leading dimension.
	p.lengths = nil
	for i, k := range p.kinds {
		switch k {
		case KindFixedLen, KindFixedLenSequence:
			p.dense[i] = unbatchDense(p.dense[i])
		case KindVarLen, KindSparse:
			p.sparse[i] = unbatchSparse(p.sparse[i])
		}
	}
	return p
}

// unbatchDense returns the one row of t, a batch of one.
func unbatchDense(t tensor.Tensor) tensor.Tensor {
	t, _ = t.Reshape(t.Shape()[1:])
	return t
}

// unbatchSparse drops the batch column of s, a batch of one.
func unbatchSparse(s tensor.Sparse) tensor.Sparse {
	cols := s.Indices.Shape()[1]
	nnz := s.Indices.Len()
	src := s.Indices.Int64s()
	idx := make([]int64, 0, nnz*(cols-1))
	for e := range nnz {
		idx = append(idx, src[e*cols+1:(e+1)*cols]...)
	}
	s.Indices = tensor.New(idx, nnz, cols-1)
	s.DenseShape = s.DenseShape[1:].Clone()
	return s
}
