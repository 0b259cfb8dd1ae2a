//go:build unix

package pyserve

import (
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// recordsMsg frames recs as one records message.
func recordsMsg(recs ...string) []byte {
	msg := []byte{recordsMessage}
	for _, r := range recs {
		msg = binary.LittleEndian.AppendUint32(msg, uint32(len(r)))
		msg = append(msg, r...)
	}
	return msg
}

// sendRaw writes a message that gets no reply.
func (c *client) sendRaw(body []byte) {
	c.t.Helper()
	if err := writeRaw(c.in, body); err != nil {
		c.t.Fatal(err)
	}
}

func writeRaw(w interface{ Write([]byte) (int, error) }, body []byte) error {
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(body))))
	if err == nil {
		_, err = w.Write(body)
	}
	return err
}

// readRecords returns the records of TFRecord files, in the order the
// writer dealt them (round-robin).
func readRecords(t *testing.T, names []string, c tfrecord.Compression) []string {
	t.Helper()
	var per [][]string
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		r := tfrecord.NewReader(f, c)
		var recs []string
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			recs = append(recs, string(rec))
		}
		f.Close()
		per = append(per, recs)
	}
	var all []string
	for i := 0; ; i++ {
		k := i % len(per)
		j := i / len(per)
		if j >= len(per[k]) {
			return all
		}
		all = append(all, per[k][j])
	}
}

// A write: records in messages of any size, dealt round-robin over the
// files, under their names only after the commit; nothing else in the
// directory.
func TestServeWrite(t *testing.T) {
	for _, comp := range []string{"NONE", "GZIP", "ZSTD"} {
		t.Run(comp, func(t *testing.T) {
			dir := t.TempDir()
			out := []string{filepath.Join(dir, "a.tfrecord"), filepath.Join(dir, "b.tfrecord"), filepath.Join(dir, "c.tfrecord")}
			c := startServer(t)
			if r := c.call(map[string]any{"op": "write", "out": out, "compression": comp}); !r.OK {
				t.Fatalf("write: %+v", r.Error)
			}
			want := []string{"one", "", strings.Repeat("x", 100000), "four", "five"}
			c.sendRaw(recordsMsg(want[:2]...))
			c.sendRaw(recordsMsg(want[2]))
			c.sendRaw(recordsMsg(want[3:]...))
			if got := ls(t, dir); len(got) != 3 || slices.Contains(got, "a.tfrecord") {
				t.Errorf("before the commit: %q, want three temporaries", got)
			}
			r := c.call(map[string]string{"op": "commit"})
			if r.Error != nil || r.Wrote == nil || *r.Wrote != 5 {
				t.Fatalf("commit: %+v %+v", r, r.Error)
			}
			if got := ls(t, dir); !slices.Equal(got, []string{"a.tfrecord", "b.tfrecord", "c.tfrecord"}) {
				t.Errorf("after the commit: %q", got)
			}
			compression, _ := tfrecord.ParseCompression(comp)
			if got := readRecords(t, out, compression); !slices.Equal(got, want) {
				t.Errorf("records %.40q, want %.40q", got, want)
			}
		})
	}
}

// A write not committed leaves nothing: the client ends (its input
// closed), writes again, or sends a broken records message; errors come
// with the commit.
func TestServeWriteAllOrNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		then func(c *client, out []string)
		want string // the commit's error, if it comes to a commit
	}{
		{"end", func(c *client, out []string) {
			c.in.Close()
			<-c.done
			c.done <- nil
		}, ""},
		{"write-again", func(c *client, out []string) {
			c.call(map[string]any{"op": "write", "out": []string{out[0] + ".other"}, "compression": "NONE"})
			c.call(map[string]string{"op": "commit"})
		}, ""},
		{"cut", func(c *client, out []string) {
			c.sendRaw(recordsMsg("ok")[:5])
		}, "a records message cut inside a record"},
		{"length", func(c *client, out []string) {
			msg := recordsMsg("ok")
			msg[1] = 200
			c.sendRaw(msg)
		}, "a records message cut inside a record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := []string{filepath.Join(dir, "a.tfrecord")}
			c := startServer(t)
			if r := c.call(map[string]any{"op": "write", "out": out, "compression": "NONE"}); !r.OK {
				t.Fatalf("write: %+v", r.Error)
			}
			c.sendRaw(recordsMsg("first"))
			tc.then(c, out)
			if tc.want != "" {
				r := c.call(map[string]string{"op": "commit"})
				if r.Error == nil || !strings.Contains(r.Error.Message, tc.want) || r.Error.Kind != "protocol" {
					t.Fatalf("commit: %+v, want an error %q", r.Error, tc.want)
				}
			}
			if got := ls(t, dir); len(got) > 0 && !(tc.name == "write-again" && slices.Equal(got, []string{"a.tfrecord.other"})) {
				t.Errorf("files left: %q", got)
			}
		})
	}
}

// Bad writes are errors of their own kinds.
func TestServeWriteErrors(t *testing.T) {
	dir := t.TempDir()
	c := startServer(t)
	for _, tc := range []struct {
		req  map[string]any
		kind string
		want string
	}{
		{map[string]any{"op": "write", "out": []string{}, "compression": "NONE"}, "invalid", "write: no files"},
		{map[string]any{"op": "write", "out": []string{filepath.Join(dir, "x")}, "compression": "LZ4"}, "invalid", "LZ4"},
		{map[string]any{"op": "write", "out": []string{filepath.Join(dir, "no", "such", "dir", "x")}, "compression": "NONE"}, "other", "no such file"},
		{map[string]any{"op": "write", "out": []string{"x"}, "compresion": "NONE"}, "protocol", "unknown field"},
		{map[string]any{"op": "commit"}, "protocol", "commit without a write"},
	} {
		r := c.call(tc.req)
		if r.Error == nil || r.Error.Kind != tc.kind || !strings.Contains(r.Error.Message, tc.want) {
			t.Errorf("%v: %+v, want a %s error %q", tc.req, r.Error, tc.kind, tc.want)
		}
	}
	c.sendRaw(recordsMsg("no write"))
	if r := c.call(map[string]string{"op": "commit"}); r.Error == nil || !strings.Contains(r.Error.Message, "records without a write") {
		t.Errorf("records without a write, then commit: %+v", r.Error)
	}
	if got := ls(t, dir); len(got) > 0 {
		t.Errorf("files left: %q", got)
	}
}

func ls(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// FuzzWriteRecords: any sequence of records and part messages writes the
// records they frame whole, or is an error that commits nothing; never a
// panic, never a record cut short. The fuzzer's bytes are messages, each
// a kind byte (records, part or last part, modulo 3), a length byte and
// that many bytes of body; a record's first part begins with its length.
func FuzzWriteRecords(f *testing.F) {
	msgs := func(ms ...[]byte) []byte {
		var b []byte
		for _, m := range ms {
			b = append(append(b, m[0], byte(len(m)-1)), m[1:]...)
		}
		return b
	}
	f.Add(msgs(recordsMsg("a", "", "bc")))
	f.Add(msgs(recordsMsg("ok")[:5]))
	f.Add(msgs([]byte{recordsMessage, 0xff, 0xff, 0xff, 0xff, 1}))
	first := func(n int, b string) []byte { // a record's first part
		return append(binary.LittleEndian.AppendUint64([]byte{partMessage}, uint64(n)), b...)
	}
	f.Add(msgs(first(6, "ab"), []byte("\x01cd"), []byte("\x02ef"), recordsMsg("x")))
	f.Add(msgs(first(6, "ab"), recordsMsg("x")))
	f.Add(msgs(first(2, "ab")))
	f.Add(msgs(first(3, "ab"), []byte("\x02cd")))
	f.Add(msgs([]byte("\x02ab")))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		out := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
		s := &server{w: io.Discard}
		if err := s.startWrite(context.Background(), &Write{Out: out, Compression: "NONE"}); err != nil || s.writing == nil {
			t.Fatal(err)
		}
		// The records the messages frame, by the protocol's rules.
		var want []string
		var part []byte
		length := 0
		inParts, whole := false, true
		for len(data) >= 2 && whole {
			kind, n := data[0]%3, min(int(data[1]), len(data)-2)
			body := data[2 : 2+n]
			data = data[2+n:]
			s.writeMessage(kind, body)
			switch kind {
			case recordsMessage:
				if inParts {
					whole = false
				}
				for rest := body; len(rest) > 0 && whole; {
					if len(rest) < 4 || int(binary.LittleEndian.Uint32(rest)) > len(rest)-4 {
						whole = false
						break
					}
					n := int(binary.LittleEndian.Uint32(rest))
					want = append(want, string(rest[4:4+n]))
					rest = rest[4+n:]
				}
			default:
				if !inParts {
					// The first part: the record's length, then bytes.
					if kind != partMessage || len(body) < 8 || binary.LittleEndian.Uint64(body) > tfrecord.DefaultMaxRecordSize {
						whole = false
						break
					}
					length, body = int(binary.LittleEndian.Uint64(body)), body[8:]
					inParts = true
				}
				if len(part)+len(body) > length {
					whole = false
					break
				}
				part = append(part, body...)
				if kind == lastPartMessage {
					if len(part) != length {
						whole = false
						break
					}
					want = append(want, string(part))
					part, inParts = nil, false
				}
			}
		}
		if inParts {
			whole = false // a commit inside a record's parts
		}
		s.commit()
		if !whole {
			if got := ls(t, dir); len(got) > 0 {
				t.Fatalf("files after a broken stream: %q", got)
			}
			return
		}
		if got := readRecords(t, out, tfrecord.None); !slices.Equal(got, want) {
			t.Fatalf("records %q, want %q", got, want)
		}
	})
}

// A write removes the temporaries that killed writes of its files left
// (those of other names stay), so that verify does not report them after
// the rerun it advises; beside a running writer of one of its files it
// refuses and leaves everything as it was.
func TestServeWriteRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	out := []string{filepath.Join(dir, "a.tfrecord"), filepath.Join(dir, "b.tfrecord")}
	dead := []string{
		filepath.Join(dir, ".a.tfrecord"+storage.TempMarker+storage.LockedTag+"0123456789ab"), // its writer killed
		filepath.Join(dir, ".b.tfrecord"+storage.TempMarker+storage.LockedTag+"0123456789ab"),
	}
	other := filepath.Join(dir, ".c.tfrecord"+storage.TempMarker+storage.LockedTag+"0123456789ab")
	for _, p := range append(dead, other) {
		os.WriteFile(p, []byte("partial"), 0o644)
	}
	running, err := storage.CreatePending(t.Context(), out[1])
	if err != nil {
		t.Fatal(err)
	}
	defer running.Abort()
	before := ls(t, dir)

	c := startServer(t)
	r := c.call(map[string]any{"op": "write", "out": out, "compression": "NONE"})
	if r.OK || r.Error == nil || !strings.Contains(r.Error.Message, "another writer is writing "+out[1]) || !strings.Contains(r.Error.Message, running.TempName()) {
		t.Fatalf("write beside a running writer of %s: %+v, %+v; want an error naming it", out[1], r, r.Error)
	}
	if got := ls(t, dir); !slices.Equal(got, before) {
		t.Errorf("the refused write changed the folder: %q, want %q", got, before)
	}

	running.Abort()
	if r := c.call(map[string]any{"op": "write", "out": out, "compression": "NONE"}); !r.OK {
		t.Fatalf("write: %+v", r.Error)
	}
	c.sendRaw(recordsMsg("one", "two"))
	if r := c.call(map[string]string{"op": "commit"}); r.Error != nil || r.Wrote == nil || *r.Wrote != 2 {
		t.Fatalf("commit: %+v %+v", r, r.Error)
	}
	if got, want := ls(t, dir), []string{filepath.Base(other), "a.tfrecord", "b.tfrecord"}; !slices.Equal(got, want) {
		t.Errorf("after the write: %q, want %q", got, want)
	}
}
