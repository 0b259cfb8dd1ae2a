package cli

import (
	"context"
	"sync"
)

// defaultParallel is how many files count and verify read at once by
// default: enough to overlap an object store's per-file latency (an
// attributes request and a first ranged read) and to use a few cores, few
// enough that blobfs's per-file readahead stays within a few hundred MB.
const defaultParallel = 4

// forEachFile calls fn for every name, with up to jobs calls at once, and
// emit with each result in the order of names, as soon as that result
// and all before it are in. The first error, in name order, from fn or
// emit cancels the calls still running and is returned once they end.
func forEachFile[R any](ctx context.Context, names []string, jobs int,
	fn func(ctx context.Context, name string) (R, error), emit func(name string, r R) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		r   R
		err error
	}
	results := make([]chan result, len(names))
	next := make(chan int, len(names))
	for i := range names {
		results[i] = make(chan result, 1)
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	defer wg.Wait()
	for range max(1, min(jobs, len(names))) {
		wg.Go(func() {
			for i := range next {
				if err := ctx.Err(); err != nil {
					results[i] <- result{err: err}
					continue
				}
				r, err := fn(ctx, names[i])
				results[i] <- result{r, err}
			}
		})
	}
	for i, name := range names {
		res := <-results[i]
		if res.err == nil {
			res.err = emit(name, res.r)
		}
		if res.err != nil {
			cancel()
			return res.err
		}
	}
	return nil
}
