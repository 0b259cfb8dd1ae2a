package sluice

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/parquetrow"
	"github.com/sluiceml/sluice/parquet"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// parquetSpec reads columns of parquet/testdata's table: a scalar of
// every row, a string, a nullable scalar and a list.
var parquetSpec = example.Spec{
	"i64":   example.FixedLen(tensor.Int64),
	"word":  example.FixedLen(tensor.String),
	"f32":   example.FixedLen(tensor.Float32),
	"opt":   example.VarLen(tensor.Int64),
	"ilist": example.VarLen(tensor.Int64),
}

// parquetRows reads the columns of the spec from a test file with
// package parquet, as the batches must hold them.
func parquetRows(t *testing.T, name string) (i64 []int64, words []string, ilist [][]int64) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.Open(strings.NewReader(string(data)), int64(len(data)), name)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.Rows([]string{"i64", "word", "ilist"})
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		i64 = append(i64, rows.Int64s(0)[0])
		words = append(words, string(rows.Bytes(1)[0]))
		ilist = append(ilist, slices.Clone(rows.Int64s(2)))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return i64, words, ilist
}

// Examples with Parquet reads each row as the Example convert --from
// parquet writes: the batches hold the rows' values in order.
func TestParquetExamples(t *testing.T) {
	name := filepath.Join("parquet", "testdata", "default.parquet")
	i64, words, ilist := parquetRows(t, name)
	ds := Examples(name, parquetSpec, Parquet(), Readers(1))
	var got []int64
	var gotWords []string
	var gotLists [][]int64
	for b, err := range ds.Batches(t.Context(), 64) {
		if err != nil {
			t.Fatal(err)
		}
		v := b.Int64("i64")
		got = append(got, v...)
		for _, w := range b.Bytes("word") {
			gotWords = append(gotWords, string(w))
		}
		sp := b.Sparse("ilist")
		lists := make([][]int64, sp.DenseShape[0])
		idx, vals := sp.Indices.Int64s(), sp.Values.Int64s()
		for k := range vals {
			r := idx[2*k]
			lists[r] = append(lists[r], vals[k])
		}
		gotLists = append(gotLists, lists...)
	}
	if !slices.Equal(got, i64) || !slices.Equal(gotWords, words) {
		t.Fatalf("i64 or word differ from the file's rows")
	}
	for i := range ilist {
		if !slices.Equal(gotLists[i], ilist[i]) {
			t.Fatalf("row %d: ilist %v, want %v", i, gotLists[i], ilist[i])
		}
	}
}

// A feature the file lacks is the parser's error, naming the file and the
// row; options a Parquet file cannot take are refused when built.
func TestParquetErrors(t *testing.T) {
	name := filepath.Join("parquet", "testdata", "default.parquet")
	spec := example.Spec{"i64": example.FixedLen(tensor.Int64), "nope": example.FixedLen(tensor.Int64)}
	var err error
	for _, e := range Examples(name, spec, Parquet()).Batches(t.Context(), 10) {
		if err = e; err != nil {
			break
		}
	}
	var de *dataerr.Error
	if !errors.As(err, &de) || de.File != name || de.Record != 0 || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("missing feature: %v", err)
	}
	for _, ds := range []*Dataset{
		Examples(name, parquetSpec, Parquet(), GlobalShuffle()),
		Examples(name, parquetSpec, Parquet(), SkipCorrupt()),
		Records(name, Parquet()),
	} {
		for _, err := range ds.Batches(t.Context(), 10) {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v, want ErrInvalid", err)
			}
			break
		}
	}
	// A file with none of the spec's columns.
	for _, err := range Examples(filepath.Join("parquet", "testdata", "int96.parquet"), parquetSpec, Parquet()).Batches(t.Context(), 10) {
		if err == nil || !strings.Contains(err.Error(), "no column of the spec's features") {
			t.Errorf("no columns: %v", err)
		}
		break
	}
}

// Two columns that become one feature (a column "a.b" beside struct a's
// field b) are refused, as convert --from parquet refuses them, rather
// than one of them read for the feature.
func TestParquetDuplicateFeature(t *testing.T) {
	name := filepath.Join("parquet", "testdata", "dup_feature.parquet")
	for _, spec := range []example.Spec{
		{"a.b": example.FixedLen(tensor.Int64)},
		{"a.b": example.VarLen(tensor.Int64), "nope": example.VarLen(tensor.Int64)},
	} {
		var err error
		for b, e := range Examples(name, spec, Parquet(), Readers(1)).Batches(t.Context(), 3) {
			if e == nil {
				t.Fatalf("read a.b = %v, though two columns are a.b", b.Int64("a.b"))
			}
			err = e
			break
		}
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), `two columns become the feature "a.b"`) {
			t.Errorf("spec %v: error %v", spec, err)
		}
	}
}

// BenchmarkParquetExamples reads the same rows as Parquet (pyarrow's
// file, SNAPPY, dictionaries) and as the TFRecord Examples convert
// --from parquet makes of them, through Examples with the same spec: an
// op is every row of 16 files of 300 rows.
func BenchmarkParquetExamples(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("parquet", "testdata", "default.parquet"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var recs [][]byte
	{
		f, err := parquet.Open(strings.NewReader(string(src)), int64(len(src)), "default.parquet")
		if err != nil {
			b.Fatal(err)
		}
		rows, _ := f.Rows([]string{"i64", "word", "f32", "opt", "ilist"})
		for rows.Next() {
			recs = append(recs, parquetrow.Build(example.New(), rows).Marshal())
		}
	}
	const files = 16
	for i := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%02d.parquet", i)), src, 0o644); err != nil {
			b.Fatal(err)
		}
		writeRecordsFile(b, filepath.Join(dir, fmt.Sprintf("part-%02d.tfrecord", i)), recs)
	}
	for _, tc := range []struct {
		name string
		ds   *Dataset
	}{
		{"parquet", Examples(filepath.Join(dir, "*.parquet"), parquetSpec, Parquet(), Readers(2))},
		{"tfrecord", Examples(filepath.Join(dir, "*.tfrecord"), parquetSpec, Readers(2))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			rows := 0
			for b.Loop() {
				for batch, err := range tc.ds.Batches(b.Context(), 128) {
					if err != nil {
						b.Fatal(err)
					}
					rows += len(batch.Int64("i64"))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
		})
	}
}

func writeRecordsFile(b *testing.B, name string, recs [][]byte) {
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	w := tfrecord.NewWriter(f)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// A row that fails to parse is named by its row in the file, in the
// error's Record as in its key, whatever its place in its batch: Record
// was the place in the batch (audit 67).
func TestParquetErrorRecordIsRow(t *testing.T) {
	var buf bytes.Buffer
	w, err := parquet.NewWriter(&buf, []parquet.Column{{Name: "x", Kind: parquet.Int64}}, parquet.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if i != 7 { // row 7's x is null: no value for a FixedLen feature
			w.SetInt64s(0, []int64{int64(i)})
		}
		if err := w.WriteRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "a.parquet")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := example.Spec{"x": example.FixedLen(tensor.Int64)}
	for _, tc := range []struct {
		name string
		opts []ExampleOption
		n    int
	}{
		{"one reader", []ExampleOption{Readers(1)}, 4},
		{"batch of one", []ExampleOption{Readers(1)}, 1},
		{"shuffled", []ExampleOption{Shuffle(5), Seed(1)}, 3},
		{"deterministic", []ExampleOption{Deterministic(), Shuffle(5), Seed(1)}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			for _, e := range Examples(name, spec, append(tc.opts, Parquet())...).Batches(t.Context(), tc.n) {
				if err = e; err != nil {
					break
				}
			}
			de, ok := errors.AsType[*dataerr.Error](err)
			if !ok || de.Record != 7 || de.File != name || de.Key != name+":7" {
				t.Fatalf("error %v: want a *dataerr.Error of %s row 7", err, name)
			}
		})
	}
}

// A checkpoint whose Parquet position is not one (bytes that are no
// varint) or lies past the file's rows is a checkpoint error, as a bad
// position in any other format is (audit 89: an error of its own, which
// errors.Is did not know for ErrCheckpoint).
func TestParquetBadCheckpointPosition(t *testing.T) {
	name := filepath.Join("parquet", "testdata", "default.parquet")
	ds := Examples(name, parquetSpec, Parquet(), Deterministic(), Readers(1))
	it, err := ds.Iterator(t.Context(), 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := it.Next(); err != nil {
		t.Fatal(err)
	}
	ck, err := it.Checkpoint()
	it.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		pos  []byte
	}{
		{"not a varint", []byte{0xff}},
		{"trailing bytes", []byte{1, 2}},
		{"past the last row", []byte{0xc0, 0x84, 0x3d}}, // 1 000 000
	} {
		var m map[string]any
		if err := json.Unmarshal(ck, &m); err != nil {
			t.Fatal(err)
		}
		r := m["readers"].([]any)[0].(map[string]any)
		r["pos"] = c.pos
		edited := resealed(t, m)
		var last error
		if it, err := ds.Iterator(t.Context(), 4, Resume(edited)); err != nil {
			last = err
		} else {
			for last == nil {
				_, last = it.Next()
			}
			it.Close()
		}
		if !errors.Is(last, ErrCheckpoint) || !strings.Contains(last.Error(), "default.parquet") {
			t.Errorf("%s: %v, want ErrCheckpoint naming the file", c.name, last)
		}
	}
}
