package pyserve

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// The first byte of a message of records, which no JSON request starts
// with: a records message holds whole records, each after its length (a
// little-endian uint32); a record too large for a message comes in part
// messages, the first beginning with the record's length (a little-endian
// uint64), the last of them a last-part message.
const (
	recordsMessage = iota
	partMessage
	lastPartMessage
)

// A writing is a "write" in progress: the files are written under
// temporary names (recordio.ShardedWriter) and take their own only at the
// commit, so a client that dies, is killed or fails while writing leaves
// no file that looks whole. Records messages get no reply, so that a
// stream of them costs no round trips; the first error is kept for the
// commit.
type writing struct {
	w       *recordio.ShardedWriter
	err     error
	part    []byte // the parts of a record received so far
	want    int    // the record's length
	inParts bool   // a record's parts have begun and not ended
}

// startWrite answers a "write": it ends any writing before without
// giving its files their names, and removes the temporaries dead writers
// of the files left, or refuses beside a running one (removeLeftovers).
func (s *server) startWrite(ctx context.Context, req *Write) error {
	s.abortWrite()
	if len(req.Out) == 0 {
		return s.reply(Reply{Error: errorInfo(fmt.Errorf("write: no files: %w", sluice.ErrInvalid))})
	}
	c, err := tfrecord.ParseCompression(req.Compression)
	if err != nil {
		return s.reply(Reply{Error: errorInfo(fmt.Errorf("write: %v: %w", err, sluice.ErrInvalid))})
	}
	w, err := recordio.NewShardedWriter(ctx, req.Out, c)
	if err != nil {
		return s.reply(Reply{Error: errorInfo(err)})
	}
	if err := removeLeftovers(ctx, req.Out, w.Temporaries()); err != nil {
		w.Abort()
		return s.reply(Reply{Error: errorInfo(err)})
	}
	s.writing = &writing{w: w}
	return s.reply(Reply{OK: true})
}

// removeLeftovers removes the temporaries that earlier writes of out
// left when they were killed (sluice-serve's death by SIGKILL or the OOM
// killer leaves them), as convert removes those of its outputs: they are
// incomplete by construction, this write writes the names anew, and
// verify would report them for good. A temporary a running process
// writes, other than this write's own (own), is an error instead: the
// two writes' commits would replace each other's files, each reporting
// success. Looking once this write's temporaries exist, of two writes
// started together at least one finds the other and refuses.
func removeLeftovers(ctx context.Context, out, own []string) error {
	var temps []string
	of := map[string]string{} // the final name of each temporary
	// One listing of each folder, not one a shard (audit 96: 10 000
	// shards took a minute).
	beside, err := storage.LeftoversBeside(ctx, out)
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	for _, name := range out {
		for _, t := range beside[name] {
			if !slices.Contains(own, t) {
				temps = append(temps, t)
				of[t] = name
			}
		}
	}
	_, _, err = storage.RemoveLeftovers(ctx, temps)
	var running *storage.WriterRunningError
	switch {
	case errors.As(err, &running):
		return fmt.Errorf("write: another writer is writing %s (a running process holds %s): let it finish, or stop it, before writing there (nothing was written)", of[running.Temp], running.Temp)
	case err != nil:
		return fmt.Errorf("write: removing what an interrupted write of the files left: %w", err)
	}
	return nil
}

// writeMessage writes the records of a records message, or takes a part
// of one.
func (s *server) writeMessage(kind byte, body []byte) {
	wr := s.writing
	if wr == nil || wr.err != nil {
		if wr == nil {
			// Nothing to reply to; the client learns it at its commit.
			s.writing = &writing{err: fmt.Errorf("%w: records without a write", ErrProtocol)}
		}
		return
	}
	if kind != recordsMessage {
		wr.err = wr.takePart(kind, body)
		return
	}
	if wr.inParts {
		wr.err = fmt.Errorf("%w: records inside a record's parts", ErrProtocol)
		return
	}
	for len(body) > 0 {
		if len(body) < 4 || uint64(binary.LittleEndian.Uint32(body)) > uint64(len(body)-4) {
			wr.err = fmt.Errorf("%w: a records message cut inside a record", ErrProtocol)
			return
		}
		n := binary.LittleEndian.Uint32(body)
		if err := wr.w.Write(body[4 : 4+n]); err != nil {
			wr.err = err
			return
		}
		body = body[4+n:]
	}
}

// takePart takes a part message's body: the first part of a record
// begins with the record's length (a little-endian uint64), which bounds
// what the parts may add up to; the last part writes the record. Room is
// made for the length up to 64 MiB at once, and beyond as parts arrive,
// so that a length no parts follow costs little.
func (wr *writing) takePart(kind byte, body []byte) error {
	if !wr.inParts {
		if kind != partMessage {
			return fmt.Errorf("%w: a record's last part without its first", ErrProtocol)
		}
		if len(body) < 8 {
			return fmt.Errorf("%w: a record's first part of %d bytes, shorter than the record's length (8 bytes)", ErrProtocol, len(body))
		}
		n := binary.LittleEndian.Uint64(body)
		if n > tfrecord.DefaultMaxRecordSize {
			return fmt.Errorf("write: a record of %d bytes, more than %d: %w", n, int64(tfrecord.DefaultMaxRecordSize), sluice.ErrInvalid)
		}
		wr.part, wr.want, wr.inParts = make([]byte, 0, min(n, 64<<20)), int(n), true
		body = body[8:]
	}
	if len(body) > wr.want-len(wr.part) {
		return fmt.Errorf("%w: a record's parts longer than its length", ErrProtocol)
	}
	wr.part = append(wr.part, body...)
	if kind != lastPartMessage {
		return nil
	}
	if len(wr.part) != wr.want {
		return fmt.Errorf("%w: a record's parts shorter than its length", ErrProtocol)
	}
	err := wr.w.Write(wr.part)
	wr.part, wr.inParts = nil, false
	return err
}

// commit answers a "commit": the files under their names, or an error
// and none (but for storage.ErrNotDurable, after which they are there).
func (s *server) commit() error {
	wr := s.writing
	s.writing = nil
	switch {
	case wr == nil:
		return s.reply(Reply{Error: errorInfo(fmt.Errorf("%w: commit without a write", ErrProtocol))})
	case wr.err == nil && wr.inParts:
		wr.err = fmt.Errorf("%w: commit inside a record's parts", ErrProtocol)
		fallthrough
	case wr.err != nil:
		if wr.w != nil {
			wr.w.Abort()
		}
		return s.reply(Reply{Error: errorInfo(wr.err)})
	}
	if err := wr.w.Close(); err != nil {
		return s.reply(Reply{Error: errorInfo(err)})
	}
	n := wr.w.Count()
	return s.reply(Reply{Wrote: &n})
}

// abortWrite ends a writing in progress, removing its temporaries.
func (s *server) abortWrite() {
	if wr := s.writing; wr != nil && wr.w != nil {
		wr.w.Abort()
	}
	s.writing = nil
}
