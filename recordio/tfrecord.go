package recordio

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/internal/recordhook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tfrecord"
	"google.golang.org/protobuf/encoding/protowire"
)

// NewTFRecordReader returns a reader of the TFRecord files named in q,
// compressed with c. Keys are "file:offset", the offset of the record in
// the uncompressed stream. A corrupt record fails the read with an error
// naming the file and offset (a *dataerr.Error holding a
// *tfrecord.RecordError, matching
// tfrecord.ErrDataLoss), unless SkipCorrupt or SkipCorruptUpTo asks to
// skip it; the error stays until the reader moves to another file.
func NewTFRecordReader(q queue.Queue, c tfrecord.Compression, opts ...Option) *Reader {
	return NewReader(tfRecordKind, newTFRecordFormat(c, newSettings(opts)), q, opts...)
}

func newTFRecordFormat(c tfrecord.Compression, s *settings) *tfRecordFormat {
	return &tfRecordFormat{compression: c, detect: s.detect, options: s.recordOpts}
}

func init() {
	recordhook.NewTFRecordFormat = func(opts []tfrecord.Option) recordhook.Format {
		return &tfRecordFormat{detect: true, noKeys: true, options: opts}
	}
}

// tfRecordFormat reads TFRecord files. It is the Format behind
// NewTFRecordReader.
type tfRecordFormat struct {
	compression tfrecord.Compression
	// detect makes the format choose each file's compression from the
	// file's first bytes (tfrecord.DetectCompression) instead of
	// compression, so that files of mixed compression share one reader.
	detect bool
	// noKeys makes Read return an empty key, saving an allocation per
	// record, for a caller that names a record only when something is
	// wrong with it: it takes the record's position from Work and Offset.
	noKeys  bool
	omitKey bool // the Read in progress is a Reader.ReadValue
	options []tfrecord.Option

	file *unitFile
	rd   *tfrecord.Reader
	opts []tfrecord.Option
	work string
	key  []byte
	// skipped counts the corrupt records of files already closed, less
	// those Seek passed on its way (the run that saved the position
	// counted them).
	skipped int64
	// held is a record Seek read that Read returns next: the one at the
	// offset sought, when the read that reached it skipped a corrupt
	// record before it (SkipCorrupt) and so went no further.
	held    []byte
	hasHeld bool // held may be an empty record
	// opened is the compression of the file open, as detected.
	opened tfrecord.Compression
}

func (f *tfRecordFormat) open(ctx context.Context, work string, offset int64) error {
	f.held, f.hasHeld = nil, false
	file, err := openUnit(ctx, work)
	if err != nil {
		return err
	}
	var src io.Reader = file
	c := f.compression
	if f.detect {
		var prefix [16]byte // a compression's magic, or an index's
		n, s, err := file.peek(ctx, prefix[:])
		if err != nil {
			file.Close()
			return fmt.Errorf("%s: reading the first bytes to detect the compression: %w", work, err)
		}
		c, src = tfrecord.DetectCompression(prefix[:n]), s
		if index.IsIndex(prefix[:n]) {
			// Said, rather than read as a damaged TFRecord file to
			// salvage (audit 53).
			file.Close()
			return &dataerr.Error{File: work, Offset: 0, Record: -1, Err: index.ErrIndexFile}
		}
	}
	f.opened = c
	f.opts = append(append(f.opts[:0], c, tfrecord.Name(work)), f.options...)
	if offset > 0 && c == tfrecord.None {
		if offset > file.Size() {
			file.Close()
			return fmt.Errorf("%w: %s has %d bytes, fewer than the saved offset %d", ErrState, work, file.Size(), offset)
		}
		src = io.NewSectionReader(file, offset, file.Size()-offset)
		f.opts = append(f.opts, tfrecord.StartOffset(offset))
	}
	if f.compression == tfrecord.None && file.Size() >= 0 {
		// A length field claiming more than the file holds is then
		// found without reading or allocating for it.
		f.opts = append(f.opts, tfrecord.InputSize(file.Size()-max(offset, 0)))
	}
	if f.rd == nil {
		f.rd = tfrecord.NewReader(src, f.opts...)
	} else {
		f.rd.Reset(src, f.opts...)
	}
	f.file, f.work = file, work
	return nil
}

// OnWorkStarted opens the file work.
func (f *tfRecordFormat) OnWorkStarted(ctx context.Context, work string) error {
	return f.open(ctx, work, 0)
}

// Read reads the next record.
func (f *tfRecordFormat) Read(ctx context.Context) (string, []byte, bool, bool, error) {
	rec, err := f.held, error(nil)
	if f.hasHeld {
		f.held, f.hasHeld = nil, false
	} else {
		rec, err = f.rd.Next()
	}
	if err == io.EOF {
		return "", nil, false, true, nil
	}
	if err != nil {
		return "", nil, false, false, err
	}
	if f.noKeys || f.omitKey {
		return "", rec, true, false, nil
	}
	f.key = strconv.AppendInt(append(append(f.key[:0], f.work...), ':'), f.rd.Offset(), 10)
	return string(f.key), rec, true, false, nil
}

func (f *tfRecordFormat) omitKeys(omit bool) { f.omitKey = omit }

// Work returns the name of the file the last record read came from.
func (f *tfRecordFormat) Work() string { return f.work }

// Offset returns the offset of the last record read in its file's
// uncompressed stream, the number after the colon of its key.
func (f *tfRecordFormat) Offset() int64 {
	if f.rd == nil {
		return 0
	}
	return f.rd.Offset()
}

// OnWorkFinished closes the file.
func (f *tfRecordFormat) OnWorkFinished() error { return f.close() }

func (f *tfRecordFormat) close() error {
	f.held, f.hasHeld = nil, false
	if f.file == nil {
		return nil
	}
	f.skipped += f.rd.Stats().Skipped
	err := f.file.Close()
	f.file = nil
	return err
}

// Reset closes any open file and zeroes the skip count.
func (f *tfRecordFormat) Reset() error {
	f.close()
	f.skipped = 0
	return nil
}

// Skipped returns how many corrupt records were skipped since the last
// Reset, under a SkipCorrupt policy.
func (f *tfRecordFormat) Skipped() int64 {
	if f.file != nil {
		return f.skipped + f.rd.Stats().Skipped
	}
	return f.skipped
}

// Position returns the uncompressed offset of the next record.
func (f *tfRecordFormat) Position() ([]byte, error) {
	if f.hasHeld {
		// Seek's record, read and not yet returned, is next.
		return protowire.AppendVarint(nil, uint64(f.rd.Offset())), nil
	}
	return protowire.AppendVarint(nil, uint64(f.rd.NextOffset())), nil
}

// Seek opens work at the offset Position returned: directly for an
// uncompressed file, by reading up to it for a compressed one.
func (f *tfRecordFormat) Seek(ctx context.Context, work string, pos []byte) error {
	off, n := protowire.ConsumeVarint(pos)
	if n < 0 || n != len(pos) || int64(off) < 0 {
		return fmt.Errorf("%w: bad TFRecord position %x", ErrState, pos)
	}
	if err := f.open(ctx, work, int64(off)); err != nil {
		return err
	}
	defer f.file.watch(ctx)()
	if f.opened == tfrecord.None && off > 0 {
		if err := f.checkBoundary(int64(off)); err != nil {
			f.close()
			return err
		}
	}
	for f.rd.NextOffset() < int64(off) {
		rec, err := f.rd.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			f.close()
			return err
		}
		if f.rd.Offset() == int64(off) {
			// A corrupt record skipped on the way: this one, the
			// one sought, has been read already.
			f.held, f.hasHeld = rec, true
			f.skipped -= f.rd.Stats().Skipped
			return nil
		}
	}
	if f.rd.NextOffset() != int64(off) {
		f.close()
		return fmt.Errorf("%w: %s has no record at offset %d", ErrState, work, off)
	}
	// Records skipped before the position are not this read's: an
	// uncompressed file, opened at the offset, never sees them.
	f.skipped -= f.rd.Stats().Skipped
	return nil
}

// checkBoundary reports, for an uncompressed file opened at off, an
// error wrapping ErrState if off is not where a record starts. A header
// at off that passes its CRC is taken for a record's; one that fails it
// is damage at a record or a position not of this file (one saved
// before the file was rewritten with its size kept, or edited), which
// only the records before it tell apart: the file is read from its start
// to off, and if a record runs across off, the position is refused.
// Otherwise the first read reports the damage at off as the data error
// it is.
func (f *tfRecordFormat) checkBoundary(off int64) error {
	var h [12]byte // a record's length and its CRC
	if n, _ := f.file.ReadAt(h[:], off); n < len(h) {
		return nil
	}
	if tfrecord.MaskedCRC(h[:8]) == binary.LittleEndian.Uint32(h[8:]) {
		return nil
	}
	// The framing alone says where records start; a corrupt record on
	// the way ends the search (SkipCorruptUpTo(0) undoes a SkipCorrupt
	// among the options), and nothing is then said against the position.
	opts := append([]tfrecord.Option{tfrecord.None, tfrecord.Name(f.work)}, f.options...)
	opts = append(opts, tfrecord.InputSize(f.file.Size()), tfrecord.SkipDataCRC(), tfrecord.SkipCorruptUpTo(0))
	rd := tfrecord.NewReader(io.NewSectionReader(f.file, 0, f.file.Size()), opts...)
	for rd.NextOffset() < off {
		if _, err := rd.Next(); err != nil {
			return nil
		}
	}
	if start := rd.Offset(); rd.NextOffset() > off {
		return fmt.Errorf("%w: %s has no record at offset %d: the record at %d runs to %d (the file changed since the position was saved, keeping its size, or the position is not of this file)",
			ErrState, f.work, off, start, rd.NextOffset())
	}
	return nil
}

// unit returns the file of the unit in progress (see unitWatcher).
func (f *tfRecordFormat) unit() *unitFile { return f.file }

// Watch makes the end of ctx end the open file's reads in flight
// (recordhook.Format).
func (f *tfRecordFormat) Watch(ctx context.Context) (stop func() bool) { return f.file.watch(ctx) }

// PositionOf returns the position of the record at offset: Position's
// form, the offset itself.
func (f *tfRecordFormat) PositionOf(offset int64) ([]byte, bool) {
	return protowire.AppendVarint(nil, uint64(offset)), true
}
