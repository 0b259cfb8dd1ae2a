package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/internal/demo/demotest"
	"github.com/spf13/cobra"
)

// demoAccuracy returns the test accuracy (in percent) and the number of
// test images the demo's summary reports.
func demoAccuracy(t *testing.T, out string) (float64, int) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^test accuracy\s+([\d.]+)% on (\d+) images`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no accuracy in %q", out)
	}
	acc, err := strconv.ParseFloat(m[1], 64)
	if err != nil || acc < 0 || acc > 100 {
		t.Fatalf("accuracy %q", m[1])
	}
	n, _ := strconv.Atoi(m[2])
	return acc, n
}

// --data trains and tests on each kind of real data, recognised from the
// folder's files; here generated digits in the real formats. Through the
// queues every example of every epoch is trained on and every test image
// tested; the accuracy there is not asserted, since the order the readers
// deliver in depends on timing, and a rare order (more often under load)
// leaves this small a model near chance after so few steps. Through the
// deterministic pipeline the same seed gives the same weights, bit for
// bit, so the classifier's learning well above chance (10%) is a fact of
// the data and the seed, asserted there.
func TestDemoData(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(dir string) error
		args  []string
		kind  string
		train int
		test  int
	}{
		{"mnist", func(dir string) error { return demotest.WriteMNIST(dir, 600, 100, true, 1) }, nil, "MNIST IDX", 600, 100},
		{"cifar10", func(dir string) error { return demotest.WriteCIFAR10(dir, 300, 60, 2, 2) }, nil, "CIFAR-10 binary", 300, 60},
		// No test files: every sixth of 600 images is held out.
		{"tfrecord", func(dir string) error {
			return demotest.WriteTFRecord(dir, "digits", 600, 3, demotest.Floats, "pixels", "digit", 3)
		}, []string{"--image-feature", "pixels", "--label-feature", "digit"}, "TFRecord Examples", 500, 100},
		{"tfrecord-png", func(dir string) error {
			if err := demotest.WriteTFRecord(dir, "train", 300, 2, demotest.PNG, "image", "label", 4); err != nil {
				return err
			}
			return demotest.WriteTFRecord(dir, "test", 60, 1, demotest.PNG, "image", "label", 5)
		}, nil, "TFRecord Examples", 300, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			if err := tc.write(data); err != nil {
				t.Fatal(err)
			}
			for _, deterministic := range []bool{false, true} {
				args := append([]string{"demo", "--data", data, "--dir", t.TempDir(), "--epochs", "5", "--shards", "2",
					"--readers", "2", "--batch", "32", "--quiet"}, tc.args...)
				if deterministic {
					args = append(args, "--deterministic")
				}
				code, out, errOut := run(t, args...)
				if code != 0 {
					t.Fatalf("deterministic %v: exit %d: %q %q", deterministic, code, out, errOut)
				}
				acc, n := demoAccuracy(t, out)
				t.Logf("deterministic %v: accuracy %.2f%% on %d images", deterministic, acc, n)
				if n != tc.test || deterministic && acc < 30 {
					t.Errorf("deterministic %v: accuracy %.2f%% on %d images, want above 30%% on %d\n%s", deterministic, acc, n, tc.test, out)
				}
				if !strings.Contains(out, "data              "+tc.kind+": "+data) {
					t.Errorf("kind %q not reported:\n%s", tc.kind, out)
				}
				// Five epochs in batches of 32: the queues' shuffle_batch
				// drops the smaller last batch, the deterministic pipeline
				// keeps it.
				trained := 5 * tc.train
				if !deterministic {
					trained -= trained % 32
				}
				if want := fmt.Sprintf("training          %d examples", trained); !strings.Contains(out, want) {
					t.Errorf("deterministic %v: %q not reported:\n%s", deterministic, want, out)
				}
			}
		})
	}
}

// --train and --test limit the real data used.
func TestDemoDataLimits(t *testing.T) {
	data := t.TempDir()
	if err := demotest.WriteMNIST(data, 300, 100, false, 1); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "demo", "--data", data, "--train", "200", "--test", "50", "--epochs", "1", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %q %q", code, out, errOut)
	}
	// 200 images in batches of 128: one batch, the rest is dropped.
	if _, n := demoAccuracy(t, out); n != 50 || !strings.Contains(out, "training          128 examples") {
		t.Errorf("limits not applied:\n%s", out)
	}
}

// A folder with nothing the demo recognises, a missing folder, and a
// TFRecord without the named feature are one-line errors naming the path.
func TestDemoDataErrors(t *testing.T) {
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "README"), []byte("not data"), 0o644)
	records := t.TempDir()
	if err := demotest.WriteTFRecord(records, "digits", 10, 1, demotest.Int64s, "pixels", "label", 1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", empty}, empty + ": no MNIST IDX files"},
		{[]string{"--data", filepath.Join(empty, "nope")}, filepath.Join(empty, "nope")},
		{[]string{"--data", records}, `no image feature "image" (features: label, pixels); name it with --image-feature`},
		{[]string{"--image-feature", "x"}, "--image-feature and --label-feature go with --data"},
		{[]string{"extra"}, `unknown command "extra" for "sluice demo"`},
	} {
		code, out, errOut := run(t, append([]string{"demo", "--quiet", "--dir", t.TempDir()}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, %q %q", tc.args, code, out, errOut)
		}
	}
}

// The real MNIST images TFX ships, as float lists in [-0.5, 0.5] under
// other feature names, read in place through a link.
func TestDemoDataInterop(t *testing.T) {
	src, err := filepath.Abs(filepath.Join(interopDir(t), "mnist-1000.tfrecord"))
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if err := os.Symlink(src, filepath.Join(data, "mnist-1000.tfrecord")); err != nil {
		t.Skip(err)
	}
	code, out, errOut := run(t, "demo", "--data", data, "--image-feature", "image_floats", "--label-feature", "image_class",
		"--epochs", "8", "--quiet", "--dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %q %q", code, out, errOut)
	}
	acc, n := demoAccuracy(t, out)
	t.Logf("accuracy %.2f%% on %d real MNIST images", acc, n)
	if n != 166 || acc < 50 || !strings.Contains(out, `image "image_floats" as float list`) {
		t.Errorf("accuracy %.2f%% on %d images:\n%s", acc, n, out)
	}
}

// Subcommands of demo plug in through demoCmds; the classifier demo stays
// the command's own.
func TestDemoSubcommandHook(t *testing.T) {
	saved := demoCmds
	defer func() { demoCmds = saved }()
	ran := false
	demoCmds = append(demoCmds[:len(demoCmds):len(demoCmds)], func() *cobra.Command {
		return &cobra.Command{Use: "fake", Short: "a test demo", Args: cobra.NoArgs,
			RunE: func(*cobra.Command, []string) error { ran = true; return nil }}
	})
	if code, out, errOut := run(t, "demo", "fake"); code != 0 || !ran {
		t.Fatalf("demo fake: %d %q %q", code, out, errOut)
	}
	code, out, _ := run(t, "demo", "--help")
	if code != 0 || !strings.Contains(out, "fake") || !strings.Contains(out, "Examples:\n  sluice demo") {
		t.Errorf("demo --help does not list the subcommand: %q", out)
	}
}

// The root's examples name the files sluice demo --dir writes, so that
// they run as they are after the demo.
func TestRootExampleNamesDemoFiles(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := run(t, "demo", "--quiet", "--dir", dir, "--epochs", "1", "--train", "64", "--test", "16"); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errOut)
	}
	root := newRootCmd(io.Discard, io.Discard)
	for _, line := range strings.Split(root.Example, "\n") {
		for _, arg := range strings.Fields(line) {
			if !strings.HasPrefix(strings.Trim(arg, "'"), "data/") {
				continue
			}
			pattern := filepath.Join(dir, strings.TrimPrefix(strings.Trim(arg, "'"), "data/"))
			if m, _ := filepath.Glob(pattern); len(m) == 0 {
				t.Errorf("root example %q: demo --dir wrote no file %s", line, arg)
			}
		}
	}
}
