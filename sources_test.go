package sluice

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/tensor"
)

// A fixed-length test record of id: every kind of field the decoders
// treat apart.
const testRecordBytes = 62

var testFields = []Field{
	{Name: "id", Offset: 0, Size: 4, DType: tensor.Uint32, Shape: []int{}},
	// Three planes to pixels: interleaved straight from the records.
	{Name: "rgb", Offset: 4, Size: 24, DType: tensor.Uint8, Shape: []int{3, 2, 4}, Transpose: []int{1, 2, 0}},
	// Any other transpose of bytes: gathered from an aligned copy.
	{Name: "gather", Offset: 28, Size: 6, DType: tensor.Uint8, Shape: []int{2, 3}, Transpose: []int{1, 0}},
	{Name: "pixels", Offset: 34, Size: 4, DType: tensor.Uint16, Shape: []int{2, 1}, BigEndian: true},
	// A transpose of numbers wider than a byte: decoded, then gathered.
	{Name: "floats", Offset: 38, Size: 16, DType: tensor.Float32, Shape: []int{2, 2}, Transpose: []int{1, 0}},
	{Name: "tag", Offset: 54, Size: 3, DType: tensor.String},
	{Name: "rev", Offset: 57, Size: 3, DType: tensor.Uint8, Decode: func(b []byte) (tensor.Tensor, error) {
		return tensor.New([]uint8{b[2], b[1], b[0]}, 3), nil
	}},
	{Name: "raw", Offset: 60, Size: 2, DType: tensor.Uint8}, // no Shape: a vector
}

// testRecord returns the record of id, laid out as testFields says.
func testRecord(id uint32) []byte {
	r := binary.LittleEndian.AppendUint32(nil, id)
	for k := range 24 {
		r = append(r, byte(int(id)*31+k))
	}
	for k := range 6 {
		r = append(r, byte(int(id)*17+3*k))
	}
	for k := range 4 {
		r = append(r, byte(int(id)+5*k))
	}
	for k := range 4 {
		r = binary.LittleEndian.AppendUint32(r, math.Float32bits(float32(id)+0.25*float32(k)))
	}
	r = append(r, 't', byte('a'+id%26), byte('A'+id%7))
	r = append(r, byte(id), byte(id>>8), 7)
	r = append(r, byte(id*3), byte(id*5))
	return r
}

// wantRow returns what row id of field name must hold, worked out from
// the record's bytes without the decoders' code.
func wantRow(name string, id uint32) tensor.Tensor {
	r := testRecord(id)
	switch name {
	case "id":
		return tensor.Scalar(id)
	case "rgb": // [c][y][x] to [y][x][c]
		v := make([]uint8, 24)
		for c := range 3 {
			for y := range 2 {
				for x := range 4 {
					v[(y*4+x)*3+c] = r[4+c*8+y*4+x]
				}
			}
		}
		return tensor.New(v, 2, 4, 3)
	case "gather": // [i][j] to [j][i]
		v := make([]uint8, 6)
		for i := range 2 {
			for j := range 3 {
				v[j*2+i] = r[28+i*3+j]
			}
		}
		return tensor.New(v, 3, 2)
	case "pixels":
		return tensor.New([]uint16{binary.BigEndian.Uint16(r[34:]), binary.BigEndian.Uint16(r[36:])}, 2, 1)
	case "floats":
		f := func(k int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(r[38+4*k:])) }
		return tensor.New([]float32{f(0), f(2), f(1), f(3)}, 2, 2)
	case "tag":
		return tensor.Scalar(slices.Clone(r[54:57]))
	case "rev":
		return tensor.New([]uint8{r[59], r[58], r[57]}, 3)
	case "raw":
		return tensor.New([]uint8{r[60], r[61]}, 2)
	}
	panic("no field " + name)
}

// writeTestRecords writes files of perFile records each, ids counting on
// from file to file, and returns their pattern.
func writeTestRecords(t testing.TB, dir string, files, perFile int) string {
	for f := range files {
		var data []byte
		for i := range perFile {
			data = append(data, testRecord(uint32(f*perFile+i))...)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rec-%d.bin", f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "rec-*.bin")
}

// checkTestBatch checks every row of b against the record of its id and
// counts the ids in seen.
func checkTestBatch(t *testing.T, b *Batch, seen map[uint32]int) {
	t.Helper()
	rows := make(map[string]tensor.Tensor)
	for _, f := range testFields {
		rows[f.Name] = b.Dense(f.Name)
	}
	for i, id := range rows["id"].Uint32s() {
		seen[id]++
		for _, f := range testFields {
			if got, want := rows[f.Name].Row(i), wantRow(f.Name, id); !tensor.Equal(got, want) {
				t.Fatalf("record %d: field %q is %v, want %v", id, f.Name, got, want)
			}
		}
	}
}

// Reused batches hold what fresh ones (KeepBatches) hold, worked out
// field by field from the records, whatever the engine: each decoder
// writes a batch over the one it decoded before, short final batches
// included, for every kind of field.
func TestFixedLengthReusedBatches(t *testing.T) {
	const files, perFile, epochs = 3, 50, 2
	pattern := writeTestRecords(t, t.TempDir(), files, perFile)
	tests := []struct {
		name string
		opts []RecordOption
	}{
		{"one reader", []RecordOption{Readers(1)}},
		{"two readers", []RecordOption{Readers(2)}},
		{"shuffled", []RecordOption{Readers(2), Shuffle(40), Seed(3)}},
		{"deterministic", []RecordOption{Readers(2), Shuffle(40), Seed(3), Deterministic()}},
		{"global shuffle", []RecordOption{GlobalShuffle(), Seed(3)}},
	}
	for _, tt := range tests {
		for _, keep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/keep=%v", tt.name, keep), func(t *testing.T) {
				ds := FixedLengthRecords(pattern, testRecordBytes, testFields, append(tt.opts, Epochs(epochs))...)
				readEachOnce(t, ds, 8, keep, checkTestBatch, files*perFile, epochs)
			})
		}
	}
}

// A transposed field whose bytes are not its shape's values fails the
// first batch, on the path that transposes the records in place as on
// the one that decodes them first.
func TestFixedLengthTransposeSize(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "r.bin")
	if err := os.WriteFile(name, make([]byte, 10*20), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []Field{
		{Name: "rgb", Size: 13, DType: tensor.Uint8, Shape: []int{3, 2, 2}, Transpose: []int{1, 2, 0}},
		{Name: "gather", Size: 13, DType: tensor.Uint8, Shape: []int{3, 2, 2}, Transpose: []int{2, 1, 0}},
		{Name: "floats", Size: 16, DType: tensor.Float32, Shape: []int{3, 2, 2}, Transpose: []int{1, 2, 0}},
	}
	for _, f := range tests {
		var got error
		for _, err := range FixedLengthRecords(name, 20, []Field{f}).Batches(t.Context(), 4) {
			got = err
		}
		if !errors.Is(got, ErrInvalid) || !strings.Contains(got.Error(), "do not make shape") {
			t.Errorf("%s: %v, want ErrInvalid: bytes that do not make the shape", f.Name, got)
		}
	}
}

// CSV batches reused from batch to batch hold what fresh ones hold.
func TestCSVReusedBatches(t *testing.T) {
	dir := t.TempDir()
	for f := range 3 {
		var buf []byte
		for i := range 37 {
			id := f*37 + i
			switch id % 4 {
			case 0: // defaults
				buf = fmt.Appendf(buf, ",%d,,\"q\"\"%d\"\n", id, id)
			default:
				buf = fmt.Appendf(buf, "%d.5,%d,s%d,\"q\"\"%d\"\n", id, id, id, id)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p-%d.csv", f)), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cols := []Column{
		Col("x", decode.Float32Column(-1)), Col("id", decode.RequiredInt64()),
		Col("s", decode.StringColumn("def")), Col("q", decode.RequiredString()),
	}
	for _, opts := range [][]CSVOption{{Readers(1)}, {Readers(2)}, {Readers(2), Shuffle(20), Seed(1)}} {
		seen := map[int64]int{}
		for b, err := range CSV(filepath.Join(dir, "p-*.csv"), cols, append(opts, Epochs(2))...).Batches(t.Context(), 8) {
			if err != nil {
				t.Fatal(err)
			}
			xs, ss, qs := b.Float32("x"), b.Bytes("s"), b.Bytes("q")
			for i, id := range b.Int64("id") {
				seen[id]++
				wx, ws := float32(id)+0.5, "s"+strconv.FormatInt(id, 10)
				if id%4 == 0 {
					wx, ws = -1, "def"
				}
				if xs[i] != wx || string(ss[i]) != ws || string(qs[i]) != `q"`+strconv.FormatInt(id, 10) {
					t.Fatalf("%v: line %d decoded as %v, %q, %q", opts, id, xs[i], ss[i], qs[i])
				}
			}
		}
		if len(seen) != 3*37 {
			t.Fatalf("%v: %d lines seen, want %d", opts, len(seen), 3*37)
		}
		for id, n := range seen {
			if n != 2 {
				t.Fatalf("%v: line %d seen %d times, want 2", opts, id, n)
			}
		}
	}
}

// waitAllocs bounds what a batch of a front-door pipeline in its steady
// state allocates, reusing its batches: nothing per record, and for each
// goroutine (every reader, and the loop) at most one wait on the batch
// queue. A wait takes an attempt and its channel that the queue kept
// from a call that returned, and allocates nothing, unless more calls
// wait at once than ever before: then it makes them, about 300 bytes.
func waitAllocs(goroutines int) (allocs, bytes float64) {
	return float64(2 * goroutines), float64(300 * goroutines)
}

// TestSourcesSteadyAllocs: once warmed up, reading CSV lines,
// fixed-length records and Examples to batches allocates nothing per
// record or per batch beyond the goroutines' waits (issue 18: at most
// 0.05 allocations and 0.2 times an example's bytes an example, which
// BenchmarkSources' and BenchmarkMNIST's -steady runs measure for
// 128-record batches).
func TestSourcesSteadyAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	dir := t.TempDir()
	const lines, records = 20000, 20000
	var buf []byte
	for i := range lines {
		buf = fmt.Appendf(buf, "%d.25,%d,%d,s%d\n", i, i%10, i, i%100)
	}
	for f := range 2 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("l-%d.csv", f)), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const cifarBytes = 1 + 3*8*8
	cifarFields := []Field{
		{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8, Shape: []int{}},
		{Name: "image", Offset: 1, Size: 3 * 8 * 8, DType: tensor.Uint8, Shape: []int{3, 8, 8}, Transpose: []int{1, 2, 0}},
	}
	cifar := make([]byte, records*cifarBytes)
	for i := range cifar {
		cifar[i] = byte(i * 7)
	}
	for f := range 2 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c-%d.bin", f)), cifar, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Examples of FixedLen numbers, which reused batches parse record
	// by record into their rows.
	rows := writeRowExamples(t, dir, 2, records/2)
	const readers = 2
	// What the shuffled engine allocates for every EnqueueMany of a
	// reader's 128 records, whose lists and tensors it reuses: the
	// queue's copy of the element (four tensors) and, when the queue is
	// full, its wait; and now and then a batch dequeue's list of the
	// rows it took. Nothing per record.
	shuffled := func(batch float64) (allocs, bytes float64) {
		return 2*batch/readBatch + 1, 512*batch/readBatch + 1024
	}
	// What the deterministic engine allocates now and then: the list of
	// batches made and not yet delivered, as it slides. Its jobs and the
	// lists of their records' places kept for checkpoints go round, and
	// its goroutines wait on channels, which allocate nothing.
	deterministic := func(batch float64) (allocs, bytes float64) { return 4, 1024 }
	tests := []struct {
		name  string
		ds    *Dataset
		extra func(batch float64) (allocs, bytes float64) // beyond the waits
	}{
		{"csv", CSV(filepath.Join(dir, "l-*.csv"), []Column{
			Col("x", decode.Float32Column(0)), Col("label", decode.Int32Column(0)),
			Col("n", decode.Int64Column(0)), Col("s", decode.StringColumn("")),
		}, Readers(readers), Forever()), nil},
		{"cifar", FixedLengthRecords(filepath.Join(dir, "c-*.bin"), cifarBytes, cifarFields, Readers(readers), Forever()), nil},
		{"every field", FixedLengthRecords(writeTestRecords(t, dir, 2, records), testRecordBytes,
			slices.DeleteFunc(slices.Clone(testFields), func(f Field) bool { return f.Decode != nil }), // Decode allocates its own
			Readers(readers), Forever()), nil},
		{"cifar shuffled", FixedLengthRecords(filepath.Join(dir, "c-*.bin"), cifarBytes, cifarFields,
			Readers(readers), Forever(), Shuffle(2000)), shuffled},
		{"cifar deterministic", FixedLengthRecords(filepath.Join(dir, "c-*.bin"), cifarBytes, cifarFields,
			Readers(readers), Forever(), Shuffle(2000), Deterministic()), deterministic},
		{"examples", Examples(rows, rowSpec, Readers(readers), Forever()), nil},
		{"examples shuffled", Examples(rows, rowSpec, Readers(readers), Forever(), Shuffle(2000)), shuffled},
		{"examples deterministic", Examples(rows, rowSpec, Readers(readers), Forever(), Shuffle(2000), Deterministic()), deterministic},
	}
	// From past the filling of the shuffle buffers and of the lists
	// that go round.
	const batch, from, to = 64, 150, 450
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it, err := tt.ds.Iterator(t.Context(), batch)
			if err != nil {
				t.Fatal(err)
			}
			defer it.Close()
			var m0, m1 runtime.MemStats
			for i := range to {
				if i == from {
					runtime.ReadMemStats(&m0)
				}
				if _, err := it.Next(); err != nil {
					t.Fatal(err)
				}
			}
			runtime.ReadMemStats(&m1)
			n := float64(to - from)
			allocs, bytes := float64(m1.Mallocs-m0.Mallocs)/n, float64(m1.TotalAlloc-m0.TotalAlloc)/n
			// The waits of every reader and the loop, and with a shuffle
			// as many decoding goroutines.
			most, mostBytes := waitAllocs(2*readers + 1)
			if tt.extra != nil {
				a, b := tt.extra(batch)
				most, mostBytes = most+a, mostBytes+b
			}
			if allocs > most || bytes > mostBytes {
				t.Errorf("%.2f allocations and %.0f bytes a batch in the steady state, want at most %.0f and %.0f", allocs, bytes, most, mostBytes)
			}
			t.Logf("%.4f allocations and %.2f bytes an example", allocs/batch, bytes/batch)
		})
	}
}

// readEachOnce reads ds in batches of n, of memory reused or each its own
// (keep), checking each batch with check, which counts the records it
// holds in seen by id; kept batches are checked only at the end, so that a
// later batch written over one shows. It fails t unless each of records
// ids was seen epochs times.
func readEachOnce[K comparable](t *testing.T, ds *Dataset, n int, keep bool, check func(*testing.T, *Batch, map[K]int), records, epochs int) {
	t.Helper()
	var bopts []BatchOption
	if keep {
		bopts = append(bopts, KeepBatches())
	}
	seen := map[K]int{}
	var kept []*Batch
	for b, err := range ds.Batches(t.Context(), n, bopts...) {
		if err != nil {
			t.Fatal(err)
		}
		if keep {
			kept = append(kept, b)
		} else {
			check(t, b, seen)
		}
	}
	for _, b := range kept {
		check(t, b, seen)
	}
	if len(seen) != records {
		t.Fatalf("%d records seen, want %d", len(seen), records)
	}
	for id, c := range seen {
		if c != epochs {
			t.Fatalf("record %v seen %d times, want %d", id, c, epochs)
		}
	}
}
