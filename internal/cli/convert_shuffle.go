package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/sluiceml/sluice/tfrecord"
)

// recordOverhead is what holding one record in memory costs beyond its
// bytes (its slice header and allocation rounding), so that a shuffle of
// many tiny records stays within its memory bound too.
const recordOverhead = 32

// maxBuckets bounds the temporary files open at once (each also holds a
// 64 KiB write buffer).
const maxBuckets = 256

// A shuffler returns records in a uniformly random order while holding at
// most mem bytes of them: the two-pass shuffle. The first pass deals each
// record to a temporary file (a bucket) chosen uniformly at random; the
// second reads the buckets in turn, shuffles each in memory and emits it.
// A random assignment followed by a uniform shuffle of each bucket makes
// every order of the whole input equally likely. A bucket that turns out
// larger than mem is split again the same way before it is shuffled, so
// the bound holds whatever the data's size.
//
// The buckets are temporary files in $TMPDIR that lose their names as soon
// as they are created (where the system allows it, as every Unix does):
// they are read back through the open file, and their space returns to
// the system when the file is closed — by remove, or by the system when
// the process ends in any way, SIGKILL included. Where an open file cannot
// be unlinked, remove deletes it by name.
type shuffler struct {
	dir     string // where the buckets are created
	mem     int64
	rng     *rand.Rand
	buckets []*bucket
	depth   int   // for naming split buckets
	maxHeld int64 // the most bytes of records held at once, as bucket.bytes counts them
}

// A bucket is one temporary file of records, uncompressed TFRecord.
type bucket struct {
	name  string   // for messages; where the system allows, the file no longer has it
	f     *os.File // open for writing, then reading; nil once released
	w     *tfrecord.Writer
	named bool  // the file could not be unlinked while open: release removes it
	bytes int64 // the memory its records take: lengths plus overhead
	count int64 // its records
}

// newShuffler makes a shuffler whose first pass deals records to enough
// buckets for expected bytes of records, in temporary files in dir ("":
// os.TempDir()).
func newShuffler(dir string, expected, mem int64, seed uint64) (*shuffler, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	s := &shuffler{dir: dir, mem: mem, rng: rand.New(rand.NewPCG(seed, seed^0x5eed))}
	var err error
	s.buckets, err = s.newBuckets(bucketsFor(expected, mem))
	if err != nil {
		return nil, err
	}
	return s, nil
}

// bucketsFor is how many buckets of at most about mem/2 bytes hold
// expected bytes: half, so that the random sizes rarely overflow.
func bucketsFor(expected, mem int64) int {
	return int(min(max(1, 2*expected/mem+1), maxBuckets))
}

func (s *shuffler) newBuckets(n int) ([]*bucket, error) {
	s.depth++
	bs := make([]*bucket, n)
	for i := range bs {
		f, err := os.CreateTemp(s.dir, fmt.Sprintf("sluice-shuffle-%d-%d-*", s.depth, i))
		if err != nil {
			releaseBuckets(bs[:i])
			return nil, fmt.Errorf("shuffle: %w", err)
		}
		named := os.Remove(f.Name()) != nil
		bs[i] = &bucket{name: f.Name(), f: f, w: tfrecord.NewWriter(f), named: named}
	}
	return bs, nil
}

// add deals rec to a random bucket.
func (s *shuffler) add(rec []byte) error {
	return s.deal(s.buckets, rec)
}

func (s *shuffler) deal(bs []*bucket, rec []byte) error {
	b := bs[s.rng.IntN(len(bs))]
	b.bytes += int64(len(rec)) + recordOverhead
	b.count++
	if err := b.w.Write(rec); err != nil {
		return fmt.Errorf("shuffle: %s: %w", b.name, err)
	}
	return nil
}

// emit calls write with every record added, in the shuffled order.
func (s *shuffler) emit(ctx context.Context, write func([]byte) error) error {
	if err := finishBuckets(s.buckets); err != nil {
		return err
	}
	return s.emitBuckets(ctx, s.buckets, write)
}

func (s *shuffler) emitBuckets(ctx context.Context, bs []*bucket, write func([]byte) error) error {
	for _, b := range bs {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		// A record larger than the memory bound is held alone: split
		// again, it would land alone in a bucket as large, for ever
		// (audit 51: a 160 MB record filled the disk with copies).
		if b.bytes <= s.mem || b.count <= 1 {
			err = s.shuffleInMemory(ctx, b, write)
		} else {
			err = s.split(ctx, b, write)
		}
		b.release() // the space is no longer needed
		if err != nil {
			return err
		}
	}
	return nil
}

// shuffleInMemory emits a bucket's records in a random order.
func (s *shuffler) shuffleInMemory(ctx context.Context, b *bucket, write func([]byte) error) error {
	var recs [][]byte
	err := readBucket(ctx, b, func(rec []byte) error {
		recs = append(recs, append([]byte(nil), rec...))
		return nil
	})
	if err != nil {
		return err
	}
	s.maxHeld = max(s.maxHeld, b.bytes)
	s.rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	for i, rec := range recs {
		if err := checkEvery(ctx, i); err != nil {
			return err
		}
		if err := write(rec); err != nil {
			return err
		}
	}
	return nil
}

// checkEvery returns ctx's error at every 256th record i: a bucket holds
// up to --shuffle-memory of records, which took seconds to read or write
// after a signal when the context was looked at only between buckets
// (audit 57).
func checkEvery(ctx context.Context, i int) error {
	if i%256 != 0 {
		return nil
	}
	return ctx.Err()
}

// split deals an oversized bucket's records to new buckets, as the first
// pass did, and emits those in turn.
func (s *shuffler) split(ctx context.Context, b *bucket, write func([]byte) error) error {
	// At least two, so that every split makes progress.
	sub, err := s.newBuckets(max(2, bucketsFor(b.bytes, s.mem)))
	if err != nil {
		return err
	}
	err = readBucket(ctx, b, func(rec []byte) error { return s.deal(sub, rec) })
	if ferr := finishBuckets(sub); err == nil {
		err = ferr
	}
	if err == nil {
		err = s.emitBuckets(ctx, sub, write)
	}
	releaseBuckets(sub)
	return err
}

// readBucket reads a finished bucket's records from its start.
func readBucket(ctx context.Context, b *bucket, fn func([]byte) error) error {
	if _, err := b.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("shuffle: %w", err)
	}
	r := tfrecord.NewReader(b.f, tfrecord.Name(b.name))
	for i := 0; ; i++ {
		if err := checkEvery(ctx, i); err != nil {
			return err
		}
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("shuffle: %w", err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// finishBuckets flushes the buckets' writers, so that their files can be
// read back.
func finishBuckets(bs []*bucket) error {
	var errs []error
	for _, b := range bs {
		if b.f == nil {
			continue
		}
		if err := b.w.Close(); err != nil {
			errs = append(errs, fmt.Errorf("shuffle: %s: %w", b.name, err))
		}
	}
	return errors.Join(errs...)
}

// release closes the bucket's file, which frees its space, and removes
// its name if it still has one.
func (b *bucket) release() {
	if b == nil || b.f == nil {
		return
	}
	b.f.Close()
	b.f = nil
	if b.named {
		os.Remove(b.name)
	}
}

func releaseBuckets(bs []*bucket) {
	for _, b := range bs {
		b.release()
	}
}

// remove deletes the temporary files that remain.
func (s *shuffler) remove() {
	releaseBuckets(s.buckets)
}
