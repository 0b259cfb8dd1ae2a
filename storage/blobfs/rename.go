package blobfs

import (
	"context"
	"fmt"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/sluiceml/sluice/storage"
)

var _ storage.RenameFS = (*FS)(nil)

// Rename gives the object oldname the name newname, replacing any object
// of that name. Object stores cannot rename: the object is copied inside
// the store (no data passes through this process) and the old one deleted,
// so readers see newname either absent, as it was, or whole. Both names
// must be in the same bucket. If the old object cannot be deleted after
// the copy, the error wraps storage.ErrOldNameLeft.
func (fsys *FS) Rename(ctx context.Context, oldname, newname string) error {
	from, err := parse(oldname)
	if err != nil {
		return err
	}
	to, err := parse(newname)
	if err != nil {
		return err
	}
	if from.bucketURL != to.bucketURL {
		return fmt.Errorf("blobfs: rename %s to %s: not in the same bucket", oldname, newname)
	}
	if from.key == to.key {
		return nil // as os.Rename: copying and deleting would delete it
	}
	b, err := fsys.bucket(ctx, from)
	if err != nil {
		return err
	}
	if err := fsys.cfg.retry(ctx, func() (int, error) {
		// A copy that stalls is cancelled and retried, as a read is: the
		// commits that call Rename go on whatever their context, and
		// waited for good on a store that never answered (audit 47).
		w := fsys.cfg.watch(ctx)
		defer w.stop()
		return 0, w.err(b.Copy(w.ctx, to.key, from.key, nil))
	}); err != nil {
		// A copy the store made whose every answer was lost is a rename
		// that happened, which must not be reported as one that did not.
		if !copied(ctx, b, from.key, to.key) {
			return fmt.Errorf("blobfs: rename %s to %s: %w", oldname, newname, err)
		}
	}
	if err := fsys.Remove(ctx, oldname); err != nil {
		// The copy is complete: newname is written, whatever happens to
		// oldname, and a caller must not take it for a failed rename.
		return fmt.Errorf("blobfs: rename %s to %s: %w: %w", oldname, newname, storage.ErrOldNameLeft, err)
	}
	return nil
}

// copied reports whether the object dst is a copy of src: both were made
// by this package's writer, which gives each object a random text of its
// own (writeKey), and dst carries src's. An object made otherwise has
// none, and a copy of it cannot be told from an older object: false.
func copied(ctx context.Context, b *blob.Bucket, src, dst string) bool {
	s, err := b.Attributes(ctx, src)
	if err != nil || s.Metadata[writeKey] == "" {
		return false
	}
	d, err := b.Attributes(ctx, dst)
	return err == nil && d.Metadata[writeKey] == s.Metadata[writeKey] && d.Size == s.Size
}

// Remove deletes the object name.
func (fsys *FS) Remove(ctx context.Context, name string) error {
	loc, err := parse(name)
	if err != nil {
		return err
	}
	b, err := fsys.bucket(ctx, loc)
	if err != nil {
		return err
	}
	tries := 0
	err = fsys.cfg.retry(ctx, func() (int, error) {
		tries++
		w := fsys.cfg.watch(ctx)
		defer w.stop()
		err := w.err(b.Delete(w.ctx, loc.key))
		if tries > 1 && gcerrors.Code(err) == gcerrors.NotFound {
			return 0, nil // an earlier try deleted it and its answer was lost
		}
		return 0, err
	})
	if err != nil {
		return fmt.Errorf("blobfs: remove %s: %w", name, notExist(err))
	}
	return nil
}
