package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/datasets/digits"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tfrecord"
)

// The program reads 1000 digit images, in 31 batches of 32 and a last one
// of 8, each line a batch size, a digit and a mean pixel in [0, 255].
func TestRun(t *testing.T) {
	name := writeRecords(t, 1000)
	var out strings.Builder
	if err := run(t.Context(), name, &out); err != nil {
		t.Fatal(err)
	}
	total, batches := 0, 0
	for sc := bufio.NewScanner(strings.NewReader(out.String())); sc.Scan(); batches++ {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			t.Fatalf("line %q: want three fields", sc.Text())
		}
		n, _ := strconv.Atoi(f[0])
		label, _ := strconv.Atoi(f[1])
		mean, err := strconv.ParseFloat(f[2], 64)
		if n < 1 || label < 0 || label > 9 || err != nil || mean <= 0 || mean >= 255 {
			t.Errorf("line %q: want batch size, a digit and a mean pixel in (0, 255)", sc.Text())
		}
		total += n
	}
	if total != 1000 || batches != 32 {
		t.Errorf("%d examples in %d batches, want 1000 in 32", total, batches)
	}
}

// Without an argument the program prints its usage rather than
// panicking; a cancelled run says it was interrupted; an error is printed.
func TestMainCode(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		args   []string
		code   int
		stderr string
	}{
		{"no argument", context.Background(), nil, 2, "usage: mnist FILES"},
		{"two arguments", context.Background(), []string{"a", "b"}, 2, "usage: mnist FILES"},
		{"no such files", context.Background(), []string{filepath.Join(t.TempDir(), "none-*.tfrecord")}, 1, "mnist: "},
		{"interrupted", cancelled, []string{writeRecords(t, 40)}, 130, "mnist: interrupted"},
		{"read", context.Background(), []string{writeRecords(t, 40)}, 0, ""},
	}
	for _, tt := range tests {
		var stdout, stderr strings.Builder
		if code := mainCode(tt.ctx, tt.args, &stdout, &stderr); code != tt.code || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tt.name, code, stderr.String(), tt.code, tt.stderr)
		}
	}
}

// writeRecords writes a TFRecord file of n digit images as Examples, as
// sluice demo --dir writes them, and returns its name.
func writeRecords(t *testing.T, n int) string {
	t.Helper()
	images, labels, err := digits.Generate(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "mnist.tfrecord")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := tfrecord.NewWriter(f)
	b := example.New()
	for i := range n {
		rec := b.Reset().Bytes("image_raw", images[i*784:(i+1)*784]).Int64("label", int64(labels[i])).AppendMarshal(nil)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return name
}
