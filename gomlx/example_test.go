package gomlx_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/graph"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/layers"
	"github.com/gomlx/gomlx/pkg/ml/train"
	"github.com/gomlx/gomlx/pkg/ml/train/losses"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/gomlx"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// writePoints writes n Examples of a point "xy" in the square [-1, 1]² and
// its class "above": 1 if the point is above the line y = x/2, else 0.
func writePoints(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := tfrecord.NewWriter(f)
	r := rand.New(rand.NewPCG(1, 2))
	for range n {
		x, y := 2*r.Float32()-1, 2*r.Float32()-1
		var above float32
		if y > x/2 {
			above = 1
		}
		rec := example.New().Float("xy", x, y).Float("above", above).Marshal()
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}

// Trains a logistic regression with GoMLX's pure-Go backend on a TFRecord
// file read by sluice.
func Example() {
	dir, err := os.MkdirTemp("", "sluice-gomlx")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "points.tfrecord")
	if err := writePoints(path, 512); err != nil {
		log.Fatal(err)
	}

	spec := example.Spec{
		"xy":    example.FixedLen(tensor.Float32, 2),
		"above": example.FixedLen(tensor.Float32, 1),
	}
	src := sluice.Examples(path, spec, sluice.Shuffle(256), sluice.Seed(7))
	ds, err := gomlx.New(context.Background(), src, 64, []string{"xy"}, []string{"above"},
		gomlx.Name("points"), gomlx.BatchOptions(sluice.DropRemainder()))
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()

	// Sequential ops: the model is too small to gain from running them in
	// parallel, and v0.26.0's parallel executor trips the race detector.
	backend, err := simplego.New("ops_sequential")
	if err != nil {
		log.Fatal(err)
	}
	defer backend.Finalize()
	ctx := mlctx.New()
	ctx.SetParam(optimizers.ParamLearningRate, 0.5)
	model := func(ctx *mlctx.Context, _ any, inputs []*graph.Node) []*graph.Node {
		return []*graph.Node{layers.Dense(ctx, inputs[0], true, 1)} // the logit
	}
	trainer := train.NewTrainer(backend, ctx, model, losses.BinaryCrossentropyLogits,
		optimizers.StochasticGradientDescent().Done(), nil, nil)

	// Eval's first metric is the mean loss over one pass of the data.
	meanLoss := func() float32 {
		m, err := trainer.Eval(ds)
		if err != nil {
			log.Fatal(err)
		}
		return m[0].Value().(float32)
	}
	before := meanLoss()
	ds.Reset() // Eval left the data set at its end; RunEpochs starts where it is.
	if _, err := train.NewLoop(trainer).RunEpochs(ds, 5); err != nil {
		log.Fatal(err)
	}
	after := meanLoss()
	fmt.Println("steps:", trainer.GlobalStep())
	fmt.Println("loss decreased:", after < before)
	// Output:
	// steps: 40
	// loss decreased: true
}
