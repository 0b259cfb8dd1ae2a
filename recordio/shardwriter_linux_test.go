package recordio

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A sharded write opens every shard before it writes, one descriptor
// each: a process can write as many shards as it has descriptors left,
// not half as many.
func TestShardedWriterDescriptors(t *testing.T) {
	const shards = 200
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skip(err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	// A few to spare: the directory's sync after each rename opens it.
	low := lim
	low.Cur = uint64(len(fds)) + shards + 4
	if low.Cur > lim.Cur {
		t.Skipf("a limit of %d descriptors is too low for the test", lim.Cur)
	}
	dir := t.TempDir()
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	w, err := NewShardedWriter(t.Context(), ShardNames(filepath.Join(dir, "out"), shards, ".tfrecord"))
	if err != nil {
		t.Fatalf("%d shards with %d descriptors free: %v", shards, low.Cur-uint64(len(fds)), err)
	}
	for range 2 * shards {
		if err := w.Write([]byte("record")); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	if files, _ := os.ReadDir(dir); len(files) != shards {
		t.Errorf("%d files written, want %d", len(files), shards)
	}
}
