package blobfs_test

import (
	"context"
	"fmt"
	"io"

	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/storage/blobfs"
)

// Registering an FS makes package storage — and so every reader —
// accept its URLs. mem:// needs no network or credentials; s3://, gs://
// and azblob:// work the same way with RegisterDefault.
func Example() {
	ctx := context.Background()
	fsys := blobfs.New()
	defer fsys.Close()
	blobfs.Register(fsys, "mem")

	for _, name := range []string{"mem://demo/b.txt", "mem://demo/a.txt", "mem://demo/notes.md"} {
		w, _ := storage.Create(ctx, name)
		fmt.Fprintf(w, "contents of %s", name)
		if err := w.Close(); err != nil {
			fmt.Println(err)
		}
	}
	names, _ := storage.Glob(ctx, "mem://demo/*.txt")
	fmt.Println(names)

	f, err := storage.Open(ctx, names[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	fmt.Printf("%s: %d bytes: %s\n", f.Name(), f.Size(), b)
	// Output:
	// [mem://demo/a.txt mem://demo/b.txt]
	// mem://demo/a.txt: 28 bytes: contents of mem://demo/a.txt
}
