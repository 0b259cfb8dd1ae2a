package example

import (
	"encoding/binary"
	"math"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sluiceml/sluice/example/pb"
)

// This file is the fast path: it walks the wire format of Examples with
// protowire, never building messages. Its rules are proto.Unmarshal's for
// the parts it reads, so the two paths agree: a field whose wire type does
// not match its declaration is an unknown field and is skipped; a oneof
// case replaces another case and merges with the same one; a singular
// message field that occurs twice is merged (for a map entry's value:
// concatenated); a map key that occurs twice keeps its last entry.

// Field numbers of the messages, as in TensorFlow's feature.proto and
// example.proto.
const (
	fieldExampleFeatures    = 1 // Example.features
	fieldSequenceContext    = 1 // SequenceExample.context
	fieldSequenceLists      = 2 // SequenceExample.feature_lists
	fieldFeaturesMap        = 1 // Features.feature, FeatureLists.feature_list
	fieldEntryKey           = 1 // map entry key
	fieldEntryValue         = 2 // map entry value
	fieldListValue          = 1 // BytesList/FloatList/Int64List.value
	fieldFeatureListFeature = 1 // FeatureList.feature
)

// offsetIn returns the offset of sub inside rec; sub must be a reslice of
// rec's tail (protowire's Consume functions keep capacities).
func offsetIn(rec, sub []byte) int { return cap(rec) - cap(sub) }

// field is one decoded field: its number, wire type, and for
// length-delimited fields the payload.
type field struct {
	num protowire.Number
	typ protowire.Type
	val []byte // payload of a BytesType field, else the encoded value
}

// next decodes the field at the start of b and returns it and the rest of
// b. It rejects what proto.Unmarshal rejects: bad tags, field numbers
// outside [1, 2^29-1], end-group tags, truncated values.
func next(b []byte) (field, []byte, string) {
	var f field
	var tag uint64
	var n int
	if len(b) > 0 && b[0] < 0x80 {
		tag, n = uint64(b[0]), 1
	} else {
		tag, n = protowire.ConsumeVarint(b)
		if n < 0 {
			return f, b, "bad field tag"
		}
	}
	if num := tag >> 3; num < uint64(protowire.MinValidNumber) || num > uint64(protowire.MaxValidNumber) {
		return f, b, "invalid field number"
	}
	f.num, f.typ = protowire.Number(tag>>3), protowire.Type(tag&7)
	b = b[n:]
	if f.typ == protowire.BytesType {
		if len(b) > 0 && b[0] < 0x80 { // short payloads: a one-byte length
			if l := int(b[0]); l < len(b) {
				f.val = b[1 : 1+l]
				return f, b[1+l:], ""
			}
			return f, b, "length past the end of the message"
		}
		v, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return f, b, "length past the end of the message"
		}
		f.val = v
		return f, b[m:], ""
	}
	if f.typ == protowire.EndGroupType {
		return f, b, "unexpected end-group tag"
	}
	m := protowire.ConsumeFieldValue(f.num, f.typ, b)
	if m < 0 {
		return f, b, "truncated or invalid field value"
	}
	f.val = b[:m]
	return f, b[m:], ""
}

// checkFields checks that msg is whole fields, as a part of a message
// that occurs more than once must be: proto.Unmarshal parses each part on
// its own and merges them, so a field may not run from one part into the
// next. Parts of whole fields merge as their concatenation parses, which
// is how the fast path reads them.
func checkFields(rec, msg []byte) *wireError {
	for b := msg; len(b) > 0; {
		_, rest, bad := next(b)
		if bad != "" {
			return &wireError{offset: offsetIn(rec, b), what: bad}
		}
		b = rest
	}
	return nil
}

// mapEntry reads a map entry: its key and its value (nil when it has
// none), multi when the value occurs more than once and is merged
// (mergeValue). Other fields of an entry, which proto.Unmarshal drops,
// are skipped.
func mapEntry(rec, entry []byte) (key, value []byte, multi bool, werr *wireError) {
	for e := entry; len(e) > 0; {
		g, rest, bad := next(e)
		if bad != "" {
			return nil, nil, false, &wireError{offset: offsetIn(rec, e), what: bad}
		}
		e = rest
		if g.typ != protowire.BytesType {
			continue
		}
		switch g.num {
		case fieldEntryKey:
			key = g.val
		case fieldEntryValue:
			if value == nil {
				value = g.val
				break
			}
			if value, werr = mergeValue(rec, value, g.val, multi); werr != nil {
				return nil, nil, false, werr
			}
			multi = true
		}
	}
	return key, value, multi, nil
}

// mergeValue adds part, a map entry's value field, to the value the
// entry's earlier value fields gave (multi: a merge already, in memory of
// its own rather than the record's). A value that occurs twice in one
// entry is merged, which for messages is parsing the concatenation of
// parts that are whole fields (checkFields). Rare, so it may allocate;
// the first part is taken as it is by the callers, on their fast path.
func mergeValue(rec, value, part []byte, multi bool) ([]byte, *wireError) {
	if !multi {
		if werr := checkFields(rec, value); werr != nil {
			return nil, werr
		}
		value = append([]byte(nil), value...)
	}
	if werr := checkFields(rec, part); werr != nil {
		return nil, werr
	}
	return append(value, part...), nil
}

// featureRef is what parsing found for one requested feature in one
// record: whether it was present, the kind of its list and how many values
// it holds, and where to decode them from. The fast path points into the
// record (raw); the reference path holds the values of the decoded message.
//
// It is kept small, seventy-two bytes: a Scanner holds one for each
// feature of a record, which may have a million.
type featureRef struct {
	present bool
	kind    listKind
	simple  bool // one list of kind, holding one packed run and nothing else
	count   int
	raw     []byte      // Feature message from the field that set kind onwards
	packed  []byte      // when simple: the one packed run that holds every value
	gen     *pb.Feature // the values, from the generated-message path
}

// scanFeature reads a Feature message. Every list in it is validated, as
// proto.Unmarshal would, but only the values of the last oneof case count.
func scanFeature(rec, msg []byte, r *featureRef) *wireError {
	*r = featureRef{present: true}
	for b := msg; len(b) > 0; {
		start := b
		f, rest, bad := next(b)
		if bad != "" {
			return &wireError{offset: offsetIn(rec, b), what: bad}
		}
		b = rest
		if f.typ != protowire.BytesType || f.num < 1 || f.num > 3 {
			continue
		}
		k := listKind(f.num)
		n, packed, werr := countList(rec, k, f.val)
		if werr != nil {
			return werr
		}
		if k != r.kind {
			r.kind, r.count, r.raw = k, 0, start
			r.packed, r.simple = packed, packed != nil
		} else {
			r.simple = false
		}
		r.count += n
	}
	return nil
}

// countList validates a BytesList, FloatList or Int64List body and counts
// its values. Counts come from bytes actually present, so a hostile length
// can never size an allocation. If the body is exactly one packed run of
// values, as TensorFlow writes numeric lists, it returns the run too.
func countList(rec []byte, k listKind, body []byte) (int, []byte, *wireError) {
	if k != kindBytes && len(body) > 2 && body[0] == byte(fieldListValue<<3|protowire.BytesType) {
		if m, l := protowire.ConsumeBytes(body[1:]); l == len(body)-1 {
			if k == kindFloat && len(m)%4 == 0 {
				return len(m) / 4, m, nil
			}
			if n, ok := countVarints(m); k == kindInt64 && ok {
				return n, m, nil
			}
		}
	}
	n, err := countFields(rec, k, body)
	return n, nil, err
}

func countFields(rec []byte, k listKind, body []byte) (int, *wireError) {
	n := 0
	for b := body; len(b) > 0; {
		f, rest, bad := next(b)
		if bad != "" {
			return 0, &wireError{offset: offsetIn(rec, b), what: bad}
		}
		if f.num == fieldListValue {
			switch {
			case k == kindBytes && f.typ == protowire.BytesType:
				n++
			case k == kindFloat && f.typ == protowire.Fixed32Type:
				n++
			case k == kindFloat && f.typ == protowire.BytesType:
				if len(f.val)%4 != 0 {
					return 0, &wireError{offset: offsetIn(rec, f.val), what: "packed float list length not a multiple of 4"}
				}
				n += len(f.val) / 4
			case k == kindInt64 && f.typ == protowire.VarintType:
				n++
			case k == kindInt64 && f.typ == protowire.BytesType:
				m, ok := countVarints(f.val)
				if !ok {
					return 0, &wireError{offset: offsetIn(rec, f.val), what: "bad varint in packed int64 list"}
				}
				n += m
			}
		}
		b = rest
	}
	return n, nil
}

// countVarints counts the varints in a packed list and checks each as
// protowire.ConsumeVarint does (at most 10 bytes, no overflow).
func countVarints(b []byte) (int, bool) {
	n, run := 0, 0
	for _, c := range b {
		run++
		if c < 0x80 {
			if run == 10 && c > 1 {
				return 0, false
			}
			n++
			run = 0
		} else if run == 10 {
			return 0, false
		}
	}
	return n, run == 0
}

// eachList calls fn with the body of every list of r's kind in r.raw.
// The Feature was validated by scanFeature.
func (r *featureRef) eachList(fn func(body []byte)) {
	for b := r.raw; len(b) > 0; {
		f, rest, _ := next(b)
		if f.typ == protowire.BytesType && listKind(f.num) == r.kind {
			fn(f.val)
		}
		b = rest
	}
}

// floats decodes r's values into dst, which holds r.count elements.
func (r *featureRef) floats(dst []float32) {
	if r.gen != nil {
		copy(dst, r.gen.GetFloatList().GetValue())
		return
	}
	if r.simple {
		copyFloats(dst, r.packed)
		return
	}
	i := 0
	r.eachList(func(body []byte) {
		for b := body; len(b) > 0; {
			f, rest, _ := next(b)
			b = rest
			if f.num != fieldListValue {
				continue
			}
			switch f.typ {
			case protowire.BytesType:
				i += copyFloats(dst[i:i+len(f.val)/4], f.val)
			case protowire.Fixed32Type:
				dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(f.val))
				i++
			}
		}
	})
}

// littleEndian reports whether float32s in memory have the wire's byte
// order, so a packed list can be copied as bytes.
var littleEndian = binary.NativeEndian.Uint32([]byte{1, 0, 0, 0}) == 1

// copyFloats decodes the packed little-endian floats p into d, which has
// len(p)/4 elements. On little-endian machines that is one memmove into
// d's bytes (d is aligned; p need not be).
func copyFloats(d []float32, p []byte) int {
	if len(d) == 0 {
		return 0
	}
	if littleEndian {
		return copy(unsafe.Slice((*byte)(unsafe.Pointer(&d[0])), 4*len(d)), p) / 4
	}
	for j := range d {
		d[j] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*j:]))
	}
	return len(d)
}

// int64s decodes r's values into dst, which holds r.count elements.
func (r *featureRef) int64s(dst []int64) {
	if r.gen != nil {
		copy(dst, r.gen.GetInt64List().GetValue())
		return
	}
	if r.simple {
		decodeVarints(dst, r.packed)
		return
	}
	i := 0
	r.eachList(func(body []byte) {
		for b := body; len(b) > 0; {
			f, rest, _ := next(b)
			b = rest
			if f.num != fieldListValue {
				continue
			}
			switch f.typ {
			case protowire.BytesType:
				i += decodeVarints(dst[i:], f.val)
			case protowire.VarintType:
				v, _ := protowire.ConsumeVarint(f.val)
				dst[i] = int64(v)
				i++
			}
		}
	})
}

// decodeVarints decodes the validated packed varints p into dst and
// returns how many there were.
func decodeVarints(dst []int64, p []byte) int {
	i := 0
	for len(p) > 0 {
		if p[0] < 0x80 {
			dst[i] = int64(p[0])
			p = p[1:]
		} else {
			v, n := protowire.ConsumeVarint(p)
			dst[i] = int64(v)
			p = p[n:]
		}
		i++
	}
	return i
}

// bytes stores r's values in dst, which holds r.count elements. The
// values alias the record.
func (r *featureRef) bytes(dst [][]byte) {
	if r.gen != nil {
		copy(dst, r.gen.GetBytesList().GetValue())
		return
	}
	i := 0
	r.eachList(func(body []byte) {
		for b := body; len(b) > 0; {
			f, rest, _ := next(b)
			b = rest
			if f.num == fieldListValue && f.typ == protowire.BytesType {
				dst[i] = f.val
				i++
			}
		}
	})
}

// scanFeatures reads a Features (or FeatureLists) message: map entries
// whose key is one of slots are handed to found with their slot and value
// message. A key that occurs again replaces the earlier entry, so found
// must overwrite.
//
// hint remembers the slot of the e-th entry of the last record: records
// written by one program usually list their keys in one order, and
// comparing with the expected name is cheaper than hashing the key.
func scanMap(rec, msg []byte, pl *plan, found func(slot int, value []byte) *wireError) *wireError {
	e := 0
	for b := msg; len(b) > 0; {
		f, rest, bad := next(b)
		if bad != "" {
			return &wireError{offset: offsetIn(rec, b), what: bad}
		}
		b = rest
		if f.num != fieldFeaturesMap || f.typ != protowire.BytesType {
			continue
		}
		// mapEntry's loop, kept inline on the parser's path, where the
		// call cost 8 % of BenchmarkParseMNIST.
		var key, value []byte
		multi := false
		for e := f.val; len(e) > 0; {
			g, rest, bad := next(e)
			if bad != "" {
				return &wireError{offset: offsetIn(rec, e), what: bad}
			}
			e = rest
			if g.typ != protowire.BytesType {
				continue
			}
			switch g.num {
			case fieldEntryKey:
				key = g.val
			case fieldEntryValue:
				if value == nil {
					value = g.val
					break
				}
				var werr *wireError
				if value, werr = mergeValue(rec, value, g.val, multi); werr != nil {
					return werr
				}
				multi = true
			}
		}
		slot, ok := -1, false
		if e < len(pl.hint) && pl.hint[e] >= 0 && pl.slotNames[pl.hint[e]] == string(key) {
			slot, ok = pl.hint[e], true
		} else {
			slot, ok = pl.slots[string(key)]
			if !ok {
				slot = -1
			}
			if e < len(pl.hint) {
				pl.hint[e] = slot
			} else if e < 4*len(pl.slotNames)+16 {
				pl.hint = append(pl.hint, slot)
			}
		}
		e++
		if !ok {
			continue
		}
		if value == nil {
			value = f.val[:0] // an entry without a value holds an empty message
		}
		if multi {
			// Offsets in errors from a merged value cannot point into the
			// record; report the entry's offset instead.
			if werr := found(slot, value); werr != nil {
				werr.offset = offsetIn(rec, f.val)
				return werr
			}
			continue
		}
		if werr := found(slot, value); werr != nil {
			return werr
		}
	}
	return nil
}
