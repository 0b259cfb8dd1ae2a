package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tfrecord"
)

// A dataset is one directory of generated files. Every system reads the
// same directory for a workload, so the files are fixed by name, count and
// seed, and are rewritten only when the manifest says they differ.
type dataset struct {
	Dir     string `json:"dir"`
	Kind    string `json:"kind"` // raw, mnist, small10, csv, cifar
	Files   int    `json:"files"`
	Records int    `json:"records"` // in all files together
	Size    int    `json:"size"`    // record size, for raw records
}

// Record counts keep a full run (five systems, five runs each) near twenty
// minutes on two cores: the slowest systems read 50 000 to 200 000
// examples a run at 10 000 to 100 000 examples/s. Quick mode divides them
// by ten.
var datasets = []dataset{
	{Dir: "framing-100B", Kind: "raw", Files: 4, Records: 500_000, Size: 100},
	{Dir: "framing-1KB", Kind: "raw", Files: 4, Records: 100_000, Size: 1_000},
	{Dir: "framing-10KB", Kind: "raw", Files: 4, Records: 10_000, Size: 10_000},
	{Dir: "framing-100KB", Kind: "raw", Files: 4, Records: 1_000, Size: 100_000},
	{Dir: "files-1", Kind: "raw", Files: 1, Records: 100_000, Size: 1_000},
	{Dir: "files-16", Kind: "raw", Files: 16, Records: 100_000, Size: 1_000},
	{Dir: "mnist", Kind: "mnist", Files: 4, Records: 50_000},
	{Dir: "small10", Kind: "small10", Files: 4, Records: 200_000},
	{Dir: "csv", Kind: "csv", Files: 4, Records: 200_000},
	{Dir: "cifar", Kind: "cifar", Files: 5, Records: 50_000},
}

func scaled(quick bool) []dataset {
	if !quick {
		return datasets
	}
	return divided(10)
}

// divided returns the data sets with a k-th of their records (at least
// one per file).
func divided(k int) []dataset {
	out := make([]dataset, len(datasets))
	for i, d := range datasets {
		d.Records = max(d.Records/k, d.Files)
		out[i] = d
	}
	return out
}

// fileNames returns the paths of a dataset's files, in order.
func (d dataset) fileNames(root string) []string {
	ext := map[string]string{"csv": ".csv", "cifar": ".bin"}[d.Kind]
	if ext == "" {
		ext = ".tfrecord"
	}
	names := make([]string, d.Files)
	for i := range names {
		names[i] = filepath.Join(root, d.Dir, fmt.Sprintf("part-%05d-of-%05d%s", i, d.Files, ext))
	}
	return names
}

const manifestName = "MANIFEST.json"

// generate writes every dataset under root that is missing or differs from
// its manifest entry. The output depends only on the dataset's parameters.
func generate(root string, quick bool) error {
	return generateSets(root, scaled(quick))
}

func generateSets(root string, sets []dataset) error {
	var old []dataset
	if b, err := os.ReadFile(filepath.Join(root, manifestName)); err == nil {
		_ = json.Unmarshal(b, &old) // a bad manifest just regenerates everything
	}
	have := map[dataset]bool{}
	for _, d := range old {
		have[d] = true
	}
	for i, d := range sets {
		if have[d] {
			continue
		}
		fmt.Fprintf(os.Stderr, "sluicebench gen: %s (%d records in %d files)\n", d.Dir, d.Records, d.Files)
		if err := os.RemoveAll(filepath.Join(root, d.Dir)); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(root, d.Dir), 0o755); err != nil {
			return err
		}
		for f, name := range d.fileNames(root) {
			n := d.Records / d.Files
			if f < d.Records%d.Files {
				n++
			}
			rng := rand.New(rand.NewPCG(uint64(i)+1, uint64(f)+1))
			if err := writeFile(name, d, n, rng); err != nil {
				return err
			}
		}
		// Record progress after each dataset, so an interrupted run resumes.
		old = append(old, d)
		b, _ := json.MarshalIndent(old, "", "  ")
		if err := os.WriteFile(filepath.Join(root, manifestName), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(name string, d dataset, n int, rng *rand.Rand) (err error) {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	switch d.Kind {
	case "csv":
		err = writeCSV(bw, n, rng)
	case "cifar":
		err = writeCIFAR(bw, n, rng)
	default:
		err = writeTFRecords(bw, d, n, rng)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return bw.Flush()
}

func writeTFRecords(bw *bufio.Writer, d dataset, n int, rng *rand.Rand) error {
	w := tfrecord.NewWriter(bw)
	b := example.New()
	var rec []byte
	var pix []float32
	raw := make([]byte, d.Size)
	for range n {
		switch d.Kind {
		case "raw":
			fillBytes(rng, raw)
			rec = raw
		case "mnist":
			// MNIST-like: 784 pixels in [0, 1) and a label, as
			// convert_to_records.py writes them (floats here, so the
			// parse is the one fully_connected_reader.py needs).
			pix = pix[:0]
			for range 784 {
				pix = append(pix, rng.Float32())
			}
			rec = b.Reset().Floats("image", pix).Int64("label", rng.Int64N(10)).AppendMarshal(rec[:0])
		case "small10":
			b.Reset()
			for j := range 5 {
				b.Float(smallNames[j], rng.Float32())
				b.Int64(smallNames[5+j], rng.Int64N(1000))
			}
			rec = b.AppendMarshal(rec[:0])
		default:
			return fmt.Errorf("unknown kind %q", d.Kind)
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	return w.Close()
}

// smallNames are the features of the small Examples: f0–f4 float, f5–f9 int64.
var smallNames = [10]string{"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9"}

func fillBytes(rng *rand.Rand, b []byte) {
	for i := 0; i < len(b); i += 8 {
		v := rng.Uint64()
		for j := i; j < i+8 && j < len(b); j++ {
			b[j] = byte(v)
			v >>= 8
		}
	}
}

// writeCSV writes lines of four decimal floats and an integer label.
func writeCSV(bw *bufio.Writer, n int, rng *rand.Rand) error {
	var line []byte
	for range n {
		line = line[:0]
		for range 4 {
			line = strconv.AppendFloat(line, float64(rng.Float32()*100), 'f', 4, 32)
			line = append(line, ',')
		}
		line = strconv.AppendInt(line, rng.Int64N(10), 10)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// cifarRecord is the CIFAR-10 binary layout: one label byte, then a 32×32
// image as three planes (red, green, blue) of 1024 bytes.
const cifarRecord = 1 + 3*32*32

func writeCIFAR(bw *bufio.Writer, n int, rng *rand.Rand) error {
	rec := make([]byte, cifarRecord)
	for range n {
		fillBytes(rng, rec)
		rec[0] %= 10
		if _, err := bw.Write(rec); err != nil {
			return err
		}
	}
	return nil
}
