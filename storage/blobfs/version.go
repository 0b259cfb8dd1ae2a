package blobfs

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
)

// ErrObjectChanged reports an object replaced or rewritten since it was
// opened. A file reads one version of its object: bytes of two versions
// spliced together would be a file that never existed.
var ErrObjectChanged = errors.New("blobfs: object changed since it was opened")

// A version identifies what an object held when it was opened: its
// size, and whichever of ETag, generation and modification time its
// store reports.
type version struct {
	size    int64
	etag    string // S3, Azure
	gen     int64  // Google Cloud Storage
	modTime time.Time
}

// id returns the version's identity as a string: the generation, else
// the ETag.
func (v version) id() string {
	if v.gen != 0 {
		return "generation " + strconv.FormatInt(v.gen, 10)
	}
	if v.etag != "" {
		return "ETag " + v.etag
	}
	return ""
}

func versionOf(a *blob.Attributes) version {
	v := version{size: a.Size, etag: a.ETag, modTime: a.ModTime}
	var oa storage.ObjectAttrs
	if a.As(&oa) {
		v.gen = oa.Generation
	}
	return v
}

// readerOptions makes every ranged read conditional on the version where
// the driver lets a request carry the condition, so that the store
// itself refuses a changed object, atomically: If-Match on S3 and Azure,
// a generation match on GCS.
func (v version) readerOptions() *blob.ReaderOptions {
	return &blob.ReaderOptions{BeforeRead: v.beforeRead}
}

func (v version) beforeRead(as func(any) bool) error {
	var s3in *s3.GetObjectInput
	if as(&s3in) {
		if v.etag != "" {
			s3in.IfMatch = aws.String(v.etag)
		}
		return nil
	}
	var gcsObj **storage.ObjectHandle
	if as(&gcsObj) {
		if v.gen != 0 {
			*gcsObj = (*gcsObj).If(storage.Conditions{GenerationMatch: v.gen})
		}
		return nil
	}
	var azOpts *azblobblob.DownloadStreamOptions
	if as(&azOpts) {
		if v.etag != "" {
			etag := azcore.ETag(v.etag)
			if azOpts.AccessConditions == nil {
				azOpts.AccessConditions = &azblobblob.AccessConditions{}
			}
			if azOpts.AccessConditions.ModifiedAccessConditions == nil {
				azOpts.AccessConditions.ModifiedAccessConditions = &azblobblob.ModifiedAccessConditions{}
			}
			azOpts.AccessConditions.ModifiedAccessConditions.IfMatch = &etag
		}
		return nil
	}
	return nil
}

// check compares the version a ranged read's response describes — its
// size, modification time and, through as (the reader's As), the
// store's own ETag or generation — with v. It catches a change where the
// store ignores the read's condition (some S3-compatible servers do) or
// takes none (the in-memory and file stores). The response's headers
// describe the bytes of its own body, so the check is as exact as a
// condition.
func (v version) check(size int64, modTime time.Time, as func(any) bool) error {
	if size != v.size {
		return fmt.Errorf("%w: size %d, %d when opened", ErrObjectChanged, size, v.size)
	}
	var (
		s3out     s3.GetObjectOutput
		gcsReader *storage.Reader
		az        azblobblob.DownloadStreamResponse
		etag      string
	)
	switch {
	case as(&s3out):
		etag = aws.ToString(s3out.ETag)
	case as(&gcsReader):
		// GCS always reports a generation; its two modification times
		// (of the metadata and of a read) differ in precision, so they are
		// not compared.
		if got := gcsReader.Attrs.Generation; v.gen != 0 && got != 0 && got != v.gen {
			return fmt.Errorf("%w: generation %d, %d when opened", ErrObjectChanged, got, v.gen)
		}
		return nil
	case as(&az):
		if az.ETag != nil {
			etag = string(*az.ETag)
		}
	}
	if etag != "" && v.etag != "" {
		if etag != v.etag {
			return fmt.Errorf("%w: ETag %s, %s when opened", ErrObjectChanged, etag, v.etag)
		}
		return nil
	}
	// A store without an identity of versions, or a response without
	// one: the modification time, which in the stores that offer nothing
	// better (mem, file) is exact.
	if !v.modTime.IsZero() && !modTime.IsZero() && !modTime.Equal(v.modTime) {
		return fmt.Errorf("%w: modified %v, %v when opened", ErrObjectChanged, modTime, v.modTime)
	}
	return nil
}
