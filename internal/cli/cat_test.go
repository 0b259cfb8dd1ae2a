package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tfrecord"
)

// cat shows each kind of record as the issue describes, with TensorFlow's
// "file:offset" keys (READERS §6: offsets of the uncompressed stream, 0
// then 16+len(r0), ...), for every compression.
func TestCatGolden(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		t.Run(c.String(), func(t *testing.T) {
			p := writeRecords(t, dir, "mixed-"+c.String(), c, mixedRecords()...)
			code, out, errOut := run(t, "cat", "--keys", p)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "cat_mixed", p, out)
			for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if !json.Valid([]byte(line)) {
					t.Errorf("line %d is not JSON: %s", i, line)
				}
			}
		})
	}
}

// Keys are the byte offsets TensorFlow's TFRecordReader gives: 0, then
// each previous offset plus 16 and the record's length (READERS §6).
func TestCatKeysAreOffsets(t *testing.T) {
	recs := mixedRecords()
	p := writeRecords(t, t.TempDir(), "k.tfrecord.gz", tfrecord.Gzip, recs...)
	_, out, _ := run(t, "cat", "--keys", "--format", "raw", p)
	off := 0
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var obj struct{ Key, Raw string }
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatal(err)
		}
		if want := p + ":" + strconv.Itoa(off); obj.Key != want {
			t.Errorf("record %d key %q, want %q", i, obj.Key, want)
		}
		off += 16 + len(recs[i])
	}
}

func TestCatFormats(t *testing.T) {
	dir := t.TempDir()
	ex := example.New().Int64("a", 1).Marshal()
	seq := example.NewSequence().Context("c", example.Int64List(2)).List("l", example.Int64List(3)).Marshal()
	p := writeRecords(t, dir, "f.tfrecord", tfrecord.None, ex, seq)
	seqKey := p + ":" + strconv.Itoa(16+len(ex))
	for _, tc := range []struct {
		args []string
		code int
		out  string // stdout, or a substring of stderr when code != 0
	}{
		{[]string{"--format", "example", "--limit", "1"}, 0, `{"features":{"a":{"int64":[1]}}}` + "\n"},
		// An Example read as a SequenceExample: its features are the context.
		{[]string{"--format", "sequence", "--limit", "1"}, 0, `{"context":{"a":{"int64":[1]}},"feature_lists":{}}` + "\n"},
		{[]string{"--format", "raw", "--limit", "1"}, 0, `{"raw":"` + base64.StdEncoding.EncodeToString(ex) + `"}` + "\n"},
		// A SequenceExample's feature lists are field 2, unknown to Example.
		{[]string{"--format", "example"}, 1, seqKey + ": not a tf.train.Example"},
		{[]string{"--limit", "0"}, 0, ""},
		{[]string{"--format", "yaml"}, 1, `--format must be auto, example, sequence or raw, not "yaml"`},
		{[]string{"--compression", "LZ4"}, 1, `--compression must be auto, NONE, ZLIB, GZIP or ZSTD, not "LZ4"`},
		// Naming the wrong compression gives the reader's error, with the offset.
		{[]string{"--compression", "gzip"}, 1, p + ": the file starts like uncompressed TFRecord data, not GZIP: try --compression NONE or auto"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := run(t, append(append([]string{"cat"}, tc.args...), p)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s %s", code, tc.code, out, errOut)
			}
			if tc.code == 0 && out != tc.out {
				t.Errorf("got %q, want %q", out, tc.out)
			}
			if tc.code != 0 && (!strings.Contains(errOut, tc.out) || strings.Count(errOut, "\n") != 1) {
				t.Errorf("stderr %q, want one line containing %q", errOut, tc.out)
			}
		})
	}
}

// head is cat --limit 10 over all files, -n changes the count.
func TestHead(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, "a.tfrecord", 6, tfrecord.None)
	writeExamples(t, dir, "b.tfrecord", 6, tfrecord.Gzip)
	code, out, _ := run(t, "head", filepath.Join(dir, "*.tfrecord"))
	if code != 0 || strings.Count(out, "\n") != 10 {
		t.Fatalf("head: %d %q", code, out)
	}
	code, out, _ = run(t, "head", "-n", "2", "--keys", filepath.Join(dir, "*.tfrecord"))
	if code != 0 {
		t.Fatal(code)
	}
	golden(t, "head", dir, out)
}

// A corrupt record stops cat with one line naming the file and offset;
// what came before it is printed.
func TestCatCorrupt(t *testing.T) {
	dir := t.TempDir()
	p := writeExamples(t, dir, "c.tfrecord", 3, tfrecord.None)
	data, _ := os.ReadFile(p)
	recLen := len(example.New().Int64("label", 0).Float("x", 0).Marshal())
	data[16+recLen+12] ^= 1 // record 1's first data byte
	os.WriteFile(p, data, 0o644)
	code, out, errOut := run(t, "cat", p)
	if code != 1 || strings.Count(out, "\n") != 1 {
		t.Fatalf("exit %d, out %q", code, out)
	}
	// DECODERS "TFRecord framing": a data CRC mismatch is "corrupted record at <offset + 12>".
	want := "sluice: " + p + ": corrupted record at " + strconv.Itoa(16+recLen+12) + " (data CRC mismatch in record at " + strconv.Itoa(16+recLen) + ")" +
		" (sluice verify " + p + " lists the damaged records; sluice convert --skip-corrupt " + p + " --out NEW copies the others)\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

// cancelWriter cancels a context when it is first written to.
type cancelWriter struct {
	strings.Builder
	cancel context.CancelFunc
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.cancel()
	return w.Builder.Write(p)
}

// A cancelled context (Ctrl-C in the binary) stops a command promptly,
// with the context's error and a non-zero exit: before it starts, or
// within a few hundred records once it runs.
func TestCancelled(t *testing.T) {
	p := writeExamples(t, t.TempDir(), "big.tfrecord", 5000, tfrecord.None)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, cmd := range []string{"cat", "count", "verify", "convert"} {
		var out, errOut strings.Builder
		args := []string{cmd, p}
		if cmd == "convert" {
			args = append(args, "--out", filepath.Join(t.TempDir(), "o"))
		}
		code := Main(ctx, args, &out, &errOut)
		if code != 1 || !strings.HasSuffix(errOut.String(), ": context canceled\n") || out.Len() > 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", cmd, code, out.String(), errOut.String())
		}
	}
	// cat's output buffer first reaches the writer after about 4300
	// records; the cancel it then causes is seen within 256 more.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	out := &cancelWriter{cancel: cancel}
	var errOut strings.Builder
	code := Main(ctx, []string{"cat", p}, out, &errOut)
	if n := strings.Count(out.String(), "\n"); code != 1 || errOut.String() != "sluice: context canceled\n" || n == 0 || n >= 5000 {
		t.Errorf("cat cancelled midway: exit %d, %d lines, stderr %q", code, n, errOut.String())
	}
}

// What cat prints reads back to the record's values exactly, in every
// place a value can be (an Example's features, a SequenceExample's
// context and feature lists): a JSON string is the bytes' text, an object
// {"b64":...} their base64, and an int64 is a number only where a reader
// that holds numbers as float64 (jq, JavaScript) gets it exactly, else a
// string of its digits.
func TestCatReadsBackExactly(t *testing.T) {
	bytesValues := [][]byte{
		[]byte("plain"), []byte(""), []byte("naïve 日本語 🙂"), []byte("line\nbreak\ttab\r"),
		[]byte("caf\xe9"),           // Latin-1: not UTF-8
		[]byte("\xed\xa0\x80"),      // a UTF-16 surrogate: not UTF-8
		[]byte("\x00\x01"),          // control characters
		[]byte("bell\x07"),          // text but for one control character
		{0x89, 'P', 'N', 'G', 0x0d}, // binary
		[]byte(`{"b64":"AAAA"}`),    // text that looks like the marking
		[]byte("del\x7f"),           // DEL
	}
	int64Values := []int64{0, -1, 1 << 53, -(1 << 53), 1<<53 + 1, -(1<<53 + 1), math.MaxInt64, math.MinInt64, 1234567890123456789}
	seq := example.NewSequence().
		Context("b", example.BytesList(bytesValues...)).Context("i", example.Int64List(int64Values...)).
		List("lb", example.BytesList(bytesValues...), example.BytesList(bytesValues[:2]...)).
		List("li", example.Int64List(int64Values...)).
		Marshal()
	ex := example.New().Bytes("b", bytesValues...).Int64("i", int64Values...).Marshal()
	p := writeRecords(t, t.TempDir(), "values.tfrecord", tfrecord.None, ex, seq)
	code, out, errOut := run(t, "cat", p)
	if code != 0 {
		t.Fatal(errOut)
	}

	type feature struct {
		Bytes []json.RawMessage `json:"bytes"`
		Int64 []json.RawMessage `json:"int64"`
	}
	checkBytes := func(where string, got []json.RawMessage, want [][]byte) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, want %d", where, len(got), len(want))
		}
		for i, raw := range got {
			var text string
			var marked struct{ B64 []byte }
			switch {
			case json.Unmarshal(raw, &text) == nil:
				if !utf8.ValidString(text) || text != string(want[i]) {
					t.Errorf("%s[%d]: text %s, want %q", where, i, raw, want[i])
				}
			case json.Unmarshal(raw, &marked) == nil && marked.B64 != nil:
				if !bytes.Equal(marked.B64, want[i]) {
					t.Errorf("%s[%d]: base64 %s, want %q", where, i, raw, want[i])
				}
				if isText(want[i]) {
					t.Errorf("%s[%d]: text %q shown as base64", where, i, want[i])
				}
			default:
				t.Errorf("%s[%d]: %s is neither text nor {\"b64\":...}", where, i, raw)
			}
		}
	}
	checkInt64 := func(where string, got []json.RawMessage, want []int64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, want %d", where, len(got), len(want))
		}
		for i, raw := range got {
			var f float64
			var s string
			switch {
			case json.Unmarshal(raw, &f) == nil: // as jq reads a number
				if f != float64(want[i]) || int64(f) != want[i] || f >= 1<<63 {
					t.Errorf("%s[%d]: number %s reads as %v, want %d", where, i, raw, f, want[i])
				}
			case json.Unmarshal(raw, &s) == nil:
				if n, err := strconv.ParseInt(s, 10, 64); err != nil || n != want[i] {
					t.Errorf("%s[%d]: string %s, want %d", where, i, raw, want[i])
				}
				if want[i] >= -(1<<53) && want[i] <= 1<<53 {
					t.Errorf("%s[%d]: %d, exact as a number, is a string", where, i, want[i])
				}
			default:
				t.Errorf("%s[%d]: %s is neither a number nor a string", where, i, raw)
			}
		}
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	var e struct{ Features map[string]feature }
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil {
		t.Fatal(err)
	}
	checkBytes("features.b", e.Features["b"].Bytes, bytesValues)
	checkInt64("features.i", e.Features["i"].Int64, int64Values)
	var s struct {
		Context      map[string]feature
		FeatureLists map[string][]feature `json:"feature_lists"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &s); err != nil {
		t.Fatal(err)
	}
	checkBytes("context.b", s.Context["b"].Bytes, bytesValues)
	checkInt64("context.i", s.Context["i"].Int64, int64Values)
	if lb := s.FeatureLists["lb"]; len(lb) != 2 {
		t.Errorf("feature list lb: %d steps", len(lb))
	} else {
		checkBytes("feature_lists.lb[0]", lb[0].Bytes, bytesValues)
		checkBytes("feature_lists.lb[1]", lb[1].Bytes, bytesValues[:2])
	}
	if li := s.FeatureLists["li"]; len(li) != 1 {
		t.Errorf("feature list li: %d steps", len(li))
	} else {
		checkInt64("feature_lists.li[0]", li[0].Int64, int64Values)
	}
}

// A record whose feature name is not UTF-8, which TensorFlow's parsers
// accept, is shown raw, and convert reads cat's line back to the same
// bytes; --format example refuses it, naming it (audit 60: the name was
// shown as U+FFFD and read back as another record).
func TestCatNameNotUTF8(t *testing.T) {
	dir := t.TempDir()
	ex := example.New().Int64("\xffab", 7).Marshal()
	seq := example.NewSequence().Context("ok", example.Int64List(1)).List("\xfe", example.Int64List(2)).Marshal()
	p := writeRecords(t, dir, "names.tfrecord", tfrecord.None, ex, seq)
	for _, flat := range []bool{false, true} {
		args := []string{"cat", p}
		if flat {
			args = append(args, "--flat")
		}
		code, out, errOut := run(t, args...)
		if code != 0 {
			t.Fatal(errOut)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"raw":`) || !strings.HasPrefix(lines[1], `{"raw":`) {
			t.Fatalf("cat %q:\n%s", args[2:], out)
		}
	}
	_, out, _ := run(t, "cat", p)
	lines := writeFile(t, filepath.Join(dir, "lines.json"), []byte(out))
	back := filepath.Join(dir, "back")
	if code, _, errOut := run(t, "convert", "--from", "json", lines, "--out", back); code != 0 {
		t.Fatal(errOut)
	}
	got, err := os.ReadFile(back + ".tfrecord")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := os.ReadFile(p); !bytes.Equal(got, want) {
		t.Error("cat | convert --from json changed the records")
	}
	for _, format := range []string{"example", "sequence"} {
		code, _, errOut := run(t, "cat", "--format", format, p)
		if code != 1 || !strings.Contains(errOut, p+":0: a feature name is not UTF-8") {
			t.Errorf("cat --format %s: exit %d, %q", format, code, errOut)
		}
	}
}

// cat --flat: each feature its list alone, an Example its features, int64s
// always numbers, floats always with a point or an exponent; a
// SequenceExample keeps its members; a record that is neither is raw.
func TestCatFlat(t *testing.T) {
	dir := t.TempDir()
	recs := mixedRecords()
	recs = append(recs, example.New().Int64("n", 1<<60, -2).Float("f", 2, -0.5, 1e-7, 3e21).Bytes("e").Marshal())
	p := writeRecords(t, dir, "flat.tfrecord", tfrecord.None, recs...)
	code, out, errOut := run(t, "cat", "--flat", p)
	if code != 0 {
		t.Fatal(errOut)
	}
	golden(t, "cat_flat", dir, out)
	for line := range strings.Lines(out) {
		if !json.Valid([]byte(line)) {
			t.Errorf("not JSON: %q", line)
		}
	}
	if !strings.Contains(out, `{"e":[],"f":[2.0,-0.5,1e-7,3e+21],"n":[1152921504606846976,-2]}`) {
		t.Errorf("the Example of int64s and floats is not flat as it should be:\n%s", out)
	}
	if code, _, errOut := run(t, "cat", "--flat", "--keys", p); code != 1 || !strings.Contains(errOut, "--keys goes without --flat") {
		t.Errorf("--flat --keys: exit %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "cat", "--flat", "--int64", "string", p); code != 1 || !strings.Contains(errOut, "--int64 goes without --flat") {
		t.Errorf("--flat --int64: exit %d %q", code, errOut)
	}
}

// A feature named as --flat's mark of the byte encoding is refused when
// the mark is written (the object would hold the name twice), and shown
// as it is when no mark is.
func TestCatFlatMarkerClash(t *testing.T) {
	for _, first := range []bool{true, false} {
		e := example.New()
		if first {
			e = e.Bytes(flatBytesName, []byte("x")).Int64("label", 7)
		} else {
			e = e.Int64("label", 7).Bytes(flatBytesName, []byte("x"))
		}
		p := writeRecords(t, t.TempDir(), "clash.tfrecord", tfrecord.None, e.Marshal())
		code, out, errOut := run(t, "cat", "--flat", "--bytes", "base64", p)
		if code == 0 || !strings.Contains(errOut, "a feature is named "+flatBytesMarker) {
			t.Errorf("cat --flat --bytes base64 of a feature named %s: exit %d, %q %q", flatBytesName, code, out, errOut)
		}
		if code, out, errOut := run(t, "cat", "--flat", p); code != 0 || strings.Count(out, flatBytesMarker) != 1 {
			t.Errorf("cat --flat of a feature named %s: exit %d, %q %q", flatBytesName, code, out, errOut)
		}
	}
}

// cat --flat's lines convert back (--from jsonl) into the same Examples,
// when every feature keeps one kind and bytes are text.
func TestCatFlatRoundTrip(t *testing.T) {
	dir := t.TempDir()
	var recs [][]byte
	for i := range 50 {
		b := example.New().Int64("label", int64(i%10), int64(i)<<50).
			Float("x", float32(i), float32(i)/3, -1e-7*float32(i)).
			Bytes("name", []byte(fmt.Sprintf("n-%d é", i)))
		if i%7 == 0 {
			b.Float("x") // an empty list of a kind the other records tell
		}
		recs = append(recs, b.Marshal())
	}
	in := writeRecords(t, dir, "in.tfrecord", tfrecord.None, recs...)
	_, flat, _ := run(t, "cat", "--flat", in)
	jsonl := writeFile(t, filepath.Join(dir, "in.jsonl"), []byte(flat))
	if code, _, errOut := run(t, "convert", "--from", "jsonl", jsonl, "--out", filepath.Join(dir, "back")); code != 0 {
		t.Fatal(errOut)
	}
	_, want, _ := run(t, "cat", in)
	_, got, _ := run(t, "cat", filepath.Join(dir, "back.tfrecord"))
	if got != want {
		t.Errorf("round trip changed the records:\n%s\nwant\n%s", got, want)
	}
}

// The objects cat's help shows are what cat prints for them, feature
// names sorted.
func TestCatHelpExamples(t *testing.T) {
	dir := t.TempDir()
	rec := example.New().Int64("label", 7).Float("image", 0.5, 1).Marshal()
	file := writeRecords(t, dir, "e.tfrecord", tfrecord.None, rec)
	help := newCatCmd().Long
	for _, args := range [][]string{{"cat", file}, {"cat", "--flat", file}} {
		code, out, errOut := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if line := strings.TrimSpace(out); !strings.Contains(help, line) {
			t.Errorf("%v prints %s, which cat's help does not show", args, line)
		}
	}
}
