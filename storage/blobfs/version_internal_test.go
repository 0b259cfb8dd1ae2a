package blobfs

import (
	"errors"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// asValue returns an As func that fills a target of v's pointer type
// with v, as a driver's reader does with its response.
func asValue[T any](v T) func(any) bool {
	return func(i any) bool {
		p, ok := i.(*T)
		if ok {
			*p = v
		}
		return ok
	}
}

// The drivers the tests have no server for (GCS, Azure) are checked
// through the values their As methods hand out.
func TestVersionCheck(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	azETag := func(s string) *azcore.ETag { e := azcore.ETag(s); return &e }
	for _, tt := range []struct {
		name    string
		v       version
		size    int64
		modTime time.Time
		as      func(any) bool
		changed bool
	}{
		{"same size, no identity", version{size: 10}, 10, time.Time{}, asValue(0), false},
		{"size", version{size: 10}, 11, time.Time{}, asValue(0), true},
		{"mod time same", version{size: 10, modTime: t0}, 10, t0, asValue(0), false},
		{"mod time", version{size: 10, modTime: t0}, 10, t0.Add(time.Nanosecond), asValue(0), true},
		{"s3 ETag same", version{size: 10, etag: `"a"`}, 10, t0, asValue(s3.GetObjectOutput{ETag: aws.String(`"a"`)}), false},
		{"s3 ETag", version{size: 10, etag: `"a"`}, 10, t0, asValue(s3.GetObjectOutput{ETag: aws.String(`"b"`)}), true},
		// With an ETag to compare, S3's second-resolution time is not used.
		{"s3 ETag same, time differs", version{size: 10, etag: `"a"`, modTime: t0}, 10, t0.Add(time.Second), asValue(s3.GetObjectOutput{ETag: aws.String(`"a"`)}), false},
		{"gcs generation same", version{size: 10, gen: 7}, 10, t0, asValue(&storage.Reader{Attrs: storage.ReaderObjectAttrs{Generation: 7}}), false},
		{"gcs generation", version{size: 10, gen: 7}, 10, t0, asValue(&storage.Reader{Attrs: storage.ReaderObjectAttrs{Generation: 8}}), true},
		{"azure ETag same", version{size: 10, etag: "0x1"}, 10, t0, asValue(azblobblob.DownloadStreamResponse{DownloadResponse: azblobblob.DownloadResponse{ETag: azETag("0x1")}}), false},
		{"azure ETag", version{size: 10, etag: "0x1"}, 10, t0, asValue(azblobblob.DownloadStreamResponse{DownloadResponse: azblobblob.DownloadResponse{ETag: azETag("0x2")}}), true},
	} {
		err := tt.v.check(tt.size, tt.modTime, tt.as)
		if got := errors.Is(err, ErrObjectChanged); got != tt.changed {
			t.Errorf("%s: check = %v, want changed %v", tt.name, err, tt.changed)
		}
	}
}

// Reads are made conditional on the ETag where the driver takes one.
func TestVersionBeforeRead(t *testing.T) {
	v := version{size: 10, etag: `"a"`}
	in := &s3.GetObjectInput{}
	if err := v.beforeRead(asValue(in)); err != nil || aws.ToString(in.IfMatch) != `"a"` {
		t.Errorf("S3 If-Match = %q, %v", aws.ToString(in.IfMatch), err)
	}
	opts := &azblobblob.DownloadStreamOptions{}
	if err := v.beforeRead(asValue(opts)); err != nil || opts.AccessConditions == nil ||
		opts.AccessConditions.ModifiedAccessConditions == nil || opts.AccessConditions.ModifiedAccessConditions.IfMatch == nil ||
		*opts.AccessConditions.ModifiedAccessConditions.IfMatch != `"a"` {
		t.Errorf("Azure If-Match not set: %+v, %v", opts.AccessConditions, err)
	}
	if err := v.beforeRead(asValue(0)); err != nil {
		t.Errorf("beforeRead of a driver without conditions = %v", err)
	}
}
