package recordio_test

import (
	"bytes"
	"context"
	"runtime"
	"slices"
	"testing"

	"github.com/sluiceml/sluice/internal/recordhook"
	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/tfrecord"
)

// A header line is skipped without being kept, whatever its size, in the
// TextLine reader and in the front door's format: a GZIP stream of a few
// hundred KB whose header line is 64 MiB made the reader allocate the line
// twice over, beyond any record limit (audit 108). Its records still come
// with their line numbers.
func TestSkipHugeHeaderLine(t *testing.T) {
	const headerSize = 64 << 20
	text := slices.Concat(bytes.Repeat([]byte{'x'}, headerSize), []byte("\r\n1,2\n3,4"))
	name := write(t, t.TempDir(), "huge-header.csv.gz", compress(t, tfrecord.Gzip, text))
	text = nil

	readers := map[string]func() *recordio.Reader{
		"TextLineReader": func() *recordio.Reader {
			return must(t)(recordio.NewTextLineReader(closedQueue(t, name),
				recordio.Compression(tfrecord.Gzip), recordio.SkipHeaderLines(1), recordio.MaxRecordSize(1<<20)))
		},
		"front door": func() *recordio.Reader {
			return recordio.NewReader("TextLineReader", recordhook.NewTextLineFormat(1), closedQueue(t, name))
		},
	}
	for what, open := range readers {
		r := open()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		k, v, err := r.Read(context.Background())
		runtime.ReadMemStats(&after)
		if err != nil || string(v) != "1,2" {
			t.Fatalf("%s: first record %q, %v; want \"1,2\"", what, v, err)
		}
		if what == "TextLineReader" && k != name+":2" {
			t.Errorf("%s: first key %q, want %q", what, k, name+":2")
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > headerSize/4 {
			t.Errorf("%s: skipping a header of %d bytes allocated %d bytes", what, headerSize, alloc)
		}
		if rest, err := lines(t, r); err != nil || !slices.Equal(rest, []string{"3,4"}) {
			t.Errorf("%s: then %q, %v; want [3,4]", what, rest, err)
		}
	}
}
