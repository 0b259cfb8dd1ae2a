package demo

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer that the progress goroutine and the test
// may use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A resumed run's progress shows the examples trained before it in the
// count but not in the rate: a run that has trained nothing yet since
// the resume trains at 0 examples/s.
func TestProgressRateAfterResume(t *testing.T) {
	var out syncBuffer
	var seen atomic.Int64
	seen.Store(1_000_000) // trained before the resume
	var loss atomic.Value
	loss.Store(float32(0))
	stop := startProgress(&out, Config{Live: true}, nil, 2_000_000, &seen, &loss)
	// Two lines at least, however loaded the machine.
	for deadline := time.Now().Add(10 * time.Second); strings.Count(out.String(), "ex/s") < 2 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	rates := regexp.MustCompile(`1000000/2000000 examples +([0-9]+) ex/s`).FindAllStringSubmatch(out.String(), -1)
	if len(rates) == 0 {
		t.Fatalf("no progress line:\n%q", out.String())
	}
	for _, m := range rates {
		if r, _ := strconv.Atoi(m[1]); r != 0 {
			t.Errorf("%d ex/s while nothing was trained since the resume", r)
		}
	}
}

// The summary of a resumed run says how many examples this run trained in
// its time, not only the total.
func TestSummaryAfterResume(t *testing.T) {
	res := &Result{TrainExamples: 60000, ResumedExamples: 28160, TrainTime: 900 * time.Millisecond,
		ExamplesPerSec: 31840 / 0.9, Digest: strings.Repeat("a", 64), ResumedAt: 220, Removed: true}
	var out bytes.Buffer
	res.Summary(&out)
	if want := "training          60000 examples, 28160 before the resume and 31840 in 0.9s: 35378 examples/s"; !strings.Contains(out.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, out.String())
	}
}
