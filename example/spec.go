package example

import (
	"fmt"
	"slices"

	"github.com/sluiceml/sluice/tensor"
)

// A Spec says which features to parse and how: it maps an output name to a
// FeatureSpec, as the features dict of tf.io.parse_example does. For
// FixedLen, VarLen and FixedLenSequence the output name is also the
// feature's name in the record; a SparseFeature reads the features it
// names instead.
type Spec map[string]FeatureSpec

// Kind is one of the four kinds of feature spec.
type Kind uint8

// The feature spec kinds, TensorFlow's FixedLenFeature, VarLenFeature,
// SparseFeature and FixedLenSequenceFeature.
const (
	KindFixedLen Kind = iota + 1
	KindVarLen
	KindSparse
	KindFixedLenSequence
)

// String returns the kind's name as the constructors spell it:
// "FixedLen", "VarLen", "SparseFeature", "FixedLenSequence".
func (k Kind) String() string {
	switch k {
	case KindFixedLen:
		return "FixedLen"
	case KindVarLen:
		return "VarLen"
	case KindSparse:
		return "SparseFeature"
	case KindFixedLenSequence:
		return "FixedLenSequence"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// A FeatureSpec describes one feature to parse. Make one with FixedLen,
// VarLen, SparseFeature or FixedLenSequence; WithDefault and AllowMissing
// return modified copies.
type FeatureSpec struct {
	kind         Kind
	dtype        tensor.DType
	shape        tensor.Shape
	def          tensor.Tensor
	allowMissing bool
	indexKeys    []string
	valueKey     string
	size         []int
	sorted       bool
}

// FixedLen is a dense feature of a fixed shape (tf.io.FixedLenFeature).
// The output of one record has the given shape (a scalar when no dims are
// given); a batch has [batch]+shape. A record must hold exactly as many
// values as the shape has elements; a missing feature takes the default,
// or is an error when there is none.
func FixedLen(dtype tensor.DType, shape ...int) FeatureSpec {
	return FeatureSpec{kind: KindFixedLen, dtype: dtype, shape: tensor.Shape(shape).Clone()}
}

// VarLen is a feature with any number of values, returned as a sparse
// tensor (tf.io.VarLenFeature): for one record indices [[j]] and dense
// shape [count]; for a batch indices [[i, j]] and dense shape [batch, max
// count].
func VarLen(dtype tensor.DType) FeatureSpec {
	return FeatureSpec{kind: KindVarLen, dtype: dtype}
}

// SparseFeature is a sparse tensor whose values come from the feature
// valueKey and whose indices come from the int64 features indexKeys, one
// per dimension (tf.io.SparseFeature); size is the dense shape. Entries are
// sorted by index within each record unless alreadySorted is true.
// Indices are not checked against size, as in TensorFlow. Each record must
// hold as many values as indices in each index key, or the parse fails
// (ErrValueCount, naming the record), where TensorFlow checks only a
// batch's totals (CONFORMANCE.md). A spec that also reads an index or
// value key as a dense feature, or as a sparse one of another dtype, is
// refused, as in TensorFlow.
func SparseFeature(indexKeys []string, valueKey string, dtype tensor.DType, size []int, alreadySorted bool) FeatureSpec {
	return FeatureSpec{kind: KindSparse, dtype: dtype, indexKeys: slices.Clone(indexKeys),
		valueKey: valueKey, size: slices.Clone(size), sorted: alreadySorted}
}

// FixedLenSequence is a dense feature whose leading dimension varies
// (tf.io.FixedLenSequenceFeature): its values are steps of the given
// shape. In a SequenceExample's feature lists each Feature of the list is
// one step; in an Example the flat value list is split into steps, and a
// batch is padded to the longest record with the default (zero when none
// is given). In an Example the spec must AllowMissing, as TensorFlow
// requires.
func FixedLenSequence(dtype tensor.DType, shape ...int) FeatureSpec {
	return FeatureSpec{kind: KindFixedLenSequence, dtype: dtype, shape: tensor.Shape(shape).Clone()}
}

// WithDefault returns f with a default value: for FixedLen, the value of a
// missing feature, either a scalar (repeated to fill the shape) or a
// tensor with as many elements as the shape; for FixedLenSequence, the
// scalar used to pad a batch. A FixedLen default of no elements (the
// shape has none, as [0]) is no default, as in TensorFlow: the feature is
// still required.
func (f FeatureSpec) WithDefault(v tensor.Tensor) FeatureSpec {
	f.def = v
	return f
}

// AllowMissing returns f, a FixedLenSequence spec, allowing the feature to
// be absent; it then has zero steps.
func (f FeatureSpec) AllowMissing() FeatureSpec {
	f.allowMissing = true
	return f
}

// Kind returns the spec's kind.
func (f FeatureSpec) Kind() Kind { return f.kind }

// DType returns the type of the parsed values.
func (f FeatureSpec) DType() tensor.DType { return f.dtype }

// Shape returns the shape of one record's value (FixedLen) or of one step
// (FixedLenSequence).
func (f FeatureSpec) Shape() tensor.Shape { return f.shape }

// listKind is the oneof case of a Feature, numbered as its field numbers.
type listKind uint8

const (
	kindNone  listKind = 0
	kindBytes listKind = 1
	kindFloat listKind = 2
	kindInt64 listKind = 3
)

// listName is the kind's name in TensorFlow's messages.
func (k listKind) name() string {
	switch k {
	case kindBytes:
		return "bytes"
	case kindFloat:
		return "float"
	case kindInt64:
		return "int64"
	}
	return "none"
}

// dtypeName is the list kind's dtype in TensorFlow's messages.
func (k listKind) dtypeName() string {
	switch k {
	case kindBytes:
		return "string"
	case kindFloat:
		return "float"
	case kindInt64:
		return "int64"
	}
	return "invalid"
}

func listKindOf(d tensor.DType) listKind {
	switch d {
	case tensor.String:
		return kindBytes
	case tensor.Float32:
		return kindFloat
	case tensor.Int64:
		return kindInt64
	}
	return kindNone
}

// MaxRowElements is the most values a spec's row may have: the elements
// of a FixedLen feature's shape, or of one step of a FixedLenSequence.
// A serialized record is at most 2 GiB (protobuf's limit on a message) and
// every value takes at least a byte of it, so no record could fill a
// larger row; a larger shape is a mistake, and with a default it would be
// allocated when the parser is built.
const MaxRowElements = 1<<31 - 1

// compiled is one spec entry prepared for parsing.
type compiled struct {
	name string
	FeatureSpec
	list    listKind
	slot    int   // slot of the feature read (value key for SparseFeature)
	idx     []int // slots of a SparseFeature's index keys
	rowSize int   // elements per record (FixedLen) or per step (FixedLenSequence)
	defRow  tensor.Tensor
}

// plan is a compiled Spec: its entries in sorted-name order and the record
// features they read, each given a slot.
type plan struct {
	feats     []compiled
	slots     map[string]int
	slotNames []string
	hint      []int // slot of each map entry position in the last record, -1 if unrequested
}

// context says where a spec is used, which limits the kinds it may hold.
type specContext uint8

const (
	inExample specContext = iota
	inContext
	inFeatureLists
)

func compile(spec Spec, where specContext) (*plan, error) {
	p := &plan{slots: make(map[string]int)}
	names := make([]string, 0, len(spec))
	for name := range spec {
		names = append(names, name)
	}
	slices.Sort(names)
	slot := func(name string) int {
		if s, ok := p.slots[name]; ok {
			return s
		}
		p.slots[name] = len(p.slotNames)
		p.slotNames = append(p.slotNames, name)
		return len(p.slotNames) - 1
	}
	keys := newKeyUse()
	for _, name := range names {
		f := spec[name]
		c := compiled{name: name, FeatureSpec: f, list: listKindOf(f.dtype)}
		if c.list == kindNone {
			return nil, fmt.Errorf("example: feature %q: %w: dtype %v (want float32, int64 or string)", name, ErrInvalidSpec, f.dtype)
		}
		for _, d := range f.shape {
			if d < 0 {
				return nil, fmt.Errorf("example: feature %q: %w: shape %v must be fully defined", name, ErrInvalidSpec, f.shape)
			}
		}
		rowSize, err := f.shape.CheckedNumElements()
		if err == nil && rowSize > MaxRowElements {
			err = fmt.Errorf("shape %v has %d elements, more than a record can hold (%d)", f.shape, rowSize, MaxRowElements)
		}
		if err != nil {
			return nil, fmt.Errorf("example: feature %q: %w: %w", name, ErrInvalidSpec, err)
		}
		c.rowSize = rowSize
		switch f.kind {
		case KindFixedLen:
			if where == inFeatureLists {
				return nil, fmt.Errorf("example: feature list %q: %w: FixedLen is for context features; use FixedLenSequence", name, ErrInvalidSpec)
			}
			if f.def.IsValid() {
				row, err := expandDefault(f.def, f.dtype, f.shape)
				if err != nil {
					return nil, fmt.Errorf("example: feature %q: %w: %v", name, ErrInvalidSpec, err)
				}
				// TensorFlow's kernel takes a default of no elements for
				// no default: such a feature is required.
				if row.NumElements() > 0 {
					c.defRow = row
				}
			}
			keys.dense(name, name)
			c.slot = slot(name)
		case KindVarLen:
			if err := keys.sparse(name, name, f.dtype); err != nil {
				return nil, err
			}
			c.slot = slot(name)
		case KindSparse:
			if where != inExample {
				return nil, fmt.Errorf("example: feature %q: %w: SparseFeature is only for Examples", name, ErrInvalidSpec)
			}
			if len(f.indexKeys) == 0 || len(f.indexKeys) != len(f.size) {
				return nil, fmt.Errorf("example: feature %q: %w: %d index keys for dense size %v", name, ErrInvalidSpec, len(f.indexKeys), f.size)
			}
			// The dense shape is only described, never allocated here, but
			// it must be one a tensor can have.
			if _, err := tensor.Shape(f.size).CheckedNumElements(); err != nil {
				return nil, fmt.Errorf("example: feature %q: %w: size: %w", name, ErrInvalidSpec, err)
			}
			// Index keys first, as TensorFlow adds them, so that a
			// conflict is told in its order.
			for _, k := range f.indexKeys {
				if err := keys.sparse(k, name, tensor.Int64); err != nil {
					return nil, err
				}
			}
			if err := keys.sparse(f.valueKey, name, f.dtype); err != nil {
				return nil, err
			}
			c.slot = slot(f.valueKey)
			for _, k := range f.indexKeys {
				c.idx = append(c.idx, slot(k))
			}
		case KindFixedLenSequence:
			switch where {
			case inContext:
				return nil, fmt.Errorf("example: feature %q: %w: FixedLenSequence is for feature lists", name, ErrInvalidSpec)
			case inExample:
				if !f.allowMissing {
					return nil, fmt.Errorf("example: feature %q: %w: Unsupported: FixedLenSequenceFeature requires allow_missing to be True.", name, ErrInvalidSpec)
				}
			}
			if f.def.IsValid() {
				if f.def.DType() != f.dtype || f.def.NumElements() != 1 {
					return nil, fmt.Errorf("example: feature %q: %w: padding default must be a %v scalar", name, ErrInvalidSpec, f.dtype)
				}
			}
			keys.dense(name, name)
			c.slot = slot(name)
		default:
			return nil, fmt.Errorf("example: feature %q: %w: zero FeatureSpec", name, ErrInvalidSpec)
		}
		p.feats = append(p.feats, c)
	}
	if err := keys.check(); err != nil {
		return nil, err
	}
	return p, nil
}

// keyUse records how a spec reads each record feature, to refuse the specs
// TensorFlow refuses when it builds its parse config: a key read both as
// dense (FixedLen, FixedLenSequence) and as sparse (VarLen, a
// SparseFeature's index or value key), and a key read as sparse with two
// dtypes. A key read as sparse twice with one dtype is allowed, as there.
// In a SequenceExample the context and the feature lists are separate
// namespaces (TensorFlow reads the same key in both) and neither has a
// SparseFeature, so only an Example's spec can conflict.
type keyUse struct {
	denseBy  map[string]string // key → the feature reading it as dense
	sparseBy map[string]sparseUse
}

type sparseUse struct {
	feature string
	dtype   tensor.DType
}

func newKeyUse() *keyUse {
	return &keyUse{denseBy: map[string]string{}, sparseBy: map[string]sparseUse{}}
}

func (u *keyUse) dense(key, feature string) { u.denseBy[key] = feature }

func (u *keyUse) sparse(key, feature string, dtype tensor.DType) error {
	prev, ok := u.sparseBy[key]
	if !ok {
		u.sparseBy[key] = sparseUse{feature, dtype}
		return nil
	}
	if prev.dtype != dtype {
		return fmt.Errorf("example: feature %q: %w: Conflicting type %v vs %v for feature %q (read as %v by feature %q and as %v by feature %q)",
			feature, ErrInvalidSpec, prev.dtype, dtype, key, prev.dtype, prev.feature, dtype, feature)
	}
	return nil
}

// check refuses keys read both as dense and as sparse, naming all of them.
func (u *keyUse) check() error {
	var both []string
	for k := range u.denseBy {
		if _, ok := u.sparseBy[k]; ok {
			both = append(both, k)
		}
	}
	if len(both) == 0 {
		return nil
	}
	slices.Sort(both)
	detail := fmt.Sprintf("Dense and sparse keys must not intersect; intersection: %q", both)
	for _, k := range both {
		detail += fmt.Sprintf("; %q is dense in feature %q and sparse in feature %q", k, u.denseBy[k], u.sparseBy[k].feature)
	}
	return fmt.Errorf("example: %w: %s", ErrInvalidSpec, detail)
}

// expandDefault returns a FixedLen default as a tensor of the feature's
// shape, repeating a scalar.
func expandDefault(def tensor.Tensor, dtype tensor.DType, shape tensor.Shape) (tensor.Tensor, error) {
	if def.DType() != dtype {
		return tensor.Tensor{}, fmt.Errorf("default is %v, feature is %v", def.DType(), dtype)
	}
	out := tensor.Zeros(dtype, shape)
	var ok bool
	switch d := def.Data().(type) {
	case []float32:
		ok = fillRepeat(out.Float32s(), d)
	case []int64:
		ok = fillRepeat(out.Int64s(), d)
	case [][]byte:
		ok = fillRepeat(out.Strings(), d)
	}
	if !ok {
		return tensor.Tensor{}, fmt.Errorf("default of shape %v does not fit shape %v", def.Shape(), shape)
	}
	return out, nil
}

// fillRepeat fills dst from src, which is one value to repeat or exactly
// len(dst) values.
func fillRepeat[T any](dst, src []T) bool {
	switch {
	case len(src) == len(dst):
		copy(dst, src)
	case len(src) == 1:
		for i := range dst {
			dst[i] = src[0]
		}
	default:
		return false
	}
	return true
}
