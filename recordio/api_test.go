package recordio_test

import (
	"testing"

	"github.com/sluiceml/sluice/internal/apicheck"
)

// The built-in formats are not part of the API: a reader of one is made by
// its constructor or by Open. A custom format still plugs in.
func TestFormatsUnexported(t *testing.T) {
	apicheck.Run(t, []string{"github.com/sluiceml/sluice/queue", "github.com/sluiceml/sluice/recordio", "github.com/sluiceml/sluice/tfrecord"},
		"q queue.Queue, f recordio.Format", []struct{ Code, Want string }{
			{`_ = recordio.NewTFRecordReader(q, tfrecord.Gzip, recordio.SkipCorrupt()); _, _ = recordio.Open("TFRecordReader", q, recordio.Compression(tfrecord.Gzip))`, ""},
			{`_, _ = recordio.NewFixedLengthRecordReader(q, 4, recordio.HeaderBytes(1), recordio.FooterBytes(1), recordio.Compression(tfrecord.Zlib))`, ""},
			{`_ = recordio.NewReader("Mine", f, q); recordio.Register("Mine", func() recordio.Format { return f })`, ""},
			{`_ = &recordio.TFRecordFormat{}`, "undefined: recordio.TFRecordFormat"},
			{`_ = &recordio.TextLineFormat{}`, "undefined: recordio.TextLineFormat"},
			{`_ = &recordio.FixedLengthFormat{}`, "undefined: recordio.FixedLengthFormat"},
			{`_ = &recordio.WholeFileFormat{}`, "undefined: recordio.WholeFileFormat"},
			{`_ = &recordio.IdentityFormat{}`, "undefined: recordio.IdentityFormat"},
			{`_ = recordio.Encoding(tfrecord.Gzip)`, "undefined: recordio.Encoding"},
		})
}
