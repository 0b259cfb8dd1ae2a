package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/sluiceml/sluice/storage"
)

// progressInterval is how often a progress line is printed when the
// output is not a terminal (a log file, CI): often enough to show a long
// run is alive, rarely enough not to flood the log.
const progressInterval = 10 * time.Second

// A progress reports how far a long command is through its input bytes:
// a live bar on a terminal, otherwise a line every progressInterval. It
// starts no goroutine; the files of a command that reads several at once
// may update it from as many goroutines. A nil *progress reports nothing.
type progress struct {
	bar     *progressbar.ProgressBar // on a terminal; nil otherwise
	w       io.Writer                // for progress lines; nil: silent
	what    string
	total   int64        // input bytes; 0 when unknown
	read    atomic.Int64 // input bytes consumed so far
	records atomic.Int64
	start   time.Time

	mu   sync.Mutex // for next and the lines written to w
	next time.Time
}

// newProgress reports on w, which is usually stderr.
func newProgress(w io.Writer, what string, total int64) *progress {
	now := time.Now()
	p := &progress{what: what, total: total, start: now, next: now.Add(progressInterval)}
	if isTerminal(w) {
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	} else {
		p.w = w
	}
	return p
}

// terminalProgress returns a progress bar on w through the named files
// when w is a terminal, and nil, which reports nothing, otherwise: count
// and verify are run by scripts as often as by people, and progress lines
// in a script's log would be noise.
func terminalProgress(ctx context.Context, w io.Writer, what string, names []string) *progress {
	if !isTerminal(w) {
		return nil
	}
	return newProgress(w, what, inputSize(ctx, names))
}

// Write counts input bytes; wrap an input reader with io.TeeReader(r, p).
func (p *progress) Write(b []byte) (int, error) {
	if p == nil {
		return len(b), nil
	}
	p.read.Add(int64(len(b)))
	return len(b), nil
}

// record notes one record done and updates the display when it is due.
func (p *progress) record() {
	if p == nil {
		return
	}
	if p.records.Add(1)%256 != 0 {
		return
	}
	if p.bar != nil {
		p.bar.Set64(p.read.Load()) // the bar has a lock of its own
		return
	}
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := time.Now(); !now.Before(p.next) {
		p.next = now.Add(progressInterval)
		fmt.Fprintf(p.w, "%s: %s\n", p.what, p.status(now))
	}
}

// status describes the progress so far.
func (p *progress) status(now time.Time) string {
	read := p.read.Load()
	s := fmt.Sprintf("%d records, %.1f MB", p.records.Load(), float64(read)/1e6)
	if p.total > 0 {
		s += fmt.Sprintf(" of %.1f MB (%.0f%%)", float64(p.total)/1e6, 100*float64(read)/float64(p.total))
	}
	return s + fmt.Sprintf(" in %v", now.Sub(p.start).Round(time.Second))
}

// showLines clears the bar, if any, so that what the command prints next
// on the same terminal starts a line of its own, then flushes w; the bar
// is drawn again on the next update.
func (p *progress) showLines(w *bufio.Writer) error {
	if p == nil || p.bar == nil {
		return nil
	}
	p.bar.Clear()
	return w.Flush()
}

// finish removes the bar.
func (p *progress) finish() {
	if p != nil && p.bar != nil {
		p.bar.Finish()
	}
}

// inputSize returns the total size of the named files, leaving out
// standard input and any file it cannot open (its reader will say why).
func inputSize(ctx context.Context, names []string) int64 {
	var total int64
	for _, n := range names {
		if isStream(n) {
			continue // its size is unknown, and opening it here could cost its writer its reader
		}
		if f, err := storage.Open(ctx, n); err == nil {
			total += max(f.Size(), 0) // a pipe's is unknown
			f.Close()
		}
	}
	return total
}
