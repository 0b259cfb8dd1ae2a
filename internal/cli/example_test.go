package cli_test

import (
	"context"
	"fmt"
	"math"
	"os"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/cli"
	"github.com/sluiceml/sluice/tfrecord"
)

// The everyday commands through Main, the same entry point the sluice
// binary calls: write a small GZIP TFRecord file, then cat, verify and
// convert it.
func ExampleMain() {
	dir, _ := os.MkdirTemp("", "sluice-example")
	defer os.RemoveAll(dir)
	wd, _ := os.Getwd()
	os.Chdir(dir) // so that the file names printed are short
	defer os.Chdir(wd)

	f, _ := os.Create("digits.tfrecord.gz")
	w := tfrecord.NewWriter(f, tfrecord.Gzip)
	for i := range 3 {
		w.Write(example.New().Int64("label", int64(i)).Float("pixels", 0, 0.5).Marshal())
	}
	w.Close()
	f.Close()

	ctx := context.Background()
	sluice := func(args ...string) {
		if code := cli.Main(ctx, args, os.Stdout, os.Stdout); code != 0 {
			fmt.Println("exit code", code)
		}
	}
	sluice("cat", "--limit", "2", "--keys", "*.tfrecord.gz")
	sluice("verify", "digits.tfrecord.gz")
	sluice("convert", "digits.tfrecord.gz", "--out", "plain", "--shards", "2")
	sluice("count", "plain-*")
	sluice("count", "nothing-*")
	// cat's lines, edited, back into records.
	os.WriteFile("edited.json", []byte(`{"features":{"label":{"int64":[9]},"pixels":{"float":[1,0.25]}}}`+"\n"), 0o644)
	sluice("convert", "--from", "json", "edited.json", "--out", "edited")
	sluice("cat", "edited.tfrecord")
	// Output:
	// {"key":"digits.tfrecord.gz:0","features":{"label":{"int64":[0]},"pixels":{"float":[0,0.5]}}}
	// {"key":"digits.tfrecord.gz:58","features":{"label":{"int64":[1]},"pixels":{"float":[0,0.5]}}}
	// 3 good records in 1 file: 0 bad records
	// wrote 3 records to plain-00000-of-00002.tfrecord, plain-00001-of-00002.tfrecord
	// 2	plain-00000-of-00002.tfrecord
	// 1	plain-00001-of-00002.tfrecord
	// 3	total
	// sluice: nothing-*: no such file (the pattern matches nothing)
	// exit code 1
	// wrote 1 records to edited.tfrecord
	// {"features":{"label":{"int64":[9]},"pixels":{"float":[1,0.25]}}}
}

// stats summarises each feature's values: here a label's classes and a
// score with a NaN in it, which the mean and median leave out and the NAN
// column counts.
func ExampleMain_stats() {
	dir, _ := os.MkdirTemp("", "sluice-example")
	defer os.RemoveAll(dir)
	name := dir + "/scores.tfrecord"
	f, _ := os.Create(name)
	w := tfrecord.NewWriter(f, tfrecord.None)
	for i, score := range []float32{0.5, 1.5, float32(math.NaN()), 2} {
		w.Write(example.New().Int64("label", int64(i%2)).Float("score", score).Marshal())
	}
	w.Close()
	f.Close()
	cli.Main(context.Background(), []string{"stats", name}, os.Stdout, os.Stdout)
	// Output:
	// 4 records in 1 file: 4 Examples
	//
	// FEATURE  KIND   IN RECORDS  VALUES  MIN  MEDIAN  MAX  MEAN   STD DEV  ZEROS      NAN  INF
	// label    int64  4 (100%)    1       0    0.5     1    0.5    0.5      2 (50.0%)  —    —
	// score    float  4 (100%)    1       0.5  1.5     2    1.333  0.6236   0          1    0
	//
	// TOP VALUES  DISTINCT  MOST COMMON (COUNT, SHARE OF THE VALUES)
	// label       2         0 (2, 50.0%), 1 (2, 50.0%)
}

// Examples as a Parquet table, a column a feature, and back.
func ExampleMain_toParquet() {
	dir, _ := os.MkdirTemp("", "sluice-example")
	defer os.RemoveAll(dir)
	wd, _ := os.Getwd()
	os.Chdir(dir) // so that the file names printed are short
	defer os.Chdir(wd)

	f, _ := os.Create("digits.tfrecord")
	w := tfrecord.NewWriter(f, tfrecord.None)
	for i := range 3 {
		w.Write(example.New().Int64("label", int64(i)).Float("pixels", 0, float32(i)/2).Marshal())
	}
	w.Close()
	f.Close()

	ctx := context.Background()
	cli.Main(ctx, []string{"convert", "--to", "parquet", "digits.tfrecord", "--out", "digits"}, os.Stdout, os.Stdout)
	cli.Main(ctx, []string{"schema", "--from", "parquet", "digits.parquet"}, os.Stdout, os.Stdout)
	cli.Main(ctx, []string{"convert", "--from", "parquet", "digits.parquet", "--out", "back"}, os.Stdout, os.Stdout)
	cli.Main(ctx, []string{"cat", "--flat", "back.tfrecord"}, os.Stdout, os.Stdout)
	// Output:
	// wrote 3 rows of 2 columns to digits.parquet
	// 3 records in 1 file: 3 Examples
	//
	// FEATURE  KIND   IN RECORDS  VALUES  SPEC
	// label    int64  3 (100%)    1       FixedLen(int64, [])
	// pixels   float  3 (100%)    2       FixedLen(float32, [2])
	// wrote 3 records to back.tfrecord
	// {"label":[0],"pixels":[0.0,0.0]}
	// {"label":[1],"pixels":[0.0,0.5]}
	// {"label":[2],"pixels":[0.0,1.0]}
}
