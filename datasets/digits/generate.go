package digits

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/sluiceml/sluice/tensor"
)

// Side is the width and height of every image, as MNIST's.
const Side = 28

// ImageBytes is the size of one image: Side×Side bytes.
const ImageBytes = Side * Side

// The distortions, drawn uniformly from these ranges for every image.
// They are tuned so that the data set is neither trivial nor hopeless (see
// TestAccuracyBand).
const (
	maxRotation  = 15 * math.Pi / 180 // radians either way
	minScale     = 0.8                // of the 20-pixel digit height MNIST uses
	maxScale     = 1.15
	maxAspect    = 0.15 // horizontal stretch either way
	maxShear     = 0.3
	maxShift     = 2.0 // pixels either way, after centring
	maxNoise     = 0.25
	targetHeight = 20.0
)

// A Generator produces digit images one at a time from a seeded random
// stream. Labels are balanced: every run of ten consecutive images holds
// each digit once, in random order.
type Generator struct {
	rng   *rand.Rand
	sets  [][10]glyph
	order [10]uint8
	next  int
}

// New returns a Generator seeded with seed. It fails only if the embedded
// fonts cannot be parsed.
func New(seed uint64) (*Generator, error) {
	sets, err := loadGlyphs()
	if err != nil {
		return nil, err
	}
	return &Generator{rng: rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc909)), sets: sets, next: 10}, nil
}

// Next draws the next digit into dst, which must hold ImageBytes bytes,
// and returns its label.
func (g *Generator) Next(dst []byte) (label uint8) {
	if g.next == 10 {
		for i := range g.order {
			g.order[i] = uint8(i)
		}
		g.rng.Shuffle(10, func(i, j int) { g.order[i], g.order[j] = g.order[j], g.order[i] })
		g.next = 0
	}
	label = g.order[g.next]
	g.next++
	g.draw(dst[:ImageBytes:ImageBytes], &g.sets[g.rng.IntN(len(g.sets))][label])
	return label
}

// Generate returns n images (n×ImageBytes bytes, one after another) and
// their labels, generated from seed.
func Generate(n int, seed uint64) (images, labels []byte, err error) {
	return GenerateContext(context.Background(), n, seed)
}

// checkEvery is how many images GenerateContext draws between looks at
// its context: a few milliseconds' work.
const checkEvery = 256

// GenerateContext is Generate, but it stops soon after ctx is done and
// returns context.Cause(ctx): a hundred thousand images take seconds, too
// long to make an interrupted program wait.
func GenerateContext(ctx context.Context, n int, seed uint64) (images, labels []byte, err error) {
	g, err := New(seed)
	if err != nil {
		return nil, nil, err
	}
	// n sizes the images before one is drawn: a count beyond memory is
	// an error, not the end of the process (audit 116).
	if n < 0 {
		return nil, nil, fmt.Errorf("digits: %d images", n)
	}
	if err := tensor.CheckMemory(tensor.Uint8, tensor.Shape{n, ImageBytes}); err != nil {
		return nil, nil, fmt.Errorf("digits: %d images: %w", n, err)
	}
	images = make([]byte, n*ImageBytes)
	labels = make([]byte, n)
	for i := range n {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, nil, context.Cause(ctx)
		}
		labels[i] = g.Next(images[i*ImageBytes : (i+1)*ImageBytes])
	}
	return images, labels, nil
}

// draw renders one randomly distorted copy of gl into dst.
func (g *Generator) draw(dst []byte, gl *glyph) {
	r := g.rng
	// Every product that is added to something is converted, float64(x*y),
	// which the Go specification says rounds it, so that the compiler
	// cannot fuse the two into one multiply-add (see the package doc).
	uniform := func(lo, hi float64) float64 { return lo + float64((hi-lo)*r.Float64()) }
	angle := uniform(-maxRotation, maxRotation)
	scale := uniform(minScale, maxScale) * targetHeight / gl.height
	// Keep very wide glyphs inside the frame, as MNIST fits a 20×20 box.
	if w := gl.width * scale; w > targetHeight {
		scale *= targetHeight / w
	}
	sx := scale * (1 + uniform(-maxAspect, maxAspect))
	sy := scale
	shear := uniform(-maxShear, maxShear)
	tx := Side/2 + uniform(-maxShift, maxShift)
	ty := Side/2 + uniform(-maxShift, maxShift)
	// Full erosion would wipe out the thinner faces' strokes; half of it
	// thins them visibly.
	weight := float32(uniform(-0.5, 1))
	noise := float32(uniform(0, maxNoise))

	// The forward map takes glyph coordinates (relative to the centre of
	// mass) to the image: p' = R·Sh·S·p + t. Sampling needs its inverse.
	cos, sin := math.Cos(angle), math.Sin(angle)
	// M = R·Sh·S with Sh = [[1, shear], [0, 1]], S = diag(sx, sy).
	m00, m01 := cos*sx, (float64(cos*shear)-sin)*sy
	m10, m11 := sin*sx, (float64(sin*shear)+cos)*sy
	det := float64(m00*m11) - float64(m01*m10)
	i00, i01 := m11/det, -m01/det
	i10, i11 := -m10/det, m00/det

	other, mix := gl.thick, weight
	if weight < 0 {
		other, mix = gl.thin, -weight
	}
	for y := range Side {
		v := float64(y) + 0.5 - ty
		for x := range Side {
			u := float64(x) + 0.5 - tx
			gx := float64(i00*u) + float64(i01*v) + gl.cx
			gy := float64(i10*u) + float64(i11*v) + gl.cy
			a := sample(gl.normal, gx, gy)
			if mix != 0 {
				a += float32((sample(other, gx, gy) - a) * mix)
			}
			if noise != 0 {
				a += float32(float32(r.NormFloat64()) * noise)
			}
			dst[y*Side+x] = byte(float32(min(max(a, 0), 1)*255) + 0.5)
		}
	}
}
