package sluice

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/parquet"
	"github.com/sluiceml/sluice/tensor"
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
