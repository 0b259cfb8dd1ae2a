package blobfs

import (
	"github.com/sluiceml/sluice/storage"

	// The drivers behind the default schemes register with gocloud's
	// default URL mux, which the default opener uses.
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
)

// DefaultSchemes are the schemes RegisterDefault serves: Amazon S3 (and
// S3-compatible stores), Google Cloud Storage, Azure Blob Storage, and
// gocloud's in-memory store.
var DefaultSchemes = []string{"s3", "gs", "azblob", "mem"}

// Register makes fsys serve the given schemes in package storage, so
// that storage.Open, Create and Glob — and every reader built on them —
// accept scheme://bucket/key names.
func Register(fsys *FS, schemes ...string) {
	for _, s := range schemes {
		storage.Register(s, fsys)
	}
}

// RegisterDefault creates an FS with opts and registers it for
// DefaultSchemes. It is the one call a program makes to read and write
// object stores; the FS is returned so the program can Close it.
func RegisterDefault(opts ...Option) *FS {
	fsys := New(opts...)
	Register(fsys, DefaultSchemes...)
	return fsys
}
