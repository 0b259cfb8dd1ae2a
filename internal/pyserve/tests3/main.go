// Command tests3 runs an S3-compatible server (gofakes3, in memory) on a
// loopback port, for the Python package's tests of object-store names:
//
//	tests3 BUCKET FILE...
//
// stores each FILE in BUCKET under its base name, prints the server's URL
// on a line of its stdout, and serves until its stdin ends, so that it
// dies with the test that started it.
package main

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "tests3:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 1 {
		return fmt.Errorf("usage: tests3 BUCKET FILE...")
	}
	backend := s3mem.New()
	if err := backend.CreateBucket(args[0]); err != nil {
		return err
	}
	for _, name := range args[1:] {
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		if _, err := backend.PutObject(args[0], filepath.Base(name), nil, bytes.NewReader(data), int64(len(data)), nil); err != nil {
			return fmt.Errorf("storing %s: %w", name, err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: gofakes3.New(backend).Server(), ErrorLog: log.New(io.Discard, "", 0)}
	go srv.Serve(ln)
	defer srv.Close()
	fmt.Printf("http://%s\n", ln.Addr())
	_, err = io.Copy(io.Discard, os.Stdin)
	return err
}
