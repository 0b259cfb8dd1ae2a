package sluice

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"
)

// The shuffle buffer's readers may hold a batch of readBatch records each
// beyond what the shuffle and the decoders need while records are small,
// and only readBytes each, one record at the least, once they are large
// (audit 108: 16 MiB records held 3.85 GB where Shuffle(100) asked for
// 1.6). Below base, any batch enters, so that a buffer of large records
// still fills and the data set never waits on itself.
func TestRecordGate(t *testing.T) {
	const base, readers = 100, 2
	cases := []struct {
		name     string
		recBytes int64
		headroom int
	}{
		{"small records", 1 << 10, readBatch * readers},
		{"64 KiB records", 64 << 10, readBatch * readers},
		{"1 MiB records", 1 << 20, readers * readBytes / (1 << 20)},
		{"16 MiB records", 16 << 20, readers},
		{"1 GiB records", 1 << 30, readers},
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range cases {
		g := newRecordGate(base, readers)
		// Below base anything enters, even a batch that goes past it.
		if err := g.enter(cancelled, base-1, (base-1)*c.recBytes); err != nil {
			t.Fatalf("%s: below base: %v", c.name, err)
		}
		if err := g.enter(cancelled, readBatch, readBatch*c.recBytes); err != nil {
			t.Fatalf("%s: a batch from below base: %v", c.name, err)
		}
		extra := g.queued - base
		g.leave(extra, int64(extra)*c.recBytes) // base records queued
		if err := g.enter(cancelled, c.headroom, int64(c.headroom)*c.recBytes); err != nil {
			t.Errorf("%s: %d records beyond base refused: %v", c.name, c.headroom, err)
		}
		if err := g.enter(cancelled, 1, c.recBytes); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %d records beyond base admitted (%v), want at most %d", c.name, c.headroom+1, err, c.headroom)
		}
	}
}

// The headroom is reckoned from the records in the queue and the batch
// entering, not from all read so far: large records that follow many
// small ones, or small ones that follow large, get no more room than
// large ones alone (audit 111: after 20 000 small records, 300 of 1 MiB
// all entered).
func TestRecordGateMixedSizes(t *testing.T) {
	const base, readers, small, large = 10, 2, 16, 16 << 20
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	g := newRecordGate(base, readers)
	for range 100 { // small records come and go
		if err := g.enter(cancelled, readBatch, readBatch*small); err != nil {
			t.Fatal(err)
		}
		g.leave(readBatch, readBatch*small)
	}
	if err := g.enter(cancelled, base, base*small); err != nil {
		t.Fatal(err)
	}
	for i := range readers {
		if err := g.enter(cancelled, 1, large); err != nil {
			t.Fatalf("large record %d of the headroom refused: %v", i, err)
		}
	}
	if err := g.enter(cancelled, 1, large); !errors.Is(err, context.Canceled) {
		t.Fatalf("a large record beyond %d of headroom admitted: %v", readers, err)
	}
	if err := g.enter(cancelled, readBatch, readBatch*small); !errors.Is(err, context.Canceled) {
		t.Fatalf("a batch of small records admitted beside large ones: %v", err)
	}
}

// A reader waiting for room enters as soon as the decoders take records
// out, and one whose context ends returns at once.
func TestRecordGateWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRecordGate(4, 1)
		if err := g.enter(context.Background(), 4+1, 5<<30); err != nil {
			t.Fatal(err)
		}
		entered := make(chan error, 1)
		go func() { entered <- g.enter(context.Background(), 1, 1<<30) }()
		synctest.Wait()
		select {
		case err := <-entered:
			t.Fatalf("entered a full gate: %v", err)
		default:
		}
		g.leave(1, 1<<30)
		synctest.Wait()
		select {
		case err := <-entered:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatal("still waiting after a record left")
		}

		ctx, cancel := context.WithCancel(context.Background())
		go func() { entered <- g.enter(ctx, 1, 1<<30) }()
		synctest.Wait()
		cancel()
		if err := <-entered; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled wait: %v, want context.Canceled", err)
		}
	})
}

// Records larger than a reader's readBytes move into the shuffle buffer
// one at a time, past the gate, and every one is delivered once, between
// small ones and with a buffer smaller than the readers' batches.
func TestShuffleLargeRecords(t *testing.T) {
	var recs [][]byte
	for i := range 60 {
		size := 8
		if i%10 == 0 {
			size = readBytes + 1<<20
		}
		rec := make([]byte, size)
		rec[0] = byte(i)
		recs = append(recs, rec)
	}
	name := filepath.Join(t.TempDir(), "large.tfrecord")
	writeTFRecords(t, name, recs...)
	seen := make(map[byte]int)
	for b, err := range Records(name, Shuffle(2), Readers(2)).Batches(context.Background(), 3) {
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b.Bytes(RecordFeature) {
			if want := recs[r[0]]; len(r) != len(want) {
				t.Fatalf("record %d: %d bytes, want %d", r[0], len(r), len(want))
			}
			seen[r[0]]++
		}
	}
	for i := range recs {
		if seen[byte(i)] != 1 {
			t.Errorf("record %d delivered %d times", i, seen[byte(i)])
		}
	}
}
