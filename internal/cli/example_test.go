package cli_test

import (
	"context"
	"fmt"
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
