package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sluiceml/sluice/storage"
	"google.golang.org/protobuf/encoding/protowire"
)

// magic starts every stored index; the number is the format's version.
// Version 2 added the file's Version after its modification time;
// version 1 indexes are read as indexes of no version.
const (
	magic   = "sluice-index 2\n"
	magicV1 = "sluice-index 1\n"
)

// overhead is the least a TFRecord takes: its framing around no data.
const overhead = 16

// MarshalBinary encodes the index: its file's name, size, modification
// time and version, and the length of every record, as varints, with a
// CRC at the end.
func (x *Index) MarshalBinary() ([]byte, error) {
	b := []byte(magic)
	b = protowire.AppendBytes(b, []byte(x.Name))
	b = protowire.AppendVarint(b, uint64(x.Size))
	if x.ModTime.IsZero() {
		b = protowire.AppendVarint(b, 0)
	} else {
		b = protowire.AppendVarint(b, 1)
		b = protowire.AppendVarint(b, uint64(x.ModTime.UnixNano()))
	}
	b = protowire.AppendBytes(b, []byte(x.Version))
	b = protowire.AppendVarint(b, uint64(len(x.ends)))
	var prev int64
	for _, end := range x.ends {
		b = protowire.AppendVarint(b, uint64(end-prev))
		prev = end
	}
	sum := crc32.ChecksumIEEE(b)
	return append(b, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24)), nil
}

// UnmarshalBinary decodes an index MarshalBinary encoded. It checks the
// encoding whole (the CRC, every length at least a record's framing, the
// records ending where the file does) and allocates no more than the
// data's size warrants.
func (x *Index) UnmarshalBinary(data []byte) error {
	bad := func(what string) error { return fmt.Errorf("index: not a valid index: %s", what) }
	if len(data) < len(magic)+4 || string(data[:len(magic)]) != magic && string(data[:len(magicV1)]) != magicV1 {
		return bad("no header")
	}
	v1 := string(data[:len(magicV1)]) == magicV1
	body, sum := data[:len(data)-4], data[len(data)-4:]
	if crc32.ChecksumIEEE(body) != uint32(sum[0])|uint32(sum[1])<<8|uint32(sum[2])<<16|uint32(sum[3])<<24 {
		return bad("checksum mismatch")
	}
	b := body[len(magic):]
	next := func() (uint64, bool) {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	name, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return bad("name")
	}
	b = b[n:]
	size, ok1 := next()
	hasTime, ok2 := next()
	var nanos uint64
	ok3 := true
	if hasTime == 1 {
		nanos, ok3 = next()
	}
	var ver []byte
	if !v1 {
		if ver, n = protowire.ConsumeBytes(b); n < 0 || len(ver) > maxVersion {
			return bad("version")
		}
		b = b[n:]
	}
	count, ok4 := next()
	if !ok1 || !ok2 || !ok3 || !ok4 || hasTime > 1 || int64(size) < 0 {
		return bad("file attributes")
	}
	// Each record's length takes at least a byte.
	if count > uint64(len(b)) {
		return bad("more records than bytes")
	}
	ends := make([]int64, 0, count)
	var end int64
	for range count {
		l, ok := next()
		if !ok || l < overhead || l > uint64(size) || end > int64(size)-int64(l) {
			return bad("record lengths")
		}
		end += int64(l)
		ends = append(ends, end)
	}
	if len(b) != 0 || end != int64(size) {
		return bad("records do not end where the file does")
	}
	*x = Index{Name: string(name), Size: int64(size), Version: string(ver), ends: ends}
	if hasTime == 1 {
		x.ModTime = time.Unix(0, int64(nanos))
	}
	return nil
}

// Dir returns the folder where indexes are cached: $SLUICE_INDEX_DIR if
// set, else sluice/index in the user's cache folder.
func Dir() (string, error) {
	if d := os.Getenv("SLUICE_INDEX_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("index: no cache folder (set SLUICE_INDEX_DIR): %w", err)
	}
	return filepath.Join(d, "sluice", "index"), nil
}

// canonical names a local file by its absolute path, so that an index is
// found whatever the working folder.
func canonical(name string) string {
	if storage.Scheme(name) != "" {
		return name
	}
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}

// Beside returns the name of the index stored beside the file name.
func Beside(name string) string { return name + ".idx" }

// IsIndex reports whether prefix, the first bytes of a file (at least
// 15), are those of a stored index: a program that meets one where it
// expects records can say what it is.
func IsIndex(prefix []byte) bool {
	return bytes.HasPrefix(prefix, []byte(magic)) || bytes.HasPrefix(prefix, []byte(magicV1))
}

// cached returns the name of name's index in the cache.
func cached(name string) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(canonical(name)))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".idx"), nil
}

// Save stores the index, beside its file or in the cache, all or nothing,
// and returns where. Beside the file, it removes the temporaries that
// earlier saves of the same index left when they were killed, unless told
// they are gone (LeftoversRemoved); in the cache, the daily trim removes them, since looking for them lists the
// whole cache, which a run that indexes thousands of files would do once
// a file.
func (x *Index) Save(ctx context.Context, beside bool, opts ...SaveOption) (string, error) {
	var cfg saveConfig
	for _, o := range opts {
		o(&cfg)
	}
	path := Beside(x.Name)
	if !beside {
		var err error
		if path, err = cached(x.Name); err != nil {
			return "", err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", fmt.Errorf("index: %w", err)
		}
		trim(ctx, filepath.Dir(path), time.Now())
	}
	// The stored name is absolute, so that Load finds it from any
	// working folder.
	stored := *x
	stored.Name = canonical(x.Name)
	data, err := stored.MarshalBinary()
	if err != nil {
		return "", err
	}
	// A run killed while saving left its temporary beside path, and no
	// one else removes it: each killed run would add one. A running
	// saver's is kept: it writes what this one does. A removal that
	// fails leaves the leftover for the next run, and is no reason not to
	// save.
	if beside && !cfg.leftoversRemoved {
		storage.RemoveDeadLeftovers(ctx, path)
	}
	w, err := storage.CreatePending(ctx, path)
	if err != nil {
		return "", err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return "", err
	}
	if err := w.Commit(); err != nil {
		return "", err
	}
	return path, nil
}

// A SaveOption configures Save.
type SaveOption func(*saveConfig)

type saveConfig struct {
	leftoversRemoved bool
}

// LeftoversRemoved tells Save that the caller has removed what killed
// saves left beside the index it writes beside its file, so that Save does
// not list the file's folder to find them. A caller saving the indexes of
// many files in a folder removes them all with one listing
// (storage.RemoveAllDeadLeftovers of their Beside names) where Save would
// list the folder once a file.
func LeftoversRemoved() SaveOption {
	return func(c *saveConfig) { c.leftoversRemoved = true }
}

// Load returns the stored index of the file name, from beside it or from
// the cache, after checking that the file has not changed since (ErrStale,
// if neither is current).
// A file without an index gives an error wrapping ErrNoIndex.
func Load(ctx context.Context, name string) (*Index, error) {
	paths := []string{Beside(name)}
	if c, err := cached(name); err == nil {
		paths = append(paths, c)
	}
	var why []error
	var stale error
	// The file's size bounds its index's, and is needed only when an
	// index is there to read.
	var dataErr error
	limit := func() (int64, error) {
		f, err := storage.Open(ctx, name)
		if err != nil {
			dataErr = err
			return 0, err
		}
		defer f.Close()
		return maxStored(f.Size()), nil
	}
	for i, path := range paths {
		data, err := readIndex(ctx, path, limit)
		if dataErr != nil {
			return nil, dataErr
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			why = append(why, err)
			continue
		}
		x := new(Index)
		if err := x.UnmarshalBinary(data); err != nil {
			// A damaged index is no index: LoadOrBuild builds another.
			why = append(why, fmt.Errorf("%s: %w", path, err))
			continue
		}
		// The index beside a file is that file's, whatever name it was
		// built under (a data set indexed, then moved); one in the cache
		// may be another file's under a colliding name.
		if i > 0 && canonical(x.Name) != canonical(name) {
			continue
		}
		x.Name = name
		x.stored = path
		if err := x.Check(ctx); errors.Is(err, ErrStale) {
			// A stale index beside the file must not hide a current one
			// in the cache, which LoadOrBuild made the last time.
			stale = err
			continue
		} else if err != nil {
			return nil, err
		}
		if i > 0 {
			now := time.Now()
			used(path, now)
			trim(ctx, filepath.Dir(path), now)
		}
		return x, nil
	}
	if stale != nil {
		return nil, stale
	}
	if len(why) > 0 {
		return nil, fmt.Errorf("%w for %s: %w", ErrNoIndex, name, errors.Join(why...))
	}
	return nil, fmt.Errorf("%w for %s", ErrNoIndex, name)
}

// LoadOrBuild returns the file's stored index, or builds one with opts
// (and caches it) if it has none or the one it has is stale.
func LoadOrBuild(ctx context.Context, name string, opts ...BuildOption) (*Index, error) {
	x, err := Load(ctx, name)
	if err == nil || !errors.Is(err, ErrNoIndex) && !errors.Is(err, ErrStale) {
		return x, err
	}
	if x, err = Build(ctx, name, opts...); err != nil {
		return nil, err
	}
	// A cache that cannot be written costs only the next build.
	x.Save(ctx, false)
	return x, nil
}

// maxName bounds the name stored in an index: a path or a URL, far
// shorter than this.
const maxName = 1 << 16

// maxVersion bounds the version stored in an index: an ETag or a
// generation, far shorter than this.
const maxVersion = 1 << 10

// maxStored returns the most bytes a stored index of a file of size bytes
// can take: the header, the name, the file's attributes and the record
// count, then a varint for each record's length. A record takes at least
// overhead (16) bytes of the file, and the varint of a length l >= 16
// takes at most l/16 bytes, so the lengths take at most size/16 bytes.
// A file of unknown size (a stream) has no index worth reading.
func maxStored(size int64) int64 {
	const fixed int64 = int64(len(magic)) + binary.MaxVarintLen64 + maxName + binary.MaxVarintLen64 + maxVersion + 4*binary.MaxVarintLen64 + 4
	return fixed + max(size, 0)/overhead
}

// readIndex reads the stored index path of the file name, refusing what
// cannot be one rather than reading it: anything but a regular file (a
// named pipe would block the open, a device such as /dev/zero never
// ends) and a file longer than an index of name can be. The open goes
// through storage, so that it ends with ctx. limit returns the most bytes
// an index of the file can take (see maxStored).
func readIndex(ctx context.Context, path string, limit func() (int64, error)) ([]byte, error) {
	if storage.Scheme(path) == "" {
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("index: %s is not a regular file (%v), so not an index", path, st.Mode().Type())
		}
	}
	f, err := storage.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Size() < 0 {
		return nil, fmt.Errorf("index: %s is a stream (a pipe or device), so not an index", path)
	}
	n, err := limit()
	if err != nil {
		return nil, err
	}
	if f.Size() > n {
		return nil, fmt.Errorf("index: %s has %d bytes, more than an index of its file can (%d)", path, f.Size(), n)
	}
	// The size is the one at the open; the file may have grown since.
	b, err := io.ReadAll(io.LimitReader(f, n+1))
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", path, err)
	}
	if int64(len(b)) > n {
		return nil, fmt.Errorf("index: %s has more than the %d bytes an index of its file can", path, n)
	}
	return b, nil
}
