package pyserve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/internal/batchhook"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// Serve answers the requests read from r with replies written to w until
// the client closes the server, r ends (the client died or closed it) or
// ctx is done, and removes its named shared-memory files before it
// returns. It returns nil after a "close" or the end of r.
//
// The end of r cancels the session: a request waiting for a batch (slow
// input, a shuffle buffer filling, a stuck file system) returns at once
// rather than when the batch comes, since nobody will read its reply. The
// end is seen when no other request waits behind that one
// (readRequests).
//
// r is read by a goroutine of its own, which lives until r returns an
// error: a caller that cancels ctx should close r as well. A w with a
// write deadline (an *os.File the runtime polls) has a reply that waits
// for the client given up a second after ctx ends or the end of r is
// seen: a w without one keeps Serve until the client reads or closes.
func Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if d, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		// A reply the client does not read is given up once the session
		// has ended (a signal, the end of the requests) for a second, the
		// client's own grace, so that Serve returns and cleans up: a
		// write that waits on a full pipe ignored both (audit 96). Not
		// at once: a reply that fits in the pipe, the close a client
		// sends before it closes the pipe, is still written (audit 97).
		stop := context.AfterFunc(ctx, func() { d.SetWriteDeadline(time.Now().Add(replyGrace)) })
		defer stop()
	}
	msgs := make(chan []byte)
	readErr := make(chan error, 1)
	go readRequests(ctx, cancel, bufio.NewReaderSize(r, 4096), msgs, readErr)
	s := &server{w: w}
	defer func() {
		s.abortWrite()
		if s.stop != nil {
			s.stop()
		}
		if s.ring != nil {
			s.ring.close()
		}
		s.stopping.Wait()
	}()
	for {
		var msg []byte
		select {
		case msg = <-msgs:
		case err := <-readErr:
			return inputEnd(err)
		case <-ctx.Done():
			return inputEnd(context.Cause(ctx))
		}
		if len(msg) > 0 && msg[0] <= lastPartMessage {
			s.writeMessage(msg[0], msg[1:])
			continue
		}
		// The next of every batch decoded into a Request of Serve's.
		req := &s.req
		var err error
		if !decodeNext(msg, req) {
			req, err = DecodeRequest(msg)
		}
		if err != nil {
			var op struct {
				Op string `json:"op"`
			}
			if json.Unmarshal(msg, &op) == nil && op.Op == "open" {
				// Refused, as handle refuses one: the data set before
				// ends.
				s.endIteration()
			}
			if werr := s.reply(Reply{Error: errorInfo(err)}); werr != nil {
				return givenUp(ctx, werr)
			}
			continue
		}
		done, err := s.handle(ctx, req)
		if err != nil || done {
			return givenUp(ctx, err)
		}
	}
}

// replyGrace is how long a reply may wait for the client once the session
// has ended.
const replyGrace = time.Second

// givenUp returns err, a reply's write failed or a request's error, as
// inputEnd does; a write given up because the session ended is the end
// that ended it.
func givenUp(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = context.Cause(ctx)
	}
	return inputEnd(err)
}

// inputEnd returns err, or nil if it is the end of the client's input,
// which ends a session as a close does.
func inputEnd(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// readRequests reads the client's messages into msgs until r fails, then
// reports the error and cancels the session with it (io.EOF at the end of
// r), so that a request waiting for a batch returns.
//
// A message is handed over only when Serve takes it, and only then is the
// next one read: reading on past a message Serve has not taken would see
// the end of r behind it too, but a goroutine blocked in read(2) holds its
// thread and, until the runtime takes it back, a P the readers could use.
// Reading ahead cost MNIST's hand-off about a tenth of its examples a
// second (bench/handoff.sh --server-b, 4 alternated rounds, every round
// worse, also when it read ahead only past a message that had waited 10
// ms). So the end of r is seen at once when no request waits behind the
// one Serve answers; otherwise the client, which kills a server that has
// not ended a second after it closed its input, and the server's watch of
// its parent end it.
func readRequests(ctx context.Context, cancel context.CancelCauseFunc, r io.Reader, msgs chan<- []byte, readErr chan<- error) {
	// Two buffers in turn: a message is handed over only when Serve has
	// decoded the one before, so the one read into next is free.
	var bufs [2][]byte
	for i := 0; ; i ^= 1 {
		m, err := readMessage(r, bufs[i])
		bufs[i] = m
		if err != nil {
			readErr <- err
			cancel(err)
			return
		}
		select {
		case msgs <- m:
		case <-ctx.Done():
			drain(r, readErr)
			return
		}
	}
}

// drain reads r until it fails, so that the client's writes do not block
// once Serve has returned.
func drain(r io.Reader, readErr chan<- error) {
	for {
		if _, err := ReadMessage(r); err != nil {
			readErr <- err
			return
		}
	}
}

// A server is one client's session: one data set at a time; another open
// ends the one before, so a client can reuse a server for its next pass
// instead of starting a process.
type server struct {
	w    io.Writer
	req  Request // the request being answered, when it is a next
	src  *source
	ring *ring
	free chan int // slots the client is done with
	held []result // the batches the client holds, oldest first
	// The slots after the first src.slots are lent to the reading
	// goroutines, which decode batches into them (slotAlloc); dfree
	// holds those free.
	dfree *slotStack
	out   []byte // the replies to a next, reused
	// encoded holds, for each slot, the last batch reply sent for it and
	// its encoding: a slot's batches of one shape have the same
	// descriptor, encoded once.
	encoded map[int]encodedBatch
	// infos holds, by slot, the descriptor of the batch in it, written
	// over for the slot's next batch (whose slot the client has freed),
	// and fills the arrays of a batch being copied: a batch costs the
	// server's collector nothing.
	infos []BatchInfo
	fills []fillArray
	last  *Reply // the end or the error, repeated to later nexts
	// skippedSent is the count of corrupt records skipped that the last
	// batch reply carried: a reply carries the count only when it grew.
	skippedSent int64
	stop        func() // ends the iteration
	end         func() // closes the iterator: after its last batch, or on stop

	// queueEpochs remembers, for each shared filename queue (URL and
	// name), the epoch the last pass over it reached: the next pass
	// starts looking for an epoch not yet over there.
	queueEpochs map[[2]string]int
	stopping    sync.WaitGroup // the shared queues' connections, closing

	// The data set's iterator, or the error that made none. The
	// goroutine that answers the requests takes their batches from it
	// itself: a goroutine between the readers' queue and the reply would
	// park and wake once more a batch, and on two busy cores each of
	// those is a thread's sleep and wake-up. Every batch taken has been
	// sent but one whose copy into a slot failed (unsent): a state is the
	// iterator's, that many batches back.
	it     *sluice.Iterator
	itErr  error
	unsent int

	writing *writing // a "write" in progress
}

type result struct {
	batch *BatchInfo
	err   error // io.EOF at the end
	// token is the ring slot taken for the batch: its own, or, for a
	// batch decoded into a lent slot, a token that bounds the batches
	// sent ahead as the ring does.
	token int
}

func (s *server) reply(r Reply) error { return WriteMessage(s.w, r) }

// handle answers one request; done means the session is over.
func (s *server) handle(ctx context.Context, req *Request) (done bool, err error) {
	switch req.Op {
	case "write":
		return false, s.startWrite(ctx, req.Write)
	case "commit":
		return false, s.commit()
	case "open":
		src, err := newSource(req.Open)
		if err == nil {
			err = s.checkRetire(req.Retire)
		}
		// A new data set, or the same again (the client's next epoch),
		// ends the one before; so does one refused, so that a next the
		// client sent right behind the open, as it does, is not answered
		// with the old data set's batches.
		s.endIteration()
		if err != nil {
			return false, s.reply(Reply{Error: errorInfo(err)})
		}
		if q := src.nats; q != nil {
			q.first = max(q.first, s.queueEpochs[[2]string{q.url, q.name}])
			q.stopping = &s.stopping
		}
		// The iteration before has stopped: nothing writes into the
		// slots now.
		for _, k := range req.Retire {
			s.ring.retire(k)
		}
		readers := req.Open.Readers
		if readers == 0 {
			readers = runtime.GOMAXPROCS(0)
		}
		newSlots := s.start(ctx, src, readers)
		// Named slot files are sluice-PID-*: a client whose server was
		// killed can remove those it had not mapped yet. (Anonymous ones,
		// dir "", go with the server.)
		return false, s.reply(Reply{Features: src.features, ShmDir: s.ring.dir, NewSlots: newSlots})
	case "next":
		// A request refused gets one reply, whatever its count: count is
		// the client's number, which must not size the server's memory
		// or its work before it is found to be out of range.
		if err := s.checkNext(req); err != nil {
			return false, s.reply(Reply{Error: errorInfo(err)})
		}
		// Count replies, whatever happens then: the client reads as
		// many. Count is at most the slots less one.
		count := max(req.Count, 1)
		out := s.out[:0]
		for i := range count {
			if ctx.Err() != nil {
				return true, context.Cause(ctx)
			}
			r, stop, err := s.next(ctx, req, i)
			if stop {
				return true, err
			}
			if out, err = s.appendReply(out, r); err != nil {
				return false, err
			}
		}
		s.out = out
		_, err := s.w.Write(out)
		return false, err
	case "state":
		var st []byte
		var err error
		switch {
		case s.it != nil:
			st, err = s.it.CheckpointBefore(req.Before + s.unsent)
		case s.itErr != nil:
			// The open was answered, but its iteration could not start
			// (a state that does not fit, a pattern that matches
			// nothing): that is the error a state meets too.
			err = s.itErr
		default:
			err = fmt.Errorf("%w: state before open", ErrProtocol)
		}
		if err != nil {
			return false, s.reply(Reply{Error: errorInfo(err)})
		}
		return false, s.reply(Reply{State: st})
	case "mapped":
		if s.ring == nil || !s.ring.unlink(req.File) {
			return false, s.reply(Reply{Error: errorInfo(fmt.Errorf("%w: mapped: %q is not a slot file", ErrProtocol, req.File))})
		}
		return false, s.reply(Reply{OK: true})
	case "close":
		return true, s.reply(Reply{OK: true})
	}
	return false, s.reply(Reply{Error: errorInfo(fmt.Errorf("%w: unknown op %q", ErrProtocol, req.Op))})
}

// endIteration stops the data set's iteration, if any: the client's next
// next is then one before an open. The slots are free again.
func (s *server) endIteration() {
	if s.stop == nil {
		return
	}
	s.stop()
	s.stop, s.last = nil, nil
	if q := s.src.nats; q != nil {
		if s.queueEpochs == nil {
			s.queueEpochs = map[[2]string]int{}
		}
		s.queueEpochs[[2]string{q.url, q.name}] = q.reached()
	}
	s.src, s.it, s.itErr = nil, nil, nil
}

// checkNext reports a next that the server cannot answer: before an
// open, or asking for more batches than the ring holds beside those the
// client keeps. Each number is checked on its own before their sum, which
// so cannot overflow.
func (s *server) checkNext(req *Request) error {
	if s.src == nil {
		return fmt.Errorf("%w: next before open", ErrProtocol)
	}
	// The slots kept, and those of the batches asked for, and one spare:
	// the rule since a producer goroutine filled the ring ahead, kept so
	// that every client's requests stay valid.
	limit := s.src.slots - 1
	if req.Keep < 0 || req.Count < 0 || req.Keep > limit || req.Count > limit || req.Keep+max(req.Count, 1) > limit {
		return fmt.Errorf("%w: next: keep %d and count %d with %d slots (want keep+count at most slots-1)", ErrProtocol, req.Keep, req.Count, s.src.slots)
	}
	return nil
}

// checkRetire reports an open's retire list that names no slot of the
// ring.
func (s *server) checkRetire(retire []int) error {
	for _, k := range retire {
		if s.ring == nil || k < 0 || k >= len(s.ring.slots) {
			return fmt.Errorf("%w: open: retire names slot %d, which is not one", ErrProtocol, k)
		}
	}
	return nil
}

type encodedBatch struct {
	info *BatchInfo
	msg  []byte
}

// appendReply appends reply r to buf as appendMessage does. A batch's
// descriptor is kept (a copy: the slot's is written over) to compare the
// next batch of its slot with.
func (s *server) appendReply(buf []byte, r Reply) ([]byte, error) {
	b := r.Batch
	if b == nil || b.File != "" || r.Skipped != 0 {
		return appendMessage(buf, r)
	}
	if e, ok := s.encoded[b.Slot]; ok && sameBatch(e.info, b) {
		return append(buf, e.msg...), nil
	}
	msg, err := appendMessage(nil, r)
	if err != nil {
		return buf, err
	}
	if s.encoded == nil {
		s.encoded = map[int]encodedBatch{}
	}
	s.encoded[b.Slot] = encodedBatch{b.clone(), msg}
	return append(buf, msg...), nil
}

// clone returns a copy of b that shares nothing with it.
func (b *BatchInfo) clone() *BatchInfo {
	c := *b
	c.Arrays = slices.Clone(b.Arrays)
	for i := range c.Arrays {
		c.Arrays[i].Shape = slices.Clone(c.Arrays[i].Shape)
	}
	return &c
}

// infoFor returns slot k's descriptor, emptied for a batch of rows, its
// arrays' shapes ready to be appended to.
func (s *server) infoFor(k, rows int) *BatchInfo {
	if len(s.infos) != len(s.ring.slots) {
		s.infos = make([]BatchInfo, len(s.ring.slots))
	}
	info := &s.infos[k]
	n := len(s.src.features)
	arrays := info.Arrays
	if cap(arrays) < n {
		arrays = make([]ArrayInfo, n)
	}
	arrays = arrays[:n]
	for i := range arrays {
		arrays[i] = ArrayInfo{Shape: arrays[i].Shape[:0]}
	}
	*info = BatchInfo{Slot: k, Rows: rows, Arrays: arrays}
	return info
}

// sameBatch reports whether a and b describe the same arrays in the same
// slot, and so encode alike.
func sameBatch(a, b *BatchInfo) bool {
	if a.Slot != b.Slot || a.File != b.File || a.FileSize != b.FileSize || a.Rows != b.Rows || len(a.Arrays) != len(b.Arrays) {
		return false
	}
	for i := range a.Arrays {
		x, y := &a.Arrays[i], &b.Arrays[i]
		if x.Name != y.Name || x.DType != y.DType || x.Offset != y.Offset || x.NBytes != y.NBytes ||
			x.DataOffset != y.DataOffset || x.LengthsOffset != y.LengthsOffset || x.NNZ != y.NNZ ||
			x.IndicesOffset != y.IndicesOffset || !slices.Equal(x.Shape, y.Shape) {
			return false
		}
	}
	return true
}

// next returns the reply to the i-th batch a next request asks for; stop
// means the session is over, with err.
// The request has passed checkNext.
func (s *server) next(ctx context.Context, req *Request, i int) (r Reply, stop bool, err error) {
	if s.last != nil {
		return *s.last, false, nil
	}
	if i == 0 {
		// The client asks for the next batches: it is done with those
		// before the last Keep it was sent, whose slots can take
		// others.
		done := 0
		for ; len(s.held)-done > req.Keep; done++ {
			h := s.held[done]
			s.free <- h.token
			if h.batch.Slot != h.token {
				s.dfree.put(h.batch.Slot)
			}
		}
		// Moved down, not resliced: the list's array serves every
		// batch rather than growing anew as it creeps along.
		s.held = append(s.held[:0], s.held[done:]...)
	}
	if len(s.free) == 0 {
		// Not reached by a request checkNext passed; were it, the
		// iterator's next batch is left there rather than taken and
		// lost, and the session goes on.
		return Reply{Error: errorInfo(fmt.Errorf("%w: next: no free slot", ErrProtocol))}, false, nil
	}
	res := s.produce()
	if res.err != nil && ctx.Err() != nil {
		// The iteration ended because the server is stopping.
		return Reply{}, true, context.Cause(ctx)
	}
	switch {
	case errors.Is(res.err, io.EOF):
		s.last = &Reply{End: true, Skipped: s.skipped()}
		return *s.last, false, nil
	case res.err != nil:
		// The count goes with the error too: the records skipped before
		// it are no less lost for the iteration's having failed.
		s.last = &Reply{Error: errorInfo(res.err), Skipped: s.skipped()}
		s.last.Error.Message += s.src.rawHint(res.err)
		return *s.last, false, nil
	}
	s.held = append(s.held, res)
	r = Reply{Batch: res.batch}
	if n := s.skipped(); n != s.skippedSent {
		r.Skipped, s.skippedSent = n, n
	}
	return r, false, nil
}

// skipped returns the corrupt records the iteration skipped so far
// (skip_corrupt).
func (s *server) skipped() int64 {
	if s.it == nil {
		return 0
	}
	return s.it.Skipped()
}

// start opens the data set's iteration, whose reading goroutines decode
// batches ahead into the slots lent to them where they can. newSlots
// reports a new ring: no slot has a file the client mapped.
func (s *server) start(ctx context.Context, src *source, readers int) (newSlots bool) {
	ctx, cancel := context.WithCancel(ctx)
	s.src = src
	lent := lentSlots(src.slots, readers)
	// The slot files of the data set before serve this one, already
	// mapped by the client and their pages in memory: a new pass over the
	// data (the next epoch) costs no new files.
	if s.ring == nil || len(s.ring.slots) != src.slots+lent {
		if s.ring != nil {
			s.ring.close()
		}
		s.ring = newRing(src.slots + lent)
		s.infos = nil
		newSlots = true
	}
	s.free = make(chan int, src.slots)
	for k := range src.slots {
		s.free <- k
	}
	s.dfree = &slotStack{}
	for k := range lent {
		// The first lent slot on top.
		s.dfree.put(src.slots + lent - 1 - k)
	}
	alloc := newSlotAlloc(s.ring, s.dfree, src.slots)
	s.held = s.held[:0]
	s.skippedSent = 0
	s.unsent = 0
	// The iterator is made here, so that a state asked for at once
	// finds it; its error, if any, is the first batch's.
	opts := slices.Concat(src.opts, []sluice.BatchOption{batchhook.Option(alloc).(sluice.BatchOption)})
	if len(src.raw) > 0 {
		opts = append(opts, batchhook.CheckOption(src.checkRaw).(sluice.BatchOption))
	}
	s.it, s.itErr = src.ds.Iterator(ctx, src.n, opts...)
	it, done := s.it, false
	s.end = func() {
		// At the end of the data, or when the server stops or opens
		// another: what the iteration holds, the files of a shared
		// queue among them, is given back at once.
		if done {
			return
		}
		done = true
		if it != nil {
			it.Close()
		}
		if src.release != nil {
			src.release()
		}
	}
	s.stop = func() {
		alloc.stopped.Store(true)
		cancel()
		s.end()
	}
	return newSlots
}

// produce takes the iteration's next batch: in the lent slot the readers
// decoded it into, or copied into a free slot of the ring. Either way it
// takes a ring slot as its token, which bounds the batches sent and held
// to the ring's size; the client's keep and count leave one free.
func (s *server) produce() result {
	if s.itErr != nil {
		s.end()
		return result{err: s.itErr}
	}
	// The slot first: a batch taken from the iterator and not sent
	// would be lost.
	var k int
	select {
	case k = <-s.free:
	default:
		return result{err: fmt.Errorf("%w: next: no free slot", ErrProtocol)}
	}
	// The batch is valid until the next Next: it is copied out before
	// that.
	b, err := s.it.Next()
	if err != nil {
		s.free <- k
		s.end()
		return result{err: err}
	}
	info, ok := s.lent(b)
	if !ok {
		if info, err = s.fill(k, b); err != nil {
			// Taken from the iterator, never sent: the client's
			// position is before it.
			s.unsent = 1
			s.free <- k
			s.end()
			return result{err: err}
		}
	}
	return result{batch: info, token: k}
}

// rawHint explains a type mismatch of a feature read as numbers from
// bytes: the spec says int32 (say), the record holds an int64 list, and
// the parser's message, TensorFlow's, says it expected a string.
func (src *source) rawHint(err error) string {
	var pe *example.ParseError
	if !errors.As(err, &pe) || !errors.Is(pe, example.ErrDTypeMismatch) {
		return ""
	}
	r, ok := src.raw[pe.Feature]
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (dtype %s reads a bytes feature holding the values' little-endian bytes, as tf.io.decode_raw does; a feature stored as an int64 or float list reads with dtype int64 or float32)", dtypeName(r.dtype))
}

// checkRaw checks, as a batch is decoded, that each record's value of a
// feature read as numbers has their bytes: the reading goroutine's error
// names the record's file, offset and key, which the batch does not
// carry.
func (src *source) checkRaw(dense func(string) tensor.Tensor, rows int) error {
	for name, r := range src.raw {
		for j, v := range dense(name).Strings() {
			if len(v) != r.bytes {
				return &dataerr.Error{Offset: -1, Record: int64(j),
					Err: fmt.Errorf("feature %q: %d bytes, want %d (%v values of shape %v)", name, len(v), r.bytes, r.dtype, r.shape)}
			}
		}
	}
	return nil
}

// A fillArray is a feature of a batch being copied into a slot.
type fillArray struct {
	dense  tensor.Tensor
	sparse tensor.Sparse
}

// fill copies batch b into slot k.
func (s *server) fill(k int, b *sluice.Batch) (*BatchInfo, error) {
	info := s.infoFor(k, b.Len())
	// The arrays' places first, to size the slot, then their bytes.
	// No array at offset 0, which the descriptor's optional offsets
	// (omitted when zero) could not tell from none.
	size := 64
	put := func(n int) int {
		off := (size + 63) &^ 63 // aligned for any dtype and for SIMD loads
		size = off + n
		return off
	}
	arrays := s.fills[:0]
	if cap(arrays) < len(s.src.features) {
		arrays = make([]fillArray, len(s.src.features))
	}
	arrays = arrays[:len(s.src.features)]
	// The batch's tensors are its decoder's, which the iterator reuses:
	// not kept here past the copy.
	defer clear(arrays)
	s.fills = arrays
	for i, f := range s.src.features {
		a := &info.Arrays[i]
		a.Name, a.DType = f.Name, f.DType
		if r, ok := s.src.raw[f.Name]; ok {
			// checkRaw has checked the lengths as the batch was decoded,
			// and named the record; checked again before the copy, which
			// they size.
			t := b.Dense(f.Name)
			for j, v := range t.Strings() {
				if len(v) != r.bytes {
					return nil, &dataerr.Error{Offset: -1, Record: int64(j),
						Err: fmt.Errorf("feature %q: %d bytes, want %d (%v values of shape %v)", f.Name, len(v), r.bytes, r.dtype, r.shape)}
				}
			}
			arrays[i].dense = t
			a.Shape = append(append(a.Shape, b.Len()), r.shape...)
			a.NBytes = b.Len() * r.bytes
			a.Offset = put(a.NBytes)
			continue
		}
		if f.Kind == "sparse" {
			sp := b.Sparse(f.Name)
			arrays[i].sparse = sp
			for _, d := range sp.DenseShape {
				a.Shape = append(a.Shape, int(d))
			}
			a.NNZ = sp.NNZ()
			a.IndicesOffset = put(8 * a.NNZ * len(a.Shape))
			if f.DType != "bytes" {
				a.NBytes = a.NNZ * elemSize(f.DType)
				a.Offset = put(a.NBytes)
				continue
			}
			a.Offset = put(8 * (a.NNZ + 1))
			for _, v := range sp.Values.Strings() {
				a.NBytes += len(v)
			}
			a.DataOffset = put(a.NBytes)
			continue
		}
		if f.Kind == "varlen" {
			sp := b.Sparse(f.Name)
			arrays[i].sparse = sp
			a.Shape = append(a.Shape, b.Len(), int(sp.DenseShape[1]))
			a.LengthsOffset = put(8 * b.Len())
		} else {
			t := b.Dense(f.Name)
			arrays[i].dense = t
			a.Shape = append(a.Shape, t.Shape()...)
			if f.Kind == "list" {
				a.LengthsOffset = put(8 * b.Len())
			}
		}
		n := 1
		for _, d := range a.Shape {
			n *= d
		}
		if f.DType != "bytes" {
			a.NBytes = n * elemSize(f.DType)
			a.Offset = put(a.NBytes)
			continue
		}
		a.Offset = put(8 * (n + 1))
		var vals [][]byte
		if f.Kind == "varlen" {
			vals = arrays[i].sparse.Values.Strings()
		} else {
			vals = arrays[i].dense.Strings()
		}
		for _, v := range vals {
			a.NBytes += len(v)
		}
		a.DataOffset = put(a.NBytes)
	}
	mem, _, err := s.ring.reserve(k, size)
	if err != nil {
		return nil, err
	}
	info.File, info.FileSize = s.ring.announce(k)
	for i, a := range info.Arrays {
		switch s.src.features[i].Kind {
		case "varlen":
			writeVarLen(mem, a, arrays[i].sparse)
			continue
		case "sparse":
			writeSparse(mem, a, arrays[i].sparse)
			continue
		}
		t := arrays[i].dense
		if s.src.features[i].Kind == "list" {
			steps := int64s(mem[a.LengthsOffset:], b.Len())
			for j, n := range b.Lengths(a.Name) {
				steps[j] = int64(n)
			}
		}
		if s.src.features[i].Kind == "raw" {
			at := a.Offset
			for _, v := range t.Strings() {
				at += copy(mem[at:], v)
			}
			continue
		}
		if a.DType == "bytes" {
			writeBytes(mem, a, t.Strings(), nil)
			continue
		}
		copy(mem[a.Offset:a.Offset+a.NBytes], rawBytes(t))
	}
	return info, nil
}

// writeVarLen writes a VarLen feature's values padded to the longest
// record, and each record's count.
func writeVarLen(mem []byte, a ArrayInfo, sp tensor.Sparse) {
	rows, width := a.Shape[0], a.Shape[1]
	idx := sp.Indices.Int64s()
	lengths := int64s(mem[a.LengthsOffset:], rows)
	clear(lengths)
	// Entry j is at row idx[2j], column idx[2j+1].
	pos := make([]int, sp.NNZ())
	for j := range pos {
		r, c := int(idx[2*j]), int(idx[2*j+1])
		pos[j] = r*width + c
		lengths[r] = max(lengths[r], int64(c)+1)
	}
	if a.DType == "bytes" {
		writeBytes(mem, a, sp.Values.Strings(), pos)
		return
	}
	dst := mem[a.Offset : a.Offset+a.NBytes]
	clear(dst)
	src := rawBytes(sp.Values)
	es := elemSize(a.DType)
	for j, p := range pos {
		copy(dst[p*es:(p+1)*es], src[j*es:(j+1)*es])
	}
}

// writeSparse writes a SparseFeature's indices and values as they are.
func writeSparse(mem []byte, a ArrayInfo, sp tensor.Sparse) {
	copy(mem[a.IndicesOffset:], asBytes(sp.Indices.Int64s()[:a.NNZ*len(a.Shape)]))
	if a.DType == "bytes" {
		writeBytes(mem, ArrayInfo{Shape: []int{a.NNZ}, Offset: a.Offset, DataOffset: a.DataOffset, NBytes: a.NBytes},
			sp.Values.Strings()[:a.NNZ], nil)
		return
	}
	copy(mem[a.Offset:a.Offset+a.NBytes], rawBytes(sp.Values)[:a.NBytes])
}

// writeBytes writes bytes values and their offsets; with pos, value j is
// element pos[j] and the other elements are empty.
func writeBytes(mem []byte, a ArrayInfo, vals [][]byte, pos []int) {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	offs := int64s(mem[a.Offset:], n+1)
	data := mem[a.DataOffset : a.DataOffset+a.NBytes]
	if pos == nil {
		at := 0
		for j, v := range vals {
			offs[j] = int64(at)
			at += copy(data[at:], v)
		}
		offs[n] = int64(at)
		return
	}
	// Padded: element e's bytes end where the next value's begin.
	at, j := 0, 0
	for e := range n {
		offs[e] = int64(at)
		if j < len(pos) && pos[j] == e {
			at += copy(data[at:], vals[j])
			j++
		}
	}
	offs[n] = int64(at)
}

// int64s views n int64s at the start of b, which is 8-byte aligned.
func int64s(b []byte, n int) []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(b[:8*n]))), n)
}

func elemSize(dtype string) int {
	dt, _ := parseDType(dtype)
	return dt.Size()
}

// rawBytes returns the memory of a numeric tensor's values, in the host's
// byte order (little-endian on every platform sluice's Python package is
// built for).
func rawBytes(t tensor.Tensor) []byte {
	n := t.NumElements()
	switch d := t.Data().(type) {
	case []bool:
		return asBytes(d[:n])
	case []int8:
		return asBytes(d[:n])
	case []int16:
		return asBytes(d[:n])
	case []int32:
		return asBytes(d[:n])
	case []int64:
		return asBytes(d[:n])
	case []uint8:
		return d[:n]
	case []uint16:
		return asBytes(d[:n])
	case []uint32:
		return asBytes(d[:n])
	case []uint64:
		return asBytes(d[:n])
	case []tensor.Half:
		return asBytes(d[:n])
	case []float32:
		return asBytes(d[:n])
	case []float64:
		return asBytes(d[:n])
	}
	panic(fmt.Sprintf("pyserve: no raw bytes for a tensor of %v", t.DType()))
}

func asBytes[T any](s []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// damageHint is what a Python user can do about a damaged TFRecord file:
// the package's sluice command finds and salvages, and skip_corrupt skips
// records whose CRCs fail (not a truncated end). Empty for other errors.
func damageHint(err error, file string) string {
	// A stale index is no damage to salvage (the error says what to do).
	if !errors.Is(err, tfrecord.ErrDataLoss) || errors.Is(err, tfrecord.ErrTooLarge) || errors.Is(err, index.ErrStale) || file == "" {
		return ""
	}
	hint := fmt.Sprintf(" (sluice verify %s lists the damaged records; sluice convert --skip-corrupt %s --out NEW copies the others", file, file)
	if !errors.Is(err, tfrecord.ErrTruncated) {
		hint += "; skip_corrupt=True skips them while reading"
	}
	return hint + ")"
}

// maxErrorText bounds each text of an error reply: its message, file and
// key. Some messages quote the data (a CSV field that is not a number),
// which may be of any size; a reply over MaxMessage would end the session
// instead of reaching the client, and a message is read by a person. Three
// texts of 64 KiB stay far below MaxMessage even escaped for JSON, six
// bytes a byte at worst.
const maxErrorText = 64 << 10

// cutText returns s, or its first n bytes at most (whole UTF-8
// characters) and a note of how much was cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... [%d bytes cut]", s[:cut], len(s)-cut)
}

// errorInfo describes err for the client, its texts cut to maxErrorText.
func errorInfo(err error) *ErrorInfo {
	e := &ErrorInfo{Kind: "other", Message: cutText(err.Error(), maxErrorText), Offset: -1, Record: -1}
	var de *dataerr.Error
	switch {
	case errors.As(err, &de):
		e.Kind = "data"
		e.File, e.Offset, e.Line, e.Record, e.Key = cutText(de.File, maxErrorText), de.Offset, de.Line, de.Record, cutText(de.Key, maxErrorText)
		e.Message += damageHint(err, de.File)
	case errors.Is(err, sluice.ErrNoFiles):
		e.Kind = "nofiles"
	case errors.Is(err, sluice.ErrInvalid), errors.Is(err, sluice.ErrCheckpoint), errors.Is(err, example.ErrInvalidSpec):
		// A state that does not fit the data set is the client's
		// argument (load_state_dict), as an option out of range is, and
		// a spec that cannot be read by (FixedLen([-1]), a default of
		// another shape) the user's feature. The specs' misspelt keys
		// and the CSV delimiter come wrapping sluice.ErrInvalid
		// (FeatureSpec.UnmarshalJSON, source.csv).
		e.Kind = "invalid"
	case errors.Is(err, ErrProtocol):
		e.Kind = "protocol"
	case errors.Is(err, storage.ErrNotDurable):
		// The one error of a commit after which the files are there.
		e.Kind = "not_durable"
	}
	return e
}
