package recordio

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tfrecord"
)

// Shard splits the records of every unit among readers: together they read
// each record exactly once, each reader the positions index mod count.
func TestShardRecords(t *testing.T) {
	names := writeTFRecords(t, t.TempDir(), tfrecord.Gzip, 2, 7)
	for _, count := range []int{1, 2, 3, 7, 9} {
		var all []kv
		for index := range count {
			q := workQueue(t, names...)
			q.Close(bg)
			got := readAll(t, NewTFRecordReader(q, tfrecord.Gzip, Shard(index, count)))
			for _, r := range got {
				var j, f int
				if _, err := fmt.Sscanf(r.value, "Record %d of file %d", &j, &f); err != nil {
					t.Fatal(err)
				}
				if j%count != index {
					t.Errorf("shard %d of %d read record %d of file %d", index, count, j, f)
				}
			}
			all = append(all, got...)
		}
		want := readAll(t, NewTFRecordReader(closedQueue(t, names), tfrecord.Gzip))
		slices.SortFunc(all, func(a, b kv) int { return compareKV(a, b) })
		slices.SortFunc(want, func(a, b kv) int { return compareKV(a, b) })
		if !slices.Equal(all, want) {
			t.Fatalf("%d shards together read %d records, want the %d of the files", count, len(all), len(want))
		}
	}
}

// ReadUpTo keeps the same records as Read.
func TestShardReadUpTo(t *testing.T) {
	names := writeTFRecords(t, t.TempDir(), tfrecord.None, 2, 7)
	r := NewTFRecordReader(closedQueue(t, names), tfrecord.None, Shard(1, 3))
	var got []string
	for {
		keys, _, err := r.ReadUpTo(bg, 2)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, keys...)
	}
	var want []string
	for _, n := range names {
		for _, j := range []int{1, 4} {
			want = append(want, fmt.Sprintf("%s:%d", n, 34*j))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if r.NumRecordsProduced() != 4 {
		t.Fatalf("NumRecordsProduced = %d, want the 4 kept", r.NumRecordsProduced())
	}
}

// A sharded reader saved inside a unit resumes keeping the same records.
func TestShardRestoreMidUnit(t *testing.T) {
	names := writeTFRecords(t, t.TempDir(), tfrecord.None, 1, 10)
	r := NewTFRecordReader(closedQueue(t, names), tfrecord.None, Shard(2, 3))
	if _, v, err := r.Read(bg); err != nil || string(v) != "Record 2 of file 0" {
		t.Fatalf("first read %q, %v", v, err)
	}
	state, err := r.SerializeState()
	if err != nil {
		t.Fatal(err)
	}
	r2 := NewTFRecordReader(workQueue(t), tfrecord.None, Shard(2, 3))
	if err := r2.RestoreState(bg, state); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 2 {
		_, v, err := r2.Read(bg)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(v))
	}
	if want := []string{"Record 5 of file 0", "Record 8 of file 0"}; !slices.Equal(got, want) {
		t.Fatalf("after restore got %q, want %q", got, want)
	}
}

// Bad shard arguments fail the first read with tf.data's messages
// (ShardDatasetOp; Shard is modelled on Dataset.shard, outside the spec's
// items), which therefore keep TensorFlow's capitals.
func TestShardInvalid(t *testing.T) {
	for _, tc := range []struct {
		index, count int
		msg          string
	}{
		{0, 0, "Number of shards must be greater than zero (currently num_shards = 0)"},
		{3, 3, "Index must be between 0 and 2 (currently index = 3)"},
		{-1, 2, "Index must be between 0 and 1 (currently index = -1)"},
	} {
		r := NewTFRecordReader(workQueue(t), tfrecord.None, Shard(tc.index, tc.count))
		_, _, err := r.Read(bg)
		if !errors.Is(err, queue.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "TFRecordReader") {
			t.Errorf("Shard(%d, %d): %v", tc.index, tc.count, err)
		}
		if _, _, err := r.ReadUpTo(bg, 2); !errors.Is(err, queue.ErrInvalidArgument) {
			t.Errorf("Shard(%d, %d) ReadUpTo: %v", tc.index, tc.count, err)
		}
	}
}

func closedQueue(t *testing.T, names []string) *queue.FIFO {
	t.Helper()
	q := workQueue(t, names...)
	q.Close(bg)
	return q
}

func compareKV(a, b kv) int { return strings.Compare(a.key, b.key) }
