package sluice

import "sync/atomic"

// Skipped returns how many corrupt records the iteration's readers have
// skipped so far under SkipCorrupt: each a record whose CRC failed, or a
// damaged stretch of a file read past as one. It is 0 without
// SkipCorrupt, whose absence makes such a record an error instead.
//
// The readers run ahead of the batches delivered, so the count may take
// in records that would have been in batches not yet delivered; after
// Next has returned io.EOF it is the whole iteration's. A file read again
// in a later epoch counts its corrupt records again. An iteration resumed
// from a checkpoint counts from the checkpoint's position: corrupt
// records before it are the saving run's, whatever the file's
// compression (a compressed file is read from its start to reach the
// position). It may be called at any time, from any goroutine.
func (it *Iterator) Skipped() int64 { return it.eng.skipped() }

// A skipCount counts the corrupt records an iteration's readers skip.
type skipCount struct{ n atomic.Int64 }

func (c *skipCount) skipped() int64 { return c.n.Load() }

// add adds to c what a reader's own count, now total, has grown by since
// seen, the total it had last time, and records total in seen. Each
// reader so counts in a variable of its own and touches c only when it
// skipped something.
func (c *skipCount) add(total int64, seen *int64) {
	if total != *seen {
		c.n.Add(total - *seen)
		*seen = total
	}
}
