package tensor

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// Unknown marks a dimension whose size is not known, TensorFlow's None or -1.
const Unknown = -1

// Shape is the size of each dimension of a tensor, outermost first. A
// scalar has the empty shape. A dimension may be Unknown in a declared
// shape (of a queue component, say); the shape of an actual Tensor is
// always fully defined.
type Shape []int

// MaxElements is the most elements a shape may describe: 2^48, more
// memory than any machine has even for one-byte elements, and small enough
// that a count of elements times an element's size never overflows an int.
const MaxElements = 1 << 48

// ErrTooManyElements reports a shape whose dimensions multiply to more than
// MaxElements, which includes every product that would overflow an int.
var ErrTooManyElements = errors.New("too many elements")

// NumElements returns the product of the dimensions, 1 for a scalar, or
// -1 if a dimension is unknown or the product is above MaxElements (see
// CheckedNumElements, which says which).
func (s Shape) NumElements() int {
	n, _ := s.count()
	return n
}

// CheckedNumElements returns the product of the dimensions, 1 for a
// scalar. It fails for an unknown dimension, and with an error wrapping
// ErrTooManyElements for a product above MaxElements: use it where a shape
// comes from outside the program (a spec, a file, a flag), before sizing
// anything by it. A zero dimension makes the product zero whatever the
// others are.
func (s Shape) CheckedNumElements() (int, error) {
	n, unknown := s.count()
	switch {
	case unknown:
		return 0, fmt.Errorf("tensor: shape %v is not fully defined", s)
	case n < 0:
		return 0, fmt.Errorf("tensor: shape %v: %w (more than 2^48)", s, ErrTooManyElements)
	}
	return n, nil
}

// count returns the number of elements, or -1 and whether a dimension is
// unknown.
func (s Shape) count() (int, bool) {
	n := uint64(1)
	big := false
	for _, d := range s {
		if d < 0 {
			return -1, true
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > MaxElements {
			big = true // unless a later dimension is 0
			n = 1
			continue
		}
		n = lo
	}
	if big && n != 0 {
		return -1, false
	}
	return int(n), false
}

// IsFullyDefined reports whether every dimension is known.
func (s Shape) IsFullyDefined() bool {
	for _, d := range s {
		if d < 0 {
			return false
		}
	}
	return true
}

// Equal reports whether s and t have the same rank and dimensions.
func (s Shape) Equal(t Shape) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// IsCompatibleWith reports whether a tensor of shape t may be stored where
// shape s is declared: same rank, and equal sizes wherever s is known.
func (s Shape) IsCompatibleWith(t Shape) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] >= 0 && t[i] >= 0 && s[i] != t[i] {
			return false
		}
	}
	return true
}

// Clone returns a copy of s that shares no storage with it.
func (s Shape) Clone() Shape {
	if s == nil {
		return nil
	}
	return append(Shape{}, s...)
}

// Prepend returns the shape [n] + s, as a batch of n tensors of shape s has.
func (s Shape) Prepend(n int) Shape {
	out := make(Shape, len(s)+1)
	out[0] = n
	copy(out[1:], s)
	return out
}

// String formats s as TensorFlow's messages do: "[2,3]", "[?,3]", "[]".
func (s Shape) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		if d < 0 {
			b.WriteByte('?')
		} else {
			b.WriteString(strconv.Itoa(d))
		}
	}
	b.WriteByte(']')
	return b.String()
}
