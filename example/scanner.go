package example

import (
	"slices"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sluiceml/sluice/tensor"
)

// A Scanner reads every feature of serialized Examples, without a Spec
// and without building protocol buffer messages: for tools that look at
// all of each record, such as sluice convert --to parquet, where
// proto.Unmarshal's maps and messages would cost most of the time. It
// reads by proto.Unmarshal's rules, as the Parser's fast path does: a
// feature name that occurs again replaces the earlier feature, a list of
// another kind replaces the one before it in a Feature, lists of the same
// kind are joined, and what proto.Unmarshal rejects is an error. Like
// proto.Unmarshal of TensorFlow's messages, it takes a feature name that
// is not UTF-8 as it is.
//
// What Scan found stays valid until the next Scan; names and bytes
// values alias the record. A Scanner is not safe for concurrent use.
type Scanner struct {
	rec     []byte
	names   [][]byte
	refs    []featureRef
	unk     []bool                  // a feature's Feature has unknown fields
	unknown bool                    // the Example or its Features have
	gen     uint64                  // this record's number, to tell its names from earlier ones'
	seen    map[string]*scannerSlot // names seen in this record or earlier ones
	extra   map[string]int          // this record's names past maxScannerNames, aliasing it
}

type scannerSlot struct {
	gen uint64
	i   int
}

// maxScannerNames bounds the names a Scanner remembers across records,
// which spare it a map insert for each name it sees again. A record's
// names past the bound are kept, while Scan runs, in a map whose keys
// alias the record: a record of a million short names took a string and
// a slot allocated for each, sixty times the record (audit 62).
const maxScannerNames = 1 << 14

// Scan reads rec, a serialized Example. An error is a
// [*dataerr.Error] wrapping a [*ParseError] (errors.Is ErrMalformed) that
// gives the byte offset.
func (s *Scanner) Scan(rec []byte) error {
	s.rec, s.names, s.refs, s.unk, s.unknown = rec, s.names[:0], s.refs[:0], s.unk[:0], false
	s.gen++
	if s.seen == nil || len(s.seen) >= maxScannerNames {
		s.seen = make(map[string]*scannerSlot)
	}
	err := s.scan(rec)
	if s.extra != nil {
		// Its keys alias rec, which the caller may reuse once Scan
		// returns.
		s.extra = nil
	}
	return err
}

func (s *Scanner) scan(rec []byte) error {
	for b := rec; len(b) > 0; {
		f, rest, bad := next(b)
		if bad != "" {
			return s.fail(&wireError{offset: offsetIn(rec, b), what: bad})
		}
		b = rest
		if f.num != fieldExampleFeatures || f.typ != protowire.BytesType {
			s.unknown = true
			continue
		}
		// Features that occur twice are merged: their maps' entries add up.
		if werr := s.features(f.val); werr != nil {
			return s.fail(werr)
		}
	}
	return nil
}

func (s *Scanner) fail(werr *wireError) error {
	s.names, s.refs, s.unk = s.names[:0], s.refs[:0], s.unk[:0]
	return werr.toParseError(unknownName, 0, "Example")
}

// features reads a Features message's map entries.
func (s *Scanner) features(msg []byte) *wireError {
	for b := msg; len(b) > 0; {
		f, rest, bad := next(b)
		if bad != "" {
			return &wireError{offset: offsetIn(s.rec, b), what: bad}
		}
		b = rest
		if f.num != fieldFeaturesMap || f.typ != protowire.BytesType {
			s.unknown = true
			continue
		}
		key, value, multi, werr := mapEntry(s.rec, f.val)
		if werr != nil {
			return werr
		}
		if value == nil {
			value = f.val[:0] // an entry without a value holds an empty Feature
		}
		i := s.slot(key)
		if werr := scanFeature(s.rec, value, &s.refs[i]); werr != nil {
			werr.feature = string(key)
			if multi {
				werr.offset = offsetIn(s.rec, f.val) // the merged value is not in the record
			}
			return werr
		}
		// A Feature replaced by a later one of the same name takes its
		// unknown fields with it.
		s.unk[i] = featureHasUnknown(value, &s.refs[i])
	}
	return nil
}

// slot returns the index of key's feature: the earlier one of this record
// when the name occurs again, else a new one.
func (s *Scanner) slot(key []byte) int {
	p := s.seen[string(key)]
	switch {
	case p != nil && p.gen == s.gen:
		return p.i
	case p == nil && len(s.seen) < maxScannerNames:
		p = &scannerSlot{}
		s.seen[string(key)] = p
	case p == nil:
		name := unsafe.String(unsafe.SliceData(key), len(key))
		if i, ok := s.extra[name]; ok {
			return i
		}
		if s.extra == nil {
			s.extra = make(map[string]int)
		}
		i := s.add(key)
		s.extra[name] = i
		return i
	}
	p.gen, p.i = s.gen, s.add(key)
	return p.i
}

// add appends a feature named key, and returns its index.
func (s *Scanner) add(key []byte) int {
	s.names = append(s.names, key)
	s.refs = append(s.refs, featureRef{})
	s.unk = append(s.unk, false)
	return len(s.names) - 1
}

// featureHasUnknown reports whether a valid Feature message, read into r,
// has a field other than its three lists, or whether a list that counts
// has a field other than its values. A list replaced by one of another
// kind is dropped whole, unknown fields and all, as proto.Unmarshal drops
// the oneof case it replaces.
func featureHasUnknown(msg []byte, r *featureRef) bool {
	for b := msg; len(b) > 0; {
		f, rest, _ := next(b)
		b = rest
		if f.typ != protowire.BytesType || f.num < 1 || f.num > 3 {
			return true
		}
	}
	unknown := false
	r.eachList(func(body []byte) {
		for l := body; len(l) > 0 && !unknown; {
			v, rest, _ := next(l)
			l = rest
			switch {
			case v.num != fieldListValue:
				unknown = true
			case v.typ == protowire.BytesType: // bytes, or packed numbers
			case r.kind == kindFloat && v.typ == protowire.Fixed32Type:
			case r.kind == kindInt64 && v.typ == protowire.VarintType:
			default:
				unknown = true
			}
		}
	})
	return unknown
}

// Len returns the number of features of the record.
func (s *Scanner) Len() int { return len(s.names) }

// Name returns the name of feature i, in the order the record first
// names them. It aliases the record.
func (s *Scanner) Name(i int) []byte { return s.names[i] }

// Kind returns the kind of feature i's values: tensor.String (a
// bytes_list), tensor.Float32 or tensor.Int64; tensor.Invalid for a
// Feature that sets no list, which holds no values.
func (s *Scanner) Kind(i int) tensor.DType {
	switch s.refs[i].kind {
	case kindBytes:
		return tensor.String
	case kindFloat:
		return tensor.Float32
	case kindInt64:
		return tensor.Int64
	}
	return tensor.Invalid
}

// Count returns the number of values of feature i.
func (s *Scanner) Count(i int) int { return s.refs[i].count }

// Unknown reports whether the record has fields an Example does not,
// which proto.Unmarshal would keep as unknown fields of the Example or a
// message in it (it drops those of map entries): the mark of another
// message that happens to read as an Example, such as a SequenceExample
// with feature lists.
func (s *Scanner) Unknown() bool { return s.unknown || slices.Contains(s.unk, true) }

// AppendInt64s appends the values of feature i, which must be of kind
// Int64 (or hold none), to dst.
func (s *Scanner) AppendInt64s(dst []int64, i int) []int64 {
	return appendValues(dst, &s.refs[i], kindInt64, (*featureRef).int64s)
}

// AppendFloats appends the values of feature i, of kind Float32, to dst.
func (s *Scanner) AppendFloats(dst []float32, i int) []float32 {
	return appendValues(dst, &s.refs[i], kindFloat, (*featureRef).floats)
}

// AppendBytes appends the values of feature i, of kind String, to dst;
// they alias the record.
func (s *Scanner) AppendBytes(dst [][]byte, i int) [][]byte {
	return appendValues(dst, &s.refs[i], kindBytes, (*featureRef).bytes)
}

// appendValues appends r's values, if it is of kind k, decoded by decode.
func appendValues[T any](dst []T, r *featureRef, k listKind, decode func(*featureRef, []T)) []T {
	if r.kind != k || r.count == 0 {
		return dst
	}
	n := len(dst)
	dst = slices.Grow(dst, r.count)[:n+r.count]
	decode(r, dst[n:])
	return dst
}
