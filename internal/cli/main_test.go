package cli

import (
	"bytes"
	"context"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/storage/blobfs"
	"github.com/sluiceml/sluice/tfrecord"
	"go.uber.org/goleak"
)

// The metrics server and the demo's pipelines start goroutines; none may
// outlive a command.
// The commands are tested as cmd/sluice builds them, object stores
// included. The file system lives as long as the process, so buckets
// of the in-memory store stay for later commands.
func TestMain(m *testing.M) {
	blobfs.RegisterDefault(blobfs.EnvParams())
	goleak.VerifyTestMain(m)
}

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// run runs the command line through Main and returns its exit code,
// stdout and stderr.
func run(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// golden compares got, with dir replaced by "$DIR", to
// testdata/name.golden, or rewrites that file with -update.
func golden(t *testing.T, name, dir, got string) {
	t.Helper()
	if dir != "" {
		got = strings.ReplaceAll(got, dir, "$DIR")
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// writeRecords writes records as a TFRecord file and returns its path.
func writeRecords(t testing.TB, dir, name string, c tfrecord.Compression, recs ...[]byte) string {
	t.Helper()
	var b bytes.Buffer
	w := tfrecord.NewWriter(&b, c)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeExamples writes n Examples (label i, x i/2) to a file.
func writeExamples(t testing.TB, dir, name string, n int, c tfrecord.Compression) string {
	t.Helper()
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = example.New().Int64("label", int64(i)).Float("x", float32(i)/2).Marshal()
	}
	return writeRecords(t, dir, name, c, recs...)
}

// mixedRecords are one record of each kind cat tells apart, with the
// values JSON needs care for.
func mixedRecords() [][]byte {
	ex := example.New().
		Int64("label", 7, -1, math.MaxInt64).
		Float("x", 0.5, 1e-7, 3e21, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1000000).
		Bytes("name", []byte("ann"), []byte{0xff, 0}).
		Marshal()
	seq := example.NewSequence().
		Context("id", example.Int64List(3)).
		List("tokens", example.StringList("hi", "there"), example.StringList()).
		List("scores", example.FloatList(1, 2)).
		Marshal()
	return [][]byte{
		ex,
		seq,
		{0xde, 0xad, 0xbe, 0xef},      // not a protocol buffer
		{0x08, 0x01},                  // a valid protocol buffer, but field 1 is no Features: raw
		{},                            // an empty Example
		{0x0a, 0x00},                  // an Example with empty features
		[]byte("{\"quote\": \"\\\"}"), // text: raw
	}
}
