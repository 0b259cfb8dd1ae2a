package recordio

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tfrecord"
)

// tfReference is recordio/testdata/tf_readers.json, written by
// tools/tfref/readers.py from TensorFlow 2.21's tf.compat.v1 readers.
type tfReference struct {
	TensorFlow string `json:"tensorflow"`
	Cases      []struct {
		Name      string         `json:"name"`
		Reader    string         `json:"reader"`
		Attrs     map[string]any `json:"attrs"`
		Files     [][2]string    `json:"files"` // name, hex contents
		Units     []string       `json:"units"` // "@name" is a file of the case
		Records   [][2]string    `json:"records"`
		End       string         `json:"end"`
		Produced  int64          `json:"produced"`
		Completed int64          `json:"completed"`
		Sizes     []int          `json:"batch_sizes"`
	} `json:"cases"`
	State struct {
		Initial       string             `json:"initial"`
		AfterX        string             `json:"after_X"`
		AfterXYZ      string             `json:"after_XYZ"`
		AfterReset    string             `json:"after_reset"`
		RestoreErrors map[string]*string `json:"restore_errors"`
		NegativeSkip  string             `json:"negative_skip"`
		NegativeHead  string             `json:"negative_header"`
	} `json:"state"`
}

func loadTFReference(t *testing.T) *tfReference {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tf_readers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref tfReference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	return &ref
}

// tfOptions turns the script's reader attributes into Options.
func tfOptions(t *testing.T, attrs map[string]any) []Option {
	opts := []Option{Name("test_reader")}
	for k, v := range attrs {
		switch k {
		case "skip_header_lines":
			opts = append(opts, SkipHeaderLines(int(v.(float64))))
		case "record_bytes":
			opts = append(opts, RecordBytes(int(v.(float64))))
		case "header_bytes":
			opts = append(opts, HeaderBytes(int(v.(float64))))
		case "footer_bytes":
			opts = append(opts, FooterBytes(int(v.(float64))))
		case "hop_bytes":
			opts = append(opts, HopBytes(int(v.(float64))))
		case "encoding", "compression":
			c, err := tfrecord.ParseCompression(v.(string))
			if err != nil {
				t.Fatal(err)
			}
			opts = append(opts, Compression(c))
		default:
			t.Fatalf("unknown attribute %s", k)
		}
	}
	return opts
}

// sameError reports whether err is sluice's form of TensorFlow's error tf
// ("Class: message") for the unit file.
func sameError(err error, tf, file string) bool {
	if err == nil || errors.Is(err, io.EOF) {
		return false
	}
	class, msg, _ := strings.Cut(tf, ": ")
	switch class {
	case "DataLossError":
		// tfrecord's message is TensorFlow's ("corrupted record at 31"),
		// without the "' failed with Read less bytes" tail.
		msg, _, _ = strings.Cut(msg, "'")
		return errors.Is(err, tfrecord.ErrDataLoss) && strings.Contains(err.Error(), msg) && strings.Contains(err.Error(), file)
	case "NotFoundError":
		return errors.Is(err, fs.ErrNotExist) && strings.Contains(err.Error(), file)
	case "OutOfRangeError": // a fixed-length file shorter than its header
		return msg == "reached end of file" && errors.Is(err, ErrShortHeader) && strings.Contains(err.Error(), file)
	}
	return false
}

// READERS.md §1-§6 against TensorFlow 2.21 itself: every reader's keys,
// values, end of input, counters and ReadUpTo batch sizes over the spec's
// test files and edge cases around them.
func TestAgainstTensorFlow(t *testing.T) {
	ref := loadTFReference(t)
	// Deliberate differences (see the readers' doc comments).
	deviations := map[string]struct {
		records   [][2]string // nil: TensorFlow's
		completed int64
		sizes     []int
	}{
		// TensorFlow's WholeFileReader repeats the NotFound forever.
		"whole_file missing file": {[][2]string{{"ERROR", "NotFoundError: missing.txt"}, {"ok.txt", "6f6b"}}, 1, []int{-1, 1}},
		// TensorFlow's read_up_to drops the records read before an error.
		"tfrecord corrupt data": {nil, 0, []int{1, -1, -1}},
		"tfrecord truncated":    {nil, 0, []int{2, -1, -1}},
	}
	for _, c := range ref.Cases {
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			var names []string
			for _, f := range c.Files {
				data, err := hex.DecodeString(f[1])
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, writeFile(t, dir, f[0], data))
			}
			units := names
			if c.Units != nil {
				units = nil
				for _, u := range c.Units {
					if name, ok := strings.CutPrefix(u, "@"); ok {
						u = filepath.Join(dir, name)
					}
					units = append(units, u)
				}
			}
			want, completed, sizes := c.Records, c.Completed, c.Sizes
			if d, ok := deviations[c.Name]; ok {
				if d.records != nil {
					want = d.records
				}
				completed, sizes = d.completed, d.sizes
			}
			strip := func(s string) string { return strings.TrimPrefix(s, dir+string(filepath.Separator)) }
			fileOf := func(i int) string {
				// The unit a record or error comes from: the first unit
				// whose records follow, or else the next name in order.
				for j := i; j < len(want); j++ {
					if want[j][0] != "ERROR" {
						f, _, _ := strings.Cut(want[j][0], ":")
						return f
					}
				}
				return ""
			}

			q := workQueue(t, units...)
			q.Close(bg)
			r, err := Open(c.Reader, q, tfOptions(t, c.Attrs)...)
			if err != nil {
				t.Fatal(err)
			}
			var got [][2]string
			var errs []error
			for len(got) < len(want)+3 {
				k, v, err := r.Read(bg)
				if errors.Is(err, io.EOF) {
					if !strings.Contains(err.Error(), "is closed and has insufficient elements (requested 1, current size 0)") {
						t.Fatalf("end of input: %v", err)
					}
					break
				}
				if err != nil {
					got = append(got, [2]string{"ERROR", ""})
					errs = append(errs, err)
					if n := len(got); n >= 3 && got[n-2][0] == "ERROR" && got[n-3][0] == "ERROR" {
						break // a sticky error, as the script stops on
					}
					continue
				}
				errs = append(errs, nil)
				got = append(got, [2]string{strip(k), hex.EncodeToString(v)})
			}
			if len(got) != len(want) {
				t.Fatalf("%d reads, TensorFlow %d:\n got %q\nwant %q", len(got), len(want), got, want)
			}
			for i := range want {
				if want[i][0] == "ERROR" {
					file := fileOf(i + 1)
					if strings.Contains(want[i][1], "missing.txt") {
						file = "missing.txt"
					}
					if !sameError(errs[i], want[i][1], file) {
						t.Errorf("read %d: %v, TensorFlow %s", i, errs[i], want[i][1])
					}
					continue
				}
				if got[i] != want[i] {
					t.Errorf("read %d = %q, TensorFlow %q", i, got[i], want[i])
				}
			}
			if !strings.Contains(c.End, "is closed and has insufficient elements") {
				return // TensorFlow's loop ended on a sticky error
			}
			if r.NumRecordsProduced() != c.Produced || r.NumWorkUnitsCompleted() != completed {
				t.Errorf("produced %d, completed %d; TensorFlow %d, %d", r.NumRecordsProduced(), r.NumWorkUnitsCompleted(), c.Produced, completed)
			}

			q = workQueue(t, units...)
			q.Close(bg)
			r, _ = Open(c.Reader, q, tfOptions(t, c.Attrs)...)
			var gotSizes []int
			for len(gotSizes) < 50 {
				keys, _, err := r.ReadUpTo(bg, 3)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					gotSizes = append(gotSizes, -1)
					if n := len(gotSizes); n >= 3 && gotSizes[n-2] == -1 && gotSizes[n-3] == -1 {
						break
					}
					continue
				}
				gotSizes = append(gotSizes, len(keys))
			}
			if !slices.Equal(gotSizes, sizes) {
				t.Errorf("ReadUpTo(3) batch sizes %v, TensorFlow %v", gotSizes, sizes)
			}
		})
	}
}

// READERS.md §1 Serialize / restore against TensorFlow: IdentityReader's
// state bytes, and which states TensorFlow's restore rejects, with its
// messages.
func TestStateAgainstTensorFlow(t *testing.T) {
	ref := loadTFReference(t).State
	q := workQueue(t, "X", "Y", "Z", "a-longer-unit")
	r := NewIdentityReader(q, Name("test_reader"))
	state := func() string {
		b, err := r.SerializeState()
		if err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(b)
	}
	if got := state(); got != ref.Initial {
		t.Errorf("initial state %s, TensorFlow %s", got, ref.Initial)
	}
	r.Read(bg)
	x := state()
	if x != ref.AfterX {
		t.Errorf("state after X %s, TensorFlow %s", x, ref.AfterX)
	}
	r.Read(bg)
	r.Read(bg)
	if got := state(); got != ref.AfterXYZ {
		t.Errorf("state after X, Y, Z %s, TensorFlow %s", got, ref.AfterXYZ)
	}
	xb, _ := hex.DecodeString(x)
	bads := map[string][]byte{
		"state[1:]": xb[1:], "state[:-1]": xb[:len(xb)-1], "state+ExtraJunk": append(slices.Clip(xb), "ExtraJunk"...),
		"PREFIX+state": append([]byte("PREFIX"), xb...), "BOGUS+state[5:]": append([]byte("BOGUS"), xb[5:]...),
		"negative started":      {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"finished>started":      {0x08, 0x01, 0x10, 0x02},
		"started>finished":      {0x08, 0x02, 0x10, 0x01},
		"sluice mid-unit state": {0x08, 0x02, 0x10, 0x01, 0x18, 0x01, 0x22, 0x01, 0x58, 0x82, 0x01, 0x02, 0x01, 0x01},
		"unknown field 16":      append(slices.Clip(xb), 0x82, 0x01, 0x01, 0x07),
		"wrong wire type":       {0x0d, 0x01, 0x00, 0x00, 0x00},
	}
	if len(bads) != len(ref.RestoreErrors) {
		t.Fatalf("%d cases, TensorFlow reference has %d", len(bads), len(ref.RestoreErrors))
	}
	for name, b := range bads {
		tfErr := ref.RestoreErrors[name]
		err := r.RestoreState(bg, b)
		switch {
		case name == "finished>started":
			// Deliberate: TensorFlow accepts a state no reader can be in.
			if tfErr != nil || !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "Inconsistent work started vs. finished when restoring in IdentityReader 'test_reader'") {
				t.Errorf("%s: %v (TensorFlow accepts it)", name, err)
			}
		case name == "sluice mid-unit state":
			// TensorFlow cannot resume inside a unit; IdentityReader's
			// format has no Positioner, so sluice cannot either.
			if tfErr == nil || !errors.Is(err, ErrState) {
				t.Errorf("%s: %v, TensorFlow %v", name, err, *tfErr)
			}
		case tfErr == nil:
			if err != nil {
				t.Errorf("%s: %v; TensorFlow restores it", name, err)
			}
		default:
			// TensorFlow's message up to the reader's name.
			msg, _, _ := strings.Cut(strings.TrimPrefix(*tfErr, "InvalidArgumentError: "), "': ")
			if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), msg+"'") {
				t.Errorf("%s: %v, TensorFlow %s", name, err, *tfErr)
			}
			if r.NumRecordsProduced() != 0 {
				t.Errorf("%s: a failed restore must reset the reader", name)
			}
		}
	}
	r.Reset()
	if got := state(); got != ref.AfterReset {
		t.Errorf("state after reset %s, TensorFlow %s", got, ref.AfterReset)
	}
	for _, c := range []struct {
		tf  string
		err error
	}{
		{ref.NegativeSkip, func() error { _, err := NewTextLineReader(q, SkipHeaderLines(-1)); return err }()},
		{ref.NegativeHead, func() error { _, err := NewFixedLengthRecordReader(q, 3, HeaderBytes(-1)); return err }()},
	} {
		msg := strings.TrimPrefix(c.tf, "InvalidArgumentError: ")
		if !errors.Is(c.err, queue.ErrInvalidArgument) || !strings.Contains(c.err.Error(), msg) {
			t.Errorf("%v, TensorFlow %s", c.err, c.tf)
		}
	}
}
