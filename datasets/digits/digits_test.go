package digits

import (
	"bytes"
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

func TestDeterministic(t *testing.T) {
	a, la, err := Generate(200, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, lb, _ := Generate(200, 7)
	c, _, _ := Generate(200, 8)
	if !bytes.Equal(a, b) || !bytes.Equal(la, lb) {
		t.Fatal("the same seed gave different data")
	}
	if bytes.Equal(a, c) {
		t.Fatal("different seeds gave the same images")
	}
	// The streaming form yields the same sequence as Generate.
	g, _ := New(7)
	img := make([]byte, ImageBytes)
	for i := range 200 {
		if l := g.Next(img); l != la[i] || !bytes.Equal(img, a[i*ImageBytes:(i+1)*ImageBytes]) {
			t.Fatalf("image %d differs between Next and Generate", i)
		}
	}
}

// TestLabelsBalanced: every block of ten consecutive labels is a
// permutation of 0–9, and the order is not a fixed cycle.
func TestLabelsBalanced(t *testing.T) {
	_, labels, _ := Generate(1000, 3)
	for b := 0; b < len(labels); b += 10 {
		var seen [10]bool
		for _, l := range labels[b : b+10] {
			if l > 9 || seen[l] {
				t.Fatalf("block %d: labels %v", b/10, labels[b:b+10])
			}
			seen[l] = true
		}
	}
	if bytes.Equal(labels[:10], labels[10:20]) && bytes.Equal(labels[10:20], labels[20:30]) {
		t.Fatal("labels repeat a fixed cycle")
	}
}

// TestImagesLookLikeDigits checks gross statistics that a broken warp
// (blank images, ink off-centre, saturated frames) would violate: there is
// ink, it is centred, and the background is mostly dark.
func TestImagesLookLikeDigits(t *testing.T) {
	const n = 500
	images, _, _ := Generate(n, 11)
	for i := range n {
		img := images[i*ImageBytes : (i+1)*ImageBytes]
		var ink, mass, cx, cy float64
		dark := 0
		for y := range Side {
			for x := range Side {
				v := float64(img[y*Side+x]) / 255
				if v > 0.5 {
					ink++
					mass += v
					cx += v * float64(x)
					cy += v * float64(y)
				}
				if v < 0.3 {
					dark++
				}
			}
		}
		if ink < 15 || ink > 500 {
			t.Fatalf("image %d has %v inked pixels", i, ink)
		}
		cx, cy = cx/mass, cy/mass
		if cx < 8 || cx > 19 || cy < 8 || cy > 19 {
			t.Fatalf("image %d: ink centred at (%.1f, %.1f)", i, cx, cy)
		}
		if dark < ImageBytes/3 {
			t.Fatalf("image %d: only %d dark pixels", i, dark)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	g, err := New(1)
	if err != nil {
		b.Fatal(err)
	}
	img := make([]byte, ImageBytes)
	b.SetBytes(ImageBytes)
	b.ReportAllocs()
	for b.Loop() {
		g.Next(img)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "images/s")
}

// GenerateContext stops soon after its context is done, with the cause,
// and otherwise gives what Generate gives.
func TestGenerateContext(t *testing.T) {
	a, la, err := GenerateContext(context.Background(), 300, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, lb, _ := Generate(300, 5)
	if !bytes.Equal(a, b) || !bytes.Equal(la, lb) {
		t.Fatal("GenerateContext and Generate differ")
	}

	stop := errors.New("stop")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	if _, _, err := GenerateContext(ctx, 10, 1); !errors.Is(err, stop) {
		t.Errorf("done context: error %v, want %v", err, stop)
	}

	ctx, cancel = context.WithCancelCause(context.Background())
	time.AfterFunc(20*time.Millisecond, func() { cancel(stop) })
	start := time.Now()
	// Seconds of work.
	images, _, err := GenerateContext(ctx, 300_000, 1)
	if !errors.Is(err, stop) || images != nil {
		t.Errorf("cancelled after 20ms: error %v, %d bytes", err, len(images))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned %v after the start, 20ms after which it was cancelled", d)
	}
}

// A count of images beyond memory, or one that overflows their bytes, is
// an error before anything is drawn, not the end of the process (audit
// 116: 2^31-1 images asked for 1.68 TB).
func TestGenerateTooMany(t *testing.T) {
	for _, n := range []int{-1, math.MaxInt, math.MaxInt / ImageBytes, 1 << 40} {
		if _, _, err := GenerateContext(context.Background(), n, 1); err == nil {
			t.Errorf("%d images: no error", n)
		}
	}
}
