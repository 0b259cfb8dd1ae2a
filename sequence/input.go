package sequence

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// InferLength as an Input's Length asks BatchSequencesWithStates (with
// padding on) to take the length from the sequences, before padding, as
// TensorFlow does for input_length=None.
const InferLength = -1

// Input is one example for a state saver: TensorFlow's input_key,
// input_length, input_sequences and input_context.
//
// Every sequence has time as its first dimension, of the same size in all
// of them: the padded length, which must be a non-zero multiple of
// num_unroll (BatchSequencesWithStates pads to it). The other dimensions
// must be the same in every example. Sparse sequences have time as the
// first dimension of their dense shape. Context values are copied to every
// segment of the example.
type Input struct {
	// Key identifies the example; it must be unique among the examples in
	// the state saver at one time.
	Key string
	// Length is the length of the sequences before padding, at most the
	// padded length.
	Length int

	Sequences       map[string]tensor.Tensor
	SparseSequences map[string]tensor.Sparse
	Context         map[string]tensor.Tensor
	SparseContext   map[string]tensor.Sparse

	// InitialStates, if set, replaces some of the state saver's initial
	// states for this example (TensorFlow's initial states may be computed
	// per example). Each must have the declared state's type and shape.
	InitialStates map[string]tensor.Tensor
}

// A layout is the names, types and shapes of an example's parts, fixed by
// the first example a state saver receives; every later example must
// match it, as TensorFlow's barrier fixes its component shapes.
type layout struct {
	seqNames, sparseSeqNames, ctxNames, sparseCtxNames []string
	seqTypes, sparseSeqTypes, ctxTypes, sparseCtxTypes []tensor.DType
	seqShapes, ctxShapes                               []tensor.Shape // seqShapes without the time dimension
	sparseSeqRanks, sparseCtxRanks                     []int
	allSeq                                             []string // dense and sparse, sorted
}

// An example is a prefetched input, split into segments. It is immutable
// once built, and lives until its last segment is taken.
type example struct {
	key        string
	keys       []string // key of each segment
	stop       string   // the next key of the last segment
	length     int
	count      int
	seqs       []tensor.Tensor   // by layout.seqNames, [padded]+shape
	sparseSeqs [][]tensor.Sparse // by layout.sparseSeqNames, then segment
	ctx        []tensor.Tensor
	sparseCtx  []tensor.Sparse

	// What stays with the example while it is recycled (see
	// StateSaver.newExample): its slot, the handles of its segments, and
	// the memory of its keys and dense parts, at first room for those of
	// a typical example in the example itself.
	slot     int64         // its index in StateSaver.slots, for good
	handles  tensor.Tensor // [n, 2] int64: (slot, segment) for segments 0..n-1
	parts    []tensor.Tensor
	keyRoom  [8]string
	partRoom [4]tensor.Tensor
}

// release drops what e refers to of its input, before it is reused.
func (e *example) release() {
	clear(e.keys)
	clear(e.parts)
	clear(e.sparseSeqs)
	clear(e.sparseCtx)
	e.key, e.stop = "", ""
	e.keys, e.parts = e.keys[:0], e.parts[:0]
	e.seqs, e.ctx = nil, nil
	e.sparseSeqs, e.sparseCtx = e.sparseSeqs[:0], e.sparseCtx[:0]
}

// setHandles makes e.handles hold the handles of count segments.
func (e *example) setHandles(count int) {
	if e.handles.IsValid() && e.handles.Len() >= count {
		return
	}
	h := make([]int64, 2*count)
	for i := range count {
		h[2*i], h[2*i+1] = e.slot, int64(i)
	}
	e.handles = tensor.New(h, count, 2)
}

// segmentKey is the key of segment s of count, "%05d_of_%05d:%s" (SQ-07).
func segmentKey(s, count int, key string) string {
	return string(appendSegmentKey(make([]byte, 0, 15+len(key)), s, count, key))
}

func appendSegmentKey(b []byte, s, count int, key string) []byte {
	b = appendPadded(b, s)
	b = append(b, "_of_"...)
	b = appendPadded(b, count)
	b = append(b, ':')
	return append(b, key...)
}

// A keyArena makes the strings of examples' segment keys, those of many
// examples in one allocation: a chunk that is only ever appended to,
// of which every key is a substring, so no string changes once made. A
// key kept keeps its chunk, keyChunk bytes at most, alive.
type keyArena struct {
	mu sync.Mutex
	sb strings.Builder // the current chunk; a Builder's String is its buffer, not a copy
}

// keyChunk is the size of a keyArena's chunk: a few dozen examples' keys.
const keyChunk = 4 << 10

// segmentKeys returns the keys of an example's count segments and the
// next key of its last one, stopKey(key): substrings of one string, in a
// chunk of a (nil: made for them), where a string each would make an
// example's keys its most frequent allocation.
//
// keys is room for the keys, used when it is large enough.
func (a *keyArena) segmentKeys(count int, key string, keys []string) (_ []string, stop string) {
	// Keys are 15 bytes and the input key long up to 99999 segments;
	// beyond, "%05d" takes more digits.
	size := 5 + len(key)
	for s := range count {
		size += segmentKeyLen(s, count, key)
	}
	var all string
	if a == nil || size > keyChunk/4 {
		// Too large to share a chunk well.
		var sb strings.Builder
		sb.Grow(size)
		writeSegmentKeys(&sb, count, key)
		all = sb.String()
	} else {
		a.mu.Lock()
		if a.sb.Cap()-a.sb.Len() < size {
			// A new chunk; the old one lives while its keys do.
			a.sb = strings.Builder{}
			a.sb.Grow(keyChunk)
		}
		start := a.sb.Len()
		writeSegmentKeys(&a.sb, count, key) // within the chunk's capacity: its bytes stay where they are
		all = a.sb.String()[start:]
		a.mu.Unlock()
	}
	if cap(keys) < count {
		keys = make([]string, count)
	}
	keys = keys[:count]
	off := 0
	for s := range keys {
		n := segmentKeyLen(s, count, key)
		keys[s] = all[off : off+n]
		off += n
	}
	return keys, all[off:]
}

// segmentKeyLen is the length of segmentKey(s, count, key).
func segmentKeyLen(s, count int, key string) int {
	return paddedLen(s) + len("_of_") + paddedLen(count) + len(":") + len(key)
}

// paddedLen is the length of appendPadded's n: 5 digits, or more.
func paddedLen(n int) int {
	w := 5
	for ; n >= 100000; n /= 10 {
		w++
	}
	return w
}

// writeSegmentKeys writes the keys of count segments of key and the stop
// key to sb.
func writeSegmentKeys(sb *strings.Builder, count int, key string) {
	var digits [48]byte
	for s := range count {
		sb.Write(appendSegmentKey(digits[:0], s, count, ""))
		sb.WriteString(key)
	}
	sb.WriteString("STOP:")
	sb.WriteString(key)
}

// appendPadded appends n in decimal, zero-padded to 5 digits (%05d).
func appendPadded(b []byte, n int) []byte {
	for d := 10000; d > 1 && n < d; d /= 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(n), 10)
}

// nextKey returns the next key of segment s.
func (e *example) nextKey(s int) string {
	if s+1 < e.count {
		return e.keys[s+1]
	}
	return e.stop
}

// segmentLength is the unpadded length of segment s, SQ-07.
func segmentLength(length, u, s int) int {
	return min(u, max(0, length-s*u))
}

// checkNames enforces SQ-02's rules on a map's names.
func checkNames[V any](kind string, m map[string]V) error {
	for k := range m {
		if strings.Contains(k, ":") {
			return invalidf("%s key may not have a colon: '%s'", kind, k)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// layoutOf returns in's layout. It also checks the parts of in that do
// not depend on other examples (SQ-02, SQ-03).
func layoutOf(in *Input) (*layout, error) {
	if len(in.Sequences)+len(in.SparseSequences) == 0 {
		return nil, invalidf("must have at least one sequence tensor")
	}
	for _, err := range []error{
		checkNames("sequence", in.Sequences), checkNames("sequence", in.SparseSequences),
		checkNames("context", in.Context), checkNames("context", in.SparseContext),
	} {
		if err != nil {
			return nil, err
		}
	}
	for k := range in.SparseSequences {
		if _, ok := in.Sequences[k]; ok {
			return nil, invalidf("sequence %s is both dense and sparse", k)
		}
	}
	for k := range in.SparseContext {
		if _, ok := in.Context[k]; ok {
			return nil, invalidf("context %s is both dense and sparse", k)
		}
	}
	l := &layout{
		seqNames: sortedKeys(in.Sequences), sparseSeqNames: sortedKeys(in.SparseSequences),
		ctxNames: sortedKeys(in.Context), sparseCtxNames: sortedKeys(in.SparseContext),
	}
	for _, k := range l.seqNames {
		t := in.Sequences[k]
		if !t.IsValid() || t.Rank() == 0 {
			return nil, invalidf("Shape for sequence %s is not fully defined (ignoring first dimension): %v: a sequence needs a time dimension", k, t.Shape())
		}
		l.seqTypes = append(l.seqTypes, t.DType())
		l.seqShapes = append(l.seqShapes, t.Shape()[1:].Clone())
	}
	for _, k := range l.ctxNames {
		t := in.Context[k]
		if !t.IsValid() {
			return nil, invalidf("Shape for context %s is not fully defined: no tensor", k)
		}
		l.ctxTypes = append(l.ctxTypes, t.DType())
		l.ctxShapes = append(l.ctxShapes, t.Shape().Clone())
	}
	for _, k := range l.sparseSeqNames {
		sp := in.SparseSequences[k]
		if err := checkSparse(sp); err != nil {
			return nil, invalidf("sparse sequence %s: %v", k, err)
		}
		if len(sp.DenseShape) == 0 {
			return nil, invalidf("sparse sequence %s needs a time dimension, got dense shape %v", k, sp.DenseShape)
		}
		l.sparseSeqTypes = append(l.sparseSeqTypes, sp.Values.DType())
		l.sparseSeqRanks = append(l.sparseSeqRanks, len(sp.DenseShape))
	}
	for _, k := range l.sparseCtxNames {
		sp := in.SparseContext[k]
		if err := checkSparse(sp); err != nil {
			return nil, invalidf("sparse context %s: %v", k, err)
		}
		l.sparseCtxTypes = append(l.sparseCtxTypes, sp.Values.DType())
		l.sparseCtxRanks = append(l.sparseCtxRanks, len(sp.DenseShape))
	}
	l.allSeq = append(slices.Clone(l.seqNames), l.sparseSeqNames...)
	slices.Sort(l.allSeq)
	return l, nil
}

// fits reports whether in has exactly layout l, without allocating: the
// common case, where layoutOf's checks and messages are not needed. Sparse
// tensors' indices are checked separately.
func (l *layout) fits(in *Input) bool {
	if len(in.Sequences) != len(l.seqNames) || len(in.Context) != len(l.ctxNames) ||
		len(in.SparseSequences) != len(l.sparseSeqNames) || len(in.SparseContext) != len(l.sparseCtxNames) {
		return false
	}
	for i, k := range l.seqNames {
		t, ok := in.Sequences[k]
		if !ok || t.DType() != l.seqTypes[i] || t.Rank() == 0 || !t.Shape()[1:].Equal(l.seqShapes[i]) {
			return false
		}
	}
	for i, k := range l.ctxNames {
		t, ok := in.Context[k]
		if !ok || t.DType() != l.ctxTypes[i] || !t.Shape().Equal(l.ctxShapes[i]) {
			return false
		}
	}
	for i, k := range l.sparseSeqNames {
		sp, ok := in.SparseSequences[k]
		if !ok || sp.Values.DType() != l.sparseSeqTypes[i] || len(sp.DenseShape) != l.sparseSeqRanks[i] {
			return false
		}
	}
	for i, k := range l.sparseCtxNames {
		sp, ok := in.SparseContext[k]
		if !ok || sp.Values.DType() != l.sparseCtxTypes[i] || len(sp.DenseShape) != l.sparseCtxRanks[i] {
			return false
		}
	}
	return true
}

// checkSparseParts runs checkSparse on in's sparse tensors.
func checkSparseParts(in *Input, l *layout) error {
	for _, k := range l.sparseSeqNames {
		if err := checkSparse(in.SparseSequences[k]); err != nil {
			return invalidf("sparse sequence %s: %v", k, err)
		}
	}
	for _, k := range l.sparseCtxNames {
		if err := checkSparse(in.SparseContext[k]); err != nil {
			return invalidf("sparse context %s: %v", k, err)
		}
	}
	return nil
}

// checkSparse checks that a sparse tensor is well formed and its indices
// lie inside its dense shape.
func checkSparse(sp tensor.Sparse) error {
	if err := sp.Validate(); err != nil {
		return err
	}
	rank := len(sp.DenseShape)
	for _, d := range sp.DenseShape {
		if d < 0 {
			return fmt.Errorf("negative dense shape %v", sp.DenseShape)
		}
	}
	idx := sp.Indices.Int64s()
	for i := range sp.NNZ() {
		for d := range rank {
			if v := idx[i*rank+d]; v < 0 || v >= int64(sp.DenseShape[d]) {
				return fmt.Errorf("index %d [%s] is out of bounds of dense shape %v", i, joinInts(idx[i*rank:(i+1)*rank]), sp.DenseShape)
			}
		}
	}
	return nil
}

// matches reports how l2, the layout of a later example, differs from l,
// the state saver's.
func (l *layout) matches(l2 *layout) error {
	if !slices.Equal(l.seqNames, l2.seqNames) || !slices.Equal(l.sparseSeqNames, l2.sparseSeqNames) {
		return invalidf("sequences %v differ from the first example's %v", append(l2.seqNames, l2.sparseSeqNames...), append(l.seqNames, l.sparseSeqNames...))
	}
	if !slices.Equal(l.ctxNames, l2.ctxNames) || !slices.Equal(l.sparseCtxNames, l2.sparseCtxNames) {
		return invalidf("context %v differs from the first example's %v", append(l2.ctxNames, l2.sparseCtxNames...), append(l.ctxNames, l.sparseCtxNames...))
	}
	for i, k := range l.seqNames {
		if l.seqTypes[i] != l2.seqTypes[i] || !l.seqShapes[i].Equal(l2.seqShapes[i]) {
			return invalidf("sequence %s is %v %v, want %v %v as in the first example", k,
				l2.seqTypes[i], l2.seqShapes[i].Prepend(tensor.Unknown), l.seqTypes[i], l.seqShapes[i].Prepend(tensor.Unknown))
		}
	}
	for i, k := range l.ctxNames {
		if l.ctxTypes[i] != l2.ctxTypes[i] || !l.ctxShapes[i].Equal(l2.ctxShapes[i]) {
			return invalidf("context %s is %v %v, want %v %v as in the first example", k, l2.ctxTypes[i], l2.ctxShapes[i], l.ctxTypes[i], l.ctxShapes[i])
		}
	}
	for i, k := range l.sparseSeqNames {
		if l.sparseSeqTypes[i] != l2.sparseSeqTypes[i] || l.sparseSeqRanks[i] != l2.sparseSeqRanks[i] {
			return invalidf("sparse sequence %s is %v of rank %d, want %v of rank %d as in the first example", k,
				l2.sparseSeqTypes[i], l2.sparseSeqRanks[i], l.sparseSeqTypes[i], l.sparseSeqRanks[i])
		}
	}
	for i, k := range l.sparseCtxNames {
		if l.sparseCtxTypes[i] != l2.sparseCtxTypes[i] || l.sparseCtxRanks[i] != l2.sparseCtxRanks[i] {
			return invalidf("sparse context %s is %v of rank %d, want %v of rank %d as in the first example", k,
				l2.sparseCtxTypes[i], l2.sparseCtxRanks[i], l.sparseCtxTypes[i], l.sparseCtxRanks[i])
		}
	}
	return nil
}

// timeLength returns the padded length of the sequence named k: dimension
// 0 of a dense sequence, of the dense shape of a sparse one.
func timeLength(in *Input, k string) int {
	if t, ok := in.Sequences[k]; ok {
		return t.Len()
	}
	return in.SparseSequences[k].DenseShape[0]
}

// segment checks in against the state saver's rules (SQ-04..06) and
// splits it into segments of u steps (SQ-07), in e, which is left as it
// is when in fails the checks.
func segment(in *Input, l *layout, u int, e *example, keys *keyArena) error {
	names := l.allSeq
	// SQ-04: the padded length is that of the alphabetically first
	// sequence, and must be a non-zero multiple of num_unroll.
	padded := timeLength(in, names[0])
	if padded == 0 || padded%u != 0 {
		return invalidf("Tensor padded_length should be a multiple of: %d, but saw value: %d. Consider setting pad=True.", u, padded)
	}
	// SQ-05: every sequence has the padded length.
	for _, k := range names[1:] {
		if n := timeLength(in, k); n != padded {
			shape := in.SparseSequences[k].DenseShape
			if t, ok := in.Sequences[k]; ok {
				shape = t.Shape()
			}
			return invalidf("Dimension 0 of tensor labeled sorted_sequences_%s should be: %d, shape received: %s", k, padded, joinInts(shape))
		}
	}
	// SQ-06.
	if in.Length < 0 {
		return invalidf("Input length must be non-negative, got %d", in.Length)
	}
	if in.Length > padded {
		return invalidf("Input length should be <= than length from sequences: %d vs. %d", in.Length, padded)
	}
	if in.Length > math.MaxInt32 {
		return invalidf("Input length %d does not fit in int32", in.Length)
	}
	count := padded / u // beyond 99999, "%05d" takes more digits, as in TensorFlow's keys
	e.key, e.length, e.count = in.Key, in.Length, count
	e.keys, e.stop = keys.segmentKeys(count, in.Key, e.keys[:0])
	// The dense sequences and context in one slice.
	parts := e.parts[:0]
	for _, k := range l.seqNames {
		parts = append(parts, in.Sequences[k])
	}
	for _, k := range l.ctxNames {
		parts = append(parts, in.Context[k])
	}
	e.parts = parts
	e.seqs, e.ctx = parts[:len(l.seqNames):len(l.seqNames)], parts[len(l.seqNames):]
	for _, k := range l.sparseSeqNames {
		e.sparseSeqs = append(e.sparseSeqs, splitSparse(in.SparseSequences[k], u, count))
	}
	for _, k := range l.sparseCtxNames {
		e.sparseCtx = append(e.sparseCtx, in.SparseContext[k])
	}
	return nil
}

// joinInts formats dimensions as TensorFlow's as_string and string_join
// print a shape vector: "34" or "34 5".
func joinInts[T int | int64](v []T) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(int64(x), 10)
	}
	return strings.Join(parts, " ")
}

// padInput pads every sequence of in at the end to the next multiple of u
// (BSWS-02, BSWS-03; SAMPLING.md section 5) and fills in an inferred
// length. The input's tensors are not modified; padded ones are new.
func padInput(in *Input, u int) error {
	names := append(sortedKeys(in.Sequences), sortedKeys(in.SparseSequences)...)
	if len(names) == 0 {
		return nil
	}
	lengths := make([]int, len(names))
	for i, k := range names {
		if t, ok := in.Sequences[k]; ok {
			if !t.IsValid() || t.Rank() == 0 {
				return invalidf("Shape for sequence %s is not fully defined (ignoring first dimension): %v: a sequence needs a time dimension", k, t.Shape())
			}
			lengths[i] = t.Len()
		} else {
			sp := in.SparseSequences[k]
			if len(sp.DenseShape) == 0 {
				return invalidf("sparse sequence %s needs a time dimension, got dense shape %v", k, sp.DenseShape)
			}
			lengths[i] = sp.DenseShape[0]
		}
	}
	length := lengths[0]
	for _, n := range lengths[1:] {
		if n != length {
			return invalidf("All sequence lengths must match, but received lengths: %v", lengths)
		}
	}
	padded := length + (u-length%u)%u
	if in.Length == InferLength {
		in.Length = length
	}
	if padded == length {
		return nil
	}
	seqs := make(map[string]tensor.Tensor, len(in.Sequences))
	for k, t := range in.Sequences {
		shape := t.Shape().Clone()
		shape[0] = padded
		p, err := tensor.PadTo(t, shape)
		if err != nil {
			return fmt.Errorf("sequence %s: %w", k, errors.Join(err, queue.ErrInvalidArgument))
		}
		seqs[k] = p
	}
	in.Sequences = seqs
	if len(in.SparseSequences) > 0 {
		sparse := make(map[string]tensor.Sparse, len(in.SparseSequences))
		for k, sp := range in.SparseSequences {
			sp.DenseShape = sp.DenseShape.Clone()
			sp.DenseShape[0] = padded
			sparse[k] = sp
		}
		in.SparseSequences = sparse
	}
	return nil
}
