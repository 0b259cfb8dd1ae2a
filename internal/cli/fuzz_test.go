package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tfrecord"
	"google.golang.org/protobuf/proto"
)

// FuzzRender: any record, in any --format, renders to one valid JSON line
// or is refused with an error; never a panic. In auto mode a record shown
// as an Example holds exactly the features protobuf finds in it.
func FuzzRender(f *testing.F) {
	for _, r := range mixedRecords() {
		f.Add(r, uint8(0))
	}
	f.Add(example.New().Floats("f", []float32{float32(math.NaN()), 1e-45, float32(math.Copysign(0, -1))}).Marshal(), uint8(1))
	f.Add([]byte{0x0a, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0xff}, uint8(0)) // feature name not UTF-8
	f.Add([]byte{0x12, 0x02, 0x0a, 0x00}, uint8(2))
	f.Add(example.New().Bytes("w", []byte("NaN"), []byte("-Infinity")).Bytes("b", []byte{0xff, 0}).Float("f", float32(math.Inf(1))).Marshal(), uint8(0))
	f.Fuzz(func(t *testing.T, rec []byte, format uint8) {
		r := &recordRenderer{format: recordFormat(format % 4)}
		line, err := r.render([]byte("f\x00\"\xff:12"), rec)
		// The Scanner's reading of an Example renders as the messages' does.
		for _, flat := range []bool{false, true} {
			ref := &recordRenderer{format: r.format, flat: flat, messagesOnly: true}
			want, werr := ref.render([]byte("k"), rec)
			fr := &recordRenderer{format: r.format, flat: flat}
			got, gerr := fr.render([]byte("k"), rec)
			if (gerr == nil) != (werr == nil) || !bytes.Equal(got, want) {
				t.Fatalf("flat %v: rendered %q (%v), from messages %q (%v)", flat, got, gerr, want, werr)
			}
		}
		if err != nil {
			if r.format != formatExample && r.format != formatSequence {
				t.Fatalf("format %d refused a record: %v", r.format, err)
			}
			return
		}
		if !bytes.HasSuffix(line, []byte("}\n")) || bytes.Count(line, []byte("\n")) != 1 {
			t.Fatalf("not one line: %q", line)
		}
		var obj struct {
			Key      string
			Features map[string]json.RawMessage
			Context  map[string]json.RawMessage
			Raw      []byte
		}
		if err := json.Unmarshal(line, &obj); err != nil {
			t.Fatalf("invalid JSON %q: %v", line, err)
		}
		if obj.Key != "f\x00\"\ufffd:12" {
			t.Fatalf("key %q", obj.Key)
		}
		if obj.Raw != nil && !bytes.Equal(obj.Raw, rec) {
			t.Fatalf("raw %x, record %x", obj.Raw, rec)
		}
		if r.format == formatAuto && obj.Features != nil {
			var ex pb.Example
			if err := proto.Unmarshal(rec, &ex); err != nil || len(ex.GetFeatures().GetFeature()) != len(obj.Features) {
				t.Fatalf("shown as an Example with %d features: %v", len(obj.Features), err)
			}
		}
		// Flat, the line is valid JSON too, and an Example's is an object
		// of arrays: its features' lists.
		line = bytes.Clone(line) // r reuses its buffer
		r.flat = true
		flat, err := r.render(nil, rec)
		if err != nil {
			t.Fatalf("refused flat, not otherwise: %v", err)
		}
		var lists map[string]json.RawMessage
		if err := json.Unmarshal(flat, &lists); err != nil {
			t.Fatalf("invalid flat JSON %q: %v", flat, err)
		}
		if obj.Features != nil {
			if len(lists) != len(obj.Features) {
				t.Fatalf("flat %q has %d members, for %d features", flat, len(lists), len(obj.Features))
			}
			skip := false
			for name, l := range lists {
				if !bytes.HasPrefix(l, []byte("[")) {
					t.Fatalf("flat %q: feature %q is not an array", flat, name)
				}
				skip = skip || string(l) == "[]" || strings.ContainsRune(name, utf8.RuneError)
			}
			// convert --from jsonl reads the flat line back to the same
			// Example, or fails. Left out: a list of no values, which does
			// not say its kind, and a name that is not UTF-8, which JSON
			// cannot hold (cat shows U+FFFD, flat or not).
			if !skip {
				var back []byte
				c := newJSONLConverter(0, func(rec []byte) error {
					back = bytes.Clone(rec)
					return nil
				})
				err := c.sample(bytes.TrimSuffix(flat, []byte("\n")), jsonlLine{"f", 1})
				if err == nil {
					err = c.flush()
				}
				if err == nil {
					again, err := (&recordRenderer{format: r.format}).render([]byte("f\x00\"\xff:12"), back)
					if err != nil || !bytes.Equal(again, line) {
						t.Fatalf("flat %q reads back as %q (%v), not %q", flat, again, err, line)
					}
				}
			}
		}
	})
}

var fileLine = regexp.MustCompile(`in\.csv:\d+: `)

// FuzzConvertCSV: any CSV text, with or without a header, converts or
// fails with an error naming the file and a line; every record written
// is an Example with one feature per column.
func FuzzConvertCSV(f *testing.F) {
	f.Add([]byte("id,score,name\n1,2.5,ann\n2,3,\"bob, jr\"\n"), true)
	f.Add([]byte("1,2\n3\n"), false)
	f.Add([]byte("a\n\"x\"\"y\"\n\r\n,\n"), true)
	f.Add([]byte("1e400,nan,-inf\n"), false)
	f.Add([]byte(",\n\n"), true)
	f.Add([]byte("a,b\n2023_01, 5\n1_000,-nan\n"), true)
	f.Add([]byte("1,1e39\n2,x\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, header bool) {
		var cols int
		c := &csvConverter{o: convertOptions{header: header}, b: example.New(), write: func(rec []byte) error {
			var ex pb.Example
			if err := proto.Unmarshal(rec, &ex); err != nil {
				t.Fatalf("wrote a bad Example: %v", err)
			}
			if cols == 0 {
				cols = len(ex.GetFeatures().GetFeature())
			}
			if n := len(ex.GetFeatures().GetFeature()); n != cols || n != len(ex.GetFeatures().GetFeature()) {
				t.Fatalf("record with %d features, first had %d", n, cols)
			}
			return nil
		}}
		err := c.stream(context.Background(), "in.csv", bytes.NewReader(data), nil)
		if err == nil {
			err = c.flush()
		}
		if err != nil && !fileLine.MatchString(err.Error()) {
			t.Fatalf("error does not name the file and line: %v", err)
		}
		// Types inferred from every line (a short input) are ones every
		// value decodes as: inference and decoding follow the same rules.
		if err != nil && c.sampled < csvSampleLines && strings.Contains(err.Error(), "the type inferred from") {
			t.Fatalf("a value fails the type inferred from all of the lines: %v", err)
		}
		if err == nil && cols != 0 && cols != len(c.cols) {
			t.Fatalf("%d features for %d columns", cols, len(c.cols))
		}
	})
}

// FuzzParseColumns: the --columns parser accepts or refuses any text.
func FuzzParseColumns(f *testing.F) {
	f.Add("a:int64,b:float,c:string")
	f.Add("a,,b:")
	f.Add("a:int64,a:float")
	f.Fuzz(func(t *testing.T, s string) {
		cols, err := parseColumns(s)
		if err == nil && len(cols) != strings.Count(s, ",")+1 {
			t.Fatalf("%q: %d columns", s, len(cols))
		}
	})
}

// FuzzSchema: any records give a schema whose counts add up, every spec
// it infers for a fixed feature matches the values it counted, and every
// output writes without error (the Go one through go/format, the JSON
// one valid).
func FuzzSchema(f *testing.F) {
	for _, r := range mixedRecords() {
		f.Add(r, r)
	}
	ex, seq := schemaExamples(f), schemaSequences(f)
	f.Add(ex[0], ex[5])
	f.Add(seq[0], seq[1])
	f.Add(ex[1], seq[2])
	f.Fuzz(func(t *testing.T, a, b []byte) {
		s := newSchema()
		s.add(a)
		s.add(b)
		s.files = 1
		// Examples read by the Scanner count as decoded messages would.
		ref := newSchema()
		ref.messagesOnly = true
		ref.add(a)
		ref.add(b)
		if s.examples != ref.examples || s.sequences != ref.sequences || s.other != ref.other || len(s.features) != len(ref.features) {
			t.Fatalf("counts %d %d %d, %d features; from messages %d %d %d, %d", s.examples, s.sequences, s.other, len(s.features), ref.examples, ref.sequences, ref.other, len(ref.features))
		}
		for name, st := range s.features {
			r := ref.features[name]
			if r == nil || st.kinds != r.kinds || st.present != r.present || st.minN != r.minN || st.maxN != r.maxN || st.total != r.total {
				t.Fatalf("feature %q: %+v; from messages %+v", name, st, r)
			}
		}
		if s.examples+s.sequences+s.other != s.records || s.records != 2 {
			t.Fatalf("counts: %d Examples + %d SequenceExamples + %d other != %d records", s.examples, s.sequences, s.other, s.records)
		}
		for _, list := range []bool{false, true} {
			m := s.features
			if list {
				m = s.lists
			}
			for _, st := range m {
				sp := st.spec(s.holders(), list)
				if sp.how == "fixed" || sp.how == "fixedseq" {
					n := 1
					for _, d := range sp.shape {
						n *= d
					}
					if st.minN != n || st.maxN != n || st.kind() == "mixed" {
						t.Fatalf("%s: %v from %d to %d values of kind %s", st.name, sp, st.minN, st.maxN, st.kind())
					}
				}
			}
		}
		for name, write := range schemaWriters {
			var out bytes.Buffer
			if err := write(&out, s); err != nil {
				t.Fatalf("--output %s: %v", name, err)
			}
			if name == "json" && !json.Valid(out.Bytes()) {
				t.Fatalf("invalid JSON: %s", out.Bytes())
			}
		}
	})
}

// FuzzConvertJSON: any line is a record or an error, never a panic; a
// line that converts is JSON, as encoding/json judges it; and it
// describes its record exactly: cat shows the record
// as a line that converts back to the same bytes (Examples and
// SequenceExamples, whose marshalling is deterministic; raw records are
// copied).
func FuzzConvertJSON(f *testing.F) {
	for _, rec := range mixedRecords() {
		for _, mode := range []bytesMode{bytesAuto, bytesBase64} {
			r := &recordRenderer{bytes: mode}
			line, err := r.render(nil, rec)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(bytes.TrimSuffix(line, []byte("\n")), mode == bytesBase64)
		}
	}
	for _, line := range []string{
		`{"features":{"a":{"int64":["-9223372036854775808",1e3]}}}`,
		`{"features":{"a":{"float":["NaN",-0,"1.5",3.4028235e38]}}}`,
		`{"context":{},"feature_lists":{"t":[{},{"bytes":[{"b64":"AA=="}]}]}}`,
		`{"raw":""}`, `{"key":null,"features":null,"raw":"AA=="}`, `{}`, `[]`, `"x"`, `{"features":{"a":{}}}`,
		// Found by the fuzzer: names matched without regard to case, and
		// lists without a context taken back with an empty one.
		`{"feAture_lists":{}}`, `{"feature_lists":{}}`, "{\"features\":{}}\x00",
		// cat's marks of --bytes, before and after the values.
		`{"bytes":"base64","features":{"a":{"bytes":["AA=="]}}}`, `{"features":{"a":{"bytes":["AA=="]}},"bytes":"base64"}`,
		`{"bytes":"text","features":{}}`, `{"bytes":"auto","context":{"b":{"bytes":["x"]}}}`, `{"bytes":7}`,
	} {
		f.Add([]byte(line), false)
	}
	f.Fuzz(func(t *testing.T, line []byte, base64Bytes bool) {
		mode := bytesAuto
		if base64Bytes {
			mode = bytesBase64
		}
		p := newJSONParser(mode)
		rec, err := p.parse(line)
		if err != nil {
			return
		}
		if !json.Valid(line) || !utf8.Valid(line) {
			t.Fatalf("%q is not JSON (or not UTF-8), yet it converted", line)
		}
		rec = bytes.Clone(rec)
		r := &recordRenderer{bytes: mode, format: map[int]recordFormat{lineExample: formatExample, lineSequence: formatSequence, lineRaw: formatRaw}[p.kind]}
		shown, err := r.render(nil, rec)
		if err != nil {
			t.Fatalf("%q converted to %x, which cat refuses: %v", line, rec, err)
		}
		again, err := newJSONParser(mode).parse(bytes.TrimSuffix(shown, []byte("\n")))
		if err != nil {
			t.Fatalf("%q converted to %x, shown as %q, which does not convert: %v", line, rec, shown, err)
		}
		if !bytes.Equal(again, rec) {
			t.Fatalf("%q converted to %x, shown as %q, converted to %x", line, rec, shown, again)
		}
	})
}

// FuzzSchemaCSV: any text is columns or an error, never a panic; a column's
// type holds for every field read (the int64 and float ones parse as such),
// and every writer prints the result, the JSON one valid JSON.
func FuzzSchemaCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "x\n1.5\n\nfoo\n", "\"a,b\",c\n1,\n", "1\t2\n3\t4.5\n", ""} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, text string, header bool) {
		s := &csvSchema{files: 1, header: header, delim: ','}
		err := s.file(context.Background(), "f.csv", strings.NewReader(text), -1)
		if err == nil {
			err = s.flush()
		}
		if err != nil {
			return
		}
		if s.lines > 0 {
			fields, err := s.dec.DecodeBatch(splitNonBlank(text, header), nil)
			if err != nil {
				t.Fatalf("lines split once and not again: %v", err)
			}
			for j, c := range s.cols {
				for _, v := range fields[j].Strings() {
					if len(v) > 0 && widen(c.dtype, v) != c.dtype {
						t.Fatalf("column %q is %v, but holds %q", c.name, c.dtype, v)
					}
				}
			}
		}
		for name, write := range csvSchemaWriters {
			var out bytes.Buffer
			if err := write(&out, s); err != nil {
				t.Fatalf("--output %s: %v", name, err)
			}
			if name == "json" && !json.Valid(out.Bytes()) {
				t.Fatalf("invalid JSON: %s", out.Bytes())
			}
		}
	})
}

// splitNonBlank returns text's lines as schema --from csv reads them: no
// header line, no blank lines.
func splitNonBlank(text string, header bool) [][]byte {
	var out [][]byte
	s := recordio.NewLineSplitter(strings.NewReader(text))
	for i := 1; ; i++ {
		line, err := s.Next()
		if err != nil {
			return out
		}
		if i == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
			if header {
				continue
			}
		}
		if len(bytes.TrimSpace(line)) > 0 {
			out = append(out, bytes.Clone(line))
		}
	}
}

// FuzzSkipCorrupt: convert --skip-corrupt of any file writes exactly the
// records a skipping reader of it yields, in order, and succeeds unless
// the reader stopped at something other than damage (a record over the
// size limit) or yields no record but damage; never a panic, never a
// partial output.
func FuzzSkipCorrupt(f *testing.F) {
	good := func(c tfrecord.Compression, n int) []byte {
		var b bytes.Buffer
		w := tfrecord.NewWriter(&b, c)
		for i := range n {
			w.Write(example.New().Int64("label", int64(i)).Marshal())
		}
		w.Close()
		return b.Bytes()
	}
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		data := good(c, 20)
		f.Add(data)
		f.Add(data[:len(data)*2/3])
		damaged := bytes.Clone(data)
		damaged[len(damaged)/2] ^= 0x10
		f.Add(damaged)
	}
	plain := good(tfrecord.None, 5)
	f.Add(append(bytes.Clone(plain[:30]), plain...)) // a torn record, then good ones
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.tfrecord")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var want [][]byte
		r := tfrecord.NewReader(bytes.NewReader(data), tfrecord.DetectCompression(data),
			tfrecord.SkipCorrupt(), tfrecord.MaxRecordSize(defaultMaxRecordSize))
		var end error
		for {
			rec, err := r.Next()
			if err != nil {
				end = err
				break
			}
			want = append(want, bytes.Clone(rec))
		}
		damaged := r.Stats().Skipped > 0 || end != io.EOF
		r.Close()
		out := filepath.Join(dir, "out")
		code, _, errOut := run(t, "convert", "--skip-corrupt", in, "--out", out)
		var why string
		switch {
		case errors.Is(end, tfrecord.ErrTooLarge):
			why = "--max-record-size"
		case len(want) == 0 && damaged:
			why = "--skip-corrupt found no good record to copy"
		}
		if why != "" {
			if code != 1 || !strings.Contains(errOut, why) {
				t.Fatalf("exit %d, %q; want exit 1 and %q (the reader ended with %v)", code, errOut, why, end)
			}
			if _, err := os.Stat(out + ".tfrecord"); err == nil {
				t.Fatal("a failed convert left its output")
			}
			return
		}
		if code != 0 {
			t.Fatalf("exit %d: %s (the reader ended with %v)", code, errOut, end)
		}
		got := readFile(t, out+".tfrecord", tfrecord.None)
		if len(got) != len(want) {
			t.Fatalf("salvaged %d records, the reader yields %d", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("record %d differs", i)
			}
		}
	})
}

// FuzzConvertJSONL: a line converts (--from jsonl) exactly when
// encoding/json reads it as an object of numbers, strings, booleans,
// nulls and arrays of the first three, with no member twice and no
// float beyond float32; and then the Example holds each non-null member
// with its values, typed by their widest kind, as encoding/json reads
// them.
func FuzzConvertJSONL(f *testing.F) {
	for _, line := range []string{
		`{"label": 3, "x": [0.5, 2], "name": "ann", "ok": true, "n": null}`,
		`{"id": [1.50, true, "x\u00e9\ud83d\ude00"], "e": [], "big": 9223372036854775808}`,
		`{"a": {"b": 1}}`, `{"a": [[1]]}`, `{"a": 1, "a": 2}`, `{"a": 1e39}`, `[1]`, `{"a": -0, "b": 1E+2}`,
		`{"a": "\ud800"}`, "{\"a\": 1}\x00", `{"a": tru}`,
		`{"b": {"b64": "/wA="}, "c": [{"b64": "TmFO"}, "x"], "d": ["NaN", 1]}`, `{"b": {"b64": "!"}}`, `{"b": {}}`,
		`{"$bytes":"base64","b":["/wA=",{"b64":"TmFO"}],"x":["NaN",1.5],"i":[7]}`, `{"b":"YQ==","$bytes":"base64"}`,
		`{"$bytes":"text","b":["a"]}`, `{"$bytes":["x"],"$bytes2":"base64"}`, `{"$bytes":"base64","b":"!"}`, `{"$bytes":null}`,
	} {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\n\r") {
			return // one line: the converter is given lines
		}
		var rec []byte
		c := newJSONLConverter(0, func(r []byte) error {
			rec = bytes.Clone(r)
			return nil
		})
		err := c.sample(line, jsonlLine{"f", 1})
		if err == nil {
			err = c.flush()
		}
		want, ok := jsonlOracle(line)
		if !ok {
			if err == nil {
				t.Fatalf("%q converted, but it is not an object of scalars and arrays of them", line)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		var ex pb.Example
		if err := proto.Unmarshal(rec, &ex); err != nil {
			t.Fatalf("%q converted to %x, which is no Example: %v", line, rec, err)
		}
		got := ex.GetFeatures().GetFeature()
		if len(got) != len(want) {
			t.Fatalf("%q: %d features, want %d", line, len(got), len(want))
		}
		for name, w := range want {
			g, ok := got[name]
			if !ok {
				t.Fatalf("%q: no feature %q", line, name)
			}
			switch {
			case w.bytes != nil:
				if !slices.EqualFunc(g.GetBytesList().GetValue(), w.bytes, bytes.Equal) || g.GetBytesList() == nil {
					t.Fatalf("%q: %q is %v, want bytes %q", line, name, g, w.bytes)
				}
			case w.floats != nil:
				sameBits := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || a == b }
				if !slices.EqualFunc(g.GetFloatList().GetValue(), w.floats, sameBits) || g.GetFloatList() == nil {
					t.Fatalf("%q: %q is %v, want floats %v", line, name, g, w.floats)
				}
			default:
				if !slices.Equal(g.GetInt64List().GetValue(), w.ints) || g.GetInt64List() == nil {
					t.Fatalf("%q: %q is %v, want int64s %v", line, name, g, w.ints)
				}
			}
		}
	})
}

// A jsonlWant is a feature FuzzConvertJSONL expects: one of the three
// lists is not nil.
type jsonlWant struct {
	ints   []int64
	floats []float32
	bytes  [][]byte
}

// jsonlOracle reads a line with encoding/json, as convert --from jsonl
// should, and returns its features, or false for a line it must refuse.
func jsonlOracle(line []byte) (map[string]jsonlWant, bool) {
	if !json.Valid(line) || !utf8.Valid(line) {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	// cat --flat --bytes base64's marker, a string where a feature is
	// an array or a scalar: the line's strings are base64.
	base64s := false
	var members map[string]json.RawMessage
	if json.Unmarshal(line, &members) == nil && bytes.HasPrefix(members[flatBytesName], []byte(`"`)) {
		var mode string
		json.Unmarshal(members[flatBytesName], &mode)
		if mode != "base64" {
			return nil, false
		}
		base64s = true
	}
	want := map[string]jsonlWant{}
	seen := map[string]bool{}
	for d.More() {
		tok, _ := d.Token()
		name := tok.(string)
		if seen[name] {
			return nil, false
		}
		seen[name] = true
		var values []any
		tok, _ = d.Token()
		if _, marker := tok.(string); marker && name == flatBytesName {
			continue
		}
		switch tok := tok.(type) {
		case nil:
			continue
		case json.Delim:
			if tok == '{' {
				b, ok := oracleB64(d)
				if !ok {
					return nil, false
				}
				values = []any{b}
				break
			}
			values = []any{}
			for d.More() {
				v, _ := d.Token()
				if v == json.Delim('{') {
					b, ok := oracleB64(d)
					if !ok {
						return nil, false
					}
					v = b
				}
				if _, nested := v.(json.Delim); nested {
					return nil, false
				}
				if v == nil {
					return nil, false // null inside an array
				}
				values = append(values, v)
			}
			d.Token() // ]
		default:
			values = []any{tok}
		}
		for i, v := range values {
			if text, ok := v.(string); ok && base64s {
				if _, word := nonFiniteValue[text]; word {
					continue
				}
				b, err := base64.StdEncoding.DecodeString(text)
				if err != nil {
					return nil, false
				}
				values[i] = b
			}
		}
		var w jsonlWant
		kind := jsonlNone
		for _, v := range values {
			switch v := v.(type) {
			case []byte:
				kind = jsonlString
			case string:
				if _, ok := nonFiniteValue[v]; ok {
					kind = max(kind, jsonlFloat) // cat's NaN and infinities
					break
				}
				kind = jsonlString
			case json.Number:
				if _, err := v.Int64(); err == nil {
					kind = max(kind, jsonlInt)
				} else {
					kind = max(kind, jsonlFloat)
				}
			case bool:
				kind = max(kind, jsonlInt)
			}
		}
		for _, v := range values {
			switch kind {
			case jsonlInt:
				n := int64(0)
				if v == true {
					n = 1
				} else if num, ok := v.(json.Number); ok {
					n, _ = num.Int64()
				}
				w.ints = append(w.ints, n)
			case jsonlFloat:
				x := float32(0)
				if s, ok := v.(string); ok {
					x = nonFiniteValue[s]
				} else if v == true {
					x = 1
				} else if num, ok := v.(json.Number); ok {
					f, err := strconv.ParseFloat(string(num), 32)
					if err != nil {
						return nil, false
					}
					x = float32(f)
				}
				w.floats = append(w.floats, x)
			default:
				switch v := v.(type) {
				case []byte:
					w.bytes = append(w.bytes, v)
				case string:
					w.bytes = append(w.bytes, []byte(v))
				case json.Number:
					w.bytes = append(w.bytes, []byte(v))
				case bool:
					w.bytes = append(w.bytes, []byte(strconv.FormatBool(v)))
				}
			}
		}
		switch {
		case kind == jsonlInt && w.ints == nil:
			w.ints = []int64{}
		case kind == jsonlFloat && w.floats == nil:
			w.floats = []float32{}
		case (kind == jsonlString || kind == jsonlNone) && w.bytes == nil:
			w.bytes = [][]byte{}
		}
		want[name] = w
	}
	return want, true
}

// oracleB64 reads the rest of an object d has just opened, which must be
// {"b64":"..."} of valid base64, and returns the bytes.
func oracleB64(d *json.Decoder) ([]byte, bool) {
	if tok, err := d.Token(); err != nil || tok != "b64" {
		return nil, false
	}
	tok, err := d.Token()
	text, isString := tok.(string)
	if err != nil || !isString || d.More() {
		return nil, false
	}
	d.Token() // }
	b, err := base64.StdEncoding.DecodeString(text)
	return b, err == nil
}

// FuzzStats feeds arbitrary records to stats: its reports never fail, the
// JSON one is JSON, and no feature counts more values than it was given
// records' worth of bytes.
func FuzzStats(f *testing.F) {
	for _, r := range mixedRecords() {
		f.Add(r, r)
	}
	nan := example.New().Floats("f", []float32{float32(math.NaN()), float32(math.Inf(-1)), 0}).Int64s("i", []int64{math.MinInt64, math.MaxInt64}).Marshal()
	f.Add(nan, []byte{0x12, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		s := newSchema()
		s.values = true
		s.add(a)
		s.add(b)
		s.files = 1
		var out bytes.Buffer
		if err := writeStatsText(&out, s, 3); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if err := writeStatsJSON(&out, s, 3); err != nil {
			t.Fatal(err)
		}
		var r statsReport
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("%v:\n%s", err, out.Bytes())
		}
		for _, fs := range append(r.Features, r.FeatureLists...) {
			if fs.Values > int64(len(a)+len(b)) || fs.Distinct != nil && int64(*fs.Distinct) > fs.Values {
				t.Fatalf("%+v from %d bytes", fs, len(a)+len(b))
			}
		}
	})
}

// FuzzFormatOf: any first bytes of a file, read as any compression, give
// a hint or none, never a panic; a file whose first bytes are text is
// named as something ("starts like ..."), whatever compression its first
// bytes seem to have.
func FuzzFormatOf(f *testing.F) {
	for _, c := range []tfrecord.Compression{tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		var b bytes.Buffer
		w, err := tfrecord.NewCompressor(c, &b)
		if err != nil {
			f.Fatal(err)
		}
		w.Write([]byte("id,name\n1,ann\n"))
		w.Close()
		f.Add(b.Bytes(), uint8(c))
	}
	f.Add([]byte("id,name\n1,ann\n"), uint8(tfrecord.None))
	f.Add([]byte("x^2,y\n1,2\n"), uint8(tfrecord.Zlib))
	f.Add([]byte("name,city\n1,Montr\xe9al\n"), uint8(tfrecord.None))
	f.Add([]byte("PAR1\x15\x04"), uint8(tfrecord.None))
	f.Fuzz(func(t *testing.T, prefix []byte, c uint8) {
		comp := tfrecord.Compression(c % uint8(tfrecord.Zstd+1))
		hint := formatOf(prefix, comp, "f")
		if looksLikeText(prefix[:min(len(prefix), 16)]) && !strings.Contains(hint, "starts like") {
			t.Fatalf("text %q read as %v: hint %q", prefix, comp, hint)
		}
	})
}
