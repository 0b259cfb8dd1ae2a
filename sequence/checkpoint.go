package sequence

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/tensor"
)

// A state saver in a deterministic pipeline takes part in its checkpoints
// (input.Pipeline.Checkpoint). Its batches are replayed like any stage's,
// but the states it carries from one segment to the next were written by
// the model, and no input holds them: the checkpoint saves, for every
// segment not yet delivered whose state was saved, that state as it is.
// On replay the states saved for the dropped batches are those values
// (for the segments the checkpoint names) or the batch's own (for the
// others, which the replay drops too), so the first batch delivered
// carries exactly the states the model saved before the checkpoint.

// carried holds the states saved for segments not yet delivered, by the
// segment's key, and counts the delivered batches whose states are not all
// saved: a checkpoint is only whole without such batches.
type carried struct {
	mu      sync.Mutex
	states  map[string]map[string]tensor.Tensor // segment key → state name → value
	unsaved int
	odd     bool // NextN took a batch of another size than BatchSize
}

// save records the states saved for the segments keys.
func (c *carried) save(name string, keys []string, values tensor.Tensor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.states == nil {
		c.states = make(map[string]map[string]tensor.Tensor)
	}
	for r, k := range keys {
		m := c.states[k]
		if m == nil {
			m = make(map[string]tensor.Tensor)
			c.states[k] = m
		}
		m[name] = values.Row(r)
	}
}

// delivered forgets the states of segments now in a batch.
func (c *carried) delivered(keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		delete(c.states, k)
	}
}

// savedState is a segment's carried states in a checkpoint.
type savedState struct {
	Key    string                 `json:"key"`
	Values map[string]savedTensor `json:"values"`
}

// savedTensor is a tensor in a checkpoint: its values little-endian, or
// its strings.
type savedTensor struct {
	DType   string   `json:"dtype"`
	Shape   []int    `json:"shape"`
	Data    []byte   `json:"data,omitempty"`
	Strings [][]byte `json:"strings,omitempty"`
}

// checkpoint returns the carried states, sorted by key.
func (c *carried) checkpoint() (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unsaved > 0 {
		return nil, fmt.Errorf("sequence: %d batches delivered without all their states saved: save them before a checkpoint", c.unsaved)
	}
	if c.odd {
		return nil, errors.New("sequence: NextN took a batch of another size than BatchSize: a checkpoint can only replay Next")
	}
	out := make([]savedState, 0, len(c.states))
	for k, m := range c.states {
		s := savedState{Key: k, Values: make(map[string]savedTensor, len(m))}
		for name, v := range m {
			t, err := encodeTensor(v)
			if err != nil {
				return nil, fmt.Errorf("sequence: state %s of %s: %w", name, k, err)
			}
			s.Values[name] = t
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b savedState) int { return strings.Compare(a.Key, b.Key) })
	return json.Marshal(out)
}

// restoredStates decodes what checkpoint returned, checking each value
// against the state's declaration.
func (s *StateSaver) restoredStates(data json.RawMessage) (map[string]map[string]tensor.Tensor, error) {
	var saved []savedState
	if len(data) > 0 {
		if err := json.Unmarshal(data, &saved); err != nil {
			return nil, fmt.Errorf("sequence: %s: the checkpoint's states: %w", s.name, err)
		}
	}
	out := make(map[string]map[string]tensor.Tensor, len(saved))
	for _, st := range saved {
		m := make(map[string]tensor.Tensor, len(st.Values))
		for name, v := range st.Values {
			i, ok := s.stateIndex[name]
			if !ok {
				return nil, fmt.Errorf("sequence: %s: the checkpoint has state %q, which is not declared: %w", s.name, name, ErrUnknownState)
			}
			want := s.initial[i] // [1]+shape
			t, err := decodeTensor(v, want.DType(), want.Shape()[1:])
			if err != nil {
				return nil, fmt.Errorf("sequence: %s: state %s of %s in the checkpoint: %w", s.name, name, st.Key, err)
			}
			m[name] = t
		}
		out[st.Key] = m
	}
	return out, nil
}

// A replayCheck follows a restore's replay: the segments whose states the
// checkpoint saved, and whether a replayed batch met them. The replay
// meets every one a checkpoint saved (the states were saved for the next
// segments of the batches it replays), so a state of a segment never met
// is a crafted checkpoint's, which would be dropped without a word, the
// segment starting from its initial state: it is refused (audit 95).
type replayCheck struct {
	mu    sync.Mutex
	saved map[string]bool // by segment key: met
	err   error
}

// start records the segments of the states restored, once.
func (c *replayCheck) start(restored map[string]map[string]tensor.Tensor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.saved == nil && c.err == nil {
		c.saved = make(map[string]bool, len(restored))
		for k := range restored {
			c.saved[k] = false
		}
	}
}

// meet marks the segments of a replayed batch's next states.
func (c *replayCheck) meet(keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		if _, ok := c.saved[k]; ok {
			c.saved[k] = true
		}
	}
}

// end returns, once the replay is over, the error of a saved state no
// replayed batch met; the same error after it.
func (c *replayCheck) end(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.saved != nil {
		var unmet []string
		for k, met := range c.saved {
			if !met {
				unmet = append(unmet, k)
			}
		}
		c.saved = nil
		if len(unmet) > 0 {
			slices.Sort(unmet)
			c.err = fmt.Errorf("sequence: %s: the checkpoint saved states of %d segments the replay never met, the first %q: %w",
				name, len(unmet), unmet[0], stagehook.ErrCheckpoint)
		}
	}
	return c.err
}

// replayOne takes the next batch and saves its states as the checkpoint
// restored says, dropping it: one step of a restore's replay.
func (s *StateSaver) replayOne(ctx context.Context, restored map[string]map[string]tensor.Tensor) error {
	b, err := s.nextN(ctx, s.batchSize, nil)
	if err != nil {
		return err
	}
	s.replayed.meet(b.nextKeys)
	for i, name := range s.stateNames {
		value := b.states[i].Clone()
		for j, k := range b.nextKeys {
			if v, ok := restored[k][name]; ok && !b.done[j] {
				if err := value.SetRow(j, v); err != nil {
					return fmt.Errorf("sequence: %s: restoring state %s of %s: %w", s.name, name, k, err)
				}
			}
		}
		if err := b.SaveState(ctx, name, value); err != nil {
			return err
		}
	}
	return nil
}

// describe returns what shapes the state saver's batches, for the
// identity of checkpoints: its options and its initial states.
func (s *StateSaver) describe(c *config) string {
	h := fnv.New64a()
	for i, name := range s.stateNames {
		fmt.Fprint(h, name, s.initial[i].DType(), s.initial[i].Shape(), s.initial[i].Data())
	}
	d := fmt.Sprintf("batch_sequences_with_states %q: batch size %d, num_unroll %d, capacity %d, allow_smaller_final_batch %t, pad %t, make_keys_unique %t, threads %d, states %q with initial values %016x",
		s.name, s.batchSize, s.numUnroll, s.capacity, s.allowSmall, c.pad, c.makeKeysUnique, c.numThreads, s.stateNames, h.Sum64())
	if c.makeKeysUnique && c.seed != nil {
		// The keys the saved states are stored under come from it
		// (without Seed, from the pipeline's, which the checkpoint
		// holds).
		d += fmt.Sprintf(", make_keys_unique_seed %d", *c.seed)
	}
	return d
}

// encodeTensor returns t for a checkpoint.
func encodeTensor(t tensor.Tensor) (savedTensor, error) {
	out := savedTensor{DType: t.DType().String(), Shape: t.Shape()}
	if t.DType() == tensor.String {
		out.Strings = t.Strings()
		return out, nil
	}
	data, err := binary.Append(nil, binary.LittleEndian, t.Data())
	if err != nil {
		return savedTensor{}, err
	}
	out.Data = data
	return out, nil
}

// decodeTensor returns the tensor st holds, which must be of dtype and
// shape: the length of its data is checked before anything is allocated.
func decodeTensor(st savedTensor, dtype tensor.DType, shape tensor.Shape) (tensor.Tensor, error) {
	if st.DType != dtype.String() || !slices.Equal(st.Shape, shape) {
		return tensor.Tensor{}, fmt.Errorf("a %s %v value, want %s %v", st.DType, st.Shape, dtype, shape)
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	if dtype == tensor.String {
		if len(st.Strings) != n {
			return tensor.Tensor{}, fmt.Errorf("%d strings for shape %v", len(st.Strings), shape)
		}
		return tensor.FromData(st.Strings, shape)
	}
	if len(st.Data) != n*dtype.Size() {
		return tensor.Tensor{}, fmt.Errorf("%d bytes of data for a %s %v value", len(st.Data), dtype, shape)
	}
	t := tensor.Zeros(dtype, shape)
	if _, err := binary.Decode(st.Data, binary.LittleEndian, t.Data()); err != nil {
		return tensor.Tensor{}, err
	}
	return t, nil
}
