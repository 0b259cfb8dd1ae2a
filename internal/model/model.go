package model

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Config describes a classifier.
type Config struct {
	Inputs  int // features per example
	Classes int // output classes; labels are 0 to Classes-1
	Hidden  int // units in the hidden ReLU layer; 0 makes softmax regression

	LearningRate float32 // step size; must be positive
	Momentum     float32 // classical momentum in [0, 1); 0 is plain SGD
	Seed         uint64  // initial weights
}

// A Model is a classifier being trained. It is not safe for concurrent use.
type Model struct {
	cfg    Config
	layers []*layer
	acts   [][]float32 // acts[i+1]: outputs of layers[i] for the current batch
	deltas [][]float32 // deltas[i]: loss gradient at layers[i]'s output
	batch  int         // rows the buffers hold
}

// A layer is a dense map out = in·W + b, with W stored input-major
// (W[k*out+j]) so the forward pass adds whole weight rows for each input
// and skips inputs that are zero, as most pixels of a digit are.
type layer struct {
	in, out int
	w, b    []float32
	gw, gb  []float32 // gradients of the current batch
	vw, vb  []float32 // momentum
}

func newLayer(in, out int, std float64, rng *rand.Rand) *layer {
	l := &layer{
		in: in, out: out,
		w: make([]float32, in*out), b: make([]float32, out),
		gw: make([]float32, in*out), gb: make([]float32, out),
		vw: make([]float32, in*out), vb: make([]float32, out),
	}
	if std > 0 {
		for i := range l.w {
			l.w[i] = float32(rng.NormFloat64() * std)
		}
	}
	return l
}

// New returns an untrained model. Hidden weights start from a seeded He
// initialisation; softmax regression starts from zero, its loss being
// convex.
func New(cfg Config) (*Model, error) {
	if cfg.Inputs <= 0 || cfg.Classes < 2 || cfg.Hidden < 0 || cfg.Inputs > 1<<24 || cfg.Hidden > 1<<16 || cfg.Classes > 1<<16 {
		return nil, fmt.Errorf("model: invalid sizes: %d inputs, %d hidden, %d classes", cfg.Inputs, cfg.Hidden, cfg.Classes)
	}
	if err := checkRates(cfg.LearningRate, cfg.Momentum); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	m := &Model{cfg: cfg}
	if cfg.Hidden == 0 {
		m.layers = []*layer{newLayer(cfg.Inputs, cfg.Classes, 0, rng)}
	} else {
		m.layers = []*layer{
			newLayer(cfg.Inputs, cfg.Hidden, math.Sqrt(2/float64(cfg.Inputs)), rng),
			newLayer(cfg.Hidden, cfg.Classes, math.Sqrt(1/float64(cfg.Hidden)), rng),
		}
	}
	m.acts = make([][]float32, len(m.layers)+1)
	m.deltas = make([][]float32, len(m.layers))
	return m, nil
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// checkRates reports whether a learning rate and a momentum can train: a
// finite positive rate, and 0 <= momentum < 1.
func checkRates(lr, mu float32) error {
	if !(lr > 0) || math.IsInf(float64(lr), 0) || !(mu >= 0 && mu < 1) {
		return fmt.Errorf("model: learning rate %v and momentum %v: want a finite rate > 0 and 0 <= momentum < 1", lr, mu)
	}
	return nil
}

// SetLearningRate changes the step size, for a schedule that decays it.
func (m *Model) SetLearningRate(lr float32) { m.cfg.LearningRate = lr }

// check validates a batch and sizes the buffers for it. Mismatched sizes
// and labels out of range are the caller's bugs, and panic like an index
// out of range would, with a message saying which.
func (m *Model) check(x []float32, y []int64, n int) {
	if len(x) != n*m.cfg.Inputs {
		panic(fmt.Sprintf("model: batch of %d values for %d examples of %d inputs", len(x), n, m.cfg.Inputs))
	}
	for i, c := range y {
		if c < 0 || c >= int64(m.cfg.Classes) {
			panic(fmt.Sprintf("model: label %d of example %d is not in [0, %d)", c, i, m.cfg.Classes))
		}
	}
	if n > m.batch {
		for i, l := range m.layers {
			m.acts[i+1] = make([]float32, n*l.out)
			m.deltas[i] = make([]float32, n*l.out)
		}
		m.batch = n
	}
}

// forward computes every layer's outputs for n examples; the last layer's
// are class probabilities.
func (m *Model) forward(x []float32, n int) []float32 {
	m.acts[0] = x
	for li, l := range m.layers {
		in, out := m.acts[li], m.acts[li+1][:n*l.out]
		for i := range n {
			xi := in[i*l.in : (i+1)*l.in]
			zi := out[i*l.out : (i+1)*l.out]
			copy(zi, l.b)
			for k, v := range xi {
				if v != 0 {
					axpy(v, l.w[k*l.out:(k+1)*l.out], zi)
				}
			}
			if li < len(m.layers)-1 {
				for j, z := range zi {
					zi[j] = max(z, 0)
				}
			} else {
				softmax(zi)
			}
		}
	}
	return m.acts[len(m.layers)][:n*m.cfg.Classes]
}

// Train takes one SGD step on a batch: x holds len(y) examples of Inputs
// values, row-major; y their labels. It returns the batch's mean
// cross-entropy loss before the step. It panics if the sizes disagree or a
// label is out of range.
func (m *Model) Train(x []float32, y []int64) (loss float32) {
	n := len(y)
	if n == 0 {
		return 0
	}
	m.check(x, y, n)
	p := m.forward(x, n)
	c := m.cfg.Classes

	// Output gradient of the mean cross-entropy: (p - onehot(y)) / n.
	last := len(m.layers) - 1
	d := m.deltas[last][:n*c]
	inv := 1 / float32(n)
	var sum float64
	for i, yi := range y {
		pi := p[i*c : (i+1)*c]
		sum -= math.Log(max(float64(pi[yi]), 1e-30))
		di := d[i*c : (i+1)*c]
		for j, v := range pi {
			di[j] = v * inv
		}
		di[yi] -= inv
	}

	for li := last; li >= 0; li-- {
		l := m.layers[li]
		in, d := m.acts[li], m.deltas[li][:n*l.out]
		clear(l.gw)
		clear(l.gb)
		for i := range n {
			xi := in[i*l.in : (i+1)*l.in]
			di := d[i*l.out : (i+1)*l.out]
			axpy(1, di, l.gb)
			for k, v := range xi {
				if v != 0 {
					axpy(v, di, l.gw[k*l.out:(k+1)*l.out])
				}
			}
		}
		if li > 0 {
			// Gradient at the previous layer's output, through its ReLU.
			prev := m.deltas[li-1][:n*l.in]
			for i := range n {
				di := d[i*l.out : (i+1)*l.out]
				ai := in[i*l.in : (i+1)*l.in]
				pi := prev[i*l.in : (i+1)*l.in]
				for k, a := range ai {
					if a > 0 {
						pi[k] = dot(l.w[k*l.out:(k+1)*l.out], di)
					} else {
						pi[k] = 0
					}
				}
			}
		}
		m.step(l.w, l.gw, l.vw)
		m.step(l.b, l.gb, l.vb)
	}
	return float32(sum / float64(n))
}

// step applies w -= lr·v with v = momentum·v + g.
func (m *Model) step(w, g, v []float32) {
	lr, mu := m.cfg.LearningRate, m.cfg.Momentum
	g = g[:len(w)]
	v = v[:len(w)]
	if mu == 0 {
		for i, gi := range g {
			w[i] -= lr * gi
		}
		return
	}
	for i, gi := range g {
		vi := mu*v[i] + gi
		v[i] = vi
		w[i] -= lr * vi
	}
}

// Predict appends to dst the most probable class of each of the n examples
// in x, and returns the extended slice.
func (m *Model) Predict(dst []int64, x []float32) []int64 {
	n := len(x) / m.cfg.Inputs
	if n == 0 {
		return dst
	}
	m.check(x, nil, n)
	p := m.forward(x, n)
	c := m.cfg.Classes
	for i := range n {
		dst = append(dst, int64(argmax(p[i*c:(i+1)*c])))
	}
	return dst
}

// Evaluate returns the mean cross-entropy loss and the fraction of
// examples classified correctly, without changing the model.
func (m *Model) Evaluate(x []float32, y []int64) (loss float32, accuracy float64) {
	n := len(y)
	if n == 0 {
		return 0, 0
	}
	m.check(x, y, n)
	p := m.forward(x, n)
	c := m.cfg.Classes
	var sum float64
	correct := 0
	for i, yi := range y {
		pi := p[i*c : (i+1)*c]
		sum -= math.Log(max(float64(pi[yi]), 1e-30))
		if int64(argmax(pi)) == yi {
			correct++
		}
	}
	return float32(sum / float64(n)), float64(correct) / float64(n)
}

// Accuracy returns the fraction of examples in x classified as y says.
func (m *Model) Accuracy(x []float32, y []int64) float64 {
	_, acc := m.Evaluate(x, y)
	return acc
}

func argmax(p []float32) int {
	best := 0
	for j, v := range p {
		if v > p[best] {
			best = j
		}
	}
	return best
}

// softmax turns logits into probabilities in place.
func softmax(z []float32) {
	mx := z[0]
	for _, v := range z {
		mx = max(mx, v)
	}
	var sum float32
	for j, v := range z {
		e := float32(math.Exp(float64(v - mx)))
		z[j] = e
		sum += e
	}
	inv := 1 / sum
	for j := range z {
		z[j] *= inv
	}
}

// axpy adds a·x to y.
func axpy(a float32, x, y []float32) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		x4, y4 := x[i:i+4:i+4], y[i:i+4:i+4]
		y4[0] += a * x4[0]
		y4[1] += a * x4[1]
		y4[2] += a * x4[2]
		y4[3] += a * x4[3]
	}
	for ; i < len(x); i++ {
		y[i] += a * x[i]
	}
}

func dot(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		x4, y4 := x[i:i+4:i+4], y[i:i+4:i+4]
		s0 += x4[0] * y4[0]
		s1 += x4[1] * y4[1]
		s2 += x4[2] * y4[2]
		s3 += x4[3] * y4[3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return s0 + s1 + s2 + s3
}
