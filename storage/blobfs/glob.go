package blobfs

import (
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"gocloud.dev/blob"
)

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
	err = fsys.cfg.retry(ctx, func() (int, error) {
		names = names[:0]
		it := b.List(&blob.ListOptions{Prefix: prefix})
		for {
			obj, err := it.Next(ctx)
			if err == io.EOF {
				return 0, nil
			}
			if err != nil {
				return 0, err
			}
			if obj.IsDir {
				continue
			}
			if ok, _ := path.Match(loc.key, obj.Key); ok {
				names = append(names, loc.prefix+obj.Key)
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("blobfs: glob %s: %w", pattern, err)
	}
	slices.Sort(names)
	return names, nil
}
