package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The program reads all 1000 real MNIST Examples of the interop file, in
// 31 batches of 32 and a last one of 8, with pixels in [-0.5, 0.5].
func TestRun(t *testing.T) {
	const name = "../../../shared/interop/mnist-1000.tfrecord"
	if _, err := os.Stat(name); err != nil {
		t.Skipf("interop data absent: %v", err)
	}
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
		mean, err := strconv.ParseFloat(f[2], 32)
		if n < 1 || label < 0 || label > 9 || err != nil || mean < -0.5 || mean > 0.5 {
			t.Errorf("line %q: want batch size, a digit and a mean pixel in [-0.5, 0.5]", sc.Text())
		}
		total += n
	}
	if total != 1000 || batches != 32 {
		t.Errorf("%d examples in %d batches, want 1000 in 32", total, batches)
	}
}
