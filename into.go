package sluice

import (
	"unsafe"

	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/batchhook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// examplesInto returns Examples' newDecoderInto for spec, or nil when a
// feature is not a FixedLen float32 or int64 one: only those does the
// parser write into memory it is given (Parser.ParseSingleInto), a record
// at a time.
func examplesInto(spec example.Spec, l *layout, plain func(reuse bool) (decoder, error)) func(batchhook.Allocator, bool) (decoder, error) {
	shapes := make([]tensor.Shape, len(l.features))
	for i, f := range l.features {
		fs := spec[f.name]
		if fs.Kind() != example.KindFixedLen || fs.DType() != tensor.Float32 && fs.DType() != tensor.Int64 {
			return nil
		}
		shapes[i] = fs.Shape()
	}
	return func(a batchhook.Allocator, reuse bool) (decoder, error) {
		// The batch parser, for when a lends no memory and to name the
		// record of an error as a batch parse does.
		fallback, err := plain(reuse)
		if err != nil {
			return nil, err
		}
		p, err := example.NewParser(spec)
		if err != nil {
			return nil, err
		}
		in := &intoDecoder{a: a, p: p, dtypes: l.dtypes, shapes: shapes}
		return lentOrElse(in.decode, fallback), nil
	}
}

// lentOrElse returns a decoder that decodes a batch with into, which
// writes it into lent memory or returns nil, and else with fallback.
// Only the first try is into's (decodeNamed's, without keys): a failure
// is decoded again with keys, by fallback, whose error names the record.
func lentOrElse(into func(recs [][]byte) queue.Element, fallback decoder) decoder {
	return func(recs [][]byte, keys []string) (queue.Element, error) {
		if keys == nil {
			if e := into(recs); e != nil {
				return e, nil
			}
		}
		return fallback(recs, keys)
	}
}

// batchShapes returns the shapes of a batch of n records whose records
// have shapes, reusing last's when they are for n records: the allocator
// keeps no shape it is given.
func batchShapes(last []tensor.Shape, shapes []tensor.Shape, n int) []tensor.Shape {
	if len(last) > 0 && last[0][0] == n {
		return last
	}
	last = last[:0]
	for _, s := range shapes {
		last = append(last, s.Prepend(n))
	}
	return last
}

// checkFirstBytes is the size of a batch above which its first record is
// parsed before the batch is lent memory.
const checkFirstBytes = 1 << 20

// An intoDecoder parses each record of a batch into its rows of the
// tensors an allocator lends.
type intoDecoder struct {
	a      batchhook.Allocator
	p      *example.Parser
	dtypes []tensor.DType
	shapes []tensor.Shape // of one record
	batch  []tensor.Shape // of the batch, reused
	// first is the row a large batch's first record is parsed into
	// before the batch is lent memory.
	first []tensor.Tensor
	// views holds the rows of the last few batches' memory as tensors:
	// the allocator lends the same few buffers again and again, whose
	// row tensors are so made once. As many as sluice-serve lends at
	// most (32: two per reader, and its nine slots by default), or a
	// stream of them would make every batch's rows anew.
	views []rowViews
}

type rowViews struct {
	base []unsafe.Pointer // each component's memory
	rows [][]tensor.Tensor
}

// decode returns the batch of recs in memory the allocator lent, or nil
// when it lent none or a record failed to parse.
func (d *intoDecoder) decode(recs [][]byte) queue.Element {
	n := len(recs)
	d.batch = batchShapes(d.batch, d.shapes, n)
	// The spec sizes the batch before a record is parsed. A batch too
	// large for memory, as a mistaken shape makes it, is left to the
	// batch parser, which finds the record that does not fill it before
	// it allocates (a shape of [2^30] asked for 256 GiB here, audit 112);
	// so is one of more than a megabyte whose first record does not fill
	// its row, parsed first into a row of the decoder's own (a shape of
	// [2^23] made 800 MiB, or as much shared memory, audit 113).
	size := 0
	for i, s := range d.batch {
		if tensor.CheckMemory(d.dtypes[i], s) != nil {
			return nil
		}
		size += s.NumElements() * d.dtypes[i].Size()
	}
	if size > checkFirstBytes && n > 0 {
		first, err := d.p.ParseSingleInto(d.first, recs[0], "")
		if err != nil {
			return nil
		}
		d.first = first
	}
	dst := d.a.Alloc(d.dtypes, d.batch)
	if dst == nil {
		return nil
	}
	rows := d.rows(dst, n)
	for i, rec := range recs {
		out, err := d.p.ParseSingleInto(rows[i], rec, "")
		// The parser writes into a row's tensors, which have the
		// features' types and shapes: checked on the first row, not to
		// pay for it on every record.
		if err != nil || i == 0 && !sameMemory(out, rows[i]) {
			d.a.Put(dst)
			return nil
		}
	}
	return queue.Element(dst)
}

// rows returns the row tensors of dst's n rows.
func (d *intoDecoder) rows(dst []tensor.Tensor, n int) [][]tensor.Tensor {
next:
	for _, v := range d.views {
		if len(v.rows) != n {
			continue
		}
		for j, t := range dst {
			if v.base[j] != batchhook.Pointer(t) {
				continue next
			}
		}
		return v.rows
	}
	base := make([]unsafe.Pointer, len(dst))
	for j, t := range dst {
		base[j] = batchhook.Pointer(t)
	}
	rows := make([][]tensor.Tensor, n)
	// The rows' lists in one array: a decoder makes its views once, but
	// a pass of a few hundred batches has several decoders.
	all := make([]tensor.Tensor, n*len(dst))
	for i := range rows {
		rows[i] = all[i*len(dst) : (i+1)*len(dst) : (i+1)*len(dst)]
		for j, t := range dst {
			rows[i][j] = t.Row(i)
		}
	}
	if len(d.views) == 32 {
		d.views = d.views[1:]
	}
	d.views = append(d.views, rowViews{base: base, rows: rows})
	return rows
}

// sameMemory reports whether the parser wrote into the rows it was
// given, as it does when their types and shapes are the features'.
func sameMemory(out, rows []tensor.Tensor) bool {
	if len(out) != len(rows) {
		return false
	}
	for j := range out {
		if batchhook.Pointer(out[j]) != batchhook.Pointer(rows[j]) {
			return false
		}
	}
	return true
}

// fixedInto returns FixedLengthRecords' newDecoderInto, or nil when a
// field is bytes, has a Decode function or does not fill its shape: the
// others are decoded (and transposed) into memory the allocator lends, a
// batch at a time, as into memory of their own. order is the layout's:
// component i is field order[i].
func fixedInto(fields []Field, raws []*decode.Raw, trs []*transposer, order []int, plain func(reuse bool) (decoder, error)) func(batchhook.Allocator, bool) (decoder, error) {
	dtypes := make([]tensor.DType, len(order))
	shapes := make([]tensor.Shape, len(order)) // of one record
	flats := make([]int, len(order))           // values in one record
	for i, j := range order {
		f := fields[j]
		if raws[j] == nil || f.Decode != nil || f.Size%f.DType.Size() != 0 {
			return nil
		}
		n := f.Size / f.DType.Size()
		switch {
		case trs[j] != nil:
			shapes[i] = trs[j].shape
		case f.Shape != nil:
			shapes[i] = f.Shape
		default:
			shapes[i] = tensor.Shape{n}
		}
		if shapes[i].NumElements() != n {
			return nil
		}
		dtypes[i], flats[i] = f.DType, n
	}
	return func(a batchhook.Allocator, reuse bool) (decoder, error) {
		fallback, err := plain(reuse)
		if err != nil {
			return nil, err
		}
		in := &fixedIntoDecoder{a: a, dtypes: dtypes, shapes: shapes, flats: flats, fds: make([]fieldDecoder, len(order))}
		for i, j := range order {
			in.fds[i] = fieldDecoder{f: fields[j], raw: raws[j], tr: trs[j]}
		}
		return lentOrElse(in.decode, fallback), nil
	}
}

// A fixedIntoDecoder decodes each field of a batch of fixed-length
// records into the tensors an allocator lends.
type fixedIntoDecoder struct {
	a      batchhook.Allocator
	dtypes []tensor.DType
	shapes []tensor.Shape // of one record
	flats  []int          // values in one record
	fds    []fieldDecoder
	batch  []tensor.Shape // of the batch, reused
	// views holds the last few lent batches' values as [records, values
	// per record], the shape decode.Raw writes into, made once for each
	// of the few buffers an allocator lends in turn (intoDecoder.views).
	views []flatViews
}

type flatViews struct {
	base  []unsafe.Pointer
	flats []tensor.Tensor
}

// decode returns the batch of recs in memory the allocator lent, or nil
// when it lent none or a field failed to decode.
func (d *fixedIntoDecoder) decode(recs [][]byte) queue.Element {
	n := len(recs)
	d.batch = batchShapes(d.batch, d.shapes, n)
	dst := d.a.Alloc(d.dtypes, d.batch)
	if dst == nil {
		return nil
	}
	flats := d.flatsOf(dst, n)
	for i := range d.fds {
		if err := d.fds[i].into(recs, dst[i], flats[i]); err != nil {
			d.a.Put(dst)
			return nil
		}
	}
	return queue.Element(dst)
}

// flatsOf returns dst's tensors as [n, values per record].
func (d *fixedIntoDecoder) flatsOf(dst []tensor.Tensor, n int) []tensor.Tensor {
next:
	for _, v := range d.views {
		if v.flats[0].Len() != n {
			continue
		}
		for j, t := range dst {
			if v.base[j] != batchhook.Pointer(t) {
				continue next
			}
		}
		return v.flats
	}
	v := flatViews{base: make([]unsafe.Pointer, len(dst)), flats: make([]tensor.Tensor, len(dst))}
	for j, t := range dst {
		v.base[j] = batchhook.Pointer(t)
		// The allocator lent what was asked for, so that the shapes
		// agree: an error is the allocator's, and fails the batch to
		// the fallback.
		v.flats[j], _ = t.Reshape(tensor.Shape{n, d.flats[j]})
	}
	if len(d.views) == 32 {
		d.views = d.views[1:]
	}
	d.views = append(d.views, v)
	return v.flats
}
