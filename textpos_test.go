package sluice

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/decode"
	"google.golang.org/protobuf/encoding/protowire"
)

// A checkpoint whose text position is inside a line, not at its start (a
// checkpoint edited, or made of another file of the same size), is
// refused when the reader seeks to it, in plain and compressed text: the
// line's tail was delivered as a row of its own (audit 49).
func TestResumeTextPositionInsideLine(t *testing.T) {
	var text []byte
	for i := range 300 {
		text = fmt.Appendf(text, "word%07d\n", i)
	}
	for _, gz := range []bool{false, true} {
		t.Run(fmt.Sprintf("gzip=%v", gz), func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "a.csv")
			data := text
			if gz {
				var b bytes.Buffer
				w := gzip.NewWriter(&b)
				w.Write(text)
				w.Close()
				data = b.Bytes()
			}
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
			ds := CSV(name, []Column{Col("w", decode.RequiredString())}, Deterministic(), Readers(1))
			ck := checkpointAfter(t, ds, 2, 1)
			for _, shift := range []uint64{0, 2} {
				edited := withReaderPos(t, ck, func(pos []byte) []byte {
					line, n := protowire.ConsumeVarint(pos)
					off, _ := protowire.ConsumeVarint(pos[n:])
					if off == 0 {
						t.Fatalf("the checkpoint's position is the file's start: %d", off)
					}
					return protowire.AppendVarint(protowire.AppendVarint(nil, line), off+shift)
				})
				// Read to the end: the records the checkpoint held come
				// first, then the reader's from its position.
				var rows []string
				for b, err := range ds.Batches(t.Context(), 2, Resume(edited)) {
					if err != nil {
						rows = append(rows, "error: "+err.Error())
						break
					}
					for _, w := range b.Bytes("w") {
						rows = append(rows, string(w))
					}
				}
				last := rows[len(rows)-1]
				switch {
				case shift == 0 && (len(rows) != 298 || strings.HasPrefix(last, "error")):
					t.Errorf("resumed at the saved position: %d rows, the last %q; want the 298 after the first batch", len(rows), last)
				case shift != 0 && !strings.Contains(last, "is inside a line"):
					t.Errorf("resumed %d bytes into a line: %d rows, the last %q; want an error saying so", shift, len(rows), last)
				}
			}
		})
	}
}
