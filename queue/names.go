package queue

import (
	"slices"
	"sort"

	"github.com/sluiceml/sluice/tensor"
)

// FromMap builds an element for q from named components, TensorFlow's
// dictionary enqueue. q must have names, and m must hold exactly them.
func FromMap(q Queue, m map[string]tensor.Tensor) (Element, error) {
	names := q.Names()
	if names == nil {
		return nil, invalidf("Queue '%s' must have names to enqueue a dictionary", q.Name())
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sorted := slices.Sorted(slices.Values(names))
	if !slices.Equal(keys, sorted) {
		return nil, invalidf("Keys in dictionary to enqueue %q do not match names of Queue %q", keys, sorted)
	}
	e := make(Element, len(names))
	for i, n := range names {
		e[i] = m[n]
	}
	return e, nil
}

// Lookup returns the component of e named name in q, and whether there is
// one.
func Lookup(q Queue, e Element, name string) (tensor.Tensor, bool) {
	i := slices.Index(q.Names(), name)
	if i < 0 || i >= len(e) {
		return tensor.Tensor{}, false
	}
	return e[i], true
}

// ToMap returns e's components keyed by q's names. e must have as many
// components as q has names.
func ToMap(q Queue, e Element) (map[string]tensor.Tensor, error) {
	names := q.Names()
	if names == nil {
		return nil, buildErrorf("Queue '%s' has no names", q.Name())
	}
	if len(e) != len(names) {
		return nil, invalidf("an element of %d components for Queue '%s' of %d names", len(e), q.Name(), len(names))
	}
	m := make(map[string]tensor.Tensor, len(names))
	for i, n := range names {
		m[n] = e[i]
	}
	return m, nil
}
