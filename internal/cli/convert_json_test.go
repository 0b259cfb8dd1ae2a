package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/tfrecord"
	"google.golang.org/protobuf/proto"
)

// cat's JSON lines, in every form cat writes them, convert back into
// records that cat shows as it showed the originals; cat --format raw's
// are the originals byte for byte.
func TestConvertJSONRoundTrip(t *testing.T) {
	dir := t.TempDir()
	recs := append(mixedRecords(),
		example.New().Int64("big", math.MinInt64, 1<<53+1).Float("neg", float32(math.Copysign(0, -1)), -1.5).
			Set("empty", example.Feature{}).Strings("text", "line\nbreak\t\u2028", "").Marshal())
	all := writeRecords(t, dir, "all.tfrecord.gz", tfrecord.Gzip, recs...)
	examples := writeRecords(t, dir, "examples.tfrecord", tfrecord.None, recs[0], recs[len(recs)-1])
	sequences := writeRecords(t, dir, "sequences.tfrecord", tfrecord.None, recs[1])
	for _, tc := range []struct {
		name  string
		in    string
		cat   []string // cat's options, for both sides
		bytes string   // convert's --bytes
	}{
		{"auto", all, nil, ""},
		{"keys", all, []string{"--keys"}, ""},
		{"base64", all, []string{"--bytes", "base64"}, "base64"},
		{"int64-string", all, []string{"--int64", "string"}, ""},
		{"int64-number", all, []string{"--int64", "number"}, ""},
		{"example", examples, []string{"--format", "example"}, ""},
		{"sequence", sequences, []string{"--format", "sequence"}, ""},
		{"raw", all, []string{"--format", "raw"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			show := func(name string) string {
				t.Helper()
				code, s, errOut := run(t, append([]string{"cat", name}, tc.cat...)...)
				if code != 0 {
					t.Fatalf("cat %s: %s", name, errOut)
				}
				return s
			}
			lines := show(tc.in)
			src := writeFile(t, filepath.Join(dir, tc.name+".json"), []byte(lines))
			out := filepath.Join(dir, tc.name)
			args := []string{"convert", "--from", "json", src, "--out", out}
			if tc.bytes != "" {
				args = append(args, "--bytes", tc.bytes)
			}
			if code, _, errOut := run(t, args...); code != 0 {
				t.Fatalf("convert: %s", errOut)
			}
			want := lines
			if tc.name == "keys" {
				// The keys name the files and offsets, which differ; the
				// records are compared without them.
				tc.cat = nil
				want = show(tc.in)
			}
			if got := show(out + ".tfrecord"); got != want {
				t.Errorf("cat of the converted records:\n%s\nwant, as of the originals:\n%s", got, want)
			}
			if tc.name == "raw" {
				// The originals, byte for byte.
				if !bytes.Equal(readAll(t, out+".tfrecord"), readAll(t, writeRecords(t, dir, "plain.tfrecord", tfrecord.None, recs...))) {
					t.Error("raw records differ from the originals")
				}
			}
		})
	}
}

func readAll(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Bad lines are errors that name the file and line, and leave no output.
func TestConvertJSONErrors(t *testing.T) {
	dir := t.TempDir()
	ok := `{"features":{"a":{"int64":[1]}}}`
	for _, tc := range []struct {
		name, line string
		args       []string
		want       string
	}{
		{"int", `{"features":{"a":{"int64":[1.5]}}}`, nil, `:3: feature "a": int64 value 0: "1.5" is not an int64`},
		{"int-range", `{"features":{"a":{"int64":["9223372036854775808"]}}}`, nil, `is not an int64`},
		{"float-range", `{"features":{"a":{"float":[1e39]}}}`, nil, `:3: feature "a": float value 0: "1e39" is not a float32`},
		{"float-word", `{"features":{"a":{"float":["inf"]}}}`, nil, `"inf" is not a float32`},
		{"float-type", `{"features":{"a":{"float":[true]}}}`, nil, `float value 0: want a number, not a boolean`},
		{"two-lists", `{"features":{"a":{"float":[1],"int64":[2]}}}`, nil, `more than one of int64, float and bytes`},
		{"list-type", `{"features":{"a":{"int64":"1"}}}`, nil, `:3: feature "a": int64: want an array, not a string`},
		{"features-type", `{"features":[]}`, nil, `:3: features: want a JSON object, not an array`},
		{"case", `{"Features":{}}`, nil, `:3: unknown member "Features" (want key, bytes, features, context, feature_lists, raw; plain JSON objects, each member a feature, are --from jsonl)`},
		{"null", `null`, nil, `:3: want a JSON object, not null`},
		{"member", `{"feature":{}}`, nil, `:3: unknown member "feature"`},
		{"feature-member", `{"features":{"a":{"ints":[1]}}}`, nil, `unknown member "ints"`},
		{"not-object", `[1]`, nil, `:3: want a JSON object, not an array`},
		{"two-values", ok + ` {}`, nil, `:3: more than one JSON value on the line`},
		{"truncated", `{"features":{"a":{"int64":[1]}}`, nil, `:3: not JSON: the line ends inside a value`},
		{"syntax", `{"features":{"a" {}}}`, nil, `:3: not JSON: want ':' at byte 17 of the line, not '{'`},
		{"leading-zero", `{"features":{"a":{"int64":[01]}}}`, nil, `:3: feature "a": int64 value 0: not JSON: a number with a leading zero at byte 27`},
		{"control", "{\"features\":{\"a\":{\"bytes\":[\"a\x01\"]}}}", nil, `not JSON: a control character in a string at byte 29`},
		{"utf8", "{\"features\":{\"a\":{\"bytes\":[\"\xff\"]}}}", nil, `bytes value 0: not UTF-8 at byte 28`},
		{"escape", `{"features":{"a":{"bytes":["\q"]}}}`, nil, `not JSON: an unknown escape \q at byte 28`},
		{"hex", `{"features":{"a":{"bytes":["\u12g4"]}}}`, nil, `not JSON: a \u escape without four hex digits at byte 28`},
		{"twice", `{"features":{"a":{"int64":[1]},"a":{"int64":[2]}}}`, nil, `:3: features: feature "a" twice`},
		{"member-twice", `{"features":{},"features":{}}`, nil, `:3: member "features" twice`},
		{"key-type", `{"key":1,"features":{}}`, nil, `:3: key: want a string, not a number`},
		{"not-value", `{"features":{"a":{"int64":[.5]}}}`, nil, `int64 value 0: want an integer, not '.', which starts no JSON value`},
		{"cut", `{"features":{"a":{"float":[`, nil, `float value 0: want a number, not the end of the line`},
		{"none", `{"key":"f:0"}`, nil, `:3: want one of "features"`},
		{"both", `{"features":{},"raw":""}`, nil, `:3: want one of "features"`},
		{"raw", `{"raw":"!!"}`, nil, `:3: raw: illegal base64 data`},
		{"b64-object", `{"features":{"a":{"bytes":[{"b64":"QQ==","x":1}]}}}`, nil, `bytes value 0: want text or {"b64":"..."}`},
		{"b64", `{"features":{"a":{"bytes":[{"b64":"*"}]}}}`, nil, `bytes value 0: b64: illegal base64`},
		{"base64-mode", `{"features":{"a":{"bytes":["not base64!"]}}}`, []string{"--bytes", "base64"}, `bytes value 0: --bytes base64: illegal base64`},
		{"step", `{"context":{},"feature_lists":{"t":[{"int64":[1]},{"float":["x"]}]}}`, nil, `:3: feature list "t", step 1: float value 0: "x" is not a float32`},
		{"context", `{"context":{"c":{"bytes":[7]}},"feature_lists":{}}`, nil, `:3: context: feature "c": bytes value 0: want a string, not a number`},
		{"text-mode", ok, []string{"--bytes", "text"}, `--bytes text cannot be read back`},
		{"bytes-without-json", "", []string{"--from", "csv", "--bytes", "base64"}, `--bytes goes with --from json`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Two good lines (one blank) before the bad one: the error
			// names line 3.
			p := writeFile(t, filepath.Join(dir, "bad.json"), []byte(ok+"\n\n"+tc.line+"\n"+ok+"\n"))
			out := filepath.Join(dir, "out")
			args := append([]string{"convert", "--from", "json", p, "--out", out}, tc.args...)
			code, _, errOut := run(t, args...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, errOut, tc.want)
			}
			if strings.HasPrefix(tc.want, ":") && !strings.Contains(errOut, p+tc.want) {
				t.Errorf("stderr %q does not name %s", errOut, p+tc.want[:2])
			}
			if _, err := os.Stat(out + ".tfrecord"); !os.IsNotExist(err) {
				t.Errorf("output written after an error: %v", err)
			}
		})
	}
}

// Strings with every JSON escape, and numbers in every JSON form, read
// as JSON means them.
func TestConvertJSONValues(t *testing.T) {
	p := newJSONParser(bytesAuto)
	rec, err := p.parse([]byte(` { "features" : { "s" : { "bytes" : [ "\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800x\udc00", "é😀" ] } ,` +
		` "f" : { "float" : [ -0.0 , 1E2 , 2.5e-1 , "1.5" , 16777217 ] } , "i" : { "int64" : [ -0 , "-12" ] } } } `))
	if err != nil {
		t.Fatal(err)
	}
	want := example.New().
		Bytes("s", []byte("\"\\/\b\f\n\r\té😀\ufffdx\ufffd"), []byte("é😀")).
		Float("f", float32(math.Copysign(0, -1)), 100, 0.25, 1.5, 16777216).
		Int64("i", 0, -12).
		Proto()
	got := new(pb.Example)
	if err := proto.Unmarshal(rec, got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) || math.Signbit(float64(got.Features.Feature["f"].GetFloatList().Value[0])) != true {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// A record larger than --max-record-size is refused, as reading one is.
func TestConvertJSONMaxRecordSize(t *testing.T) {
	dir := t.TempDir()
	// Twenty zeros: 70 bytes of text, 80 of floats.
	p := writeFile(t, filepath.Join(dir, "big.json"), []byte(`{"features":{"a":{"float":[`+strings.Repeat("0,", 19)+`0]}}}`+"\n"))
	code, _, errOut := run(t, "--max-record-size", "80", "convert", "--from", "json", p, "--out", filepath.Join(dir, "o"))
	if want := p + ":1: record of 93 bytes is larger than --max-record-size (80)"; code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q, want %q", code, errOut, want)
	}
}

// "-" reads JSON lines (and CSV) from standard input, as in
// sluice cat | jq | sluice convert --from json -.
func TestConvertTextFromStdin(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ from, input, want string }{
		{"json", `{"features":{"label":{"int64":[7]}}}` + "\n" + `{"features":{"label":{"int64":[8]}}}` + "\n",
			`{"features":{"label":{"int64":[7]}}}` + "\n" + `{"features":{"label":{"int64":[8]}}}` + "\n"},
		{"csv", "label\n7\n8\n", `{"features":{"label":{"int64":[7]}}}` + "\n" + `{"features":{"label":{"int64":[8]}}}` + "\n"},
	} {
		t.Run(tc.from, func(t *testing.T) {
			out := filepath.Join(dir, tc.from)
			args := []string{"convert", "--from", tc.from, "-", "--out", out}
			if tc.from == "csv" {
				args = append(args, "--header")
			}
			err, stdout, errOut := runIn(t, onlyReader{strings.NewReader(tc.input)}, args...)
			if err != nil {
				t.Fatalf("convert: %v %s", err, errOut)
			}
			if want := fmt.Sprintf("wrote 2 records to %s.tfrecord\n", out); stdout != want {
				t.Errorf("stdout %q, want %q", stdout, want)
			}
			if _, got, _ := run(t, "cat", out+".tfrecord"); got != tc.want {
				t.Errorf("records %q, want %q", got, tc.want)
			}
		})
	}
}

// BenchmarkConvertJSON converts MNIST-like lines (784 floats and a label,
// as cat prints them) into records: the parse alone, without files.
func BenchmarkConvertJSON(b *testing.B) {
	r := &recordRenderer{}
	var lines [][]byte
	pixels := make([]float32, 784)
	for i := range 64 {
		for j := range pixels {
			pixels[j] = float32((i*784+j)%255)/255 - 0.5
		}
		line, err := r.render(nil, example.New().Int64("label", int64(i%10)).Floats("image", pixels).Marshal())
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, bytes.Clone(line))
	}
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size / len(lines)))
	b.ReportAllocs()
	p := newJSONParser(bytesAuto)
	i := 0
	for b.Loop() {
		if _, err := p.parse(lines[i%len(lines)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// Text inputs compressed with GZIP or ZSTD, files or standard input, are
// decompressed: the records are those of the plain text.
func TestConvertTextCompressed(t *testing.T) {
	dir := t.TempDir()
	texts := map[string]string{
		"json": `{"features":{"label":{"int64":[7]},"x":{"float":[0.5]}}}` + "\n" + `{"features":{"label":{"int64":[8]}}}` + "\n",
		"csv":  "label,x\n7,0.5\n8,1\n",
	}
	for from, text := range texts {
		plain := filepath.Join(dir, from+"-plain")
		args := []string{"convert", "--from", from, writeFile(t, filepath.Join(dir, "in."+from), []byte(text)), "--out", plain}
		if from == "csv" {
			args = append(args, "--header")
		}
		if code, _, errOut := run(t, args...); code != 0 {
			t.Fatalf("%s: %s", from, errOut)
		}
		_, want, _ := run(t, "cat", plain+".tfrecord")
		for _, c := range []tfrecord.Compression{tfrecord.Gzip, tfrecord.Zstd} {
			for _, stdin := range []bool{false, true} {
				t.Run(fmt.Sprint(from, c, stdin), func(t *testing.T) {
					data := compressed(t, c, []byte(text))
					out := filepath.Join(dir, fmt.Sprint(from, c, stdin))
					in := writeFile(t, out+".in", data)
					args := []string{"convert", "--from", from, in, "--out", out}
					if from == "csv" {
						args = append(args, "--header")
					}
					var err error
					var errOut string
					if stdin {
						args[3] = "-"
						err, _, errOut = runIn(t, bytes.NewReader(data), args...)
					} else {
						var code int
						if code, _, errOut = run(t, args...); code != 0 {
							err = fmt.Errorf("exit %d", code)
						}
					}
					if err != nil {
						t.Fatalf("convert: %v %s", err, errOut)
					}
					if _, got, _ := run(t, "cat", out+".tfrecord"); got != want {
						t.Errorf("records %q, want %q", got, want)
					}
				})
			}
		}
	}
}

// A line longer than --max-record-size is an error, however small the
// compressed stream that holds it, and is not read to its end.
func TestConvertTextLineTooLong(t *testing.T) {
	dir := t.TempDir()
	bomb := writeFile(t, filepath.Join(dir, "bomb.json.zst"), compressed(t, tfrecord.Zstd, bytes.Repeat([]byte("x"), 64<<20)))
	for _, from := range []string{"json", "csv"} {
		code, _, errOut := run(t, "--max-record-size", "1048576", "convert", "--from", from, bomb, "--out", filepath.Join(dir, "o"))
		if want := bomb + ":1: line too long: more than 1048576 bytes"; code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", from, code, errOut, want)
		}
	}
}

// compressed returns data compressed as c.
func compressed(t *testing.T, c tfrecord.Compression, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch c {
	case tfrecord.Gzip:
		w = gzip.NewWriter(&buf)
	case tfrecord.Zstd:
		zw, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest))
		if err != nil {
			t.Fatal(err)
		}
		w = zw
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// cat marks the lines of a --bytes other than auto, and convert reads
// them by the mark, whatever its own --bytes: base64 back to the bytes
// it stands for, text (lossy) refused. Never other bytes, silently.
func TestConvertCatBytesModes(t *testing.T) {
	dir := t.TempDir()
	infinity, _ := base64.StdEncoding.DecodeString("Infinity") // whose base64 is a float's word
	ex := example.New().
		Bytes("b", []byte("ann"), []byte{0xff, 0, 0xfe}, []byte("\x01tab\there"), infinity, []byte("NaN")).
		Int64("i", 7, 1<<60).
		Float("x", 0.5, float32(math.Inf(1))).
		Marshal()
	empty := example.New().Marshal()
	seq := example.NewSequence().Context("id", example.Int64List(3)).List("tokens", example.StringList("hi", "\xff")).Marshal()
	in := writeRecords(t, dir, "in.tfrecord", tfrecord.None, ex, empty, seq)
	flatIn := writeRecords(t, dir, "flat.tfrecord", tfrecord.None, ex, empty)
	_, want, _ := run(t, "cat", in)
	_, wantFlat, _ := run(t, "cat", flatIn)
	lossy := "lossy (bytes that are not UTF-8 became U+FFFD) and cannot be read back"
	for i, tc := range []struct {
		cat     []string // cat's flags
		edit    func(string) string
		from    string
		convert []string // convert's flags
		err     string   // in convert's error; "" for the records back
	}{
		{cat: nil, from: "json"},
		{cat: []string{"--bytes", "base64"}, from: "json"},
		{cat: []string{"--bytes", "base64"}, from: "json", convert: []string{"--bytes", "base64"}},
		{cat: []string{"--bytes", "base64", "--keys"}, from: "json"},
		// The mark after the values it is for, as a JSON tool may put it.
		{cat: []string{"--bytes", "base64"}, from: "json", edit: func(s string) string {
			return strings.ReplaceAll(strings.ReplaceAll(s, `{"bytes":"base64",`, `{`), "}}\n", `},"bytes":"base64"}`+"\n")
		}},
		{cat: []string{"--bytes", "text"}, from: "json", err: "cat --bytes text is " + lossy},
		{cat: []string{"--bytes", "text"}, from: "json", convert: []string{"--bytes", "base64"}, err: "cat --bytes text is " + lossy},
		{cat: []string{"--flat"}, from: "jsonl"},
		{cat: []string{"--flat", "--bytes", "base64"}, from: "jsonl"},
		{cat: []string{"--flat", "--bytes", "text"}, from: "jsonl", err: "cat --flat --bytes text is " + lossy},
	} {
		src, back := in, want
		if tc.from == "jsonl" {
			src, back = flatIn, wantFlat
		}
		code, lines, errOut := run(t, append(append([]string{"cat"}, tc.cat...), src)...)
		if code != 0 {
			t.Fatalf("cat %v: exit %d: %s", tc.cat, code, errOut)
		}
		if tc.edit != nil {
			lines = tc.edit(lines)
		}
		// The default output stays as it was, unmarked.
		if marked := strings.Contains(lines, `bytes":"`); marked != slices.Contains(tc.cat, "--bytes") {
			t.Errorf("cat %v: marked %v: %s", tc.cat, marked, lines)
		}
		file := filepath.Join(dir, fmt.Sprintf("lines%d", i))
		if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, fmt.Sprintf("out%d", i))
		args := append([]string{"convert", "--from", tc.from, file, "--out", out}, tc.convert...)
		code, _, errOut = run(t, args...)
		if tc.err != "" {
			if code == 0 || !strings.Contains(errOut, tc.err) {
				t.Errorf("cat %v | convert %v: exit %d, %q; want an error with %q", tc.cat, args[1:3], code, errOut, tc.err)
			}
			continue
		}
		if code != 0 {
			t.Errorf("cat %v | convert %v: exit %d: %s", tc.cat, args[1:3], code, errOut)
			continue
		}
		if _, got, _ := run(t, "cat", out+".tfrecord"); got != back {
			t.Errorf("cat %v | convert %v gives\n%s\nnot\n%s", tc.cat, args[1:3], got, back)
		}
	}
}
