package cli

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/tensor"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// recordFormat is how cat shows a record (--format).
type recordFormat int

const (
	formatAuto recordFormat = iota
	formatExample
	formatSequence
	formatRaw
)

func parseFormat(s string) (recordFormat, error) {
	switch s {
	case "auto", "":
		return formatAuto, nil
	case "example":
		return formatExample, nil
	case "sequence":
		return formatSequence, nil
	case "raw":
		return formatRaw, nil
	}
	return 0, fmt.Errorf("--format must be auto, example, sequence or raw, not %q", s)
}

// Errors for a record that is not what --format says it is.
var (
	errNotExample  = errors.New("not a tf.train.Example")
	errNotSequence = errors.New("not a tf.train.SequenceExample")
	errNameNotText = errors.New("a feature name is not UTF-8, which JSON cannot hold: --format raw (or auto) shows the record's bytes")
)

// A recordRenderer turns records into JSON lines:
//
//	{"key":"f:0","features":{"image":{"float":[0.5]},"label":{"int64":[7]}}}
//	{"key":"f:9","context":{...},"feature_lists":{"tokens":[{"bytes":["aGk="]},...]}}
//	{"key":"f:99","raw":"base64 of the record"}
//
// Feature names are sorted, so output is stable whatever order the
// writer put the map entries in. Byte strings are text when they are valid
// UTF-8 and {"b64":"..."} otherwise (see bytesMode); int64s beyond ±2^53
// are strings, exact for readers that hold numbers as float64 (see
// int64Mode). Floats print in the shortest form that reads back to the
// same float32; NaN and infinities, which JSON numbers cannot express, are
// the strings "NaN", "Infinity" and "-Infinity", as in protobuf's JSON
// mapping. The renderer reuses its messages and buffer from record to
// record.
type recordRenderer struct {
	format recordFormat
	bytes  bytesMode
	int64s int64Mode
	// flat shows a feature as its list alone, [7] for {"int64":[7]}, and
	// an Example as its features, {"label":[7]}: the shape of data that
	// JSON tools (DuckDB, pandas, jq) and convert --from jsonl read. Its
	// int64s are always numbers, and its floats always have a point or
	// an exponent, so that their kinds can be told from the values.
	flat   bool
	sc     example.Scanner // reads an Example, most records
	vals   featureValues   // the Scanner's values of a feature
	order  []int           // the Scanner's features in name order
	ex     pb.Example      // what the Scanner does not read
	seq    pb.SequenceExample
	buf    []byte
	marker []byte   // scratch for the flat objects' --bytes marker
	names  []string // scratch for sorting feature names
	// messagesOnly decodes every record into messages: FuzzRender's
	// reference for the Scanner's reading.
	messagesOnly bool
}

// render appends rec's JSON object, with the key first when key is not
// empty, and a newline to the renderer's buffer and returns it. The
// result is valid until the next call.
func (r *recordRenderer) render(key []byte, rec []byte) ([]byte, error) {
	// What rec is shown as: raw, an Example (its features feats) or a
	// SequenceExample.
	var (
		raw, example, scanned bool // scanned: the Example is in r.sc
		feats                 *pb.Features
	)
	switch r.format {
	case formatRaw:
		raw = true
	case formatExample:
		switch {
		case r.scanExample(rec, true):
			example, scanned = true, true
		case r.isExample(rec, true):
			example, feats = true, r.ex.GetFeatures()
		default:
			return nil, errNotExample
		}
	case formatSequence:
		if !r.isSequence(rec, false) {
			return nil, errNotSequence
		}
	default:
		// A SequenceExample's context is field 1, as an Example's features
		// are, so one without feature lists is byte for byte an Example
		// and is shown as one.
		// One parse serves both: the context of a SequenceExample
		// without lists is the Example's features.
		switch {
		case r.scanExample(rec, false):
			example, scanned = true, true
		case !r.isSequence(rec, false):
			if r.messagesOnly && r.extendedExample(rec) {
				example, feats = true, r.ex.GetFeatures()
			} else {
				raw = true
			}
		case len(r.seq.GetFeatureLists().GetFeatureList()) == 0:
			example, feats = true, r.seq.GetContext()
		}
	}
	if !raw && !r.namesAreText(scanned, example, feats) {
		// JSON has no spelling for a name that is not UTF-8: written as
		// U+FFFD it would read back as another record (audit 60). The
		// record's bytes round-trip exactly.
		if r.format != formatAuto {
			return nil, errNameNotText
		}
		raw, example = true, false
	}
	if r.flat && example {
		// The features are the object, after the marker of a --bytes
		// other than auto.
		b := r.appendExample(r.buf[:0], scanned, feats)
		if m := r.appendBytesMarker(r.marker[:0], flatBytesMarker+":"); len(m) > 0 {
			if len(b) == 2 { // {}: no member follows
				m = m[:len(m)-1]
			}
			// A feature of the marker's name would make the object hold
			// the name twice, which convert refuses and other readers
			// take one of, silently. (Within a JSON string a quote is
			// escaped, so the member's text cannot occur in a value.)
			if bytes.Contains(b, []byte("{"+flatBytesMarker+":")) || bytes.Contains(b, []byte(","+flatBytesMarker+":")) {
				return nil, fmt.Errorf("a feature is named %s, which --flat's mark of the byte encoding is named too: leave out --flat, or --bytes", flatBytesMarker)
			}
			b = slices.Insert(b, 1, m...)
			r.marker = m
		}
		r.buf = append(b, '\n')
		return r.buf, nil
	}
	b := append(r.buf[:0], '{')
	if len(key) > 0 {
		b = append(b, `"key":`...)
		b = appendString(b, key)
		b = append(b, ',')
	}
	if !raw {
		b = r.appendBytesMarker(b, `"bytes":`)
	}
	switch {
	case raw:
		b = appendRaw(b, rec)
	case example:
		b = append(b, `"features":`...)
		b = r.appendExample(b, scanned, feats)
	default:
		b = r.appendSequence(b)
	}
	b = append(b, '}', '\n')
	r.buf = b
	return b, nil
}

// namesAreText reports whether every feature name of the record render
// parsed (an Example, scanned into r.sc or as feats, else r.seq) is
// UTF-8, which TensorFlow's parsers do not require of a record.
func (r *recordRenderer) namesAreText(scanned, example bool, feats *pb.Features) bool {
	switch {
	case scanned:
		for i := range r.sc.Len() {
			if !utf8.Valid(r.sc.Name(i)) {
				return false
			}
		}
		return true
	case example:
		return keysAreText(feats.GetFeature())
	}
	return keysAreText(r.seq.GetContext().GetFeature()) && keysAreText(r.seq.GetFeatureLists().GetFeatureList())
}

func keysAreText[V any](m map[string]V) bool {
	for k := range m {
		if !utf8.ValidString(k) {
			return false
		}
	}
	return true
}

// isExample reports whether rec parses as an Example with no unknown
// fields anywhere, or, if forced (the records are Examples, the caller's
// format says), with any but a SequenceExample's feature lists; random
// bytes often parse as a protocol buffer made only of unknown fields, and
// must not be shown as an empty Example.
func (r *recordRenderer) isExample(rec []byte, forced bool) bool {
	proto.Reset(&r.ex)
	return proto.Unmarshal(rec, &r.ex) == nil && (known(r.ex.ProtoReflect()) || forced && !hasFeatureLists(rec))
}

// isSequence reports whether rec parses as a SequenceExample with no
// unknown fields, and, if needLists, has at least one feature list.
func (r *recordRenderer) isSequence(rec []byte, needLists bool) bool {
	proto.Reset(&r.seq)
	if proto.Unmarshal(rec, &r.seq) != nil || !known(r.seq.ProtoReflect()) {
		return false
	}
	return !needLists || len(r.seq.GetFeatureLists().GetFeatureList()) > 0
}

// known reports whether m and every message inside it have no unknown
// fields.
func known(m protoreflect.Message) bool {
	if len(m.GetUnknown()) > 0 {
		return false
	}
	ok := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					ok = known(mv.Message())
					return ok
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				l := v.List()
				for i := 0; i < l.Len() && ok; i++ {
					ok = known(l.Get(i).Message())
				}
			}
		case fd.Message() != nil:
			ok = known(v.Message())
		}
		return ok
	})
	return ok
}

func appendRaw(b, rec []byte) []byte {
	b = append(b, `"raw":"`...)
	b = base64.StdEncoding.AppendEncode(b, rec)
	return append(b, '"')
}

// appendFeaturesOf appends an Example's "features" member.
// scanExample reports whether rec is an Example, which r.sc then holds:
// one the Scanner reads with no unknown fields (as proto.Unmarshal reads
// it: FuzzScanner holds the Scanner to that), or an extended one
// (scanExtended); or, if forced (the caller's format says the records are
// Examples), any the Scanner reads but a SequenceExample with feature
// lists.
func (r *recordRenderer) scanExample(rec []byte, forced bool) bool {
	if r.messagesOnly || r.sc.Scan(rec) != nil {
		return false
	}
	if !r.sc.Unknown() {
		return true
	}
	if forced {
		return !hasFeatureLists(rec)
	}
	return scanExtended(&r.sc, rec)
}

// scanExtended reports whether rec is an Example with fields beside its
// features that an Example does not have (a newer writer's, which
// protobuf and TensorFlow's parsers skip, reading the record as its
// features; audit 88: schema left such records out and printed a spec
// they did not satisfy), which sc then holds without them: rec's features
// alone must read with no unknown fields and hold a feature with values
// of a kind. Random bytes often parse as a protocol buffer made only of
// unknown fields; seldom as one whose features are whole too (audit 91: a
// nameless, empty feature beside them took junk for an Example).
func scanExtended(sc *example.Scanner, rec []byte) bool {
	part := featuresOnly(rec)
	if part == nil || sc.Scan(part) != nil || sc.Unknown() {
		return false
	}
	for i := range sc.Len() {
		if sc.Kind(i) != tensor.Invalid {
			return true
		}
	}
	return false
}

// extendedExample is scanExtended for a renderer of messages: r.ex then
// holds the Example without its other fields.
func (r *recordRenderer) extendedExample(rec []byte) bool {
	part := featuresOnly(rec)
	if part == nil || !r.isExample(part, false) {
		return false
	}
	for _, f := range r.ex.GetFeatures().GetFeature() {
		if f.GetKind() != nil {
			return true
		}
	}
	return false
}

// featuresOnly returns rec's Example features (its fields 1) without its
// other top-level fields, if it has any others; nil if it has none, has a
// SequenceExample's feature lists (field 2) among them, or is no protocol
// buffer.
func featuresOnly(rec []byte) []byte {
	var out []byte
	other := false
	for b := rec; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil
		}
		switch {
		case num == 1 && typ == protowire.BytesType:
			out = append(out, b[:n+m]...)
		case num == 2 && typ == protowire.BytesType:
			return nil
		default:
			other = true
		}
		b = b[n+m:]
	}
	if !other {
		return nil
	}
	return out
}

// hasFeatureLists reports whether rec has a top-level field 2 of bytes, a
// SequenceExample's feature lists. A record that is no protocol buffer
// has none.
func hasFeatureLists(rec []byte) bool {
	for b := rec; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		if num == 2 && typ == protowire.BytesType {
			return true
		}
		if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
			return false
		}
		b = b[n:]
	}
	return false
}

// appendExample appends the features of the Example in r.sc, if scanned,
// else feats.
func (r *recordRenderer) appendExample(b []byte, scanned bool, feats *pb.Features) []byte {
	if !scanned {
		return r.appendFeatures(b, feats.GetFeature())
	}
	sc := &r.sc
	r.order = r.order[:0]
	for i := range sc.Len() {
		r.order = append(r.order, i)
	}
	slices.SortFunc(r.order, func(i, j int) int { return bytes.Compare(sc.Name(i), sc.Name(j)) })
	b = append(b, '{')
	for n, i := range r.order {
		if n > 0 {
			b = append(b, ',')
		}
		b = appendString(b, sc.Name(i))
		b = append(b, ':')
		b = r.appendFeature(b, scannedValues(sc, i, &r.vals, true))
	}
	return append(b, '}')
}

func (r *recordRenderer) appendSequence(b []byte) []byte {
	b = append(b, `"context":`...)
	b = r.appendFeatures(b, r.seq.GetContext().GetFeature())
	b = append(b, `,"feature_lists":{`...)
	lists := r.seq.GetFeatureLists().GetFeatureList()
	r.names = sortedKeys(r.names, lists)
	for i, name := range r.names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, name)
		b = append(b, ':', '[')
		for j, f := range lists[name].GetFeature() {
			if j > 0 {
				b = append(b, ',')
			}
			b = r.appendFeature(b, valuesOf(f))
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func (r *recordRenderer) appendFeatures(b []byte, m map[string]*pb.Feature) []byte {
	b = append(b, '{')
	r.names = sortedKeys(r.names, m)
	for i, name := range r.names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, name)
		b = append(b, ':')
		b = r.appendFeature(b, valuesOf(m[name]))
	}
	return append(b, '}')
}

// sortedKeys returns m's keys in order, in scratch's memory.
func sortedKeys[V any](scratch []string, m map[string]V) []string {
	scratch = scratch[:0]
	for k := range m {
		scratch = append(scratch, k)
	}
	slices.Sort(scratch)
	return scratch
}

// appendFeature appends {"int64":[...]}, {"float":[...]}, {"bytes":[...]},
// or {} for a feature with no list set.
//
// Flat, it appends the list alone, [...], or [] for no list.
func (r *recordRenderer) appendFeature(b []byte, f featureValues) []byte {
	open, end := "", "]}"
	if r.flat {
		end = "]"
	}
	switch f.kind {
	case 2:
		if open = `{"int64":[`; r.flat {
			open = "["
		}
		b = append(b, open...)
		for i, v := range f.i64 {
			if i > 0 {
				b = append(b, ',')
			}
			if r.flat {
				b = strconv.AppendInt(b, v, 10)
			} else {
				b = r.appendInt64(b, v)
			}
		}
	case 1:
		if open = `{"float":[`; r.flat {
			open = "["
		}
		b = append(b, open...)
		for i, v := range f.f32 {
			if i > 0 {
				b = append(b, ',')
			}
			n := len(b)
			b = appendFloat(b, v)
			if r.flat && !bytes.ContainsAny(b[n:], `.e"`) {
				b = append(b, '.', '0') // 2 → 2.0: a float to whoever reads it
			}
		}
	case 0:
		if open = `{"bytes":[`; r.flat {
			open = "["
		}
		b = append(b, open...)
		for i, v := range f.bs {
			if i > 0 {
				b = append(b, ',')
			}
			b = r.appendBytes(b, v)
		}
	default:
		if r.flat {
			return append(b, '[', ']')
		}
		return append(b, '{', '}')
	}
	return append(b, end...)
}

// bytesMode is how cat shows a bytes value (--bytes).
type bytesMode int

const (
	bytesAuto   bytesMode = iota // text if valid UTF-8, else {"b64":"..."}
	bytesText                    // always text; invalid UTF-8 becomes U+FFFD
	bytesBase64                  // always a base64 string, as protobuf's JSON mapping
)

func parseBytesMode(s string) (bytesMode, error) {
	switch s {
	case "auto", "":
		return bytesAuto, nil
	case "text":
		return bytesText, nil
	case "base64":
		return bytesBase64, nil
	}
	return 0, fmt.Errorf("--bytes must be auto, text or base64, not %q", s)
}

// flatBytesMarker is the member of cat --flat's objects that says how
// their bytes are written, when not as --bytes auto writes them. A
// feature's value is always an array there, so a string value tells the
// marker from a feature that has the name.
const flatBytesMarker = `"` + flatBytesName + `"`

// appendBytesMarker appends member and the --bytes mode, "base64" or
// "text", followed by a comma, when the mode is not auto: the lines then
// say how their bytes were written, so that convert reads base64 back
// as the bytes it stands for, and refuses text, which is lossy (bytes
// that are not UTF-8 became U+FFFD), rather than writing other bytes.
func (r *recordRenderer) appendBytesMarker(b []byte, member string) []byte {
	switch r.bytes {
	case bytesBase64:
		return append(append(b, member...), `"base64",`...)
	case bytesText:
		return append(append(b, member...), `"text",`...)
	}
	return b
}

// appendBytes appends v as --bytes asks. In auto mode the base64 form is
// an object, so that no text, whatever it holds, can be mistaken for it.
// Flat, a list does not say its kind, and the text NaN, Infinity or
// -Infinity is also how a float is written: such bytes take the base64
// form too, so that convert --from jsonl reads them back as bytes.
func (r *recordRenderer) appendBytes(b, v []byte) []byte {
	switch {
	case r.bytes == bytesText, r.bytes == bytesAuto && isText(v) && !(r.flat && isFloatWord(v)):
		return appendString(b, v)
	case r.bytes == bytesBase64 && !(r.flat && len(v) == 6 && isFloatWord([]byte(base64.StdEncoding.EncodeToString(v)))):
		// Flat, the base64 of 6 bytes may be "Infinity", a float's
		// word: such bytes take the {"b64":...} form, as in auto.
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, v)
		return append(b, '"')
	}
	b = append(b, `{"b64":"`...)
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"', '}')
}

// isFloatWord reports whether v is the string appendFloat writes for NaN
// or an infinity.
func isFloatWord(v []byte) bool {
	_, ok := nonFinite[string(v)]
	return ok
}

// isText reports whether v is valid UTF-8 with no control characters but
// tab, newline and carriage return: raw pixels or other binary data of
// small bytes are valid UTF-8 too, and unreadable as text.
func isText(v []byte) bool {
	for _, c := range v {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return utf8.Valid(v)
}

// int64Mode is how cat shows an int64 value (--int64).
type int64Mode int

const (
	int64Exact  int64Mode = iota // a number, or a string beyond ±2^53
	int64Number                  // always a number
	int64String                  // always a string
)

func parseInt64Mode(s string) (int64Mode, error) {
	switch s {
	case "exact", "":
		return int64Exact, nil
	case "number":
		return int64Number, nil
	case "string":
		return int64String, nil
	}
	return 0, fmt.Errorf("--int64 must be exact, number or string, not %q", s)
}

// maxExactInt is 2^53: integers up to it in magnitude are exact as
// float64, which is what jq and JavaScript read JSON numbers as.
const maxExactInt = 1 << 53

// appendInt64 appends v as --int64 asks.
func (r *recordRenderer) appendInt64(b []byte, v int64) []byte {
	if r.int64s == int64String || r.int64s == int64Exact && (v > maxExactInt || v < -maxExactInt) {
		b = append(b, '"')
		b = strconv.AppendInt(b, v, 10)
		return append(b, '"')
	}
	return strconv.AppendInt(b, v, 10)
}

// appendFloat formats v as encoding/json formats a float32 (plain
// decimals for ordinary magnitudes, exponents for tiny and huge ones),
// with protobuf's JSON strings for NaN and the infinities.
func appendFloat(b []byte, v float32) []byte {
	f := float64(v)
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		b = strconv.AppendFloat(b, f, 'e', -1, 32)
		// 1e-07 → 1e-7, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 32)
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json does: record keys are file names, which need not be
// UTF-8; a record whose feature names are not is shown raw instead
// (namesAreText).
func appendString[S ~string | ~[]byte](b []byte, s S) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
