package recordio

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of TensorFlow's ReaderBaseState. positionField is sluice's
// addition: the format's position inside the current unit. TensorFlow's
// parser keeps it as an unknown field. shardPosField, also sluice's, is
// the number of records met in the current unit, saved only by a sharded
// reader, which needs it to go on keeping the right records.
const (
	workStartedField   = 1
	workFinishedField  = 2
	numProducedField   = 3
	currentWorkField   = 4
	positionField      = 16
	shardPosField      = 17
	maxStateWorkLength = 1 << 20
)

// SerializeState returns the reader's state, TensorFlow's ReaderBaseState
// proto: units started and finished, records produced and the current
// unit, plus, while a unit is in progress, the format's position in it.
func (r *Reader) SerializeState() ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b []byte
	if r.started != 0 {
		b = protowire.AppendTag(b, workStartedField, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(r.started))
	}
	if r.finished != 0 {
		b = protowire.AppendTag(b, workFinishedField, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(r.finished))
	}
	if r.produced != 0 {
		b = protowire.AppendTag(b, numProducedField, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(r.produced))
	}
	if r.work != "" {
		b = protowire.AppendTag(b, currentWorkField, protowire.BytesType)
		b = protowire.AppendString(b, r.work)
	}
	if r.inProgress() {
		p, ok := r.f.(Positioner)
		if !ok {
			return nil, fmt.Errorf("%v: cannot save a position inside a unit: the format does not implement Positioner", r)
		}
		pos, err := p.Position()
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, positionField, protowire.BytesType)
		b = protowire.AppendBytes(b, pos)
		if r.shard.set && r.position != 0 {
			b = protowire.AppendTag(b, shardPosField, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(r.position))
		}
	}
	return b, nil
}

// RestoreState restores a state SerializeState returned, reopening the
// unit in progress at its saved position. A state that does not parse or
// is inconsistent is an error wrapping ErrState, in TensorFlow's words; a
// failed restore leaves the reader reset.
//
// States are TensorFlow's: a state TensorFlow's IdentityReader or
// WholeFileReader saved restores here, and a state saved here between
// units restores in TensorFlow. A state saved inside a unit (more units
// started than finished, with sluice's position) is sluice's own:
// TensorFlow rejects it as inconsistent, as it rejects every such state.
func (r *Reader) RestoreState(ctx context.Context, state []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.restoreLocked(ctx, state)
	if err != nil {
		r.resetLocked()
	}
	return err
}

// readerState is a parsed ReaderBaseState.
type readerState struct {
	started, finished, produced int64
	shardPos                    int64
	work                        string
	pos                         []byte
	hasPos                      bool
}

// parseState parses a ReaderBaseState as protobuf would: fields in any
// order, the last occurrence of a scalar winning, unknown fields and known
// fields of another wire type skipped.
func parseState(b []byte) (st readerState, ok bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return st, false
		}
		b = b[n:]
		switch {
		case num >= workStartedField && num <= numProducedField && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return st, false
			}
			b = b[n:]
			switch num {
			case workStartedField:
				st.started = int64(v)
			case workFinishedField:
				st.finished = int64(v)
			default:
				st.produced = int64(v)
			}
		case num == shardPosField && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return st, false
			}
			b = b[n:]
			st.shardPos = int64(v)
		case (num == currentWorkField || num == positionField) && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 || len(v) > maxStateWorkLength {
				return st, false
			}
			b = b[n:]
			if num == currentWorkField {
				st.work = string(v)
			} else {
				st.pos, st.hasPos = append(st.pos[:0], v...), true
			}
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return st, false
			}
			b = b[n:]
		}
	}
	return st, true
}

func (r *Reader) restoreLocked(ctx context.Context, b []byte) error {
	st, ok := parseState(b)
	if !ok {
		return fmt.Errorf("%w: Could not parse state for %v: %q", ErrState, r, b)
	}
	if st.started < 0 || st.finished < 0 || st.produced < 0 || st.shardPos < 0 {
		return fmt.Errorf("%w: Unexpected negative value when restoring in %v: work_started %d, work_finished %d, num_records_produced %d",
			ErrState, r, st.started, st.finished, st.produced)
	}
	// TensorFlow accepts finished > started, a state no reader can be in,
	// which leaves its counters unable to tell when a unit is in
	// progress; sluice rejects it with the same message as the reverse.
	midUnit := st.hasPos && st.started == st.finished+1
	if st.started != st.finished && !midUnit {
		return fmt.Errorf("%w: Inconsistent work started vs. finished when restoring in %v: work_started %d, work_finished %d",
			ErrState, r, st.started, st.finished)
	}
	if err := r.f.Reset(); err != nil {
		return err
	}
	r.work, r.started, r.finished, r.produced = st.work, st.started, st.finished, st.produced
	r.position = 0
	r.setUnit(st.work)
	if !midUnit {
		return nil
	}
	p, ok := r.f.(Positioner)
	if !ok {
		return fmt.Errorf("%w: %v cannot resume inside unit %q: the format does not implement Positioner", ErrState, r, st.work)
	}
	if err := p.Seek(ctx, st.work, st.pos); err != nil {
		return fmt.Errorf("%w: %v cannot resume inside unit %q: %w", ErrState, r, st.work, err)
	}
	r.position = st.shardPos
	return nil
}
