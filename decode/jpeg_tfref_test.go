package decode

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// TensorFlow's decode_jpeg on the files under testdata/jpeg
// (tools/tfref/jpegs.py): every subsampling libjpeg-turbo writes, qualities
// 5 to 100, 16-bit quantization tables, optimized Huffman tables, restart
// markers, grayscale and sizes that are not whole MCUs, for channels 0, 1
// and 3, and with dct_method="INTEGER_ACCURATE" (AccurateDCT). Sequential
// JPEGs decode to TensorFlow's pixels exactly; the progressive one, which
// image/jpeg decodes, within the documented tolerance.
func TestDecodeJPEGMatchesTensorFlow(t *testing.T) {
	testJPEGReference(t, "tf_decode_jpeg.json", 150, nil)
}

// TensorFlow's decode_jpeg on the JPEGs of tools/tfref/jpegs_libjpeg.py
// that libjpeg-turbo's cjpeg writes with sampling factors other than
// image.YCbCr's (4:1:1, 4:1:0, luma 1×4 and 2×4, ratios of 3, chroma above
// luma, chroma of two samplings) and at widths where libjpeg upsamples by
// replication: sluice decodes each to TensorFlow's pixels, and refuses
// the one libjpeg refuses.
func TestDecodeJPEGSamplingMatchesTensorFlow(t *testing.T) {
	testJPEGReference(t, "tf_decode_jpeg_sampling.json", 300, map[string]bool{
		// 2 does not divide 3: libjpeg cannot upsample Cb, and refuses
		// the file, but for a gray output, which needs luma only.
		// sluice refuses it for every output.
		"jpeg/cj_y31_cb21_cr11_17x9.jpg channels=1": true,
	})
}

// TensorFlow's decode_jpeg on progressive JPEGs whose scans leave some of
// the first nine AC coefficients imprecise or unsent (tools/tfref/
// jpegs_libjpeg.py: successive approximation without refinement, DC
// only, spectral selection cut short, chroma DC only), in every sampling
// and with restarts, at widths and heights of one to five blocks: sluice
// smooths them across blocks as libjpeg does.
func TestDecodeJPEGSmoothingMatchesTensorFlow(t *testing.T) {
	testJPEGReference(t, "tf_decode_jpeg_smoothing.json", 350, nil)
}

// TensorFlow's decode_jpeg on JPEGs with restart intervals and a stray,
// missing, repeated or misnumbered marker in their entropy-coded data
// (tools/tfref/jpegs_libjpeg.py), baseline and progressive: sluice finds
// its way back as libjpeg's resync_to_restart does, and leaves the same
// intervals empty.
func TestDecodeJPEGResyncMatchesTensorFlow(t *testing.T) {
	testJPEGReference(t, "tf_decode_jpeg_resync.json", 200, nil)
}

// TensorFlow's decode_jpeg on JPEGs without some of their Huffman tables
// (tools/tfref/jpegs_tables.py): a sequential one decodes with the
// standard tables, as a motion-JPEG frame does; a progressive one is an
// error, as in libjpeg, not pixels decoded with tables it never had
// (audit 87).
func TestDecodeJPEGTablesMatchTensorFlow(t *testing.T) {
	testJPEGReference(t, "tf_decode_jpeg_tables.json", 40, nil)
}

// testJPEGReference decodes the files of the TensorFlow reference name
// (a file under testdata with at least min cases) with each case's
// channels and inverse DCT, and compares the pixels, or the error, with
// TensorFlow's, but for the cases in known, which must differ.
func testJPEGReference(t *testing.T, name string, min int, known map[string]bool) {
	var ref struct {
		Cases []struct {
			File, Pixels, SHA256, Error string
			Channels                    int
			Accurate                    bool
			Shape                       []int
		}
	}
	loadJSON(t, name, &ref)
	if len(ref.Cases) < min {
		t.Fatalf("only %d cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		name := fmt.Sprintf("%s channels=%d", c.File, c.Channels)
		var opts []ImageOption
		if c.Accurate {
			name += " INTEGER_ACCURATE"
			opts = append(opts, AccurateDCT())
		}
		data, err := os.ReadFile(filepath.Join("testdata", c.File))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := NewImage(c.Channels, opts...)
		got, err := d.Decode(data, c.File)
		if known[name] {
			if err == nil && c.Error == "" && sameJPEGPixels(got, c.Shape, c.SHA256) {
				t.Errorf("%s: now decodes as TensorFlow does: drop it from the known differences", name)
			}
			continue
		}
		switch {
		case c.Error != "" && err == nil:
			t.Errorf("%s: decodes, TensorFlow fails: %s", name, c.Error)
			continue
		case c.Error != "":
			continue
		case err != nil:
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fmt.Sprint([]int(got.Shape())) != fmt.Sprint(c.Shape) {
			t.Errorf("%s: shape %v, TensorFlow %v", name, got.Shape(), c.Shape)
			continue
		}
		px := got.Uint8s()
		if c.Pixels == "" {
			if !sameJPEGPixels(got, c.Shape, c.SHA256) {
				t.Errorf("%s: pixels differ from TensorFlow's (SHA-256)", name)
			}
			continue
		}
		want, _ := base64.StdEncoding.DecodeString(c.Pixels)
		if bytes.Equal(px, want) {
			continue
		}
		maxDiff, sum, first := 0, 0, -1
		for i, v := range px {
			if d := abs(int(v) - int(want[i])); d > 0 {
				maxDiff, sum = max(maxDiff, d), sum+d
				if first < 0 {
					first = i
				}
			}
		}
		mean := float64(sum) / float64(len(want))
		t.Errorf("%s: pixels differ from TensorFlow's by up to %d, %.3f on average, first at byte %d", name, maxDiff, mean, first)
	}
}

// sameJPEGPixels reports whether img has the shape and the SHA-256 of its
// pixels (if given) that TensorFlow's has.
func sameJPEGPixels(img tensor.Tensor, shape []int, sha string) bool {
	if fmt.Sprint([]int(img.Shape())) != fmt.Sprint(shape) {
		return false
	}
	sum := sha256.Sum256(img.Uint8s())
	return sha == "" || hex.EncodeToString(sum[:]) == sha
}
