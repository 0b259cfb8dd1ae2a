package sluice

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/internal/cputime"
	"github.com/sluiceml/sluice/tfrecord"
)

// BenchmarkSequenceExamples reads SequenceExamples (seqRecord's: a context
// id and VarLen tags, a FixedLenSequence and a VarLen feature list) in
// batches of 128 through the front door with one reader, and with the
// loop it replaces: tfrecord.Reader, records copied into a reused buffer,
// example.SequenceParser.Parse of 128 records, on one goroutine. One op
// is one pass over the files.
//
//	go test -run '^$' -bench SequenceExamples -benchmem .
func BenchmarkSequenceExamples(b *testing.B) {
	const files, perFile, n = 4, 5000, 128
	names, _ := writeSequenceExamples(b, b.TempDir(), files, perFile)
	examples := float64(files * perFile)
	var cpu0 time.Duration
	report := func(b *testing.B) {
		b.ReportMetric(float64(cputime.Process()-cpu0)/(examples*float64(b.N)), "cpu-ns/example")
	}
	b.Run("frontdoor", func(b *testing.B) {
		cpu0 = cputime.Process()
		ds := SequenceExamples(names[0], seqContext, seqLists, Files(names[1:]...), Readers(1))
		for b.Loop() {
			got := 0
			for bt, err := range ds.Batches(b.Context(), n) {
				if err != nil {
					b.Fatal(err)
				}
				got += bt.Len()
			}
			if got != files*perFile {
				b.Fatalf("%d records", got)
			}
		}
		report(b)
	})
	b.Run("loop", func(b *testing.B) {
		cpu0 = cputime.Process()
		p, err := example.NewSequenceParser(seqContext, seqLists)
		if err != nil {
			b.Fatal(err)
		}
		var arena []byte
		recs := make([][]byte, 0, n)
		for b.Loop() {
			got := 0
			parse := func() {
				if _, _, err := p.Parse(recs, nil); err != nil {
					b.Fatal(err)
				}
				got += len(recs)
				recs, arena = recs[:0], arena[:0]
			}
			for _, name := range names {
				data, err := os.ReadFile(name)
				if err != nil {
					b.Fatal(err)
				}
				r := tfrecord.NewReader(bytes.NewReader(data))
				for rec, err := range r.All() {
					if err != nil {
						b.Fatal(err)
					}
					if len(arena)+len(rec) > cap(arena) {
						arena = make([]byte, 0, max(2*cap(arena), 64<<10))
					}
					arena = append(arena, rec...)
					recs = append(recs, arena[len(arena)-len(rec):])
					if len(recs) == n {
						parse()
					}
				}
			}
			if len(recs) > 0 {
				parse()
			}
			if got != files*perFile {
				b.Fatalf("%d records", got)
			}
		}
		report(b)
	})
}
