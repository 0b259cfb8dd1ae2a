// Command testnats runs a NATS server with JetStream on a loopback port,
// for the Python package's tests of a filename queue shared by workers
// (queue_url): it prints the server's URL on a line of its stdout, and
// serves until its stdin ends, so that it dies with the test that started
// it. It keeps JetStream's files in a temporary directory it removes.
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "testnats:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := os.MkdirTemp("", "testnats-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		return err
	}
	go ns.Start()
	defer func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	}()
	if !ns.ReadyForConnections(10 * time.Second) {
		return fmt.Errorf("the server did not start")
	}
	fmt.Println(ns.ClientURL())
	_, err = io.Copy(io.Discard, os.Stdin)
	return err
}
