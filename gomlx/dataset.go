// Package gomlx feeds sluice batches to GoMLX: a Dataset here is a GoMLX
// train.Dataset (github.com/gomlx/gomlx/pkg/ml/train) that reads a
// sluice.Dataset, one batch per Yield, as GoMLX tensors.
//
//	spec := example.Spec{
//		"image": example.FixedLen(tensor.Float32, 784),
//		"label": example.FixedLen(tensor.Int64),
//	}
//	src := sluice.Examples("data/train-*.tfrecord.gz", spec, sluice.Shuffle(10000))
//	ds, err := gomlx.New(ctx, src, 128, []string{"image"}, []string{"label"})
//	if err != nil {
//		return err
//	}
//	defer ds.Close()
//	_, err = train.NewLoop(trainer).RunEpochs(ds, 10)
//
// The package lives in a module of its own, so that programs that do not
// use GoMLX do not build it.
//
// # Epochs
//
// One GoMLX epoch is one pass of the sluice data set (a sluice.Iterator):
// Yield returns io.EOF where the pass ends, and Reset starts a new one. A
// data set built with sluice.Epochs(n) therefore makes GoMLX epochs of n
// passes over the files, and one built with sluice.Forever never ends an
// epoch (what train.Loop.RunSteps wants). Reset in the middle of an epoch
// stops the running pass's goroutines before the next Yield starts a new
// one. A data set built with sluice.Seed starts every pass in the same
// seeded order, so GoMLX epochs of one pass each see one order; the n
// passes of sluice.Epochs(n) are each shuffled anew.
//
// # Resuming
//
// A data set read with sluice.Deterministic (or sluice.GlobalShuffle)
// resumes exactly: Checkpoint, saved with the model, returns the position
// after the batches yielded, and a new Dataset given it with the Resume
// option starts its first pass there.
//
// # Shapes
//
// Each feature becomes one tensor of shape [batch] + the feature's shape,
// of the GoMLX dtype of the feature's type. GoMLX compiles a graph per
// combination of shapes, so a change of shape costs a compilation: the
// last batch of an epoch is smaller unless sluice.DropRemainder is given,
// and sparse features are padded to the longest record of each batch.
// String features have no GoMLX dtype: naming one is an error of the first
// Yield, as is naming a feature the sluice data set does not have.
package gomlx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/tensor"
	"github.com/x448/float16"
)

// ErrInvalid is wrapped by the errors of arguments out of range: no inputs,
// a name given twice, a batch size below 1.
var ErrInvalid = errors.New("invalid argument")

// ErrClosed is returned by Yield after Close.
var ErrClosed = errors.New("sluice/gomlx: Yield after Close")

// ErrDType is wrapped by the error of a feature whose type has no GoMLX
// dtype (strings).
var ErrDType = errors.New("no GoMLX dtype")

// Spec describes the batches of a Dataset: the names of the features in
// the order of its inputs and labels. Yield returns the Dataset's *Spec
// with every batch, the same pointer each time (GoMLX keys its compiled
// graphs by the spec, so it must not change), and GoMLX passes it to the
// model function, which can find an input's position by name.
type Spec struct {
	Inputs, Labels []string
}

// An Option changes a Dataset's defaults.
type Option func(*Dataset)

// Name sets the name that Name returns (default "sluice"), which GoMLX
// shows in its metrics and plots.
func Name(name string) Option { return func(d *Dataset) { d.name = name } }

// BatchOptions passes options to each pass's sluice Iterator, such as
// sluice.DropRemainder() to keep every batch the same shape. Each pass
// takes them all: a sluice.Resume among them would start every pass at
// its checkpoint, leaving the records before it out of every epoch (the
// Resume option starts the first pass alone there).
func BatchOptions(opts ...sluice.BatchOption) Option {
	return func(d *Dataset) { d.batchOpts = append(d.batchOpts, opts...) }
}

// Resume starts the first pass at checkpoint, which Checkpoint returned
// (of a sluice data set read with sluice.Deterministic or
// sluice.GlobalShuffle): a training job that resumes its model resumes its
// data with it. The passes after Reset start from the beginning.
func Resume(checkpoint []byte) Option {
	return func(d *Dataset) { d.resume = checkpoint }
}

// A Dataset is a GoMLX train.Dataset that reads a sluice.Dataset. Its
// methods may be called from any goroutine, one at a time as GoMLX calls
// them.
//
// A Dataset whose pass is not read to its end (an endless one under
// train.Loop.RunSteps, say) holds goroutines until Reset or Close, even
// after its context is done; call Close when done with it.
type Dataset struct {
	ctx       context.Context
	cancel    context.CancelCauseFunc // by Close, to stop a Yield that waits
	src       *sluice.Dataset
	batchSize int
	spec      *Spec
	name      string
	batchOpts []sluice.BatchOption

	mu     sync.Mutex
	it     *sluice.Iterator // the pass, running or ended; nil before it starts
	resume []byte           // the first pass's checkpoint (Resume)
	err    error            // io.EOF at the end of the pass, or its error
	closed bool
}

var _ train.Dataset = (*Dataset)(nil)

// New returns a Dataset that yields src in batches of batchSize records:
// the features named by inputs as the inputs of each step, those named by
// labels as its labels, in the order given. Labels may be empty (for
// inference). The names are checked against src's features when the first
// batch arrives. ctx bounds every loop: once it is done, Yield returns its
// error (wrapped).
func New(ctx context.Context, src *sluice.Dataset, batchSize int, inputs, labels []string, opts ...Option) (*Dataset, error) {
	if src == nil {
		return nil, fmt.Errorf("sluice/gomlx: nil sluice.Dataset: %w", ErrInvalid)
	}
	if batchSize < 1 {
		return nil, fmt.Errorf("sluice/gomlx: batch size %d: %w", batchSize, ErrInvalid)
	}
	if len(inputs) == 0 {
		return nil, fmt.Errorf("sluice/gomlx: no inputs: %w", ErrInvalid)
	}
	seen := map[string]bool{}
	for _, n := range slices.Concat(inputs, labels) {
		if seen[n] {
			return nil, fmt.Errorf("sluice/gomlx: feature %q named twice: %w", n, ErrInvalid)
		}
		seen[n] = true
	}
	d := &Dataset{
		src:       src,
		batchSize: batchSize,
		spec:      &Spec{Inputs: slices.Clone(inputs), Labels: slices.Clone(labels)},
		name:      "sluice",
	}
	for _, o := range opts {
		o(d)
	}
	d.ctx, d.cancel = context.WithCancelCause(ctx)
	return d, nil
}

// Name returns the data set's name (see the Name option).
func (d *Dataset) Name() string { return d.name }

// Reset starts the data set again from its beginning: the next Yield
// starts a new pass of the sluice data set (unless it is closed). A pass
// still running is stopped, and its goroutines have ended when Reset
// returns.
func (d *Dataset) Reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.halt()
}

// Close stops the running pass, if any, as Reset does, and ends the
// Dataset: Yield then returns ErrClosed, rather than start a pass whose
// goroutines no one would stop. A Yield that waits for a batch in another
// goroutine (a slow source; Close from a signal handler, say) returns
// then with an error wrapping ErrClosed. It returns nil, and closing again
// does nothing.
func (d *Dataset) Close() error {
	// First, without the lock, which a waiting Yield holds (audit 92:
	// Close waited as long as it did).
	d.cancel(ErrClosed)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.halt()
	d.closed = true
	return nil
}

func (d *Dataset) halt() {
	if d.it != nil {
		d.it.Close()
	}
	d.it, d.err = nil, nil
}

// Checkpoint returns the position after the batches Yield has returned in
// this pass, which the Resume option of a new Dataset over the same sluice
// data set resumes from: the pass's sluice.Iterator's Checkpoint. It works
// for a data set read with sluice.Deterministic or sluice.GlobalShuffle
// (any other's is an error), between Yields and after the pass has ended
// or failed (an error does not move the position), but not before the
// first Yield of a pass.
func (d *Dataset) Checkpoint() ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.it == nil {
		return nil, fmt.Errorf("sluice/gomlx: Checkpoint before the pass's first Yield: %w", ErrInvalid)
	}
	ck, err := d.it.Checkpoint()
	if err != nil {
		return nil, d.wrap(err)
	}
	return ck, nil
}

// Yield returns the next batch: spec is the Dataset's *Spec, and inputs and
// labels hold one tensor per feature named to New, of shape [batch] + the
// feature's shape. At the end of the pass it returns io.EOF, and again on
// every call until Reset. An error of the sluice loop (a corrupt record, a
// missing file) is returned, wrapped, in the same way, and so is the
// context's once it is done, even with batches made before it ended.
func (d *Dataset) Yield() (spec any, inputs, labels []*tensors.Tensor, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, nil, nil, ErrClosed
	}
	if d.err == nil && d.ctx.Err() != nil {
		d.end(d.wrap(context.Cause(d.ctx)))
	}
	if d.err != nil {
		return nil, nil, nil, d.err
	}
	if d.it == nil {
		opts := d.batchOpts
		if d.resume != nil {
			opts = append(slices.Clip(opts), sluice.Resume(d.resume))
			d.resume = nil // the first pass's alone
		}
		it, err := d.src.Iterator(d.ctx, d.batchSize, opts...)
		if err != nil {
			d.err = d.wrap(err)
			return nil, nil, nil, d.err
		}
		d.it = it
	}
	b, err := d.it.Next()
	if errors.Is(err, io.EOF) {
		d.end(io.EOF)
		return nil, nil, nil, io.EOF
	}
	if err != nil {
		d.end(d.wrap(err))
		return nil, nil, nil, d.err
	}
	inputs, err = convert(b, d.spec.Inputs)
	if err == nil {
		labels, err = convert(b, d.spec.Labels)
	}
	if err != nil {
		d.end(d.wrap(err))
		return nil, nil, nil, d.err
	}
	return d.spec, inputs, labels, nil
}

// wrap names the package, and the data set if it was given a name, in
// err.
func (d *Dataset) wrap(err error) error {
	if d.name == "sluice" {
		return fmt.Errorf("sluice/gomlx: %w", err)
	}
	return fmt.Errorf("sluice/gomlx: %s: %w", d.name, err)
}

// end stops the pass and keeps err for the calls of Yield up to Reset.
// The stopped Iterator stays, for Checkpoint.
func (d *Dataset) end(err error) {
	if d.it != nil {
		d.it.Close()
	}
	d.err = err
}

// convert copies the named features of b into new GoMLX tensors.
func convert(b *sluice.Batch, names []string) ([]*tensors.Tensor, error) {
	have := b.Names()
	ts := make([]*tensors.Tensor, 0, len(names))
	for _, n := range names {
		if !slices.Contains(have, n) {
			finalize(ts)
			return nil, fmt.Errorf("no feature %q (the features are %q): %w", n, have, ErrInvalid)
		}
		// A SparseFeature of a space larger than memory (a hashed
		// feature) has no dense form: an error, where Dense panics
		// (audit 115).
		if err := b.CheckDense(n); err != nil {
			finalize(ts)
			return nil, err // it names the feature
		}
		t, err := Tensor(b.Dense(n))
		if err != nil {
			finalize(ts)
			return nil, fmt.Errorf("feature %q: %w", n, err)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func finalize(ts []*tensors.Tensor) {
	for _, t := range ts {
		t.MustFinalizeAll()
	}
}

// Tensor returns a GoMLX tensor of t's shape and values, copied; t may be
// reused once it returns. A tensor of strings, which GoMLX cannot hold,
// is an error wrapping ErrDType.
func Tensor(t tensor.Tensor) (*tensors.Tensor, error) {
	dims := []int(t.Shape())
	switch t.DType() {
	case tensor.Bool:
		return tensors.FromFlatDataAndDimensions(t.Bools(), dims...), nil
	case tensor.Int8:
		return tensors.FromFlatDataAndDimensions(t.Int8s(), dims...), nil
	case tensor.Int16:
		return tensors.FromFlatDataAndDimensions(t.Int16s(), dims...), nil
	case tensor.Int32:
		return tensors.FromFlatDataAndDimensions(t.Int32s(), dims...), nil
	case tensor.Int64:
		return tensors.FromFlatDataAndDimensions(t.Int64s(), dims...), nil
	case tensor.Uint8:
		return tensors.FromFlatDataAndDimensions(t.Uint8s(), dims...), nil
	case tensor.Uint16:
		return tensors.FromFlatDataAndDimensions(t.Uint16s(), dims...), nil
	case tensor.Uint32:
		return tensors.FromFlatDataAndDimensions(t.Uint32s(), dims...), nil
	case tensor.Uint64:
		return tensors.FromFlatDataAndDimensions(t.Uint64s(), dims...), nil
	case tensor.Float16:
		// Both are IEEE 754 half-precision bits in a uint16.
		g := tensors.FromShape(shapes.Make(dtypes.Float16, dims...))
		src := t.Halfs()
		tensors.MustMutableFlatData(g, func(dst []float16.Float16) {
			for i, v := range src {
				dst[i] = float16.Float16(v)
			}
		})
		return g, nil
	case tensor.Float32:
		return tensors.FromFlatDataAndDimensions(t.Float32s(), dims...), nil
	case tensor.Float64:
		return tensors.FromFlatDataAndDimensions(t.Float64s(), dims...), nil
	case tensor.Complex64:
		return tensors.FromFlatDataAndDimensions(t.Complex64s(), dims...), nil
	case tensor.Complex128:
		return tensors.FromFlatDataAndDimensions(t.Complex128s(), dims...), nil
	}
	return nil, fmt.Errorf("%v: %w", t.DType(), ErrDType)
}
