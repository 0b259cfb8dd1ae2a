package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sluiceml/sluice/example"
)

// A jsonlKind is the type of a member's values, from narrowest to widest:
// a member's type is the widest kind its values have (in the sampled
// lines), so a member of integers and fractions is float, and one of
// numbers and strings is string.
type jsonlKind uint8

const (
	jsonlNone   jsonlKind = iota // no value seen (only empty arrays)
	jsonlInt                     // integers in int64's range, and booleans (0, 1)
	jsonlFloat                   // other numbers
	jsonlString                  // strings, and numbers and booleans as their JSON text
)

var jsonlKindNames = [...]string{"none", "int64", "float", "string"}

func (k jsonlKind) String() string { return jsonlKindNames[k] }

// jsonlKinds maps --columns type names to kinds.
var jsonlKinds = map[string]jsonlKind{"int64": jsonlInt, "float": jsonlFloat, "string": jsonlString}

// A jsonlValue is one scalar of a line: its kind and the place of its
// text (jsonlConverter.text), a string's unescaped bytes in the
// converter's arena, where parse copies them, or a number's or a
// boolean's JSON text in the line. A place, not a slice, as later
// strings may move the arena, and twelve bytes, not fifty: a line may
// hold millions of values (audit 62). Lines and arenas are shorter than
// 4 GiB (maxTextLine).
type jsonlValue struct {
	off, n  uint32
	kind    jsonlKind
	inArena bool
	b64     bool // a {"b64":...} value, decoded already
}

// jsonlValueCost is the bytes of --max-record-size a line's value uses
// up: a line may hold at most --max-record-size / jsonlValueCost values.
// Each costs a jsonlValue (with its slice's room to grow) and a value in
// the buffer of its type, twenty to thirty bytes, where its text may be
// two ("0,"); without a bound a small compressed file of one long array
// took gigabytes (audit 62).
const jsonlValueCost = 16

// A jsonlMember is one member of a line that becomes a feature: its
// values are the converter's values[lo:hi].
type jsonlMember struct {
	name   string
	lo, hi int
}

// A jsonlLine says where a line is, for errors.
type jsonlLine struct {
	file string
	line int
}

func (l jsonlLine) String() string { return fmt.Sprintf("%s:%d", l.file, l.line) }

// A jsonlType is the feature type of one member.
type jsonlType struct {
	kind  jsonlKind
	given bool      // by --columns
	from  jsonlLine // the line that typed a member first seen after the sample
}

// jsonlMaxNames bounds the member names kept to be reused: lines of
// names never seen again (a hostile or keyed input) cost no more memory
// than their own lines.
const jsonlMaxNames = 1 << 14

// jsonlConverter turns lines of plain JSON objects into Examples, each
// member a feature (convert --from jsonl). Types are given with
// --columns or inferred from the first lines, which are held until
// then, as convert --from csv does. Its buffers are reused from line to
// line, so a steady stream allocates little beyond what the output
// needs.
type jsonlConverter struct {
	types     map[string]*jsonlType
	names     map[string]string // member names, interned
	seen      map[string]bool   // the current line's members
	held      [][]byte          // sampled lines, until the types are known
	heldAt    []jsonlLine
	heldBytes int
	sampled   int
	opened    int // files opened so far
	s         jsonScanner
	members   []jsonlMember
	values    []jsonlValue
	arena     []byte // the current line's strings
	ints      []int64
	floats    []float32
	bytes     [][]byte
	b         *example.Builder
	out       []byte
	max       int64 // --max-record-size
	maxValues int   // values a line may hold; 0: no limit
	write     func([]byte) error
}

func newJSONLConverter(maxRecord int64, write func([]byte) error) *jsonlConverter {
	c := &jsonlConverter{
		types: map[string]*jsonlType{}, names: map[string]string{}, seen: map[string]bool{},
		b: example.New(), max: maxRecord, write: write,
	}
	if maxRecord > 0 {
		c.maxValues = int(max(maxRecord/jsonlValueCost, 1<<16))
	}
	return c
}

func convertJSONL(ctx context.Context, names []string, o convertOptions, prog *progress, t *tally, write func([]byte) error) error {
	c := newJSONLConverter(settingsFrom(ctx).maxRecord, write)
	if o.columns != "" {
		for _, spec := range strings.Split(o.columns, ",") {
			name, typ, _ := strings.Cut(strings.TrimSpace(spec), ":")
			k, ok := jsonlKinds[typ]
			if name == "" || !ok {
				return fmt.Errorf("--columns: want name:int64, name:float or name:string for --from jsonl, not %q", spec)
			}
			if c.types[name] != nil {
				return fmt.Errorf("--columns: member %q named twice", name)
			}
			c.types[name] = &jsonlType{kind: k, given: true}
		}
	}
	return c.read(ctx, names, prog, t, -1)
}

// read converts the lines of the files names, at most limit of them (all
// if negative), showing the bytes it reads to tee.
func (c *jsonlConverter) read(ctx context.Context, names []string, tee io.Writer, t *tally, limit int) error {
	lines := 0
	for _, name := range names {
		if limit >= 0 && lines >= limit {
			break
		}
		r, err := openText(ctx, name, tee)
		if err != nil {
			return err
		}
		c.opened++
		err = eachLine(ctx, name, r, func(lineNo int, line []byte) error {
			if len(bytes.Trim(line, jsonSpace)) == 0 {
				// JSON's white space only: a line of another space
				// (U+00A0) is not JSON, and its error names it.
				return nil
			}
			if limit >= 0 && lines >= limit {
				return errStopLines
			}
			lines++
			t.read(len(line))
			at := jsonlLine{name, lineNo}
			if c.held != nil || c.sampled == 0 {
				return c.sample(line, at)
			}
			return c.convert(line, at)
		})
		r.Close()
		if err != nil {
			return err
		}
	}
	return c.flush()
}

// sample reads a line for inference and holds it; at csvSampleLines
// lines, or sampleBytes, the types are fixed and the held lines converted.
func (c *jsonlConverter) sample(line []byte, at jsonlLine) error {
	if err := c.parse(line); err != nil {
		return fmt.Errorf("%v: %w", at, err)
	}
	for _, m := range c.members {
		typ := c.types[m.name]
		if typ == nil {
			typ = &jsonlType{}
			c.types[m.name] = typ
		}
		if !typ.given {
			typ.kind = max(typ.kind, widest(c.values[m.lo:m.hi]))
		}
	}
	c.held = append(c.held, bytes.Clone(line))
	c.heldAt = append(c.heldAt, at)
	c.sampled++
	if c.heldBytes += len(line); c.sampled == csvSampleLines || c.heldBytes >= sampleBytes {
		return c.flush()
	}
	return nil
}

// flush fixes the inferred types and converts the held lines.
func (c *jsonlConverter) flush() error {
	for _, typ := range c.types {
		if typ.kind == jsonlNone {
			typ.kind = jsonlString // as a CSV column of empty fields
		}
	}
	held, heldAt := c.held, c.heldAt
	c.held, c.heldAt = nil, nil
	for i, line := range held {
		if err := c.convert(line, heldAt[i]); err != nil {
			return err
		}
	}
	return nil
}

// convert writes the Example of one line.
func (c *jsonlConverter) convert(line []byte, at jsonlLine) error {
	if err := c.parse(line); err != nil {
		return fmt.Errorf("%v: %w", at, err)
	}
	slices.SortFunc(c.members, func(a, b jsonlMember) int { return strings.Compare(a.name, b.name) })
	// The features' values are slices of these, which must not move
	// until the Example is marshalled: room for each member's values in
	// the buffer of its type.
	var n [jsonlString + 1]int
	for _, m := range c.members {
		typ := c.types[m.name]
		if typ == nil {
			// A member first seen after the sample: its first line's
			// values type it.
			typ = &jsonlType{kind: jsonlString, from: at}
			if k := widest(c.values[m.lo:m.hi]); k != jsonlNone {
				typ.kind = k
			}
			c.types[m.name] = typ
		}
		n[typ.kind] += m.hi - m.lo
	}
	c.ints = slices.Grow(c.ints[:0], n[jsonlInt])
	c.floats = slices.Grow(c.floats[:0], n[jsonlFloat])
	c.bytes = slices.Grow(c.bytes[:0], n[jsonlString])
	c.b.Reset()
	for _, m := range c.members {
		typ := c.types[m.name]
		f, err := c.feature(typ, c.values[m.lo:m.hi])
		if err != nil {
			return fmt.Errorf("%v: member %q: %w%s", at, m.name, err, c.typeHint(m.name, typ))
		}
		c.b.Set(m.name, f)
	}
	c.out = c.b.AppendMarshal(c.out[:0])
	if c.max > 0 && int64(len(c.out)) > c.max {
		return fmt.Errorf("%v: record of %d bytes is larger than --max-record-size (%d)", at, len(c.out), c.max)
	}
	if err := c.write(c.out); err != nil {
		if errors.Is(err, errTooManyFeatures) { // schema's and stats': the line brought a feature too many
			return fmt.Errorf("%v: %w", at, err)
		}
		return err
	}
	return nil
}

// typeHint says where a member's type came from and how to give it a
// wider one.
func (c *jsonlConverter) typeHint(name string, typ *jsonlType) string {
	if typ.given {
		return " (its type given with --columns)"
	}
	var why string
	if typ.from.file == "" {
		lines := fmt.Sprintf("the first %d lines", c.sampled)
		if c.sampled == 1 {
			lines = "the first line"
		}
		why = fmt.Sprintf("%s, the type of its values in %s", typ.kind, lines)
	} else {
		why = fmt.Sprintf("%s, the type of its first values, at %s", typ.kind, typ.from)
	}
	var wider []string
	for k := typ.kind + 1; k <= jsonlString; k++ {
		wider = append(wider, name+":"+k.String())
	}
	if len(wider) == 0 {
		return " (" + why + ")"
	}
	return fmt.Sprintf(" (%s; give it another with --columns %s)", why, strings.Join(wider, " or "))
}

// nonFinite holds the strings cat writes for NaN and the infinities, each
// its own text, and nonFiniteValue their values.
var (
	nonFinite      = map[string][]byte{"NaN": []byte("NaN"), "Infinity": []byte("Infinity"), "-Infinity": []byte("-Infinity")}
	nonFiniteValue = map[string]float32{"NaN": float32(math.NaN()), "Infinity": float32(math.Inf(1)), "-Infinity": float32(math.Inf(-1))}
)

// widest returns the widest kind of values.
func widest(values []jsonlValue) jsonlKind {
	k := jsonlNone
	for _, v := range values {
		k = max(k, v.kind)
	}
	return k
}

// feature converts a member's values to its type, in the converter's
// value buffers.
func (c *jsonlConverter) feature(typ *jsonlType, values []jsonlValue) (example.Feature, error) {
	switch typ.kind {
	case jsonlInt:
		lo := len(c.ints)
		for _, x := range values {
			var v int64
			text := c.text(x)
			switch {
			case x.kind != jsonlInt:
				return example.Feature{}, fmt.Errorf("%s is not an int64", c.quoteValue(x))
			case text[0] == 't':
				v = 1
			case text[0] == 'f':
				v = 0
			default:
				v, _ = strconv.ParseInt(string(text), 10, 64) // scalar checked it
			}
			c.ints = append(c.ints, v)
		}
		return example.Int64List(c.ints[lo:]...), nil
	case jsonlFloat:
		lo := len(c.floats)
		for _, x := range values {
			var v float32
			text := c.text(x)
			switch {
			case x.kind == jsonlString:
				return example.Feature{}, fmt.Errorf("%s is not a float", c.quoteValue(x))
			case text[0] == 't':
				v = 1
			case text[0] == 'f':
				v = 0
			case text[0] == 'N' || text[0] == 'I' || text[0] == '-' && text[1] == 'I':
				v = nonFiniteValue[string(text)]
			default:
				f, err := parseFloat32(text)
				if err != nil {
					return example.Feature{}, err
				}
				v = f
			}
			c.floats = append(c.floats, v)
		}
		return example.FloatList(c.floats[lo:]...), nil
	default:
		lo := len(c.bytes)
		for _, x := range values {
			c.bytes = append(c.bytes, c.text(x))
		}
		return example.BytesList(c.bytes[lo:]...), nil
	}
}

// text returns a value's text, valid until the next parse.
func (c *jsonlConverter) text(v jsonlValue) []byte {
	src := c.s.b
	if v.inArena {
		src = c.arena
	}
	return src[v.off : v.off+v.n : v.off+v.n]
}

// quoteValue shows a value in an error as the line has it.
func (c *jsonlConverter) quoteValue(v jsonlValue) string {
	if v.kind == jsonlString {
		return strconv.Quote(string(c.text(v)))
	}
	return string(c.text(v))
}

// parse reads a line's members into c.members and c.values, their texts
// valid until the next call. A null member is no feature; an empty array
// is a feature without values.
func (c *jsonlConverter) parse(line []byte) error {
	s := &c.s
	s.reset(line)
	c.members, c.values, c.arena = c.members[:0], c.values[:0], c.arena[:0]
	clear(c.seen)
	if s.ws() != '{' {
		return fmt.Errorf("want a JSON object, not %s", s.kind())
	}
	base64s := false // the line's strings are base64 (cat --flat --bytes base64)
	err := s.objectBytes(func(b []byte) error {
		name := c.intern(b) // before the value's strings reuse b
		if c.seen[name] {
			return fmt.Errorf("member %q twice", name)
		}
		c.seen[name] = true
		null, err := s.null()
		if err != nil || null {
			return err
		}
		if name == flatBytesName && s.ws() == '"' {
			// cat --flat's marker of its --bytes, which a feature,
			// always an array, cannot be mistaken for.
			mode, err := s.str()
			if err != nil {
				return err
			}
			switch string(mode) {
			case "base64":
				base64s = true
				return nil
			case "text":
				return errors.New(`the line says "$bytes":"text": cat --flat --bytes text is lossy (bytes that are not UTF-8 became U+FFFD) and cannot be read back; print the records with cat --flat (--bytes auto) or --flat --bytes base64`)
			}
			return fmt.Errorf(`%q must be "base64", not %q`, flatBytesName, mode)
		}
		lo := len(c.values)
		if s.ws() == '[' {
			err = s.array(func(int) error { return c.scalar(name) })
		} else {
			err = c.scalar(name)
		}
		c.members = append(c.members, jsonlMember{name: name, lo: lo, hi: len(c.values)})
		return err
	})
	if err != nil {
		return err
	}
	if base64s {
		if err := c.decodeBase64s(); err != nil {
			return err
		}
	}
	return s.end()
}

// flatBytesName is the name of cat --flat's --bytes marker
// (flatBytesMarker, unquoted).
const flatBytesName = "$bytes"

// decodeBase64s decodes the line's JSON strings, which cat --flat
// --bytes base64 wrote as base64; its {"b64":...} values are decoded
// already, and its floats' words are no strings.
func (c *jsonlConverter) decodeBase64s() error {
	for _, m := range c.members {
		for i := m.lo; i < m.hi; i++ {
			v := &c.values[i]
			if v.kind != jsonlString || v.b64 {
				continue
			}
			start := len(c.arena)
			var err error
			c.arena, err = base64.StdEncoding.AppendDecode(c.arena, c.text(*v))
			if err != nil {
				return fmt.Errorf("member %q: %s: the line says %q:\"base64\": %w", m.name, c.quoteValue(*v), flatBytesName, err)
			}
			v.off, v.n = uint32(start), uint32(len(c.arena)-start)
		}
	}
	return nil
}

// intern returns name as a string, the same one for the same name.
func (c *jsonlConverter) intern(name []byte) string {
	if s, ok := c.names[string(name)]; ok {
		return s
	}
	s := string(name)
	if len(c.names) < jsonlMaxNames {
		c.names[s] = s
	}
	return s
}

// scalar reads one number, string or boolean into c.values.
func (c *jsonlConverter) scalar(name string) error {
	if c.maxValues > 0 && len(c.values) >= c.maxValues {
		return fmt.Errorf("member %q: more than %d values in the line, the most that --max-record-size allows (one a %d bytes)", name, c.maxValues, jsonlValueCost)
	}
	s := &c.s
	var v jsonlValue
	switch ch := s.ws(); {
	case ch == '"':
		b, err := s.str()
		if err != nil {
			return err
		}
		if w, ok := nonFinite[string(b)]; ok {
			// cat's words for the floats JSON has no number for
			// (protobuf's JSON mapping): a float, unless the member's
			// other values make it text.
			v = c.inArena(jsonlFloat, w)
			break
		}
		// The scanner reuses its buffer: the string is kept in the arena.
		v = c.inArena(jsonlString, b)
	case ch == 't' || ch == 'f':
		word := "true"
		if ch == 'f' {
			word = "false"
		}
		if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
			return s.syntax(word)
		}
		v = jsonlValue{kind: jsonlInt, off: uint32(s.i), n: uint32(len(word))}
		s.i += len(word)
	case ch == '-' || ch >= '0' && ch <= '9':
		text, err := s.number()
		if err != nil {
			return err
		}
		// The number's text ends where the scanner is.
		v = jsonlValue{kind: jsonlFloat, off: uint32(s.i - len(text)), n: uint32(len(text))}
		if !bytes.ContainsAny(text, ".eE") {
			if _, err := strconv.ParseInt(string(text), 10, 64); err == nil {
				v.kind = jsonlInt // else beyond int64: a float
			}
		}
	case ch == '{':
		// cat's form of bytes that are not text, or whose text would read
		// as a float (cat --flat writes bytes "NaN" so): bytes. Any other
		// object is a nested value.
		start := len(c.arena)
		members := 0
		err := s.objectBytes(func(key []byte) error {
			if members++; members > 1 || string(key) != "b64" {
				return errNotB64
			}
			text, err := s.str()
			if err != nil {
				return err
			}
			if c.arena, err = base64.StdEncoding.AppendDecode(c.arena, text); err != nil {
				return fmt.Errorf("member %q: b64: %w", name, err)
			}
			return nil
		})
		if err == nil && members == 0 {
			err = errNotB64
		}
		if err == errNotB64 {
			return nestedError(name, "an object")
		}
		if err != nil {
			return err
		}
		v = jsonlValue{kind: jsonlString, off: uint32(start), n: uint32(len(c.arena) - start), inArena: true, b64: true}
	case ch == 'n':
		// A member's own null was taken by parse: this one is in an array.
		if _, err := s.null(); err != nil {
			return err
		}
		return fmt.Errorf("member %q holds a null in an array: an Example's list has no nulls (leave them out)", name)
	default:
		return nestedError(name, s.kind())
	}
	c.values = append(c.values, v)
	return nil
}

// inArena copies text to the arena, as a value of kind k.
func (c *jsonlConverter) inArena(k jsonlKind, text []byte) jsonlValue {
	v := jsonlValue{kind: k, off: uint32(len(c.arena)), n: uint32(len(text)), inArena: true}
	c.arena = append(c.arena, text...)
	return v
}

// errNotB64 reports an object that is not a {"b64":...} bytes value.
var errNotB64 = errors.New(`not {"b64":...}`)

// nestedError reports a member holding a nested value, of kind what, and
// what to do about it.
func nestedError(name, what string) error {
	hint := "flatten nested values first, for example with jq"
	switch name {
	case "features":
		hint = "sluice cat's lines are --from json"
	case "context", "feature_lists":
		// cat --flat's SequenceExample, which neither form reads back
		// (audit 60).
		hint = "sluice cat's SequenceExamples are --from json without --flat; jsonl makes Examples"
	}
	return fmt.Errorf(`member %q holds %s: a feature is numbers, strings, booleans or bytes as {"b64":"..."}, or an array of them (%s)`, name, what, hint)
}

// jsonSpace is the white space JSON allows between values.
const jsonSpace = " \t\r\n"
