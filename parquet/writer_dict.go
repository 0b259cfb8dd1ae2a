package parquet

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
)

// defaultDictionaryPageSize is pyarrow's dictionary_pagesize_limit.
const defaultDictionaryPageSize = 1 << 20

// A dictionary holds a column chunk's distinct values, while they fit in
// its limit, for the chunk's data pages to refer to by index
// (RLE_DICTIONARY). Values are numbered in the order first seen, and
// kept PLAIN encoded, as the dictionary page holds them.
//
// They are found by an open-addressing hash table (linear probing) of
// their indices, whose keys are the PLAIN bytes themselves: int64s by
// value; floats by bit pattern, so that each NaN payload and either zero
// is a value of its own and comes back bit for bit; bytes by content.
// Finding a value hashes it once and allocates nothing, and the table
// takes 8 to 16 bytes a value (bytes values 4 more, where they start).
type dictionary struct {
	size  int    // of a value, PLAIN encoded: 8 or 4, 0 for bytes values
	limit int    // the most bytes plain may take; negative: no dictionary
	full  bool   // a value did not fit: the chunk's later values are PLAIN
	plain []byte // the values: the dictionary page's body
	n     int    // values in plain

	slots  []uint32 // a value's index+1, 0 in an empty slot
	shift  uint8    // 64 - log2(len(slots))
	starts []uint32 // where each bytes value's length prefix is in plain
	seed   maphash.Seed
}

// minDictionarySlots is the hash table's size to begin with; it doubles
// whenever it gets half full.
const minDictionarySlots = 16

func newDictionary(k Kind, limit int) dictionary {
	d := dictionary{limit: limit, seed: maphash.MakeSeed()}
	switch k {
	case Int64:
		d.size = 8
	case Float:
		d.size = 4
	}
	if limit >= 0 {
		d.setSlots(minDictionarySlots)
	}
	return d
}

// active reports whether the values being added go into the dictionary.
func (d *dictionary) active() bool { return d.limit >= 0 && !d.full }

// encoding is that of a data page of the values being added.
func (d *dictionary) encoding() encoding {
	if d.active() {
		return encRLEDictionary
	}
	return encPlain
}

// len is the number of values in the dictionary.
func (d *dictionary) len() int { return d.n }

// reset empties the dictionary for the next column chunk, keeping its
// memory.
func (d *dictionary) reset() {
	clear(d.slots)
	d.plain, d.starts, d.n, d.full = d.plain[:0], d.starts[:0], 0, false
}

// abandon empties the dictionary, keeping its memory, and makes the rest
// of the chunk PLAIN.
func (d *dictionary) abandon() {
	d.reset()
	d.full = true
}

// pays reports whether a page of the values idx, whose indices take
// encoded bytes, is smaller with the dictionary than PLAIN, counting the
// whole dictionary against it (parquet-mr's test of a chunk's first page).
func (d *dictionary) pays(encoded int, idx []uint32) bool {
	plain := d.size * len(idx)
	if d.size == 0 {
		for _, i := range idx {
			plain += 4 + len(d.bytesAt(i))
		}
	}
	return encoded+len(d.plain) < plain
}

// appendPlain appends the values idx, PLAIN encoded.
func (d *dictionary) appendPlain(b []byte, idx []uint32) []byte {
	for _, i := range idx {
		switch d.size {
		case 8:
			b = append(b, d.plain[8*i:8*i+8]...)
		case 4:
			b = append(b, d.plain[4*i:4*i+4]...)
		default:
			b = appendByteArray(b, d.bytesAt(i))
		}
	}
	return b
}

// addInt64s appends to idx the indices of vs, adding the values not yet
// in the dictionary. If one does not fit, it returns idx as it was, and
// false; the values added before it stay, unused.
func (d *dictionary) addInt64s(idx []uint32, vs []int64) ([]uint32, bool) {
	start := len(idx)
	for _, v := range vs {
		i, ok := d.addFixed(uint64(v))
		if !ok {
			return idx[:start], false
		}
		idx = append(idx, i)
	}
	return idx, true
}

// addFloats is addInt64s for float values.
func (d *dictionary) addFloats(idx []uint32, vs []float32) ([]uint32, bool) {
	start := len(idx)
	for _, v := range vs {
		i, ok := d.addFixed(uint64(math.Float32bits(v)))
		if !ok {
			return idx[:start], false
		}
		idx = append(idx, i)
	}
	return idx, true
}

// addBytes is addInt64s for bytes values.
func (d *dictionary) addBytes(idx []uint32, vs [][]byte) ([]uint32, bool) {
	start := len(idx)
	for _, v := range vs {
		i, ok := d.addBytesValue(v)
		if !ok {
			return idx[:start], false
		}
		idx = append(idx, i)
	}
	return idx, true
}

// addFixed returns the index of the int64 or float (its bits) u, adding
// it if new; false if it does not fit.
func (d *dictionary) addFixed(u uint64) (uint32, bool) {
	j := d.home(u)
	for ; d.slots[j] != 0; j = d.next(j) {
		if i := d.slots[j] - 1; d.fixedAt(i) == u {
			return i, true
		}
	}
	if len(d.plain) > d.limit-d.size {
		return 0, false
	}
	if d.size == 8 {
		d.plain = binary.LittleEndian.AppendUint64(d.plain, u)
	} else {
		d.plain = binary.LittleEndian.AppendUint32(d.plain, uint32(u))
	}
	return d.insert(j, u), true
}

// addBytesValue is addFixed for a bytes value.
func (d *dictionary) addBytesValue(v []byte) (uint32, bool) {
	h := maphash.Bytes(d.seed, v)
	j := d.home(h)
	for ; d.slots[j] != 0; j = d.next(j) {
		if i := d.slots[j] - 1; bytes.Equal(d.bytesAt(i), v) {
			return i, true
		}
	}
	if len(d.plain) > d.limit-4-len(v) {
		return 0, false
	}
	d.starts = append(d.starts, uint32(len(d.plain)))
	d.plain = appendByteArray(d.plain, v)
	return d.insert(j, h), true
}

// fixedAt returns the bits of int64 or float value i.
func (d *dictionary) fixedAt(i uint32) uint64 {
	if d.size == 8 {
		return binary.LittleEndian.Uint64(d.plain[8*i:])
	}
	return uint64(binary.LittleEndian.Uint32(d.plain[4*i:]))
}

// bytesAt returns bytes value i.
func (d *dictionary) bytesAt(i uint32) []byte {
	at := d.starts[i]
	n := binary.LittleEndian.Uint32(d.plain[at:])
	return d.plain[at+4 : at+4+n]
}

// hashAt is the hash of value i, which home takes: a fixed-size value's
// bits, a bytes value's maphash.
func (d *dictionary) hashAt(i uint32) uint64 {
	if d.size > 0 {
		return d.fixedAt(i)
	}
	return maphash.Bytes(d.seed, d.bytesAt(i))
}

// home is the slot where a value of hash h is looked for first: the top
// bits of h times 2^64/φ, which spreads runs of integers over the table
// (Fibonacci hashing).
func (d *dictionary) home(h uint64) int {
	return int(h * 0x9e3779b97f4a7c15 >> d.shift)
}

func (d *dictionary) next(j int) int { return (j + 1) & (len(d.slots) - 1) }

// free returns the first empty slot from slot j on.
func (d *dictionary) free(j int) int {
	for d.slots[j] != 0 {
		j = d.next(j)
	}
	return j
}

// insert numbers the value just appended to plain, of hash h, putting
// its index in the empty slot j, and returns the index.
func (d *dictionary) insert(j int, h uint64) uint32 {
	i := uint32(d.n)
	d.n++
	if 2*d.n > len(d.slots) {
		d.grow()
		j = d.free(d.home(h))
	}
	d.slots[j] = i + 1
	return i
}

// grow doubles the hash table, which keeps it at most half full, and
// puts the values in it again (but the last, which insert puts).
func (d *dictionary) grow() {
	d.setSlots(2 * len(d.slots))
	for i := range uint32(d.n - 1) {
		d.slots[d.free(d.home(d.hashAt(i)))] = i + 1
	}
}

// setSlots makes the hash table, empty, of n slots, a power of 2.
func (d *dictionary) setSlots(n int) {
	d.slots = make([]uint32, n)
	d.shift = uint8(64 - bits.TrailingZeros(uint(n)))
}

// appendByteArray appends v PLAIN encoded: its length in four bytes,
// then its bytes.
func appendByteArray(b, v []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}

// appendIndices appends the values of a dictionary-encoded data page: the
// bit width of its indices in a byte, then their hybrid encoding. The
// width is the largest index's, but at least 1: pyarrow writes 1 for a
// dictionary of one value, and a reader need not take width 0.
func appendIndices(b []byte, idx []uint32) []byte {
	width := 1
	if len(idx) > 0 {
		width = max(1, bits.Len32(slices.Max(idx)))
	}
	b = append(b, byte(width))
	return appendHybrid(b, idx, width)
}
