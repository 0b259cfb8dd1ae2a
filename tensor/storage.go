package tensor

// The helpers in this file turn one type switch into typed slice operations,
// so the rest of the package handles every DType without reflection or
// per-element boxing.

func makeData(dtype DType, n int) any {
	switch dtype {
	case Bool:
		return make([]bool, n)
	case Int8:
		return make([]int8, n)
	case Int16:
		return make([]int16, n)
	case Int32:
		return make([]int32, n)
	case Int64:
		return make([]int64, n)
	case Uint8:
		return make([]uint8, n)
	case Uint16:
		return make([]uint16, n)
	case Uint32:
		return make([]uint32, n)
	case Uint64:
		return make([]uint64, n)
	case Float16:
		return make([]Half, n)
	case Float32:
		return make([]float32, n)
	case Float64:
		return make([]float64, n)
	case Complex64:
		return make([]complex64, n)
	case Complex128:
		return make([]complex128, n)
	case String:
		return make([][]byte, n)
	}
	panic("tensor: invalid dtype " + dtype.String())
}

func dataInfo(data any) (DType, int) {
	switch d := data.(type) {
	case []bool:
		return Bool, len(d)
	case []int8:
		return Int8, len(d)
	case []int16:
		return Int16, len(d)
	case []int32:
		return Int32, len(d)
	case []int64:
		return Int64, len(d)
	case []uint8:
		return Uint8, len(d)
	case []uint16:
		return Uint16, len(d)
	case []uint32:
		return Uint32, len(d)
	case []uint64:
		return Uint64, len(d)
	case []Half:
		return Float16, len(d)
	case []float32:
		return Float32, len(d)
	case []float64:
		return Float64, len(d)
	case []complex64:
		return Complex64, len(d)
	case []complex128:
		return Complex128, len(d)
	case [][]byte:
		return String, len(d)
	}
	return Invalid, 0
}

func sliceData(data any, i, j int) any {
	switch d := data.(type) {
	case []bool:
		return d[i:j:j]
	case []int8:
		return d[i:j:j]
	case []int16:
		return d[i:j:j]
	case []int32:
		return d[i:j:j]
	case []int64:
		return d[i:j:j]
	case []uint8:
		return d[i:j:j]
	case []uint16:
		return d[i:j:j]
	case []uint32:
		return d[i:j:j]
	case []uint64:
		return d[i:j:j]
	case []Half:
		return d[i:j:j]
	case []float32:
		return d[i:j:j]
	case []float64:
		return d[i:j:j]
	case []complex64:
		return d[i:j:j]
	case []complex128:
		return d[i:j:j]
	case [][]byte:
		return d[i:j:j]
	}
	panic("tensor: invalid data")
}

// copyData copies n elements from src[soff:] to dst[doff:]. Both must hold
// the same element type.
func copyData(dst any, doff int, src any, soff, n int) {
	switch d := dst.(type) {
	case []bool:
		copy(d[doff:doff+n], src.([]bool)[soff:soff+n])
	case []int8:
		copy(d[doff:doff+n], src.([]int8)[soff:soff+n])
	case []int16:
		copy(d[doff:doff+n], src.([]int16)[soff:soff+n])
	case []int32:
		copy(d[doff:doff+n], src.([]int32)[soff:soff+n])
	case []int64:
		copy(d[doff:doff+n], src.([]int64)[soff:soff+n])
	case []uint8:
		copy(d[doff:doff+n], src.([]uint8)[soff:soff+n])
	case []uint16:
		copy(d[doff:doff+n], src.([]uint16)[soff:soff+n])
	case []uint32:
		copy(d[doff:doff+n], src.([]uint32)[soff:soff+n])
	case []uint64:
		copy(d[doff:doff+n], src.([]uint64)[soff:soff+n])
	case []Half:
		copy(d[doff:doff+n], src.([]Half)[soff:soff+n])
	case []float32:
		copy(d[doff:doff+n], src.([]float32)[soff:soff+n])
	case []float64:
		copy(d[doff:doff+n], src.([]float64)[soff:soff+n])
	case []complex64:
		copy(d[doff:doff+n], src.([]complex64)[soff:soff+n])
	case []complex128:
		copy(d[doff:doff+n], src.([]complex128)[soff:soff+n])
	case [][]byte:
		copy(d[doff:doff+n], src.([][]byte)[soff:soff+n])
	default:
		panic("tensor: invalid data")
	}
}

func equalSlices[T comparable](a []T, b any) bool {
	bb := b.([]T)
	if len(a) != len(bb) {
		return false
	}
	for i := range a {
		if a[i] != bb[i] {
			return false
		}
	}
	return true
}

// equalHalfs compares float16 values as numbers, as == compares float32
// ones (Equal's doc): NaN is unequal to itself and -0 equals +0, which
// comparing Half's bits would get the other way round.
func equalHalfs(a, b []Half) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Float32() != b[i].Float32() {
			return false
		}
	}
	return true
}

func equalData(a, b any) bool {
	switch d := a.(type) {
	case []bool:
		return equalSlices(d, b)
	case []int8:
		return equalSlices(d, b)
	case []int16:
		return equalSlices(d, b)
	case []int32:
		return equalSlices(d, b)
	case []int64:
		return equalSlices(d, b)
	case []uint8:
		return equalSlices(d, b)
	case []uint16:
		return equalSlices(d, b)
	case []uint32:
		return equalSlices(d, b)
	case []uint64:
		return equalSlices(d, b)
	case []Half:
		return equalHalfs(d, b.([]Half))
	case []float32:
		return equalSlices(d, b)
	case []float64:
		return equalSlices(d, b)
	case []complex64:
		return equalSlices(d, b)
	case []complex128:
		return equalSlices(d, b)
	}
	return false
}

func elemAt(data any, i int) any {
	switch d := data.(type) {
	case []bool:
		return d[i]
	case []int8:
		return d[i]
	case []int16:
		return d[i]
	case []int32:
		return d[i]
	case []int64:
		return d[i]
	case []uint8:
		return d[i]
	case []uint16:
		return d[i]
	case []uint32:
		return d[i]
	case []uint64:
		return d[i]
	case []Half:
		return d[i].Float32()
	case []float32:
		return d[i]
	case []float64:
		return d[i]
	case []complex64:
		return d[i]
	case []complex128:
		return d[i]
	case [][]byte:
		return string(d[i])
	}
	return nil
}

// clearData sets n elements of data from off on to their zero value.
func clearData(data any, off, n int) {
	if n == 0 {
		return
	}
	switch d := data.(type) {
	case []bool:
		clear(d[off : off+n])
	case []int8:
		clear(d[off : off+n])
	case []int16:
		clear(d[off : off+n])
	case []int32:
		clear(d[off : off+n])
	case []int64:
		clear(d[off : off+n])
	case []uint8:
		clear(d[off : off+n])
	case []uint16:
		clear(d[off : off+n])
	case []uint32:
		clear(d[off : off+n])
	case []uint64:
		clear(d[off : off+n])
	case []Half:
		clear(d[off : off+n])
	case []float32:
		clear(d[off : off+n])
	case []float64:
		clear(d[off : off+n])
	case []complex64:
		clear(d[off : off+n])
	case []complex128:
		clear(d[off : off+n])
	case [][]byte:
		clear(d[off : off+n])
	default:
		panic("tensor: invalid data")
	}
}

// resizeData returns data's first n elements, growing into data's
// capacity if need be, and reports whether it has room for them.
func resizeData(data any, n int) (any, bool) {
	switch d := data.(type) {
	case []bool:
		return resize(d, n)
	case []int8:
		return resize(d, n)
	case []int16:
		return resize(d, n)
	case []int32:
		return resize(d, n)
	case []int64:
		return resize(d, n)
	case []uint8:
		return resize(d, n)
	case []uint16:
		return resize(d, n)
	case []uint32:
		return resize(d, n)
	case []uint64:
		return resize(d, n)
	case []Half:
		return resize(d, n)
	case []float32:
		return resize(d, n)
	case []float64:
		return resize(d, n)
	case []complex64:
		return resize(d, n)
	case []complex128:
		return resize(d, n)
	case [][]byte:
		return resize(d, n)
	}
	return nil, false
}

func resize[T Elem](d []T, n int) (any, bool) {
	if n > cap(d) {
		return nil, false
	}
	return d[:n], true
}
