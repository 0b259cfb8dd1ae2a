package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// Results come out in the order of the names however the calls finish;
// no more than jobs calls run at once; the first error in name order wins
// and cancels the rest.
func TestForEachFile(t *testing.T) {
	names := make([]string, 20)
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	for _, jobs := range []int{1, 3, 50} {
		t.Run(fmt.Sprint("jobs=", jobs), func(t *testing.T) {
			var running, most atomic.Int64
			var got []string
			err := forEachFile(context.Background(), names, jobs, func(ctx context.Context, name string) (int, error) {
				n := running.Add(1)
				defer running.Add(-1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				i, _ := strconv.Atoi(name)
				time.Sleep(time.Duration(20-i) * 100 * time.Microsecond) // later names finish first
				return i * i, nil
			}, func(name string, sq int) error {
				got = append(got, fmt.Sprintf("%s:%d", name, sq))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for i := range names {
				want = append(want, fmt.Sprintf("%d:%d", i, i*i))
			}
			if !slices.Equal(got, want) {
				t.Errorf("emitted %q", got)
			}
			if m := most.Load(); m > int64(jobs) {
				t.Errorf("%d calls at once, jobs %d", m, jobs)
			}
		})
	}

	errBad := errors.New("bad file")
	var emitted []string
	err := forEachFile(context.Background(), names, 4, func(ctx context.Context, name string) (string, error) {
		switch name {
		case "5":
			time.Sleep(5 * time.Millisecond) // fails after 6 and 7
			return "", fmt.Errorf("%s: %w", name, errBad)
		case "6", "7":
			return "", errors.New("a later error, not the first in order")
		case "8", "9", "10":
			<-ctx.Done() // without the cancel, the test hangs here
			return "", ctx.Err()
		}
		return name, nil
	}, func(name, r string) error {
		emitted = append(emitted, r)
		return nil
	})
	if !errors.Is(err, errBad) || err.Error() != "5: bad file" {
		t.Errorf("error %v, want file 5's", err)
	}
	if !slices.Equal(emitted, []string{"0", "1", "2", "3", "4"}) {
		t.Errorf("emitted %q before the error", emitted)
	}
}
