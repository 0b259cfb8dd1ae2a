package sluice

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// A RandomAccessOption configures a source whose records can be read in
// any order: Examples (uncompressed TFRecord files, through an index) and
// FixedLengthRecords (uncompressed).
type RandomAccessOption interface {
	ExampleOption
	RecordOption
}

type randomAccessOption func(*settings)

func (o randomAccessOption) applyExample(s *exampleSettings) { o(&s.settings) }
func (o randomAccessOption) applyRecord(s *recordSettings)   { o(&s.settings) }

// GlobalShuffle makes each epoch visit every record of every file in an
// order drawn from the seed and the epoch: a shuffle of the whole data
// set, not of a window of it as Shuffle's buffer is. Records are read where
// they are: TFRecord files through an index of their record offsets
// (package index; built in one pass and cached the first time a file is
// read this way, or beforehand by `sluice index`), fixed-length records
// directly. Files must be uncompressed: a Compression option is refused
// with it when the data set is made, a compressed TFRecord file when
// reading starts, both with ErrInvalid.
//
// The order is deterministic (see Deterministic), and an Iterator's
// checkpoint is the number of batches delivered. With Shard(i, n), worker
// i reads positions i, i+n, i+2n, ... of each epoch's order, so n workers
// read every record once per epoch between them; the records are then
// numbered in the sorted list of files, so that the workers may list the
// files in any order. Readers sets how many
// batches are read at once (default 8): nearby records are read in one
// request, and several requests are in flight, which is what object
// stores need. The memory it takes grows with them: each reader's batch,
// as read and as decoded, and the batches read ahead of the loop, about
// three times Readers batches in all, where reading in order holds a few
// (audit 51: 32 records of 1 MiB, 888 MB against 138 MB); fewer readers
// hold less.
//
// Shuffle and ShuffleFiles have nothing to add to it and are ignored, so
// that a shuffled data set switches to a global shuffle by this option
// alone; SkipCorrupt is refused with it (ErrInvalid), since an index is
// built of a sound file. A checkpoint records each file's count of records, on
// which the whole order depends, and Resume refuses it if a file's count
// has changed.
//
// Files that hold no record give no batch: the iteration ends at once
// with io.EOF, as in the other engines, but with Forever, which is
// refused with ErrInvalid when reading starts (the records are counted
// first). So is a Shard that gets no record of files that hold some.
func GlobalShuffle() RandomAccessOption {
	return randomAccessOption(func(s *settings) { s.globalShuffle = true })
}

// globalReaders is the number of batches a global shuffle reads at once
// without Readers.
const globalReaders = 8

// coalesceGap is the largest gap between two wanted records that one read
// spans: reading the bytes between costs less than another request.
const coalesceGap = 64 << 10

// trustedSpan is the longest record span read on the index's word alone.
// A longer one is read only after its header, read first, says the record
// takes the span: a forged or stale index that says a record takes a
// whole large file would otherwise size an allocation.
const trustedSpan = 1 << 20

// A randomAccess locates the records of a source's files.
type randomAccess struct {
	files  []string
	sizes  []int64 // bytes per file
	counts []int64 // records per file
	first  []int64 // index of each file's first record among all
	total  int64
	// span returns where record i of file f is: [start, end).
	span func(f int, i int64) (start, end int64)
	// framed reports that a span holds a TFRecord to unframe.
	framed bool
	// check reports whether file f, opened to read records, still holds
	// what the spans were found in: a file rewritten since would be read
	// at another version's offsets.
	check func(f int, file storage.File) error
	// stored returns where file f's index was loaded from, "" if it was
	// built by this run.
	stored func(f int) string
	// matches reports whether a fresh index of file f is the one read
	// through, or the file cannot be indexed (damaged): nil if there are
	// no indexes.
	matches func(ctx context.Context, f int) bool
}

// locate returns where the records of files are, with their indexes
// loaded or built for TFRecord files.
func (d *Dataset) locate(ctx context.Context, files []string) (*randomAccess, error) {
	ra := &randomAccess{files: files, sizes: make([]int64, len(files)), counts: make([]int64, len(files))}
	switch d.kind {
	case "Examples", "SequenceExamples", "Records":
		idx := make([]*index.Index, len(files))
		errs := make([]error, len(files))
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for i, name := range files {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				idx[i], errs[i] = index.LoadOrBuild(ctx, name)
			})
		}
		wg.Wait()
		for i, err := range errs {
			if errors.Is(err, index.ErrCompressed) {
				// Known only from the file's first bytes, when reading
				// starts: refused as the option conflict it is.
				return nil, fmt.Errorf("GlobalShuffle: %w: %w (a global shuffle reads records where they are, in uncompressed files)", err, ErrInvalid)
			}
			if err != nil {
				return nil, err
			}
			// A loaded index is checked against its file's size.
			ra.counts[i], ra.sizes[i] = int64(idx[i].Len()), idx[i].Size
		}
		ra.span = func(f int, i int64) (int64, int64) { return idx[f].Record(int(i)) }
		ra.framed = true
		ra.check = func(f int, file storage.File) error { return idx[f].CheckFile(file) }
		ra.stored = func(f int) string { return idx[f].Stored() }
		ra.matches = func(ctx context.Context, f int) bool {
			// Asked only once reading through the index has failed: a
			// pass over the file, to tell damage from a wrong index.
			x, err := index.Build(ctx, files[f])
			if err != nil {
				return true // the file is damaged: the index may be right
			}
			if x.Len() != idx[f].Len() {
				return false
			}
			for i := range x.Len() {
				a, b := x.Record(i)
				if c, d := idx[f].Record(i); a != c || b != d {
					return false
				}
			}
			return true
		}
	case "FixedLengthRecords":
		rb, hb, fb := d.fixed.recordBytes, d.fixed.headerBytes, d.fixed.footerBytes
		if d.fixed.compression != tfrecord.None {
			return nil, fmt.Errorf("GlobalShuffle: %v files have no record offsets to read at: %w", d.fixed.compression, ErrInvalid)
		}
		for i, name := range files {
			f, err := storage.Open(ctx, name)
			if err != nil {
				return nil, err
			}
			size := f.Size()
			f.Close()
			switch {
			case size < 0:
				return nil, fmt.Errorf("GlobalShuffle: %s is a stream (a pipe or device), whose records cannot be read in any order: %w", name, ErrInvalid)
			case size < int64(hb):
				// As the other engines, and TensorFlow, fail it rather
				// than read it as empty.
				return nil, &dataerr.Error{File: name, Offset: 0, Record: -1,
					Err: fmt.Errorf("reached end of file in the %d-byte header: %w", hb, recordio.ErrShortHeader)}
			}
			ra.sizes[i] = size
			ra.counts[i] = max(0, (size-int64(hb)-int64(fb))/int64(rb))
		}
		ra.span = func(_ int, i int64) (int64, int64) {
			start := int64(hb) + i*int64(rb)
			return start, start + int64(rb)
		}
		ra.check = func(f int, file storage.File) error {
			if file.Size() != ra.sizes[f] {
				return fmt.Errorf("sluice: %s changed since the global shuffle began: %d bytes, %d then", files[f], file.Size(), ra.sizes[f])
			}
			return nil
		}
	default:
		return nil, fmt.Errorf("GlobalShuffle needs records that can be read in any order, which %s does not have: %w", d.kind, ErrInvalid)
	}
	ra.first = make([]int64, len(files))
	for i, c := range ra.counts {
		ra.first[i] = ra.total
		ra.total += c
	}
	return ra, nil
}

// where returns the file and the index in it of record g of all.
func (ra *randomAccess) where(g int64) (int, int64) {
	f := sort.Search(len(ra.first), func(i int) bool { return ra.first[i] > g }) - 1
	return f, g - ra.first[f]
}

// A recordOrder is an epoch's order of the records: at(i), for i < n, is
// the record at position i. It follows from the seed, the epoch and n
// alone, so that the position in an epoch is all a checkpoint needs.
type recordOrder interface {
	at(i uint64) uint64
}

// The global shuffle's orders, which a checkpoint records (identity.Order)
// so that a run resumed from it goes on in the order it began in.
const (
	// orderFeistel4 is a 4-round Feistel network for every n: sluice's
	// order until 2026-11-27, which checkpoints saved before then hold
	// (they have no order). Its orders are far from uniform for a small
	// data set: of 5 records, the last came last 26 % of the time, not
	// 20 % (audit 40); the rounds' functions, over halves of a few bits,
	// are drawn from few, and a Feistel network's permutations of its
	// domain are all even.
	orderFeistel4 = 0
	// orderUniform shuffles up to explicitMax records with Fisher-Yates
	// (every order equally likely, 4 bytes a record for the epoch), and
	// more with a 10-round Feistel network, whose halves are then at
	// least 11 bits wide.
	orderUniform = 1
	globalOrder  = orderUniform // a new run's
)

// explicitMax is the most records whose order orderUniform draws whole:
// 4 MiB of memory, a few milliseconds an epoch.
const explicitMax = 1 << 20

// newPermutation returns the order of n records in epoch of a run seeded
// with seed.
func newPermutation(order int, n, seed, epoch uint64) recordOrder {
	if order == orderFeistel4 {
		return newFeistel(n, seed, epoch, 4)
	}
	if n > explicitMax {
		return newFeistel(n, seed, epoch, 10)
	}
	rng := rand.New(rand.NewPCG(mix64(seed^0x5eed_0f_5afe), mix64(epoch+0x9e3779b97f4a7c15)))
	p := make(explicit, n)
	for i := range p {
		p[i] = uint32(i)
	}
	rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// An explicit permutation holds every position's record.
type explicit []uint32

func (p explicit) at(i uint64) uint64 { return uint64(p[i]) }

// A feistel is a permutation of [0, n) drawn from a key: a balanced
// Feistel network over the smallest even number of bits that holds n,
// walked until it lands in [0, n) (cycle walking). Its state is its key.
type feistel struct {
	n    uint64
	half uint
	mask uint64
	keys []uint64
}

func newFeistel(n, seed, epoch uint64, rounds int) *feistel {
	b := uint(bits.Len64(max(n, 2) - 1))
	half := (b + 1) / 2
	f := &feistel{n: n, half: half, mask: 1<<half - 1, keys: make([]uint64, rounds)}
	k := mix64(seed ^ mix64(epoch+0x9e3779b97f4a7c15))
	for i := range f.keys {
		k = mix64(k + uint64(i) + 1)
		f.keys[i] = k
	}
	return f
}

// mix64 is SplitMix64's finaliser: every input bit affects every output
// bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// at returns the permutation's value at i, i < n. (Beyond n, the cycle
// walk may never come back below n: callers keep i in range.)
func (f *feistel) at(i uint64) uint64 {
	x := f.encrypt(i)
	for x >= f.n {
		x = f.encrypt(x)
	}
	return x
}

func (f *feistel) encrypt(x uint64) uint64 {
	l, r := x>>f.half, x&f.mask
	for _, k := range f.keys {
		l, r = r, l^(mix64(r^k)&f.mask)
	}
	return l<<f.half | r
}

// A globalRun is an iteration of a globally shuffled data set: batch k
// holds the records at positions k·n to (k+1)·n of the run's sequence.
type globalRun struct {
	ordered
	id    identity
	sizes *fileSizes // of id.Files, all known
	seq   *globalSeq
}

// A globalSeq is a worker's sequence of records: in each epoch, its
// positions of the epoch's permutation.
type globalSeq struct {
	ra           *randomAccess
	seed         uint64
	order        int // orderFeistel4 or orderUniform
	shard, count int64
	perEpoch     int64 // records of the worker in an epoch
	total        int64 // in all epochs; -1 without end

	mu sync.Mutex
	// The permutations of the two epochs last asked for: readers near an
	// epoch's end ask for both, in turn, and an explicit one takes
	// milliseconds to draw.
	epochs [2]int64
	perms  [2]recordOrder
}

// at returns record t of the sequence, as an index among all records.
func (s *globalSeq) at(t int64) int64 {
	e, j := t/s.perEpoch, t%s.perEpoch
	s.mu.Lock()
	k := 0
	switch {
	case s.perms[0] != nil && s.epochs[0] == e:
	case s.perms[1] != nil && s.epochs[1] == e:
		k = 1
	default:
		// The older one goes.
		s.epochs[1], s.perms[1] = s.epochs[0], s.perms[0]
		s.epochs[0], s.perms[0] = e, newPermutation(s.order, uint64(s.ra.total), s.seed, uint64(e))
	}
	p := s.perms[k]
	s.mu.Unlock()
	return int64(p.at(uint64(s.shard + j*s.count)))
}

// startGlobal starts a globally shuffled iteration, from the start or
// from batch `from`.
func (d *Dataset) startGlobal(ctx context.Context, n int, bs batchSettings, pl *pool, ck *checkpoint) (*globalRun, error) {
	s := d.settings
	files, err := d.match(ctx)
	if err != nil {
		return nil, err
	}
	if s.shard[1] != 0 {
		// The records are numbered in the files' sorted order, so that
		// workers listing them in different orders split one order.
		files = slices.Sorted(slices.Values(files))
	}
	ra, err := d.locate(ctx, files)
	if err != nil {
		return nil, fmt.Errorf("sluice: %s: %w", d.kind, err)
	}
	shard, count := int64(0), int64(1)
	if s.shard[1] != 0 {
		shard, count = int64(s.shard[0]), int64(s.shard[1])
		if count < 0 || shard < 0 || shard >= count {
			return nil, fmt.Errorf("sluice: %s: Shard(%d, %d): %w", d.kind, shard, count, ErrInvalid)
		}
	}
	order := globalOrder
	if ck != nil && ck.Identity.Global {
		// A run resumed goes on in the order it began in.
		if order = ck.Identity.Order; order != orderFeistel4 && order != orderUniform {
			return nil, fmt.Errorf("sluice: %s: %w: global shuffle order %d, which this sluice does not know", d.kind, ErrCheckpoint, order)
		}
	}
	seq := &globalSeq{ra: ra, seed: s.seed, order: order, shard: shard, count: count, perEpoch: max(0, (ra.total-shard+count-1)/count)}
	switch {
	case ra.total == 0 && s.forever:
		// The other engines' error, which they meet once every file has
		// been read through.
		return nil, newEmptyFiles(d.kind, files).err()
	case ra.total == 0:
		// Epochs of no record: the run ends at once, as the other
		// engines' do. (No position is drawn: at would divide by 0.)
	case seq.perEpoch == 0:
		// Only a shard asked for can be empty.
		return nil, fmt.Errorf("sluice: %s: %d records for shard %d of %d: %w", d.kind, ra.total, shard, count, ErrInvalid)
	}
	seq.total = seq.perEpoch * int64(max(s.epochs, 1))
	if s.forever {
		seq.total = -1
	}
	readers := s.readers
	if readers == 0 {
		readers = globalReaders
	}
	id := d.identity(files, n, 0, bs)
	id.Global = true
	id.Records = ra.counts
	id.Order = order
	batches := int64(-1)
	if seq.total >= 0 {
		batches = seq.total / int64(n)
		if !bs.dropRemainder && seq.total%int64(n) != 0 {
			batches++
		}
	}
	sizes := newFileSizes(files)
	for i, size := range ra.sizes {
		sizes.set(i, size)
	}
	var from int64
	if ck != nil {
		if err := ck.check(ctx, id, sizes); err != nil {
			return nil, fmt.Errorf("sluice: %s: %w", d.kind, err)
		}
		from = ck.Delivered
		// Forever has no last batch to bound it, but the position of its
		// first record must not overflow (a hostile or damaged
		// checkpoint).
		if from < 0 || batches >= 0 && from > batches || from > math.MaxInt64/int64(n)-1 {
			return nil, fmt.Errorf("sluice: %s: %w: batch %d of %d", d.kind, ErrCheckpoint, from, batches)
		}
	}
	rctx, cancel := context.WithCancelCause(ctx)
	r := &globalRun{id: id, sizes: sizes, seq: seq, ordered: ordered{order: make(chan *job, readers+1), cancel: cancel}}
	jobs := make(chan *gjob, readers)
	for range readers {
		dec := pl.decodeOrNew(d)
		if dec == nil {
			cancel(nil)
			return nil, fmt.Errorf("sluice: %s: no decoder", d.kind)
		}
		w := &globalReader{d: d, ra: ra, seq: seq, dec: dec, files: openFiles{m: map[int]*openFile{}}}
		r.wg.Go(func() {
			defer w.close()
			for j := range jobs {
				j.e, j.err = w.batch(rctx, j.first, j.n)
				close(j.done)
			}
		})
	}
	r.wg.Go(func() {
		defer close(r.order)
		defer close(jobs)
		for k := from; batches < 0 || k < batches; k++ {
			first := k * int64(n)
			m := int64(n)
			if seq.total >= 0 {
				m = min(m, seq.total-first)
			}
			j := &gjob{job: job{done: make(chan struct{})}, first: first, n: int(m)}
			select {
			case r.order <- &j.job:
			case <-rctx.Done():
				return
			}
			select {
			case jobs <- j:
			case <-rctx.Done():
				return
			}
		}
	})
	return r, nil
}

// A gjob is a job of a global shuffle: the batch of n records from
// position first of the sequence.
type gjob struct {
	job
	first int64
	n     int
}

// decodeOrNew returns the pool's decoder, or a decoder of d's own without
// a pool (KeepBatches).
func (p *pool) decodeOrNew(d *Dataset) decoder {
	if p != nil {
		return p.decode
	}
	dec, err := d.newDecoder(false)
	if err != nil {
		return nil
	}
	return dec
}

// A globalReader reads and decodes batches of a global shuffle.
type globalReader struct {
	d     *Dataset
	ra    *randomAccess
	seq   *globalSeq
	dec   decoder
	files openFiles
	buf   []byte
	arena []byte
	wants []want
	recs  [][]byte
	// sorted and placed are batch's, reused from batch to batch.
	sorted []want
	placed [][2]int
}

// A want is a record a batch needs: its place in the batch and where it is.
type want struct {
	row        int
	file       int
	i          int64
	start, end int64
}

func (w *globalReader) close() { w.files.closeAll() }

// maxDescriptors bounds the files holding an operating system descriptor
// (local files) that a reader keeps open. A reader reads from every file,
// and kept them all open until the run ended: readers × files
// descriptors, 2130 for 300 files, past a limit of 1024 (audit 46). An
// object store's files hold none, and reopening one costs a request, so
// they stay open.
const maxDescriptors = 64

// openFiles are the files a reader has open, by their index in the run's
// files, the least recently used descriptor closed first.
type openFiles struct {
	m           map[int]*openFile
	descriptors int
	clock       uint64
}

type openFile struct {
	f    storage.File
	fd   bool // holds a descriptor
	used uint64
}

// get returns file i, open, or nil.
func (o *openFiles) get(i int) storage.File {
	of := o.m[i]
	if of == nil {
		return nil
	}
	o.clock++
	of.used = o.clock
	return of.f
}

// add keeps f, file i, open, closing the least recently used descriptor
// if it is one too many.
func (o *openFiles) add(i int, f storage.File) {
	_, fd := f.(interface{ Fd() uintptr })
	if fd && o.descriptors >= maxDescriptors {
		oldest := -1
		for j, of := range o.m {
			if of.fd && (oldest < 0 || of.used < o.m[oldest].used) {
				oldest = j
			}
		}
		o.m[oldest].f.Close()
		delete(o.m, oldest)
		o.descriptors--
	}
	if fd {
		o.descriptors++
	}
	o.clock++
	o.m[i] = &openFile{f: f, fd: fd, used: o.clock}
}

func (o *openFiles) closeAll() {
	for _, of := range o.m {
		of.f.Close()
	}
	clear(o.m)
	o.descriptors = 0
}

// batch reads and decodes the records at positions first to first+n.
func (w *globalReader) batch(ctx context.Context, first int64, n int) (queue.Element, error) {
	w.wants = w.wants[:0]
	for row := range n {
		g := w.seq.at(first + int64(row))
		f, i := w.ra.where(g)
		start, end := w.ra.span(f, i)
		w.wants = append(w.wants, want{row: row, file: f, i: i, start: start, end: end})
	}
	// Read in file order, nearby records together.
	w.sorted = append(w.sorted[:0], w.wants...)
	sorted := w.sorted
	slices.SortFunc(sorted, func(a, b want) int {
		if a.file != b.file {
			return a.file - b.file
		}
		return int(a.start - b.start)
	})
	if cap(w.recs) < n {
		w.recs = make([][]byte, n)
	}
	w.recs = w.recs[:n]
	w.arena = w.arena[:0]
	w.placed = slices.Grow(w.placed[:0], n)[:n]
	placed := w.placed // arena span of each row
	for lo := 0; lo < len(sorted); {
		hi := lo + 1
		for hi < len(sorted) && sorted[hi].file == sorted[lo].file && sorted[hi].start-sorted[hi-1].end <= coalesceGap {
			hi++
		}
		if err := w.read(ctx, sorted[lo:hi], placed); err != nil {
			return nil, err
		}
		lo = hi
	}
	for row, p := range placed {
		w.recs[row] = w.arena[p[0]:p[1]:p[1]]
	}
	return decodeNamed(w.dec, w.recs, func() []string {
		keys := make([]string, n)
		for _, x := range w.wants {
			keys[x.row] = w.ra.files[x.file] + ":" + fmt.Sprint(w.key(x))
		}
		return keys
	}, w.d.origin)
}

// key returns what follows the colon of a record's key: a TFRecord's
// offset, a fixed-length record's index.
func (w *globalReader) key(x want) int64 {
	if w.ra.framed {
		return x.start
	}
	return x.i
}

// read reads the records ws, sorted and close together in one file, with
// one request, into the arena.
func (w *globalReader) read(ctx context.Context, ws []want, placed [][2]int) error {
	fi := ws[0].file
	f := w.files.get(fi)
	if f == nil {
		var err error
		if f, err = storage.Open(ctx, w.ra.files[fi]); err != nil {
			return err
		}
		if err := w.ra.check(fi, f); err != nil {
			f.Close()
			return err
		}
		w.files.add(fi, f)
	}
	if w.ra.framed {
		for _, x := range ws {
			if x.end-x.start > trustedSpan {
				if err := w.checkHeader(ctx, f, fi, x); err != nil {
					return err
				}
			}
		}
	}
	start, end := ws[0].start, ws[len(ws)-1].end
	if int64(cap(w.buf)) < end-start {
		w.buf = make([]byte, end-start)
	}
	buf := w.buf[:end-start]
	if k, err := f.ReadAt(buf, start); k < len(buf) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("sluice: %s: reading bytes %d to %d: %w", w.ra.files[fi], start, end, err)
	}
	for _, x := range ws {
		rec := buf[x.start-start : x.end-start]
		if w.ra.framed {
			data, err := tfrecord.Unframe(rec, w.ra.files[fi], x.start)
			if err != nil {
				return w.ra.blame(ctx, fi, rec, int64(len(rec)), err)
			}
			rec = data
		}
		at := len(w.arena)
		w.arena = append(w.arena, rec...)
		placed[x.row] = [2]int{at, len(w.arena)}
	}
	return nil
}

// checkHeader checks that the record span x of file f begins with a
// header whose record takes the whole span.
func (w *globalReader) checkHeader(ctx context.Context, f storage.File, fi int, x want) error {
	var h [12]byte // the record's length and the CRC of it
	if k, err := f.ReadAt(h[:], x.start); k < len(h) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("sluice: %s: reading bytes %d to %d: %w", w.ra.files[fi], x.start, x.start+int64(len(h)), err)
	}
	if err := tfrecord.CheckHeader(h[:], x.end-x.start, w.ra.files[fi], x.start); err != nil {
		return w.ra.blame(ctx, fi, h[:], x.end-x.start, err)
	}
	return nil
}

// blame returns err, the error of the record span of file f, n bytes of
// which span holds the first, saying so when the index is what is wrong
// (wrapping index.ErrStale): the span begins with a sound record header
// (its length's CRC holds) whose record is not the span's length, or, the
// header not sound, the file is whole TFRecord whose records are not the
// index's (a file rewritten with its size and modification time kept,
// which the index cannot tell: audit 53). The file is the size the index
// says, so such a span is not a record's. Only damage to the file itself
// is left as err alone.
func (ra *randomAccess) blame(ctx context.Context, f int, span []byte, n int64, err error) error {
	sound := len(span) >= 12 && tfrecord.MaskedCRC(span[:8]) == binary.LittleEndian.Uint32(span[8:12])
	if sound && binary.LittleEndian.Uint64(span)+16 == uint64(n) {
		return err
	}
	if !sound && (ra.matches == nil || ra.matches(ctx, f)) {
		return err
	}
	if stored := ra.stored(f); stored != "" {
		return fmt.Errorf("%w; the index %s does not match the file (%w: remove the index, and it is built again)", err, stored, index.ErrStale)
	}
	return fmt.Errorf("%w; the file changed while it was read (%w)", err, index.ErrStale)
}

// checkpoint returns the run's position: the batches delivered.
func (r *globalRun) checkpoint(ctx context.Context, delivered int64, back int) ([]byte, error) {
	return newCheckpoint(ctx, r.id, r.sizes, delivered-int64(back))
}
