package input

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sluiceml/sluice/internal/sealed"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/storage"
)

// ErrNotDeterministic is returned for a checkpoint of a pipeline whose
// order is not a function of its inputs and seed: one built without
// Deterministic, or without a Seed.
var ErrNotDeterministic = errors.New("not deterministic")

// ErrCheckpoint is returned by Start when the checkpoint given to Resume
// does not fit the pipeline: it is not a checkpoint, its version is
// unknown, it is damaged (its checksum does not match its content), or
// the pipeline's stages, options, seed or files differ from
// those of the run that saved it. The error names what differs.
var ErrCheckpoint = stagehook.ErrCheckpoint

// Version 2 is version 1 sealed (internal/sealed: a checksum of the
// content), so that a damaged checkpoint is refused rather than replayed
// to another place; version 1 checkpoints restore unchecked, as they did.
// Fields added later need omitempty, so that a checkpoint saved before
// keeps its checksum.
const (
	checkpointFormat  = "sluice.input.checkpoint"
	checkpointVersion = 2
	sealedVersion     = 2 // the first version sealed
)

// checkpoint is what Checkpoint writes, as JSON.
type checkpoint struct {
	Format  string        `json:"format"`
	Version int           `json:"version"`
	Seed    uint64        `json:"seed"`
	Stages  []stageRecord `json:"stages"`
}

// stageRecord is one stage in a checkpoint.
type stageRecord struct {
	Stage   string          `json:"stage"`
	Files   []fileRecord    `json:"files,omitempty"`
	Batches int64           `json:"batches,omitempty"` // taken by the consumer
	State   json.RawMessage `json:"state,omitempty"`
}

// fileRecord is a file a producer hands out, with its size when the
// checkpoint was saved (-1 if it could not be opened).
type fileRecord struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// Resume makes the pipeline continue a run from a checkpoint that
// Checkpoint returned: its consumers receive exactly the batches the run
// would have delivered next. The pipeline must be built as the run's was,
// with Deterministic and the same Seed, stages, options and files; Start
// checks that and returns an error wrapping ErrCheckpoint naming what
// differs.
//
// A checkpoint holds no examples: Start runs the pipeline again from the
// beginning, and each consumer's first call drops the batches the run had
// already delivered. A restore therefore costs as much time as the run up
// to the checkpoint took, without the consumer's work (the front door's
// sluice.Deterministic engine restores from record positions instead, at
// the cost of one refill of its shuffle buffer). The state saver's carried
// states, which no input holds, are saved in the checkpoint as they are.
func Resume(checkpoint []byte) PipelineOption {
	data := slices.Clone(checkpoint)
	return pipelineOption(func(p *Pipeline) { p.resume = data })
}

// Checkpoint returns the state of a deterministic pipeline between two
// batches: call it when no consumer is inside a call for a batch, and,
// with a state saver, after the states of every batch taken were saved.
// Pass it to Resume to continue in another process. It may be called
// before Start and while the pipeline runs; it never blocks its stages.
//
// The pipeline needs Deterministic and a Seed, else the error wraps
// ErrNotDeterministic. Values a program enqueues itself (feeding) are not
// part of a checkpoint: a pipeline fed so is the program's to restore.
func (p *Pipeline) Checkpoint(ctx context.Context) ([]byte, error) {
	p.mu.Lock()
	deterministic, seed, stages := p.deterministic, p.seed, slices.Clone(p.stages)
	resume := p.resume
	if p.started {
		resume = nil
	}
	p.mu.Unlock()
	if !deterministic || seed == nil {
		return nil, fmt.Errorf("input: checkpoint: the pipeline needs Deterministic and Seed: %w", ErrNotDeterministic)
	}
	if resume != nil {
		// Not started: the stages have not read the checkpoint yet
		// (Start does), and their position is its.
		return slices.Clone(resume), nil
	}
	ck := checkpoint{Format: checkpointFormat, Version: checkpointVersion, Seed: *seed}
	for _, s := range stages {
		rec := stageRecord{Stage: s.Desc, Batches: s.Batches()}
		for _, name := range s.Files {
			rec.Files = append(rec.Files, fileRecord{Name: name, Size: fileSize(ctx, name)})
		}
		state, err := s.Checkpoint()
		if err != nil {
			return nil, fmt.Errorf("input: checkpoint: %s: %w", s.Desc, err)
		}
		rec.State = state
		ck.Stages = append(ck.Stages, rec)
	}
	return sealed.Marshal(ck)
}

// fileSize returns the size of the file name, or -1 if it cannot be
// opened: a producer's strings need not be files.
func fileSize(ctx context.Context, name string) int64 {
	f, err := storage.Open(ctx, name)
	if err != nil {
		return -1
	}
	defer f.Close()
	return f.Size()
}

// addStage implements stagehook.Pipeline.AddStage.
func (p *Pipeline) addStage(s *stagehook.Stage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s.Stopping = p.coord.ShouldStop
	s.Pipeline = p
	p.stages = append(p.stages, s)
}

// restore checks the checkpoint given to Resume against the pipeline and
// sets every stage up to replay it. Start calls it before starting
// anything.
func (p *Pipeline) restore(ctx context.Context) error {
	if p.resume == nil {
		return nil
	}
	if !p.deterministic || p.seed == nil {
		return fmt.Errorf("input: resume: the pipeline needs Deterministic and Seed: %w", ErrNotDeterministic)
	}
	var ck checkpoint
	ok, err := sealed.Unmarshal(p.resume, &ck)
	damaged := errors.Is(err, sealed.ErrDamaged)
	switch {
	case err != nil && !damaged || ck.Format != checkpointFormat:
		return fmt.Errorf("input: resume: not a checkpoint of an input pipeline: %w", ErrCheckpoint)
	case damaged:
		return fmt.Errorf("input: resume: checkpoint %w: %w", err, ErrCheckpoint)
	case ck.Version < 1 || ck.Version > checkpointVersion:
		return fmt.Errorf("input: resume: checkpoint version %d, this sluice reads versions 1 to %d: %w", ck.Version, checkpointVersion, ErrCheckpoint)
	case !ok && ck.Version >= sealedVersion:
		return fmt.Errorf("input: resume: checkpoint %w (version %d without its crc32c): %w", sealed.ErrDamaged, ck.Version, ErrCheckpoint)
	}
	if ck.Seed != *p.seed {
		return fmt.Errorf("input: resume: the checkpoint's pipeline seed is %d, this pipeline's %d: %w", ck.Seed, *p.seed, ErrCheckpoint)
	}
	if len(ck.Stages) != len(p.stages) {
		return fmt.Errorf("input: resume: the checkpoint's pipeline has %d stages (%s), this one %d (%s): %w",
			len(ck.Stages), recordDescs(ck.Stages), len(p.stages), stageDescs(p.stages), ErrCheckpoint)
	}
	for i, rec := range ck.Stages {
		s := p.stages[i]
		if rec.Stage != s.Desc {
			was, now := differing(rec.Stage, s.Desc)
			header, _, _ := strings.Cut(s.Desc, ": ")
			return fmt.Errorf("input: resume: stage %d, %s: %s in the checkpoint's pipeline, %s in this one: %w", i+1, header, was, now, ErrCheckpoint)
		}
		for j, f := range rec.Files {
			if j >= len(s.Files) || s.Files[j] != f.Name {
				now := "nothing"
				if j < len(s.Files) {
					now = s.Files[j]
				}
				return fmt.Errorf("input: resume: %s: name %d was %s in the checkpoint's pipeline and is %s: %w", s.Desc, j+1, f.Name, now, ErrCheckpoint)
			}
			if size := fileSize(ctx, f.Name); size != f.Size {
				return fmt.Errorf("input: resume: %s: %s has %d bytes, %d when the checkpoint was saved: %w", s.Desc, f.Name, size, f.Size, ErrCheckpoint)
			}
		}
		if len(rec.Files) != len(s.Files) {
			// A checkpoint lists every file its stage hands out: one
			// listing fewer would skip the check of the others' sizes
			// (audit 95).
			return fmt.Errorf("input: resume: %s: the checkpoint lists %d files of its %d: %w", s.Desc, len(rec.Files), len(s.Files), ErrCheckpoint)
		}
	}
	for i, rec := range ck.Stages {
		if rec.Batches < 0 {
			return fmt.Errorf("input: resume: %s: %d batches: %w", rec.Stage, rec.Batches, ErrCheckpoint)
		}
		p.stages[i].Restore(rec.Batches, rec.State)
	}
	return nil
}

// differing returns the first part of two stage descriptions (parts are
// separated by ", " or ": ") that differs, so that an error names the
// option that changed rather than two long lines to compare.
func differing(was, now string) (string, string) {
	split := func(s string) []string { return strings.Split(strings.ReplaceAll(s, ": ", ", "), ", ") }
	w, n := split(was), split(now)
	for i := range min(len(w), len(n)) {
		if w[i] != n[i] {
			return w[i], n[i]
		}
	}
	return was, now
}

func recordDescs(rs []stageRecord) string {
	descs := make([]string, len(rs))
	for i, r := range rs {
		descs[i] = r.Stage
	}
	return strings.Join(descs, "; ")
}

func stageDescs(ss []*stagehook.Stage) string {
	descs := make([]string, len(ss))
	for i, s := range ss {
		descs[i] = s.Desc
	}
	return strings.Join(descs, "; ")
}

// describe returns the options of cfg that shape what a stage hands out,
// for a Stage's Desc.
func (c *stageConfig) describe() string {
	if c == nil {
		return ""
	}
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	add("capacity %d", c.capacity)
	if c.numEpochs > 0 {
		add("num_epochs %d", c.numEpochs)
	}
	if c.shuffle {
		add("shuffle")
	}
	if c.seed != nil {
		add("seed %d", *c.seed)
	}
	if c.threads > 0 {
		add("threads %d", c.threads)
	}
	if c.minAfterDequeue > 0 {
		add("min_after_dequeue %d", c.minAfterDequeue)
	}
	if c.enqueueMany {
		add("enqueue_many")
	}
	if c.dynamicPad {
		add("dynamic_pad")
	}
	if c.allowSmaller {
		add("allow_smaller_final_batch")
	}
	if c.names != nil {
		add("names %q", c.names)
	}
	if c.set["Shard"] {
		add("shard %d of %d", c.shardIndex, c.shardCount)
	}
	if c.elementShape != nil {
		add("element_shape %v", c.elementShape)
	}
	return strings.Join(parts, ", ")
}
