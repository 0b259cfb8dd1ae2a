package pyserve

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/sluiceml/sluice"
)

func frame(body string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(body)))
	return append(b, body...)
}

func TestReadMessage(t *testing.T) {
	tests := []struct {
		name  string
		in    []byte
		want  string
		isErr error
	}{
		{name: "one", in: frame(`{"op":"next"}`), want: `{"op":"next"}`},
		{name: "empty body", in: frame(""), want: ""},
		{name: "end", in: nil, isErr: io.EOF},
		{name: "short length", in: []byte{1, 0}, isErr: io.ErrUnexpectedEOF},
		{name: "short body", in: frame(`{"op":"next"}`)[:8], isErr: io.ErrUnexpectedEOF},
		{name: "length only", in: frame("abc")[:4], isErr: io.ErrUnexpectedEOF},
		{name: "too long", in: binary.LittleEndian.AppendUint32(nil, MaxMessage+1), isErr: ErrProtocol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadMessage(bytes.NewReader(tt.in))
			if !errors.Is(err, tt.isErr) {
				t.Fatalf("err %v, want %v", err, tt.isErr)
			}
			if err == nil && string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriteMessageRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	r := Reply{Batch: &BatchInfo{Slot: 2, Rows: 3, Arrays: []ArrayInfo{{Name: "x", DType: "float32", Shape: []int{3, 2}, Offset: 64, NBytes: 24}}}}
	if err := WriteMessage(&buf, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteMessage(&buf, Reply{End: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"slot":2`, `"end":true`} {
		msg, err := ReadMessage(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(msg), want) {
			t.Errorf("%s lacks %s", msg, want)
		}
	}
}

func TestDecodeRequest(t *testing.T) {
	tests := []struct {
		msg    string
		op     string
		errHas string // "" for no error
	}{
		{msg: `{"op":"next"}`, op: "next"},
		{msg: `{"op":"close"}`, op: "close"},
		{msg: `{"op":"mapped","file":"/dev/shm/x"}`, op: "mapped"},
		{msg: `{"op":"mapped"}`, errHas: "no file"},
		{msg: `{"op":"open","kind":"csv","files":["a"],"batch_size":3,"seed":7,"shard":[0,2]}`, op: "open"},
		{msg: `{"op":"open","kind":"csv","files":["a"],"batch_size":3,"sed":7}`, errHas: `unknown field "sed"`},
		{msg: `{"op":"open","kind":"csv","files":"a"}`, errHas: "open"},
		{msg: `{"op":"open"} {}`, errHas: "protocol"},
		{msg: `{"op":"seek"}`, errHas: "unknown op"},
		{msg: `{"op":"next","keep":01}`, errHas: "protocol"},
		{msg: `{"op":"next","count":}`, errHas: "protocol"},
		{msg: `{"op":"next","keep":1}x`, errHas: "protocol"},
		{msg: `[1,2]`, errHas: "protocol"},
		{msg: ``, errHas: "protocol"},
	}
	for _, tt := range tests {
		req, err := DecodeRequest([]byte(tt.msg))
		switch {
		case tt.errHas != "":
			if err == nil || !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("DecodeRequest(%s): %v, want a protocol error with %q", tt.msg, err, tt.errHas)
			}
		case err != nil:
			t.Errorf("DecodeRequest(%s): %v", tt.msg, err)
		case req.Op != tt.op || (tt.op == "open") != (req.Open != nil):
			t.Errorf("DecodeRequest(%s) = %+v", tt.msg, req)
		}
	}
	req, err := DecodeRequest([]byte(`{"op":"open","kind":"csv","files":["a"],"batch_size":3,"seed":7,"shard":[1,2]}`))
	if err != nil || *req.Seed != 7 || req.Shard[1] != 2 || req.BatchSize != 3 {
		t.Errorf("open's fields: %+v, %v", req.Open, err)
	}
	// A state before the batches the client has not handed out.
	if req, err := DecodeRequest([]byte(`{"op":"state","before":3}`)); err != nil || req.Op != "state" || req.Before != 3 {
		t.Errorf("state's before: %+v, %v", req, err)
	}
}

// FuzzDecodeRequest feeds the decoder arbitrary streams: it must never
// panic, and what it accepts must be a request the server knows.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{`{"op":"next"}`, `{"op":"next","keep":2,"count":2}`, `{"op":"mapped","file":"x"}`,
		`{"op":"open","kind":"examples","files":["a*"],"batch_size":3,"spec":{"x":{"kind":"fixed","dtype":"float32","shape":[2],"default":[1,2]}}}`,
		`{"op":"open","kind":"csv","files":["a"],"columns":[{"name":"a","dtype":"int64","default":3}]}`} {
		f.Add(frame(s))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		r := bytes.NewReader(stream)
		for {
			msg, err := ReadMessage(r)
			if err != nil {
				return
			}
			if fast := new(Request); decodeNext(msg, fast) {
				// The fast path must read what encoding/json reads.
				var slow struct {
					Op          string
					Keep, Count int
				}
				if err := json.Unmarshal(msg, &slow); err != nil || slow.Op != "next" ||
					slow.Keep != fast.Keep || slow.Count != fast.Count {
					t.Fatalf("decodeNext(%q) = %+v; encoding/json reads %+v, %v", msg, fast, slow, err)
				}
			}
			req, err := DecodeRequest(msg)
			if err != nil {
				if !errors.Is(err, ErrProtocol) && !errors.Is(err, sluice.ErrInvalid) {
					t.Fatalf("DecodeRequest(%q): %v wraps neither ErrProtocol nor sluice.ErrInvalid", msg, err)
				}
				continue
			}
			switch req.Op {
			case "open":
				if req.Open == nil {
					t.Fatalf("open without its fields: %q", msg)
				}
				// What open does with it must not panic either.
				if src, err := newSource(req.Open); err == nil && src.ds == nil {
					t.Fatalf("newSource(%q) has no data set", msg)
				}
			case "next", "close":
			case "mapped":
				if req.File == "" {
					t.Fatalf("mapped without a file: %q", msg)
				}
			default:
				t.Fatalf("DecodeRequest(%q) accepted op %q", msg, req.Op)
			}
		}
	})
}

// The requests of every batch, decoded without encoding/json, read as
// the same requests spelt otherwise.
func TestDecodeNextFastPath(t *testing.T) {
	for _, tc := range []struct{ fast, slow string }{
		{`{"op":"next"}`, `{"op": "next"}`},
		{`{"op":"next","keep":1}`, `{"op": "next", "keep": 1}`},
		{`{"op":"next","keep":2,"count":2}`, `{"count": 2, "op": "next", "keep": 2}`},
		{`{"op":"next","keep":0,"count":4}`, `{"op": "next", "count": 4}`},
		{`{"op":"next","keep":12,"count":8}`, `{"op": "next", "keep": 12, "count": 8}`},
		{`{"op":"next","count":3}`, `{"op": "next", "count": 3}`},
		// Not the client's spelling: the general path decides.
		{`{"op":"next","keep":1 }`, `{"op": "next", "keep": 1}`},
		{`{"op":"next","count":2,"keep":1}`, `{"op": "next", "keep": 1, "count": 2}`},
	} {
		fast, err := DecodeRequest([]byte(tc.fast))
		if err != nil {
			t.Fatal(err)
		}
		slow, err := DecodeRequest([]byte(tc.slow))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: %+v, but %s: %+v", tc.fast, fast, tc.slow, slow)
		}
	}
}

// A batch reply encoded once per slot reads as the reply encoded anew,
// whatever changed since the slot's last batch.
func TestAppendReplyCached(t *testing.T) {
	base := func() *BatchInfo {
		return &BatchInfo{Slot: 3, Rows: 2, Arrays: []ArrayInfo{
			{Name: "a", DType: "float32", Shape: []int{2, 4}, Offset: 64, NBytes: 32},
			{Name: "b", DType: "int64", Shape: []int{2}, Offset: 128, NBytes: 16},
		}}
	}
	tests := []struct {
		name   string
		change func(b *BatchInfo)
	}{
		{"same", func(b *BatchInfo) {}},
		{"rows", func(b *BatchInfo) { b.Rows = 1; b.Arrays[0].Shape[0] = 1; b.Arrays[1].Shape[0] = 1 }},
		{"shape", func(b *BatchInfo) { b.Arrays[0].Shape[1] = 5 }},
		{"offset", func(b *BatchInfo) { b.Arrays[1].Offset = 192 }},
		{"nbytes", func(b *BatchInfo) { b.Arrays[1].NBytes = 8 }},
		{"lengths", func(b *BatchInfo) { b.Arrays[0].LengthsOffset = 256 }},
		{"arrays", func(b *BatchInfo) { b.Arrays = b.Arrays[:1] }},
		{"file", func(b *BatchInfo) { b.File, b.FileSize = "/dev/shm/x", 1<<16 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{}
			if _, err := s.appendReply(nil, Reply{Batch: base()}); err != nil {
				t.Fatal(err)
			}
			b := base()
			tt.change(b)
			got, err := s.appendReply([]byte("x"), Reply{Batch: b})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := appendMessage([]byte("x"), Reply{Batch: b})
			if !bytes.Equal(got, want) {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}
