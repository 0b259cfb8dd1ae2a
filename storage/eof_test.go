package storage_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"testing"

	"github.com/sluiceml/sluice/storage"
)

// MaskEOF hides io.EOF in a failure's chain and keeps the rest of it.
func TestMaskEOF(t *testing.T) {
	closed := fmt.Errorf("blobfs: read s3://b/k at offset 3: %w", &url.Error{Op: "Get", URL: "http://store/k", Err: io.EOF})
	m := storage.MaskEOF(closed)
	var ue *url.Error
	switch {
	case errors.Is(m, io.EOF):
		t.Error("a failure wrapping io.EOF still matches io.EOF")
	case !errors.Is(m, io.ErrUnexpectedEOF):
		t.Error("it does not match io.ErrUnexpectedEOF")
	case !errors.As(m, &ue) || ue.Op != "Get":
		t.Error("the URL error in its chain is lost")
	case m.Error() != closed.Error():
		t.Errorf("reads %q, not %q", m, closed)
	}
	both := fmt.Errorf("%w: %w", fs.ErrNotExist, closed)
	if m := storage.MaskEOF(both); !errors.Is(m, fs.ErrNotExist) || errors.Is(m, io.EOF) {
		t.Errorf("%v: fs.ErrNotExist lost, or io.EOF kept", m)
	}
	for _, err := range []error{nil, io.EOF, context.Canceled, fmt.Errorf("x: %w", io.ErrUnexpectedEOF)} {
		if got := storage.MaskEOF(err); got != err {
			t.Errorf("MaskEOF(%v) = %v, want it as it is", err, got)
		}
	}
}
