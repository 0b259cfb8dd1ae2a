package pyserve

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// controlSize is the control file's size: a page, of which the server
// reads the first 8 bytes.
const controlSize = 4096

// A control is a page of shared memory in which the client tells the
// server how many of the batches sent to it it is done with: a count
// over the server's life, in the order the batches were sent, which only
// grows. The client writes it when the trainer asks for the next batch;
// the server reads it whenever it needs a slot, so that a slot comes back
// as soon as the trainer is past its batch, not at the client's next
// request. A request for eight batches then finds the slots of the last
// eight free again (and writes into the ones it wrote last, still in the
// caches) instead of eight more, which is what lets a client ask for
// batches eight at a time and wake up half as often.
//
// The count is a native-endian uint64 at offset 0, written by the client
// in one store (an aligned 8-byte word) and read here atomically. It is
// only a hint that frees slots early: a next's keep still bounds what the
// client holds, so a client that never maps the page (or a page that could
// not be made) reads the same batches.
//
// The file comes and goes as a slot file does: the server makes it, the
// client maps it and says mapped, and the server unlinks it at once.
type control struct {
	f    *os.File
	mem  []byte
	path string // "" once unlinked
}

func newControl(dir, prefix string) (*control, error) {
	f, err := os.CreateTemp(dir, prefix+"ctl-*")
	if err != nil {
		return nil, err
	}
	c := &control{f: f, path: f.Name()}
	if err := allocate(f, controlSize); err != nil {
		c.close()
		return nil, fmt.Errorf("shared memory of %d bytes in %s: %w", controlSize, dir, err)
	}
	if c.mem, err = syscall.Mmap(int(f.Fd()), 0, controlSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED); err != nil {
		c.close()
		return nil, fmt.Errorf("mapping %s: %w", c.path, err)
	}
	return c, nil
}

// released returns how many batches the client is done with.
func (c *control) released() uint64 {
	return atomic.LoadUint64((*uint64)(unsafe.Pointer(unsafe.SliceData(c.mem))))
}

// unlink removes the control file once the client has mapped it, and
// reports whether path is its name.
func (c *control) unlink(path string) bool {
	if c.path == "" || path != c.path {
		return false
	}
	os.Remove(c.path)
	c.path = ""
	return true
}

func (c *control) close() {
	if c.mem != nil {
		syscall.Munmap(c.mem)
		c.mem = nil
	}
	c.f.Close()
	if c.path != "" {
		os.Remove(c.path)
		c.path = ""
	}
}
