package tfrecord

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// oneRecord frames data as a TFRecord.
func oneRecord(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return b.Bytes()
}

// Unframe agrees with a Reader reading the same bytes: the same data, or
// the same error, naming the file and offset.
func TestUnframe(t *testing.T) {
	good := oneRecord(t, []byte("hello, record"))
	flip := func(i int) []byte { b := bytes.Clone(good); b[i] ^= 1; return b }
	for _, tc := range []struct {
		name string
		b    []byte
		is   error
	}{
		{"whole", good, nil},
		{"empty record", oneRecord(t, nil), nil},
		{"length CRC", flip(9), ErrCorrupt},
		{"length", flip(0), ErrCorrupt},
		{"data CRC", flip(len(good) - 1), ErrCorrupt},
		{"data", flip(14), ErrCorrupt},
		{"cut short", good[:len(good)-2], ErrTruncated},
		{"header cut short", good[:7], ErrTruncated},
		{"nothing", nil, ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Unframe(tc.b, "f.tfrecord", 1000)
			want, werr := NewReader(bytes.NewReader(tc.b), Name("f.tfrecord"), StartOffset(1000)).Next()
			if tc.is == nil {
				if err != nil || werr != nil || !bytes.Equal(got, want) {
					t.Fatalf("Unframe: %q, %v; Reader: %q, %v", got, err, want, werr)
				}
				return
			}
			if !errors.Is(err, tc.is) {
				t.Fatalf("Unframe: %v, want %v", err, tc.is)
			}
			if werr != nil && werr != io.EOF && err.Error() != werr.Error() {
				t.Errorf("Unframe says %q, a Reader %q", err, werr)
			}
		})
	}
	// A byte after the record: the framing is sound, the span is not the
	// record's, which the error says rather than blaming the length CRC.
	_, err := Unframe(append(bytes.Clone(good), 0), "f", 0)
	if re, ok := errors.AsType[*RecordError](err); !errors.Is(err, ErrCorrupt) || !ok || re.Part != "" ||
		!strings.Contains(err.Error(), fmt.Sprintf("the record takes %d bytes, not the %d given for it", len(good), len(good)+1)) {
		t.Errorf("a byte after the record: %v, want ErrCorrupt naming the record's size", err)
	}
}

func FuzzUnframe(f *testing.F) {
	f.Add(oneRecord(f, []byte("data")))
	f.Add(oneRecord(f, nil))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Unframe(b, "f", 0)
		r := NewReader(bytes.NewReader(b), Name("f"))
		want, werr := r.Next()
		whole := werr == nil && r.NextOffset() == int64(len(b))
		if err == nil && (!whole || !bytes.Equal(got, want)) {
			t.Fatalf("Unframe accepted %x as %q; a Reader: %q, %v, next at %d", b, got, want, werr, r.NextOffset())
		}
		if err != nil && whole {
			t.Fatalf("Unframe refused %x (%v), which a Reader reads whole", b, err)
		}
		// The header alone refuses what Unframe refuses, but a bad data CRC.
		herr := CheckHeader(b[:min(len(b), 12)], int64(len(b)), "f", 0)
		if re, ok := errors.AsType[*RecordError](err); (herr == nil) != (err == nil || ok && re.Part == damageData) {
			t.Fatalf("%x: CheckHeader: %v; Unframe: %v", b, herr, err)
		}
	})
}
