package blobfs

import (
	"context"
	"fmt"

	"gocloud.dev/blob"
)

// writer uploads one object; gocloud's writer buffers a part at a time
// and switches to a multipart upload when the object outgrows one part.
type writer struct {
	w    *blob.Writer
	name string
}

func newWriter(ctx context.Context, cfg *config, b *blob.Bucket, name, key string) (*writer, error) {
	w, err := b.NewWriter(ctx, key, &blob.WriterOptions{
		BufferSize:     cfg.partSize,
		MaxConcurrency: cfg.uploadStreams,
		// Records are binary; sniffing the first bytes would only guess.
		ContentType: "application/octet-stream",
	})
	if err != nil {
		return nil, fmt.Errorf("blobfs: create %s: %w", name, err)
	}
	return &writer{w: w, name: name}, nil
}

func (w *writer) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		return n, fmt.Errorf("blobfs: write %s: %w", w.name, err)
	}
	return n, nil
}

// Close completes the upload; the object exists only if it returns nil.
func (w *writer) Close() error {
	if err := w.w.Close(); err != nil {
		return fmt.Errorf("blobfs: close %s: %w", w.name, err)
	}
	return nil
}
