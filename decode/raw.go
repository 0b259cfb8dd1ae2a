package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/tensor"
)

// Raw decodes byte strings into numbers of one type, TensorFlow's
// decode_raw: each string holds len/size values in the chosen byte order.
type Raw struct {
	dtype  tensor.DType
	isLE   bool
	size   int
	tfName string
}

// NewRaw returns a decoder of values of dtype, little-endian unless
// littleEndian is false. Every numeric type and Bool are supported;
// String is not. (TensorFlow 2.21's decode_raw has no Uint32 or Uint64;
// sluice decodes them too.)
func NewRaw(dtype tensor.DType, littleEndian bool) (*Raw, error) {
	if !dtype.Valid() || dtype == tensor.String {
		return nil, fmt.Errorf("decode: decode_raw cannot produce %v", dtype)
	}
	return &Raw{dtype: dtype, isLE: littleEndian, size: dtype.Size(), tfName: dtype.TFName()}, nil
}

// ErrRaw is wrapped by every error about a record of the wrong length.
var ErrRaw = errors.New("invalid raw record")

// A RawError is what is wrong with a record decode_raw cannot decode. The
// decoder returns it as the Err of a [*dataerr.Error] that names the
// record: its Record index in the batch and its Key, if the caller gave
// keys.
type RawError struct {
	Msg string // TensorFlow's message
}

// Error returns TensorFlow's message (spec DECODERS "decode_raw").
func (e *RawError) Error() string { return e.Msg }

// Unwrap returns ErrRaw.
func (e *RawError) Unwrap() error { return ErrRaw }

// recordError returns the *dataerr.Error of err, about record i of a batch
// whose keys, if not nil, name the records.
func recordError(err error, i int, keys []string) *dataerr.Error {
	e := &dataerr.Error{Offset: -1, Record: int64(i), Err: err}
	if keys != nil {
		e.Key = keys[i]
	}
	return e
}

// Decode decodes one string into a vector of len(b)/size values.
func (r *Raw) Decode(b []byte) (tensor.Tensor, error) {
	if len(b)%r.size != 0 {
		return tensor.Tensor{}, r.lengthError(0, nil, len(b))
	}
	out := tensor.Zeros(r.dtype, tensor.Shape{len(b) / r.size})
	r.fill(out, 0, b)
	return out, nil
}

func (r *Raw) lengthError(i int, keys []string, n int) *dataerr.Error {
	return recordError(&RawError{Msg: fmt.Sprintf("Input to DecodeRaw has length %d that is not a multiple of %d, the size of %s", n, r.size, r.tfName)}, i, keys)
}

// DecodeBatch decodes strings of equal length into a matrix [n, len/size].
// keys, if not nil, name the records in errors.
func (r *Raw) DecodeBatch(bs [][]byte, keys []string) (tensor.Tensor, error) {
	per := 0
	if len(bs) > 0 {
		per = len(bs[0]) / r.size
	}
	out := tensor.Zeros(r.dtype, tensor.Shape{len(bs), per})
	if err := r.DecodeBatchInto(out, bs, keys); err != nil {
		return tensor.Tensor{}, err
	}
	return out, nil
}

// DecodeBatchInto decodes strings of equal length into dst, a tensor of
// the decoder's type and shape [len(bs), len/size], so that a loop reusing
// dst allocates nothing.
func (r *Raw) DecodeBatchInto(dst tensor.Tensor, bs [][]byte, keys []string) error {
	if keys != nil && len(keys) != len(bs) {
		return fmt.Errorf("decode: %d keys for %d records", len(keys), len(bs))
	}
	n := 0
	if len(bs) > 0 {
		n = len(bs[0])
	}
	for i, b := range bs {
		if len(b) != n {
			return recordError(&RawError{Msg: fmt.Sprintf("DecodeRaw requires input strings to all be the same size, but element %d has size %d != %d", i, n, len(b))}, i, keys)
		}
	}
	if n%r.size != 0 {
		return r.lengthError(0, keys, n)
	}
	per := n / r.size
	if dst.DType() != r.dtype || !dst.Shape().Equal(tensor.Shape{len(bs), per}) {
		return fmt.Errorf("decode: DecodeBatchInto: dst is %v %v, want %v [%d,%d]", dst.DType(), dst.Shape(), r.dtype, len(bs), per)
	}
	for i, b := range bs {
		r.fill(dst, i*per, b)
	}
	return nil
}

// hostLittleEndian reports the machine's byte order.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// fill decodes b into out's elements starting at off.
func (r *Raw) fill(out tensor.Tensor, off int, b []byte) {
	s := r.size
	if r.isLE == hostLittleEndian && r.dtype != tensor.Bool && s > 1 {
		// The bytes are already in the machine's layout: one memmove.
		copy(bytesOf(out)[off*s:], b)
		return
	}
	switch r.dtype {
	case tensor.Bool:
		v := out.Bools()[off:]
		for i, c := range b {
			v[i] = c != 0
		}
	case tensor.Int8:
		v := out.Int8s()[off:]
		for i, c := range b {
			v[i] = int8(c)
		}
	case tensor.Uint8:
		copy(out.Uint8s()[off:], b)
	case tensor.Int16:
		v := out.Int16s()[off:]
		for i := range v[:len(b)/s] {
			v[i] = int16(r.u16(b[i*s:]))
		}
	case tensor.Uint16:
		v := out.Uint16s()[off:]
		for i := range v[:len(b)/s] {
			v[i] = r.u16(b[i*s:])
		}
	case tensor.Float16:
		v := out.Halfs()[off:]
		for i := range v[:len(b)/s] {
			v[i] = tensor.Half(r.u16(b[i*s:]))
		}
	case tensor.Int32:
		v := out.Int32s()[off:]
		for i := range v[:len(b)/s] {
			v[i] = int32(r.u32(b[i*s:]))
		}
	case tensor.Uint32:
		v := out.Uint32s()[off:]
		for i := range v[:len(b)/s] {
			v[i] = r.u32(b[i*s:])
		}
	case tensor.Float32:
		v := out.Float32s()[off:]
		for i := range v[:len(b)/s] {
			v[i] = math.Float32frombits(r.u32(b[i*s:]))
		}
	case tensor.Int64:
		v := out.Int64s()[off:]
		for i := range v[:len(b)/s] {
			v[i] = int64(r.u64(b[i*s:]))
		}
	case tensor.Uint64:
		v := out.Uint64s()[off:]
		for i := range v[:len(b)/s] {
			v[i] = r.u64(b[i*s:])
		}
	case tensor.Float64:
		v := out.Float64s()[off:]
		for i := range v[:len(b)/s] {
			v[i] = math.Float64frombits(r.u64(b[i*s:]))
		}
	case tensor.Complex64:
		v := out.Complex64s()[off:]
		for i := range v[:len(b)/s] {
			re := math.Float32frombits(r.u32(b[i*s:]))
			im := math.Float32frombits(r.u32(b[i*s+4:]))
			v[i] = complex(re, im)
		}
	case tensor.Complex128:
		v := out.Complex128s()[off:]
		for i := range v[:len(b)/s] {
			re := math.Float64frombits(r.u64(b[i*s:]))
			im := math.Float64frombits(r.u64(b[i*s+8:]))
			v[i] = complex(re, im)
		}
	}
}

// u16, u32 and u64 load a value in the decoder's byte order; calling the
// concrete binary.LittleEndian and binary.BigEndian methods lets them
// inline, where a binary.ByteOrder interface would not.
func (r *Raw) u16(b []byte) uint16 {
	if r.isLE {
		return binary.LittleEndian.Uint16(b)
	}
	return binary.BigEndian.Uint16(b)
}

func (r *Raw) u32(b []byte) uint32 {
	if r.isLE {
		return binary.LittleEndian.Uint32(b)
	}
	return binary.BigEndian.Uint32(b)
}

func (r *Raw) u64(b []byte) uint64 {
	if r.isLE {
		return binary.LittleEndian.Uint64(b)
	}
	return binary.BigEndian.Uint64(b)
}

// bytesOf returns the memory of a numeric tensor's elements as bytes.
func bytesOf(t tensor.Tensor) []byte {
	n := t.NumElements() * t.DType().Size()
	var p unsafe.Pointer
	switch t.DType() {
	case tensor.Int16:
		p = unsafe.Pointer(unsafe.SliceData(t.Int16s()))
	case tensor.Uint16:
		p = unsafe.Pointer(unsafe.SliceData(t.Uint16s()))
	case tensor.Float16:
		p = unsafe.Pointer(unsafe.SliceData(t.Halfs()))
	case tensor.Int32:
		p = unsafe.Pointer(unsafe.SliceData(t.Int32s()))
	case tensor.Uint32:
		p = unsafe.Pointer(unsafe.SliceData(t.Uint32s()))
	case tensor.Float32:
		p = unsafe.Pointer(unsafe.SliceData(t.Float32s()))
	case tensor.Int64:
		p = unsafe.Pointer(unsafe.SliceData(t.Int64s()))
	case tensor.Uint64:
		p = unsafe.Pointer(unsafe.SliceData(t.Uint64s()))
	case tensor.Float64:
		p = unsafe.Pointer(unsafe.SliceData(t.Float64s()))
	case tensor.Complex64:
		p = unsafe.Pointer(unsafe.SliceData(t.Complex64s()))
	case tensor.Complex128:
		p = unsafe.Pointer(unsafe.SliceData(t.Complex128s()))
	}
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}
