package blobfs

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
	"gocloud.dev/blob"
)

// pageSize is how many keys Glob asks for a page: S3's most.
const pageSize = 1000

// ErrListingLoops reports a listing whose next page's token is one the
// store gave before: it would never end.
var ErrListingLoops = errors.New("blobfs: the store's listing does not end")

// ErrListingCut reports a listing page that says more keys follow and
// gives no token to ask for them: ending the listing there would leave
// out the keys that follow, without a word.
var ErrListingCut = errors.New("blobfs: the store's listing page says more follow but not where")

// Glob returns the objects whose keys match the pattern's key part with
// path.Match semantics (so '*' does not cross '/'), sorted, named in the
// pattern's own form (scheme://bucket/key). It lists the keys that start
// with the pattern's literal prefix — everything before the first
// metacharacter — so a pattern should begin with as long a fixed prefix
// as it can. The bucket part cannot be a pattern.
func (fsys *FS) Glob(ctx context.Context, pattern string) ([]string, error) {
	loc, err := parse(pattern)
	if err != nil {
		return nil, err
	}
	if _, err := path.Match(loc.key, ""); err != nil {
		return nil, fmt.Errorf("blobfs: glob %s: %w", pattern, err)
	}
	if strings.ContainsAny(loc.bucketURL, `*?[\`) {
		return nil, fmt.Errorf("blobfs: glob %s: the bucket name cannot be a pattern", pattern)
	}
	b, err := fsys.bucket(ctx, loc)
	if err != nil {
		return nil, err
	}
	prefix := loc.key
	if i := strings.IndexAny(prefix, `*?[\`); i >= 0 {
		prefix = prefix[:i]
	}
	var names []string
	// A store (or a proxy) that answers a page's token with a token it
	// gave before would page forever. gocloud's ListPage makes as many
	// requests as it takes to fill a page, so on S3 each request's token
	// is checked (sent, those of the pages fetched and of the attempt
	// under way); on other stores, each page's.
	seen, sent, trying := map[string]bool{}, map[string]bool{}, map[string]bool{}
	opts := &blob.ListOptions{Prefix: prefix, BeforeList: func(as func(any) bool) error {
		var v2 *s3.ListObjectsV2Input
		var v1 *s3.ListObjectsInput
		var token string
		switch {
		case as(&v2):
			token = aws.ToString(v2.ContinuationToken)
			var s3opts *[]func(*s3.Options)
			if as(&s3opts) {
				*s3opts = append(*s3opts, refuseCutPages)
			}
		case as(&v1):
			token = aws.ToString(v1.Marker)
		}
		if token == "" {
			return nil
		}
		if sent[token] || trying[token] {
			return fmt.Errorf("the listing repeats its page token %q: %w", token, ErrListingLoops)
		}
		trying[token] = true
		return nil
	}}
	for token := blob.FirstPageToken; len(token) > 0; {
		var objs []*blob.ListObject
		var next []byte
		// Each page is a request of its own, retried on its own and
		// cancelled if it stalls, as a read's are.
		err := fsys.cfg.retry(ctx, func() (_ int, err error) {
			clear(trying) // a retry sends the attempt's tokens again
			w := fsys.cfg.watch(ctx)
			defer w.stop()
			objs, next, err = listPage(w.ctx, b, token, opts)
			return 0, w.err(err)
		})
		if err != nil {
			return nil, fmt.Errorf("blobfs: glob %s: %w", pattern, err)
		}
		for _, obj := range objs {
			if obj.IsDir {
				continue
			}
			if ok, _ := path.Match(loc.key, obj.Key); ok {
				names = append(names, loc.prefix+obj.Key)
			}
		}
		for t := range trying {
			sent[t] = true
		}
		if seen[string(next)] {
			return nil, fmt.Errorf("blobfs: glob %s: the listing repeats its page token %q: %w", pattern, next, ErrListingLoops)
		}
		seen[string(next)] = true
		token = next
	}
	slices.Sort(names)
	return names, nil
}

// errUnreadablePage is the error of a listing page the client failed on,
// which the store would send again: not retried.
var errUnreadablePage = errors.New("the store's listing page could not be read")

// listPage lists a page of the bucket's keys. A page the client fails on
// is an error, not a panic: gocloud's version-1 S3 listing
// (use_legacy_list) takes the last key of a truncated page to go on from,
// and panics on a truncated page that has none; its version-2 listing
// panics on a key without a modification time.
func listPage(ctx context.Context, b *blob.Bucket, token []byte, opts *blob.ListOptions) (objs []*blob.ListObject, next []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			objs, next, err = nil, nil, fmt.Errorf("%w (the client failed on it: %v)", errUnreadablePage, r)
		}
	}()
	return b.ListPage(ctx, token, pageSize, opts)
}

// refuseCutPages makes an S3 listing request fail with ErrListingCut when
// its answer is truncated and has no continuation token, which gocloud
// takes for the last page.
func refuseCutPages(o *s3.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Deserialize.Add(middleware.DeserializeMiddlewareFunc("sluiceRefuseCutPages",
			func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleDeserialize(ctx, in)
				if r, ok := out.Result.(*s3.ListObjectsV2Output); ok && err == nil &&
					aws.ToBool(r.IsTruncated) && aws.ToString(r.NextContinuationToken) == "" {
					err = ErrListingCut
				}
				return out, md, err
			}), middleware.Before)
	})
}
