package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tfrecord"
)

// readFile returns the records of a TFRecord file, failing the test on any
// error.
func readFile(t *testing.T, path string, c tfrecord.Compression) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs [][]byte
	for rec, err := range tfrecord.NewReader(f, c).All() {
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		recs = append(recs, bytes.Clone(rec))
	}
	return recs
}

// labelled returns the records writeExamples writes, for the labels given.
func labelled(labels ...int) [][]byte {
	recs := make([][]byte, len(labels))
	for i, l := range labels {
		recs[i] = example.New().Int64("label", int64(l)).Float("x", float32(l)/2).Marshal()
	}
	return recs
}

// convert --skip-corrupt copies every record whose CRCs check and reports,
// with file and offset, what it skipped: the damage verify finds (DECODERS
// "TFRecord framing": past a data CRC, and past a length CRC by scanning
// for the next record header), and the end of a truncated file.
func TestConvertSkipCorrupt(t *testing.T) {
	n := len(example.New().Int64("label", 0).Float("x", 0).Marshal()) + 16 // every record's framed size
	for _, tc := range []struct {
		name    string
		damage  func([]byte) []byte
		keep    []int    // the labels of the records salvaged
		skipped []string // stderr's lines, after "sluice: skipped: $FILE: "
	}{
		{"clean", func(b []byte) []byte { return b }, []int{0, 1, 2, 3, 4}, nil},
		{"data CRCs", func(b []byte) []byte {
			b[1*n+12] ^= 1
			b[3*n+20] ^= 1
			return b
		}, []int{0, 2, 4}, []string{
			fmt.Sprintf("corrupt record at offset %d (%d bytes skipped)", n, n),
			fmt.Sprintf("corrupt record at offset %d (%d bytes skipped)", 3*n, n),
		}},
		{"length CRC", func(b []byte) []byte {
			b[2*n+3] ^= 1
			return b
		}, []int{0, 1, 3, 4}, []string{
			fmt.Sprintf("corrupt record at offset %d (%d bytes skipped)", 2*n, n),
		}},
		{"adjacent", func(b []byte) []byte {
			b[1*n+12] ^= 1
			b[2*n+12] ^= 1
			return b
		}, []int{0, 3, 4}, []string{
			fmt.Sprintf("2 corrupt records at offsets %d to %d", n, 3*n),
		}},
		{"truncated", func(b []byte) []byte { return b[:4*n+7] }, []int{0, 1, 2, 3}, []string{
			fmt.Sprintf("truncated record at %d (the rest of the file)", 4*n),
		}},
		{"all", func(b []byte) []byte {
			b[12] ^= 1
			b[n+5] ^= 1
			return b[:4*n+20]
		}, []int{2, 3}, []string{
			fmt.Sprintf("2 corrupt records at offsets 0 to %d", 2*n),
			fmt.Sprintf("truncated record at %d (the rest of the file)", 4*n),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := writeExamples(t, dir, "in.tfrecord", 5, tfrecord.None)
			data, _ := os.ReadFile(in)
			os.WriteFile(in, tc.damage(data), 0o644)
			out := filepath.Join(dir, "out")
			code, stdout, errOut := run(t, "convert", "--skip-corrupt", in, "--out", out, "--compression", "GZIP")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			got := readFile(t, out+".tfrecord.gz", tfrecord.Gzip)
			if want := labelled(tc.keep...); !slices.EqualFunc(got, want, bytes.Equal) {
				t.Errorf("salvaged %d records, want labels %v", len(got), tc.keep)
			}
			var lines []string
			for _, s := range tc.skipped {
				lines = append(lines, "sluice: skipped: "+in+": "+s+"\n")
			}
			if want := strings.Join(lines, ""); errOut != want {
				t.Errorf("stderr\n%s\nwant\n%s", errOut, want)
			}
			wantOut := fmt.Sprintf("wrote %d records to %s.tfrecord.gz", len(tc.keep), out)
			if bad := 5 - len(tc.keep); bad > 0 {
				wantOut += fmt.Sprintf("; skipped %s in 1 file", plural(bad, "bad record"))
			}
			if stdout != wantOut+"\n" {
				t.Errorf("stdout %q, want %q", stdout, wantOut)
			}
			if names := ls(t, dir); !slices.Equal(names, []string{"in.tfrecord", "out.tfrecord.gz"}) {
				t.Errorf("directory holds %q", names)
			}
		})
	}
}

// A compressed file broken in the middle keeps the records before the
// break: every record written is one of the input's, in order, none of
// them damaged, and the loss is reported with the file's name.
func TestConvertSkipCorruptCompressed(t *testing.T) {
	dir := t.TempDir()
	const total = 3000
	in := writeExamples(t, dir, "in.tfrecord.gz", total, tfrecord.Gzip)
	data, _ := os.ReadFile(in)
	data[len(data)*3/4] ^= 0x55
	os.WriteFile(in, data, 0o644)
	if code, _, _ := run(t, "convert", in, "--out", filepath.Join(dir, "strict")); code == 0 {
		t.Fatal("convert without --skip-corrupt read a broken stream")
	}
	out := filepath.Join(dir, "out")
	code, stdout, errOut := run(t, "convert", "--skip-corrupt", in, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := readFile(t, out+".tfrecord", tfrecord.None)
	all := labelled(func() []int {
		l := make([]int, total)
		for i := range l {
			l[i] = i
		}
		return l
	}()...)
	// Salvaged records are a subsequence of the input.
	i := 0
	for _, rec := range got {
		for i < total && !bytes.Equal(all[i], rec) {
			i++
		}
		if i == total {
			t.Fatalf("salvaged a record that is not the input's, or out of order: %x", rec)
		}
		i++
	}
	if len(got) < total/2 || len(got) == total {
		t.Errorf("salvaged %d of %d records, a break at three quarters of the file", len(got), total)
	}
	if !strings.Contains(errOut, "sluice: skipped: "+in+": ") || !strings.Contains(stdout, fmt.Sprintf("wrote %d records", len(got))) {
		t.Errorf("stdout %q\nstderr %q", stdout, errOut)
	}
}

// What is not damaged data still stops the convert, leaving no output:
// an input that cannot be opened, a record over --max-record-size. And
// --skip-corrupt reads TFRecord only.
func TestConvertSkipCorruptFails(t *testing.T) {
	dir := t.TempDir()
	in := writeExamples(t, dir, "in.tfrecord", 5, tfrecord.None)
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{in, filepath.Join(dir, "missing.tfrecord")}, "missing.tfrecord"},
		{"too large", []string{"--max-record-size", "8", in}, "--max-record-size raises the limit"},
		{"csv", []string{"--from", "csv", in}, "--skip-corrupt goes with --from tfrecord"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"convert", "--skip-corrupt", "--out", out}, tc.args...)
			code, _, errOut := run(t, args...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d: %q lacks %q", code, errOut, tc.want)
			}
			if names := ls(t, dir); !slices.Equal(names, []string{"in.tfrecord"}) {
				t.Errorf("directory holds %q", names)
			}
		})
	}
}

// --skip-corrupt with --shuffle writes the same records, in the seed's
// order.
func TestConvertSkipCorruptShuffled(t *testing.T) {
	dir := t.TempDir()
	n := len(example.New().Int64("label", 0).Float("x", 0).Marshal()) + 16
	in := writeExamples(t, dir, "in.tfrecord", 20, tfrecord.None)
	data, _ := os.ReadFile(in)
	data[7*n+12] ^= 1
	os.WriteFile(in, data, 0o644)
	out := filepath.Join(dir, "out")
	code, _, errOut := run(t, "convert", "--skip-corrupt", "--shuffle", "--seed", "3", in, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := readFile(t, out+".tfrecord", tfrecord.None)
	want := labelled(0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)
	sorted := func(r [][]byte) [][]byte { r = slices.Clone(r); slices.SortFunc(r, bytes.Compare); return r }
	if !slices.EqualFunc(sorted(got), sorted(want), bytes.Equal) {
		t.Errorf("salvaged %d records, not the 19 good ones", len(got))
	}
	if slices.EqualFunc(got, want, bytes.Equal) {
		t.Error("--shuffle kept the input's order")
	}
}

// --skip-corrupt that finds no good record writes nothing and fails: an
// empty file and exit 0 would pass for a salvaged data set.
func TestSkipCorruptNothingGood(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(in, []byte("a,b\n1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, errOut := run(t, "convert", "--skip-corrupt", in, "--out", out)
	if want := "--skip-corrupt found no good record to copy (skipped 1 bad record in 1 file): nothing was written"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q %q; want exit 1 and %q", code, stdout, errOut, want)
	}
	if !strings.Contains(errOut, "starts like text") {
		t.Errorf("stderr %q does not say the input looks like text", errOut)
	}
	if _, err := os.Stat(out + ".tfrecord"); !os.IsNotExist(err) {
		t.Errorf("output written: %v", err)
	}
	// An empty input has nothing to salvage, and nothing wrong.
	empty := writeRecords(t, dir, "empty.tfrecord", tfrecord.None)
	if code, _, errOut := run(t, "convert", "--skip-corrupt", empty, "--out", filepath.Join(dir, "e")); code != 0 {
		t.Errorf("empty input: exit %d, %q", code, errOut)
	}
}
