package pyserve

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/sluiceml/sluice/tensor"
)

// A ring is the server's slot files. Each slot is a file of its own, so
// that a slot grows (a new, larger file) without moving the others.
//
// A slot file is an anonymous file of memory where the system has them
// (memFile): the client opens it by its descriptor under /proc, and it is
// never in a directory, so that not even a server and a trainer killed
// together leave it behind. Elsewhere, or when SLUICE_SHM_DIR asks for a
// directory, it is a named file there, which the server unlinks as soon as
// the client has mapped it.
type ring struct {
	dir    string // the named files' directory; "" for anonymous files
	prefix string

	mu    sync.Mutex
	slots []slot
	gen   int
	// closed is set by close: a reading goroutine that outlived its
	// iteration's grace period must not make a file nothing would remove.
	closed bool
}

type slot struct {
	f    *os.File
	mem  []byte
	path string // the name the client opens it by; "" once unlinked
	// news is set when reserve made a file that no batch sent to the
	// client has named yet: a slot a reading goroutine decodes into gets
	// its file there, and the batch names it when it is sent.
	news bool
}

// shmDir is where named slot files go: SLUICE_SHM_DIR if set, "" (none:
// anonymous files) where the system has them, /dev/shm where it is a
// writable directory (memory, never written back to a disk), else the
// temporary directory.
func shmDir() string {
	if d := os.Getenv("SLUICE_SHM_DIR"); d != "" {
		return d
	}
	if haveMemFiles() {
		return ""
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() && writable("/dev/shm") {
		return "/dev/shm"
	}
	return os.TempDir()
}

// haveMemFiles reports, found once, whether memFile works here.
var haveMemFiles = sync.OnceValue(memFiles)

func newRing(n int) *ring {
	return &ring{dir: shmDir(), prefix: fmt.Sprintf("sluice-%d-", os.Getpid()), slots: make([]slot, n)}
}

// reserve makes slot k at least size bytes, and returns its memory and,
// when it made a new file for it, the file's name and size, which the
// client must map.
func (r *ring) reserve(k, size int) (mem []byte, newFile string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, "", fmt.Errorf("%w: slot %d of a closed ring", ErrProtocol, k)
	}
	s := &r.slots[k]
	if len(s.mem) >= size {
		return s.mem, "", nil
	}
	// Room to grow, so that batches of varying size (bytes, VarLen
	// features) do not make a new file each time, rounded to 64 KiB.
	size = (max(size+size/4, 1<<16) + 1<<16 - 1) &^ (1<<16 - 1)
	if err := r.checkTotalLocked(k, size); err != nil {
		return nil, "", err
	}
	r.dropLocked(s)
	r.gen++
	f, path, err := r.create(k)
	if err != nil {
		return nil, "", err
	}
	s.f, s.path = f, path
	if r.dir == "" {
		// An anonymous file is in no file system that fills up, so a
		// page it lacks costs no SIGBUS: it is sized only, and its
		// memory is taken as the batch is written into it. Allocated, a
		// slot lent for the batch a spec names (a feature of 2^23
		// int64s) committed gigabytes of memory, counted in no
		// process's RSS, before its first record failed to parse, and
		// the out-of-memory killer took it from other processes (audit
		// 96).
		err = f.Truncate(int64(size))
	} else {
		err = allocate(f, size)
	}
	if err != nil {
		r.dropLocked(s)
		return nil, "", fmt.Errorf("shared memory of %d bytes for %s: %w", size, path, err)
	}
	mem, err = mapShared(f, size)
	if err != nil {
		r.dropLocked(s)
		return nil, "", fmt.Errorf("mapping %s: %w", path, err)
	}
	s.mem = mem
	s.news = true
	return mem, path, nil
}

// checkTotalLocked fails, with an error wrapping
// tensor.ErrResourceExhausted, when slot k made size bytes would take the
// ring's slots past half the machine's memory. Each slot keeps the size
// of the largest batch it has held, and the batches are written in turn
// into all of them, so a batch padded to a long record among short ones,
// allowed for itself up to the machine's memory, would fill nine slots of
// it (audit 112: two batches of 16 GiB were written from a file of 42
// MB). The machine's memory, not the Go memory limit: the slots are
// files mapped, not the Go heap GOMEMLIMIT bounds, which the README
// suggests setting to a few times the data in flight (audit 113).
func (r *ring) checkTotalLocked(k, size int) error {
	total := uint64(size)
	for i := range r.slots {
		if i != k {
			total += uint64(len(r.slots[i].mem))
		}
	}
	if limit := tensor.PhysicalMemory() / 2; limit > 0 && total > limit {
		return fmt.Errorf("%w: a batch of %d bytes: the shared memory of the batches held and on their way would be %d bytes, "+
			"more than half of the machine's memory (%d); a smaller batch size or prefetch, or features padded "+
			"less (a VarLen or sequence feature pads every record to the batch's longest)",
			tensor.ErrResourceExhausted, size, total, limit)
	}
	return nil
}

// create makes the file of slot k, anonymous or named as the ring's are.
func (r *ring) create(k int) (f *os.File, path string, err error) {
	name := fmt.Sprintf("%s%d-%d", r.prefix, k, r.gen)
	if r.dir == "" {
		return memFile(name)
	}
	// A random part as well: a server killed before the client mapped a
	// file leaves it, and a later server may have the same pid.
	if f, err = os.CreateTemp(r.dir, name+"-*"); err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

// announce returns slot k's file and size if no batch has named it yet,
// and marks it named.
func (r *ring) announce(k int) (file string, size int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &r.slots[k]
	if !s.news {
		return "", 0
	}
	s.news = false
	return s.path, len(s.mem)
}

// locate returns the slot among slots [from, len) whose memory holds p,
// and p's offset in it.
func (r *ring) locate(from int, p unsafe.Pointer) (k, off int, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := from; k < len(r.slots); k++ {
		mem := r.slots[k].mem
		if len(mem) == 0 {
			continue
		}
		base := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
		if a := uintptr(p); a >= base && a < base+uintptr(len(mem)) {
			return k, int(a - base), true
		}
	}
	return 0, 0, false
}

// unlink removes the named slot file, which the client has mapped. An
// anonymous file is in no directory, and its descriptor stays open as
// long as the slot has the file: its name (the descriptor's number) must
// not name another file while a reply that names it may be unread. It
// reports whether the name was one of the ring's.
func (r *ring) unlink(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.slots {
		if s := &r.slots[i]; s.path == path && path != "" {
			if r.dir != "" {
				os.Remove(path)
				s.path = ""
			}
			return true
		}
	}
	return false
}

// retire lets go of slot k's file, which the client still has batches
// in: the slot's next use (reserve) makes it a new one. The client's
// mapping keeps the old memory, which no one writes again.
func (r *ring) retire(k int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked(&r.slots[k])
}

// close unmaps, closes and removes every slot file.
func (r *ring) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for i := range r.slots {
		r.dropLocked(&r.slots[i])
	}
}

func (r *ring) dropLocked(s *slot) {
	if s.mem != nil {
		unmap(s.mem)
	}
	if s.f != nil {
		s.f.Close()
	}
	if s.path != "" && r.dir != "" {
		os.Remove(s.path)
	}
	*s = slot{}
}
