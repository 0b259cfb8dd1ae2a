package natsqueue

import (
	"errors"
	"strings"
	"testing"
)

// A queue name becomes a token of NATS-safe bytes and comes back from it
// unchanged; a token that token would not write is an error, never a
// panic, and one that decodes is the token of what it decodes to.
func FuzzToken(f *testing.F) {
	for _, s := range []string{
		"train_files", "input_producer/scope name", "a.b.c", "=41", "=", "=4", "=4g", "=2F", "x=2f",
		"\x00\xff", "ünïcode", "*", ">", "sluice.q.>", "-_", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s != "" {
			tok := token(s)
			for i := range len(tok) {
				if c := tok[i]; !plain(c) && c != '=' {
					t.Fatalf("token(%q) = %q holds %q", s, tok, c)
				}
			}
			back, err := untoken(tok)
			if err != nil || back != s {
				t.Fatalf("untoken(token(%q)) = %q, %v", s, back, err)
			}
		}
		name, err := untoken(s)
		if err == nil && token(name) != s {
			t.Fatalf("untoken(%q) = %q, whose token is %q", s, name, token(name))
		}
	})
}

// A message ID is taken apart as it was put together; any other text is
// an error, and text that parses is the ID it parses to, byte for byte.
func FuzzMsgID(f *testing.F) {
	n := newNames("input_producer/files", 3, &config{})
	f.Add(n.msgID([]byte("/data/part-0.tfrecord"), 0), "input_producer/files", 3, []byte("/data/part-0.tfrecord"), 0)
	f.Add(n.msgID([]byte(""), 12), "q", 0, []byte(""), 12)
	for _, s := range []string{
		"", "/", "///", "a/b/c/d", "q/0/00000000000000000000000000000000/0",
		"q/00/00000000000000000000000000000000/0", "q/0/00000000000000000000000000000000/-1",
		"q/0/0000000000000000000000000000000G/0", "q/0/ABCDEF00000000000000000000000000/0",
		"q/99999999999999999999999/00000000000000000000000000000000/0", "q=2/0/00000000000000000000000000000000/0",
		"q/0/00000000000000000000000000000000/0/extra", "q/+1/00000000000000000000000000000000/1",
	} {
		f.Add(s, "q", 0, []byte("u"), 0)
	}
	f.Fuzz(func(t *testing.T, s, name string, epoch int, unit []byte, k int) {
		if id, err := parseMsgID(s); err == nil && id.String() != s {
			t.Fatalf("parseMsgID(%q) = %+v, which prints %q", s, id, id.String())
		}
		if name == "" || epoch < 0 || k < 0 {
			return
		}
		n := newNames(name, epoch, &config{})
		s = n.msgID(unit, k)
		id, err := parseMsgID(s)
		if err != nil {
			t.Fatalf("parseMsgID(%q): %v", s, err)
		}
		if back, err := untoken(id.token); err != nil || back != name || id.epoch != epoch || id.k != k || !id.matches(unit) {
			t.Fatalf("parseMsgID(%q) = %+v (name %q, %v), want name %q epoch %d count %d for %q", s, id, back, err, name, epoch, k, unit)
		}
	})
}

// A delivered message is this queue's unit when its subject is the
// epoch's and its ID, if any, was made for its payload by this queue and
// epoch; the unit is then the payload as it is. Anything else is an error
// wrapping ErrBadMessage, never a panic. A unit enqueued comes back.
func FuzzUnitMessage(f *testing.F) {
	n := newNames("files", 1, &config{})
	f.Add(n.subject, n.msgID([]byte("/data/a"), 0), []byte("/data/a"), 0)
	f.Add(n.subject, "", []byte("published by hand"), 0)
	f.Add(n.subject, n.msgID([]byte("/data/a"), 0), []byte("/data/b"), 1)
	f.Add("sluice.q.files.e2", n.msgID([]byte("x"), 0), []byte("x"), 0)
	f.Add(n.subject, newNames("other", 1, &config{}).msgID([]byte("x"), 0), []byte("x"), 0)
	f.Add(n.subject, "garbage", []byte{0, 0xff}, 7)
	f.Fuzz(func(t *testing.T, subject, id string, data []byte, k int) {
		unit, err := n.decodeUnit(subject, id, data)
		switch {
		case err != nil && !errors.Is(err, ErrBadMessage):
			t.Fatalf("decodeUnit(%q, %q, %q) = %v, not ErrBadMessage", subject, id, data, err)
		case err == nil && (subject != n.subject || string(unit) != string(data)):
			t.Fatalf("decodeUnit(%q, %q, %q) = %q", subject, id, data, unit)
		case err == nil && id != "" && !strings.HasPrefix(id, n.idPrefix):
			t.Fatalf("decodeUnit accepted ID %q of another queue", id)
		}
		if k < 0 {
			return
		}
		unit, err = n.decodeUnit(n.subject, n.msgID(data, k), data)
		if err != nil || string(unit) != string(data) {
			t.Fatalf("the unit %q enqueued as %q came back as %q, %v", data, n.msgID(data, k), unit, err)
		}
	})
}

// Only the value Close writes reads as a closed flag.
func FuzzClosedFlag(f *testing.F) {
	for _, s := range []string{closedValue, "", "Closed", "closed\x00", "open", strings.Repeat("x", 1000)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if err := decodeClosed(v); (err == nil) != (string(v) == closedValue) {
			t.Fatalf("decodeClosed(%q) = %v", v, err)
		}
	})
}
