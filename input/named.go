package input

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/sluiceml/sluice/queue"
)

// Named returns e after declaring, to the batching stage running the step,
// that e's components are called names, in that order:
//
//	return input.Named(ctx, ex.Components(), ex.ComponentNames()...), nil
//
// The stage then batches every component under its own name, as
// TensorFlow's batchers do with a dictionary of tensors: without Names, the
// stage's components are the step's, named and ordered as the step
// declares; with Names, each component is put in Names' place by name, so
// the two lists may differ in order, and a step whose names differ from
// Names as a set fails the stage with an error naming both. Called outside
// a stage, Named only returns e.
func Named(ctx context.Context, e queue.Element, names ...string) queue.Element {
	if d, ok := ctx.Value(declarationKey{}).(*declaration); ok {
		d.names, d.declared = names, true
	}
	return e
}

type declarationKey struct{}

// A declaration receives the names a step declares with Named.
type declaration struct {
	names    []string
	declared bool
}

// stageNames names a stage's components: with the Names option, or with
// the names its steps declare (Named), and puts every element's components
// in the stage's order.
type stageNames struct {
	stage string
	given []string // the Names option, or nil
	// givenSorted: given is in sorted order, the order of components laid
	// out by name (Example parsing's, TensorFlow's dictionaries).
	givenSorted bool

	mu      sync.Mutex
	fixed   []string // the stage's names once the first element fixed them
	unnamed bool     // the first element came without names or Names
}

func newStageNames(stage string, given []string) *stageNames {
	return &stageNames{stage: stage, given: given, givenSorted: slices.IsSorted(given)}
}

// names returns the stage's component names: Names, else the first
// declaration, else nil.
func (s *stageNames) names() []string {
	if s.given != nil {
		return s.given
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fixed
}

// fix returns the stage's names, fixing them to declared if neither Names
// nor an earlier declaration did. It fails if an earlier element came
// unnamed.
func (s *stageNames) fix(declared []string) ([]string, error) {
	if s.given != nil {
		return s.given, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unnamed {
		return nil, fmt.Errorf("input: %s: a step named its components %q, where another returned them unnamed", s.stage, declared)
	}
	if s.fixed == nil {
		s.fixed = slices.Clone(declared)
	}
	return s.fixed, nil
}

// fixUnnamed records that the stage's components have no names, without
// Names, or fails if an earlier element named them.
func (s *stageNames) fixUnnamed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fixed != nil {
		return fmt.Errorf("input: %s: a step returned unnamed components, where another named them %q (see Named)", s.stage, s.fixed)
	}
	s.unnamed = true
	return nil
}

// order maps the components of one step's elements to the stage's order.
// Each step goroutine has its own, so the mapping for a step that declares
// the same names every time is worked out once.
type order struct {
	declared []string // the declaration perm was made for
	perm     []int    // stage component i is step component perm[i]; nil: same order
	made     bool
}

// arrange returns e with its components in the stage's order. declared
// reports whether the step declared names.
func (s *stageNames) arrange(e queue.Element, names []string, declared bool, o *order) (queue.Element, error) {
	if !declared {
		if s.given == nil {
			return e, s.fixUnnamed()
		}
		// Unnamed components are taken in Names' order. Components laid
		// out by name come sorted, so Names out of that order is almost
		// surely a mistake that would put one feature's values under
		// another's name.
		if !s.givenSorted {
			return nil, fmt.Errorf("input: %s: the step's components are unnamed and Names %q is not in sorted order, the order components laid out by name have (Example parsing, TensorFlow's dictionaries); give Names as %q, or declare the step's own order with input.Named", s.stage, s.given, slices.Sorted(slices.Values(s.given)))
		}
		return e, nil
	}
	if len(names) != len(e) {
		return nil, fmt.Errorf("input: %s: the step names %d components %q but returns %d", s.stage, len(names), names, len(e))
	}
	if o.made && slices.Equal(o.declared, names) {
		return permute(e, o.perm), nil
	}
	target, err := s.fix(names)
	if err != nil {
		return nil, err
	}
	perm, err := mapping(names, target)
	if err != nil {
		return nil, fmt.Errorf("input: %s: %w", s.stage, err)
	}
	o.declared, o.perm, o.made = slices.Clone(names), perm, true
	return permute(e, perm), nil
}

// mapping returns, for each name of target, its position in declared (nil
// when the two are equal), or an error if they differ as sets.
func mapping(declared, target []string) ([]int, error) {
	if slices.Equal(declared, target) {
		if i, j, dup := duplicate(declared); dup {
			return nil, fmt.Errorf("the step names components %d and %d both %q", i, j, declared[i])
		}
		return nil, nil
	}
	perm := make([]int, len(target))
	for i, n := range target {
		perm[i] = slices.Index(declared, n)
	}
	_, _, dup := duplicate(declared)
	if len(declared) != len(target) || dup || slices.Contains(perm, -1) {
		return nil, fmt.Errorf("the step's components are named %q, but the stage's names are %q", declared, target)
	}
	return perm, nil
}

// duplicate reports the first repeated name in names, by position.
func duplicate(names []string) (i, j int, ok bool) {
	for j := range names {
		if i := slices.Index(names[:j], names[j]); i >= 0 {
			return i, j, true
		}
	}
	return 0, 0, false
}

func permute(e queue.Element, perm []int) queue.Element {
	if perm == nil {
		return e
	}
	out := make(queue.Element, len(perm))
	for i, p := range perm {
		out[i] = e[p]
	}
	return out
}
