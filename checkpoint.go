package sluice

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/sealed"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"google.golang.org/protobuf/encoding/protowire"
)

// ErrCheckpoint is wrapped by the errors of a checkpoint that cannot be
// restored: not a checkpoint, another version, damaged (its checksum does
// not match its content), or saved by a data set
// whose options or files differ from the one restoring it (the error
// names what changed). It is input.ErrCheckpoint, which the checkpoints
// of input's pipelines wrap.
var ErrCheckpoint = input.ErrCheckpoint

// ErrNotDeterministic is wrapped by the errors of Iterator.Checkpoint and
// Resume for a data set read without Deterministic (or GlobalShuffle): its
// order depends on timing, so no position in it can be resumed. It is
// input.ErrNotDeterministic.
var ErrNotDeterministic = input.ErrNotDeterministic

// checkpointFormat names the format, so that a checkpoint file says what
// it is. Version 2 added a batch begun (partial) and records a reader
// skips (skip): version 1 checkpoints, which have neither, restore as they
// did, and a sluice that reads version 1 only refuses version 2 rather
// than ignore what it does not know. Version 3 is sealed (internal/sealed:
// a checksum of the content), so that a damaged checkpoint is refused
// rather than resumed somewhere else; versions 1 and 2 restore unchecked,
// as they did. Fields added later need omitempty, so that a checkpoint
// saved before keeps its checksum.
const (
	checkpointFormat  = "sluice.checkpoint"
	checkpointVersion = 3
	sealedVersion     = 3 // the first version sealed
)

// An identity is what a checkpoint must agree on with the data set that
// restores it: every option that shapes the order of the records, the
// files, and the features' names and types. A change of how a feature is
// decoded that keeps its type (a FixedLen's shape, a default, a field's
// place in a fixed-length record) is not refused: the records resumed
// are the same, decoded as the data set now says.
type identity struct {
	Source        string   `json:"source"` // the constructor and its features
	Files         []string `json:"files"`  // after sharding, in order
	Batch         int      `json:"batch"`
	Readers       int      `json:"readers"`
	Shuffle       int      `json:"shuffle"`
	ShuffleFiles  bool     `json:"shuffle_files"`
	Seed          uint64   `json:"seed"`
	Epochs        int      `json:"epochs"` // 0 with Forever
	Forever       bool     `json:"forever,omitempty"`
	Shard         [2]int   `json:"shard"`
	DropRemainder bool     `json:"drop_remainder,omitempty"`
	Global        bool     `json:"global_shuffle,omitempty"`
	// Records are the records of each file, for a global shuffle, whose
	// whole order follows from their total: a file rewritten to the same
	// size with another count of records would change every epoch's
	// permutation. Checkpoints saved before it have none.
	Records []int64 `json:"records,omitempty"`
	// Order is the global shuffle's order (orderUniform); checkpoints
	// saved before it have none, orderFeistel4, which their resumed runs
	// keep.
	Order int `json:"order,omitempty"`
}

// identity returns the identity of an iteration of d over files.
func (d *Dataset) identity(files []string, n, readers int, bs batchSettings) identity {
	s := d.settings
	id := identity{Source: d.describe(), Files: files, Batch: n, Readers: readers, Shuffle: s.shuffle,
		ShuffleFiles: s.shuffle > 0 || s.shuffleFiles, Seed: s.seed, Epochs: max(s.epochs, 1),
		Forever: s.forever, Shard: s.shard, DropRemainder: bs.dropRemainder}
	if s.forever {
		id.Epochs = 0
	}
	return id
}

// describe names the data set's kind and features, in the layout's order.
func (d *Dataset) describe() string {
	var b strings.Builder
	b.WriteString(d.kind)
	if d.extra != "" {
		b.WriteString(" " + d.extra)
	}
	for _, f := range d.layout.features {
		fmt.Fprintf(&b, " %s:%v", f.name, f.dtype)
		if f.sparse {
			b.WriteString(":sparse")
		}
	}
	return b.String()
}

// A checkpoint is a deterministic iteration's position between two
// batches. It holds where every reader goes on, the shuffle generator's
// state, and the records held in memory (the shuffle buffer, the rest of
// the block being merged, batches made but not delivered) by their places
// in the files — never their bytes: a restore reads them again.
type checkpoint struct {
	Format   string   `json:"format"`
	Version  int      `json:"version"`
	Identity identity `json:"identity"`
	Sizes    []int64  `json:"sizes"` // of Identity.Files, when saved

	Delivered int64    `json:"delivered"` // batches delivered before this point
	Cursor    int      `json:"cursor"`
	Readers   []ckSlot `json:"readers"`
	RNG       []byte   `json:"rng"`
	Pending   []byte   `json:"pending"` // packed recIDs
	Buffer    []byte   `json:"buffer"`
	Emitted   [][]byte `json:"emitted"`
	// Partial is the batch the planner had begun (packed recIDs): it
	// was waiting for a read, had met an error, or was stopped.
	Partial []byte `json:"partial,omitempty"`
}

type ckSlot struct {
	File int64  `json:"file"` // index in the run's sequence of files
	Pos  []byte `json:"pos,omitempty"`
	Skip int64  `json:"skip,omitempty"` // records to skip from Pos (slotPos)
	Done bool   `json:"done,omitempty"`
}

// packIDs encodes ids as varints: a few bytes a record.
func packIDs(ids []recID) []byte {
	var b []byte
	for _, id := range ids {
		b = protowire.AppendVarint(b, uint64(id.file))
		b = protowire.AppendVarint(b, uint64(id.off))
	}
	return b
}

func unpackIDs(b []byte) ([]recID, error) {
	var ids []recID
	for len(b) > 0 {
		f, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return nil, fmt.Errorf("%w: bad record list", ErrCheckpoint)
		}
		o, m := protowire.ConsumeVarint(b[n:])
		if m < 0 || int64(f) < 0 || int64(o) < 0 {
			return nil, fmt.Errorf("%w: bad record list", ErrCheckpoint)
		}
		ids = append(ids, recID{int64(f), int64(o)})
		b = b[n+m:]
	}
	return ids, nil
}

func recIDs(rs []rec) []recID {
	ids := make([]recID, len(rs))
	for i, r := range rs {
		ids[i] = r.id
	}
	return ids
}

// checkpoint returns the run's position after the batches delivered.
func (r *detRun) checkpoint(ctx context.Context, delivered int64, back int) ([]byte, error) {
	ck, err := r.state(delivered, back)
	if err != nil {
		return nil, err
	}
	if ck.Sizes, err = r.sizes.forCheckpoint(ctx); err != nil {
		return nil, err
	}
	return sealed.Marshal(ck)
}

// state returns the run's position after the batches delivered, less the
// last back of them.
func (r *detRun) state(delivered int64, back int) (*checkpoint, error) {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if back > len(p.recent) {
		// The batches before a resume are not this run's to give back.
		return nil, fmt.Errorf("sluice: CheckpointBefore(%d) after %d batches since the iteration started or resumed: %w", back, len(p.recent), ErrInvalid)
	}
	ck := &checkpoint{Format: checkpointFormat, Version: checkpointVersion, Identity: r.id,
		Delivered: delivered - int64(back), Cursor: p.cursor}
	if p.curErr != nil {
		// The error comes right after the block's records, before any
		// other reader's: the reader that met it goes next, and meets
		// it again after its records (skip).
		ck.Cursor = p.curSlot
	}
	for i := range p.pos {
		ck.Readers = append(ck.Readers, ckSlot{File: p.pos[i].k, Pos: p.pos[i].pos, Skip: p.pos[i].skip, Done: p.done[i]})
	}
	var err error
	ck.RNG, err = p.rng.MarshalBinary()
	if err != nil {
		return nil, err
	}
	pending := recIDs(p.pending)
	if p.cur != nil {
		pending = append(pending, p.cur.ids[p.curNext:]...)
	}
	ck.Pending = packIDs(pending)
	ck.Buffer = packIDs(recIDs(p.buf))
	// The batches delivered but given back come first, as made.
	for _, ids := range p.recent[len(p.recent)-back:] {
		ck.Emitted = append(ck.Emitted, packIDs(ids))
	}
	for _, ids := range p.emitted {
		ck.Emitted = append(ck.Emitted, packIDs(ids))
	}
	for _, recs := range p.restore {
		ck.Emitted = append(ck.Emitted, packIDs(recIDs(recs)))
	}
	ck.Partial = packIDs(recIDs(p.partial))
	return ck, nil
}

// newCheckpoint returns the checkpoint of a run whose position is the
// number of batches delivered.
func newCheckpoint(ctx context.Context, id identity, sz *fileSizes, delivered int64) ([]byte, error) {
	ck := checkpoint{Format: checkpointFormat, Version: checkpointVersion, Identity: id, Delivered: delivered}
	var err error
	if ck.Sizes, err = sz.forCheckpoint(ctx); err != nil {
		return nil, err
	}
	return sealed.Marshal(ck)
}

// checkpointIOTimeout bounds the I/O a checkpoint does for the sizes of
// files its run has not learnt yet.
const checkpointIOTimeout = 30 * time.Second

// fileSizes are the sizes of a run's files, which a checkpoint saves so
// that a restore can tell that a file changed. The run learns them as it
// starts, so that a checkpoint, taken between steps, does no I/O, and
// works after the iteration's context has ended (a program saving its
// position as it shuts down): a global shuffle from the indexes and
// files it opens to count the records, a resumed run from the check of
// its checkpoint, a deterministic run in a goroutine of its own (learn)
// while it reads.
type fileSizes struct {
	files []string

	mu    sync.Mutex
	sizes []int64 // -1: not known yet
}

func newFileSizes(files []string) *fileSizes {
	z := &fileSizes{files: files, sizes: make([]int64, len(files))}
	for i := range z.sizes {
		z.sizes[i] = -1
	}
	return z
}

// set notes that file i has size bytes.
func (z *fileSizes) set(i int, size int64) {
	z.mu.Lock()
	z.sizes[i] = size
	z.mu.Unlock()
}

// known returns the size of file i, if known.
func (z *fileSizes) known(i int) (int64, bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.sizes[i], z.sizes[i] >= 0
}

// stat learns the size of file i (storage.Size: a named pipe's reader
// would take its data).
func (z *fileSizes) stat(ctx context.Context, i int) (int64, error) {
	size, err := storage.Size(ctx, z.files[i])
	if err != nil {
		return 0, err
	}
	z.set(i, size)
	return size, nil
}

// all returns every file's size, opening with ctx those not known yet.
func (z *fileSizes) all(ctx context.Context) ([]int64, error) {
	out := make([]int64, len(z.files))
	for i := range z.files {
		size, ok := z.known(i)
		if !ok {
			var err error
			if size, err = z.stat(ctx, i); err != nil {
				return nil, err
			}
		}
		out[i] = size
	}
	return out, nil
}

// forCheckpoint returns every file's size for a checkpoint. Those the run
// has not learnt yet (early in a run, or when its reading has not
// reached a file it cannot open) are learnt now, under a deadline of
// their own and whatever became of ctx, the iteration's.
func (z *fileSizes) forCheckpoint(ctx context.Context) ([]int64, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkpointIOTimeout)
	defer cancel()
	return z.all(ctx)
}

// learn learns the sizes not known yet, one file after the other, until
// ctx ends. A file whose size it cannot learn is left to the reader that comes to it,
// whose error comes where the files hold it.
func (z *fileSizes) learn(ctx context.Context) {
	for i := range z.files {
		if ctx.Err() != nil {
			return
		}
		if _, ok := z.known(i); !ok {
			z.stat(ctx, i)
		}
	}
}

// parseCheckpoint decodes a checkpoint.
func parseCheckpoint(b []byte) (*checkpoint, error) {
	var ck checkpoint
	ok, err := sealed.Unmarshal(b, &ck)
	damaged := errors.Is(err, sealed.ErrDamaged)
	switch {
	case err != nil && !damaged || ck.Format != checkpointFormat:
		return nil, fmt.Errorf("%w: not a sluice checkpoint", ErrCheckpoint)
	case damaged:
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	case ck.Version < 1 || ck.Version > checkpointVersion:
		return nil, fmt.Errorf("%w: version %d, this sluice reads versions 1 to %d", ErrCheckpoint, ck.Version, checkpointVersion)
	case !ok && ck.Version >= sealedVersion:
		return nil, fmt.Errorf("%w: %w (version %d without its crc32c)", ErrCheckpoint, sealed.ErrDamaged, ck.Version)
	}
	return &ck, nil
}

// check reports the first difference between the checkpoint's identity
// and now's, the data set restoring it, whose files' sizes are sz's (it
// learns those it does not know yet with ctx).
func (ck *checkpoint) check(ctx context.Context, now identity, sz *fileSizes) error {
	was := ck.Identity
	differ := func(what string, a, b any) error {
		return fmt.Errorf("%w: it was saved with %s %v, this data set has %v", ErrCheckpoint, what, a, b)
	}
	// Options documented as having no effect do not refuse a checkpoint
	// whose order they did not shape: Shuffle and ShuffleFiles with a
	// global shuffle, the seed of a deterministic run that shuffles
	// nothing (neither its files nor a buffer: the generator saved is
	// never drawn from).
	if was.Global && now.Global {
		was.Shuffle, was.ShuffleFiles = now.Shuffle, now.ShuffleFiles
	}
	if !was.Global && !now.Global && was.Shuffle == 0 && now.Shuffle == 0 && !was.ShuffleFiles && !now.ShuffleFiles {
		was.Seed = now.Seed
	}
	// What shapes others first: a global shuffle keeps every file where a
	// deterministic shard keeps its own, a Shard changes a shard's files,
	// and Readers are capped at the files a run reads, which Epochs
	// change (audit 59: those were named as the change).
	switch {
	case was.Source != now.Source:
		return differ("the source", was.Source, now.Source)
	case was.Global != now.Global:
		return differ("GlobalShuffle", was.Global, now.Global)
	case was.Shard != now.Shard:
		return differ("Shard", was.Shard, now.Shard)
	case was.Epochs != now.Epochs || was.Forever != now.Forever:
		return differ("Epochs (0: Forever)", was.Epochs, now.Epochs)
	case !slices.Equal(was.Files, now.Files):
		for i := range min(len(was.Files), len(now.Files)) {
			if was.Files[i] != now.Files[i] {
				return differ(fmt.Sprintf("file %d", i), was.Files[i], now.Files[i])
			}
		}
		return differ("the number of files", len(was.Files), len(now.Files))
	case was.Batch != now.Batch:
		return differ("batch size", was.Batch, now.Batch)
	case was.Readers != now.Readers:
		return differ("Readers", was.Readers, now.Readers)
	case was.Shuffle != now.Shuffle:
		return differ("Shuffle", was.Shuffle, now.Shuffle)
	case was.ShuffleFiles != now.ShuffleFiles:
		return differ("file shuffling", was.ShuffleFiles, now.ShuffleFiles)
	case was.Seed != now.Seed:
		return differ("Seed", was.Seed, now.Seed)
	case was.DropRemainder != now.DropRemainder:
		return differ("DropRemainder", was.DropRemainder, now.DropRemainder)
	case len(ck.Readers) != now.Readers:
		return fmt.Errorf("%w: %d reader positions for %d readers", ErrCheckpoint, len(ck.Readers), now.Readers)
	}
	sizes, err := sz.all(ctx)
	if err != nil {
		return err
	}
	for i, size := range sizes {
		if i < len(ck.Sizes) && ck.Sizes[i] != size {
			return fmt.Errorf("%w: %s has %d bytes, %d when the checkpoint was saved", ErrCheckpoint, now.Files[i], size, ck.Sizes[i])
		}
	}
	for i, n := range now.Records {
		if i < len(was.Records) && was.Records[i] != n {
			return fmt.Errorf("%w: %s has %d records, %d when the checkpoint was saved", ErrCheckpoint, now.Files[i], n, was.Records[i])
		}
	}
	return nil
}

// restoreInto sets p to the checkpoint's position, reading again the
// records it held.
func (ck *checkpoint) restoreInto(ctx context.Context, d *Dataset, p *planner, seq *fileSeq) error {
	p.cursor = ck.Cursor
	if p.cursor < 0 || p.cursor >= len(p.pos) {
		return fmt.Errorf("%w: reader %d of %d", ErrCheckpoint, p.cursor, len(p.pos))
	}
	for i, s := range ck.Readers {
		// Reader i reads files i, i+R, ...: a position elsewhere is not
		// one this run could have saved.
		if s.File < 0 || s.File%int64(len(p.pos)) != int64(i) || seq.total >= 0 && s.File > seq.total+int64(len(p.pos)) || s.Skip < 0 {
			return fmt.Errorf("%w: reader %d at file %d", ErrCheckpoint, i, s.File)
		}
		p.pos[i], p.done[i] = slotPos{k: s.File, pos: s.Pos, skip: s.Skip}, s.Done || seq.total >= 0 && s.File >= seq.total
	}
	if err := p.rng.UnmarshalBinary(ck.RNG); err != nil {
		return fmt.Errorf("%w: %v", ErrCheckpoint, err)
	}
	pending, err := unpackIDs(ck.Pending)
	if err != nil {
		return err
	}
	buffer, err := unpackIDs(ck.Buffer)
	if err != nil {
		return err
	}
	emitted := make([][]recID, len(ck.Emitted))
	for i, b := range ck.Emitted {
		if emitted[i], err = unpackIDs(b); err != nil {
			return err
		}
	}
	partial, err := unpackIDs(ck.Partial)
	if err != nil {
		return err
	}
	// Sizes a run could have saved: a batch begun is short of the batch
	// size, one made is not over it, the shuffle buffer not over its own.
	if len(partial) >= p.n || len(buffer) > p.shuffle {
		return fmt.Errorf("%w: %d records of a batch begun, %d in the shuffle buffer, for batches of %d and a buffer of %d", ErrCheckpoint, len(partial), len(buffer), p.n, p.shuffle)
	}
	for _, ids := range emitted {
		if len(ids) == 0 || len(ids) > p.n {
			return fmt.Errorf("%w: a batch of %d records, for batches of %d", ErrCheckpoint, len(ids), p.n)
		}
	}
	all := slices.Concat(append([][]recID{pending, buffer, partial}, emitted...)...)
	// A run holds a record in one place at a time; a checkpoint that
	// names one twice would have two batches share its buffer, which the
	// first to be decoded hands back for reuse (audit 59).
	seen := make(map[recID]bool, len(all))
	for _, id := range all {
		if seen[id] {
			return fmt.Errorf("%w: the record at offset %d of file %d is held twice", ErrCheckpoint, id.off, id.file)
		}
		seen[id] = true
	}
	got, err := readRecords(ctx, d, seq, all, len(p.pos))
	if err != nil {
		return err
	}
	recsOf := func(ids []recID) []rec {
		rs := make([]rec, len(ids))
		for i, id := range ids {
			rs[i] = rec{id: id, b: got[id]}
		}
		return rs
	}
	p.pending, p.buf = recsOf(pending), recsOf(buffer)
	if len(partial) > 0 {
		p.partial = recsOf(partial)
	}
	for _, ids := range emitted {
		p.restore = append(p.restore, recsOf(ids))
	}
	return nil
}

// readRecords reads the records ids name, file by file, each file once
// from its first wanted record (or its start, for text), with up to par
// files at once.
func readRecords(ctx context.Context, d *Dataset, seq *fileSeq, ids []recID, par int) (map[recID][]byte, error) {
	byFile := map[int64][]int64{}
	for _, id := range ids {
		if seq.total >= 0 && id.file >= seq.total {
			return nil, fmt.Errorf("%w: file %d of a run of %d", ErrCheckpoint, id.file, seq.total)
		}
		byFile[id.file] = append(byFile[id.file], id.off)
	}
	got := make(map[recID][]byte, len(ids))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(par, 1))
	errs := make(chan error, len(byFile))
	for k, offs := range byFile {
		slices.SortFunc(offs, cmp.Compare)
		offs = slices.Compact(offs)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			name := seq.name(k)
			recs, err := readAt(ctx, d, name, offs)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			for i, off := range offs {
				got[recID{k, off}] = recs[i]
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return got, nil
}

// readAt reads the records of name at the sorted offsets offs.
func readAt(ctx context.Context, d *Dataset, name string, offs []int64) ([][]byte, error) {
	f, err := d.newFormat()
	if err != nil {
		return nil, err
	}
	if pos, ok := f.PositionOf(offs[0]); ok {
		// No record there is the checkpoint's fault, as a reader's
		// position is (slot.run).
		if err = f.Seek(ctx, name, pos); errors.Is(err, recordio.ErrState) {
			err = fmt.Errorf("%w: %w", ErrCheckpoint, err)
		}
	} else {
		err = f.OnWorkStarted(ctx, name)
	}
	if err != nil {
		return nil, err
	}
	defer f.OnWorkFinished()
	out := make([][]byte, 0, len(offs))
	for len(out) < len(offs) {
		stop := f.Watch(ctx)
		_, b, produced, atEnd, err := f.Read(ctx)
		stop()
		if err != nil {
			return nil, err
		}
		if produced {
			switch off := f.Offset(); {
			case off == offs[len(out)]:
				out = append(out, append([]byte(nil), b...))
			case off > offs[len(out)]:
				return nil, fmt.Errorf("%w: %s has no record at %d: it changed since the checkpoint", ErrCheckpoint, name, offs[len(out)])
			}
		}
		if atEnd && len(out) < len(offs) {
			return nil, fmt.Errorf("%w: %s ends before its record at %d: it changed since the checkpoint", ErrCheckpoint, name, offs[len(out)])
		}
	}
	return out, nil
}
