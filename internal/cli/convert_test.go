package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/datasets/mnist"
	"github.com/sluiceml/sluice/tfrecord"
)

func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// CSV → Examples: types inferred (int64, then float, then string) or
// given, names from the header or --columns, empty fields as decode_csv's
// defaults, quoting as decode_csv's.
func TestConvertCSV(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "data.csv"),
		[]byte("id,score,name,flag\n1,2.5,ann,\n2,3,\"bob, jr\",\n\n-3,,\"say \"\"hi\"\"\",\r\n"))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"inferred", []string{"--header"}},
		{"given", []string{"--header", "--columns", "id:float,score,name:string,flag:int64"}},
		{"noheader", []string{"--columns", "a,b,c,d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name)
			src := in
			if tc.name == "noheader" {
				data, _ := os.ReadFile(in)
				src = writeFile(t, filepath.Join(dir, "nohdr.csv"), data[bytes.IndexByte(data, '\n')+1:])
			}
			args := append([]string{"convert", "--from", "csv", src, "--out", out, "--compression", "GZIP"}, tc.args...)
			code, stdout, errOut := run(t, args...)
			if code != 0 {
				t.Fatalf("convert: %s", errOut)
			}
			if want := "wrote 3 records to " + out + ".tfrecord.gz\n"; stdout != want {
				t.Errorf("stdout %q, want %q", stdout, want)
			}
			_, stdout, _ = run(t, "cat", out+".tfrecord.gz")
			golden(t, "convert_csv_"+tc.name, "", stdout)
		})
	}
}

// Bad CSV is an error naming the file and line, with decode_csv's message.
func TestConvertCSVErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, data string
		args       []string
		want       string
	}{
		{"fields", "a,b\n1,2\n3\n", []string{"--header"}, "bad.csv:3: Expect 2 fields but have 1 in record 0"},
		{"type", "a\n1\nx\n", []string{"--columns", "a:int64"}, "bad.csv:1: Field 0 in record 0 is not a valid int64: a"},
		{"quote", "a,b\n1,x\"y\n", []string{"--header"}, "bad.csv:2: Unquoted fields cannot have quotes/CRLFs inside"},
		{"columns", "1\n", []string{"--columns", "a:int32"}, `--columns: type "int32" of column "a" must be int64, float or string`},
		{"dup", "a,a\n1,2\n", []string{"--header"}, `bad.csv:1: header: column 1's name "a" is empty or repeated`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(dir, "bad.csv"), []byte(tc.data))
			code, _, errOut := run(t, append([]string{"convert", "--from", "csv", p, "--out", filepath.Join(dir, "o")}, tc.args...)...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, errOut, tc.want)
			}
		})
	}
}

// Inference sees the first 1000 lines; a later line that does not fit is
// an error naming its line, not a silently wrong value.
func TestConvertCSVLateTypeChange(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 1500 {
		b.WriteString(strings.Repeat("7", 1+i%3) + "\n")
	}
	b.WriteString("7.5\n")
	p := writeFile(t, filepath.Join(dir, "late.csv"), []byte(b.String()))
	code, _, errOut := run(t, "convert", "--from", "csv", p, "--out", filepath.Join(dir, "o"))
	if code == 0 || !strings.Contains(errOut, "late.csv:1501: Field 0 in record 0 is not a valid int64: 7.5") {
		t.Fatalf("exit %d: %q", code, errOut)
	}
	// With the type given, it converts.
	code, out, errOut := run(t, "convert", "--from", "csv", "--columns", "v:float", p, "--out", filepath.Join(dir, "o"))
	if code != 0 || out != "wrote 1501 records to "+filepath.Join(dir, "o")+".tfrecord\n" {
		t.Fatalf("exit %d: %q %q", code, out, errOut)
	}
}

// TFRecord → TFRecord: another compression and N shards named
// out-0000i-of-0000N, records dealt round-robin, none lost.
func TestConvertReshard(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, "in-a.tfrecord.gz", 6, tfrecord.Gzip)
	writeExamples(t, dir, "in-b.tfrecord", 4, tfrecord.None)
	out := filepath.Join(dir, "out", "part")
	os.Mkdir(filepath.Dir(out), 0o755)
	code, stdout, errOut := run(t, "convert", filepath.Join(dir, "in-*"), "--out", out+".tfrecord", "--shards", "4", "--compression", "zstd")
	if code != 0 {
		t.Fatal(errOut)
	}
	golden(t, "convert_reshard", dir, stdout)
	_, stdout, _ = run(t, "count", out+"-*")
	golden(t, "convert_reshard_count", dir, stdout)
	// Shard 1 holds records 1, 5 (of file a) and 9 (record 3 of file b).
	_, stdout, _ = run(t, "cat", out+"-00001-of-00004.tfrecord.zst")
	golden(t, "convert_reshard_cat", dir, stdout)
	for _, n := range []string{"0", "10001", "2147483647"} {
		// 2^31-1 shards ended the process before a file was made (audit 114).
		if code, _, errOut := run(t, "convert", filepath.Join(dir, "in-b.tfrecord"), "--out", out, "--shards", n); code == 0 || !strings.Contains(errOut, "--shards must be from 1 to 10000, not "+n) {
			t.Errorf("--shards %s: %q", n, errOut)
		}
	}
}

// idx builds an IDX file.
func idx(magic uint32, dims []uint32, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, magic)
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return append(b, data...)
}

// MNIST IDX → Examples with convert_to_records.py's features.
func TestConvertMNIST(t *testing.T) {
	dir := t.TempDir()
	pix := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	images := writeFile(t, filepath.Join(dir, "img"), idx(mnist.ImageMagic, []uint32{3, 2, 2}, pix))
	labels := writeFile(t, filepath.Join(dir, "lab"), idx(mnist.LabelMagic, []uint32{3}, []byte{7, 8, 9}))
	out := filepath.Join(dir, "mnist")
	if code, _, errOut := run(t, "convert", "--from", "mnist", images, "--labels", labels, "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	_, stdout, _ := run(t, "cat", out+".tfrecord")
	golden(t, "convert_mnist", dir, stdout)

	os.Remove(out + ".tfrecord")
	good, goodLabels := idx(mnist.ImageMagic, []uint32{3, 2, 2}, pix), idx(mnist.LabelMagic, []uint32{3}, []byte{7, 8, 9})
	for _, tc := range []struct {
		name           string
		images, labels []byte
		args           []string
		want           string
	}{
		// A header claiming far more than the file holds: an error, no
		// allocation for the claim.
		{"hostile", idx(mnist.ImageMagic, []uint32{3, 1 << 30, 1 << 30}, pix), goodLabels, nil, "img"},
		{"short", idx(mnist.ImageMagic, []uint32{3, 2, 2}, pix[:10]), goodLabels, nil, "img"},
		{"magic", idx(0x801, []uint32{3, 2, 2}, pix), goodLabels, nil, "img"},
		{"count", idx(mnist.ImageMagic, []uint32{2, 2, 2}, pix[:8]), goodLabels, nil, "has 2 images but " + labels + " has 3 labels"},
		// Images over the record limit are refused from the header, as a
		// compressed file can hold a huge one in little space (audit 51).
		{"limit", good, goodLabels, []string{"--max-record-size", "3"}, "img: offset 8: record size too large: images of 2×2 pixels are over the 3-byte limit"},
		// Labels are compared by count before they are read: a header
		// declaring a billion costs nothing (audit 51: 1 GB read first).
		{"labels hostile", good, idx(mnist.LabelMagic, []uint32{1 << 30}, []byte{7, 8, 9}), nil, "has 3 images but " + labels + " has 1073741824 labels"},
		{"labels short", good, idx(mnist.LabelMagic, []uint32{3}, []byte{7, 8}), nil, "lab"},
		{"labels trailing", good, idx(mnist.LabelMagic, []uint32{3}, []byte{7, 8, 9, 10}), nil, "lab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, images, tc.images)
			writeFile(t, labels, tc.labels)
			code, _, errOut := run(t, append([]string{"convert", "--from", "mnist", images, "--labels", labels, "--out", out}, tc.args...)...)
			if code == 0 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d: %q", code, errOut)
			}
			if _, err := os.Stat(out + ".tfrecord"); err == nil {
				t.Errorf("%s written", out+".tfrecord")
			}
		})
	}
	if code, _, errOut := run(t, "convert", "--from", "mnist", images, "--out", out); code == 0 || !strings.Contains(errOut, "--labels") {
		t.Errorf("no labels: %q", errOut)
	}
}

// CIFAR-10 → Examples; image_raw is height, width, depth ordered.
func TestConvertCIFAR(t *testing.T) {
	dir := t.TempDir()
	rec := make([]byte, 2*3073)
	rec[0], rec[3073] = 3, 5
	for c := range 3 {
		rec[1+c*1024] = byte(10 + c)        // pixel (0,0) of image 0, channel c
		rec[3073+1+c*1024+1] = byte(20 + c) // pixel (0,1) of image 1
	}
	cifar := writeFile(t, filepath.Join(dir, "data_batch_1.bin"), rec)
	out := filepath.Join(dir, "cifar")
	if code, _, errOut := run(t, "convert", "--from", "cifar10", cifar, "--out", out); code != 0 {
		t.Fatal(errOut)
	}
	_, stdout, _ := run(t, "cat", "--format", "example", out+".tfrecord")
	lines := strings.Split(stdout, "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"label":{"int64":[3]}`) || !strings.Contains(lines[1], `"label":{"int64":[5]}`) ||
		!strings.Contains(stdout, `"depth":{"int64":[3]}`) || !strings.Contains(stdout, `"height":{"int64":[32]}`) {
		t.Fatalf("cifar: %q", stdout)
	}
	// HWC: image 0 starts 10,11,12; image 1 starts 0,0,0,20,21,22.
	if !strings.Contains(lines[0], `"image_raw":{"bytes":[{"b64":"CgsM`) || !strings.Contains(lines[1], `"image_raw":{"bytes":[{"b64":"AAAAFBUW`) {
		t.Errorf("pixels not in HWC order: %.200s", stdout)
	}
	for name, data := range map[string][]byte{
		"short": rec[:100],
		"label": append([]byte{10}, rec[1:3073]...),
	} {
		writeFile(t, cifar, data)
		if code, _, errOut := run(t, "convert", "--from", "cifar10", cifar, "--out", out); code == 0 || !strings.Contains(errOut, cifar) {
			t.Errorf("%s: %q", name, errOut)
		}
	}
}

func TestConvertFlags(t *testing.T) {
	dir := t.TempDir()
	in := writeExamples(t, dir, "in.tfrecord", 1, tfrecord.None)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "avro"}, `--from must be csv, jsonl, json, parquet, mnist, cifar10 or tfrecord, not "avro"`},
		{[]string{"--compression", "snappy"}, `--compression must be NONE, ZLIB, GZIP or ZSTD, not "snappy"`},
		{nil, `required flag(s) "out" not set`},
	} {
		args := append([]string{"convert", in}, tc.args...)
		if tc.args != nil {
			args = append(args, "--out", filepath.Join(dir, "o"))
		}
		if code, _, errOut := run(t, args...); code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: %q", tc.args, errOut)
		}
	}
}

// An --out that ends in a compression's extension is written under that
// name in that compression, as the Python writer does; --compression may
// not contradict it, and auto, which reads, is no output compression.
func TestConvertOutputCompression(t *testing.T) {
	for _, tc := range []struct {
		out   string
		args  []string
		files []string             // written, relative to the folder
		c     tfrecord.Compression // theirs
		err   string               // in the error, if any
	}{
		{out: "x.tfrecord.gz", files: []string{"x.tfrecord.gz"}, c: tfrecord.Gzip},
		{out: "x.gz", files: []string{"x.gz"}, c: tfrecord.Gzip},
		{out: "x.zz", files: []string{"x.zz"}, c: tfrecord.Zlib},
		{out: "x.tfrecord.zlib", files: []string{"x.tfrecord.zlib"}, c: tfrecord.Zlib},
		{out: "x.tfrecord.zst", files: []string{"x.tfrecord.zst"}, c: tfrecord.Zstd},
		{out: "x.tfrecord.gz", args: []string{"--compression", "gzip"}, files: []string{"x.tfrecord.gz"}, c: tfrecord.Gzip},
		{out: "x.tfrecord.gz", args: []string{"--shards", "2"}, files: []string{"x-00000-of-00002.tfrecord.gz", "x-00001-of-00002.tfrecord.gz"}, c: tfrecord.Gzip},
		// Names without such an extension keep the stem rule.
		{out: "x.tfrecord", args: []string{"--compression", "GZIP"}, files: []string{"x.tfrecord.gz"}, c: tfrecord.Gzip},
		{out: "x", args: []string{"--compression", "ZLIB"}, files: []string{"x.tfrecord.zlib"}, c: tfrecord.Zlib},
		{out: "x", files: []string{"x.tfrecord"}, c: tfrecord.None},
		{out: "x.tfrecord.gz", args: []string{"--compression", "NONE"}, err: "--compression NONE, but --out"},
		{out: "x.zst", args: []string{"--compression", "ZLIB"}, err: "ends in .zst, ZSTD's extension"},
		{out: "x", args: []string{"--compression", "auto"}, err: "--compression auto is for reading"},
		{out: "x", args: []string{"--compression", "LZ4"}, err: `--compression must be NONE, ZLIB, GZIP or ZSTD, not "LZ4"`},
		{out: "x", args: []string{"--input-compression", "LZ4"}, err: `--input-compression must be auto, NONE, ZLIB, GZIP or ZSTD, not "LZ4"`},
	} {
		dir := t.TempDir()
		in := writeExamples(t, dir, "in.data", 3, tfrecord.None)
		args := append([]string{"convert", in, "--out", filepath.Join(dir, tc.out)}, tc.args...)
		code, _, errOut := run(t, args...)
		if tc.err != "" {
			if code == 0 || !strings.Contains(errOut, tc.err) {
				t.Errorf("%v: exit %d, %q; want an error with %q", args[3:], code, errOut, tc.err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("%v: wrote %d files", args[3:], len(ents)-1)
			}
			continue
		}
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args[3:], code, errOut)
			continue
		}
		ents, _ := os.ReadDir(dir)
		var got []string
		for _, e := range ents {
			if e.Name() != "in.data" {
				got = append(got, e.Name())
			}
		}
		if !slices.Equal(got, tc.files) {
			t.Errorf("%v: wrote %v, want %v", args[3:], got, tc.files)
			continue
		}
		for _, f := range got {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if c := tfrecord.DetectCompression(b); c != tc.c {
				t.Errorf("%v: %s is %v, want %v", args[3:], f, c, tc.c)
			}
		}
	}
}

// A reading command's --compression error lists auto, which it takes.
func TestReadCompressionError(t *testing.T) {
	file := writeExamples(t, t.TempDir(), "e.tfrecord", 1, tfrecord.None)
	code, _, errOut := run(t, "count", "--compression", "LZ4", file)
	if want := `--compression must be auto, NONE, ZLIB, GZIP or ZSTD, not "LZ4"`; code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q; want %q", code, errOut, want)
	}
}

// An output named other than in clean form (./out, sub/../out, a//out) is
// written: convert took its own temporary, whose name the file system's
// listing spelled cleaned, for another run's, "another run is writing
// ./out", and wrote nothing (audit 97).
func TestConvertOutputNotClean(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	in := writeFile(t, "in.jsonl", []byte("{\"a\": 1}\n{\"a\": 2}\n"))
	for _, tc := range []struct{ out, to string }{
		{"./out", ""}, {"sub/../out2", ""}, {dir + "//out3", ""}, {"./out4", "parquet"}, {"./shards", ""},
	} {
		args := []string{"convert", "--from", "jsonl", in, "--out", tc.out}
		ext := ".tfrecord"
		if tc.to != "" {
			args, ext = append(args, "--to", tc.to), "."+tc.to
		}
		if tc.out == "./shards" {
			args = append(args, "--shards", "2")
			ext = "-00000-of-00002.tfrecord"
		}
		if code, _, errOut := run(t, args...); code != 0 {
			t.Errorf("convert --out %s: %s", tc.out, errOut)
			continue
		}
		if _, err := os.Stat(tc.out + ext); err != nil {
			t.Errorf("convert --out %s: %v", tc.out, err)
		}
	}
}

// The summary names every output up to four of them; more are summed up by
// the first two, the last and their count.
func TestConvertSummaryNamesShards(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.csv"), []byte("1\n2\n3\n4\n5\n6\n7\n"))
	for _, tt := range []struct {
		shards int
		want   func(o string) string
	}{
		{4, func(o string) string {
			return fmt.Sprintf("wrote 7 records to %[1]s-00000-of-00004.tfrecord, %[1]s-00001-of-00004.tfrecord, "+
				"%[1]s-00002-of-00004.tfrecord, %[1]s-00003-of-00004.tfrecord\n", o)
		}},
		{5, func(o string) string {
			return fmt.Sprintf("wrote 7 records to %[1]s-00000-of-00005.tfrecord, %[1]s-00001-of-00005.tfrecord, ..., "+
				"%[1]s-00004-of-00005.tfrecord (5 files)\n", o)
		}},
	} {
		o := filepath.Join(dir, fmt.Sprint("out", tt.shards))
		code, out, errOut := run(t, "convert", "--from", "csv", in, "--out", o, "--shards", fmt.Sprint(tt.shards))
		if want := tt.want(o); code != 0 || out != want {
			t.Errorf("--shards %d: exit %d, stdout %q, want %q (stderr %q)", tt.shards, code, out, want, errOut)
		}
	}
}
