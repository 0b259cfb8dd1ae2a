// Package slowlink provides, for tests, a TCP proxy to a NATS server that
// delays what clients send: a pull request then reaches the server after
// the client's own wait for it ended, and an answer comes a round trip
// later, as over a long network path.
package slowlink

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// Start starts a TCP proxy to the server at serverURL (nats://host:port)
// that delivers what clients send only after delay, as a loaded machine
// or a long network path may, and returns its URL. The proxy and its
// connections end with the test.
func Start(t testing.TB, serverURL string, delay time.Duration) (url string) {
	t.Helper()
	target := strings.TrimPrefix(serverURL, "nats://")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	track := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			track(client)
			track(server)
			wg.Go(func() { io.Copy(client, server); client.Close() })
			// Client to server: each chunk is held for delay, in order.
			type chunk struct {
				at time.Time
				b  []byte
			}
			chunks := make(chan chunk, 1024)
			wg.Go(func() {
				defer close(chunks)
				for {
					b := make([]byte, 32<<10)
					n, err := client.Read(b)
					if n > 0 {
						chunks <- chunk{time.Now().Add(delay), b[:n]}
					}
					if err != nil {
						return
					}
				}
			})
			wg.Go(func() {
				defer server.Close()
				for c := range chunks {
					time.Sleep(time.Until(c.at))
					if _, err := server.Write(c.b); err != nil {
						return
					}
				}
			})
		}
	})
	return "nats://" + ln.Addr().String()
}
