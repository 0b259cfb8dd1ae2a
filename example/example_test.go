package example_test

import (
	"fmt"
	"log"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
)

// Building and marshalling an Example, then reading it back.
func Example() {
	pix := []float32{0, 0.25, 0.5, 1}
	rec := example.New().
		Int64("label", 7).
		Floats("image", pix).
		Strings("name", "cat.png").
		Marshal()

	spec := example.Spec{
		"label": example.FixedLen(tensor.Int64),
		"image": example.FixedLen(tensor.Float32, 2, 2),
		"name":  example.FixedLen(tensor.String),
	}
	out, err := example.ParseSingle(rec, spec, "rec-0")
	if err != nil {
		log.Fatal(err)
	}
	image, _ := out.Dense("image")
	label, _ := out.Dense("label")
	fmt.Println(len(rec), "bytes")
	fmt.Println(image)
	fmt.Println(label)
	// Output:
	// 70 bytes
	// Tensor<float32 [2,2]>[0 0.25 0.5 1]
	// Tensor<int64 []>[7]
}

func ExampleFeatures() {
	rec := example.Features{
		"tags":  example.StringList("a", "b"),
		"score": example.FloatList(0.5),
	}.Marshal()
	out, err := example.ParseSingle(rec, example.Spec{"tags": example.VarLen(tensor.String)}, "")
	if err != nil {
		log.Fatal(err)
	}
	tags, _ := out.Sparse("tags")
	fmt.Println(tags.Indices.Int64s(), tags.Values, tags.DenseShape)
	// Output: [0 1] Tensor<string [2]>["a" "b"] [2]
}

func ExampleParseSingle() {
	rec := example.New().Int64("ids", 4, 8, 15).Marshal()
	spec := example.Spec{
		"ids":    example.VarLen(tensor.Int64),
		"weight": example.FixedLen(tensor.Float32).WithDefault(tensor.Scalar(float32(1))),
		"label":  example.FixedLen(tensor.Int64),
	}
	_, err := example.ParseSingle(rec, spec, "train.tfrecord:0")
	fmt.Println(err)

	delete(spec, "label")
	out, err := example.ParseSingle(rec, spec, "train.tfrecord:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.ComponentNames())
	fmt.Println(out.Components())
	// Output:
	// Name: train.tfrecord:0, Feature: label (data type: int64) is required but could not be found.
	// [ids/indices ids/values ids/dense_shape weight]
	// [Tensor<int64 [3,1]>[0 1 2] Tensor<int64 [3]>[4 8 15] Tensor<int64 [1]>[3] Tensor<float32 []>[1]]
}

func ExampleParser_Parse() {
	p, err := example.NewParser(example.Spec{
		"x":    example.FixedLen(tensor.Float32, 2),
		"seen": example.VarLen(tensor.Int64),
	})
	if err != nil {
		log.Fatal(err)
	}
	batch := [][]byte{
		example.New().Float("x", 1, 2).Int64("seen", 3).Marshal(),
		example.New().Float("x", 3, 4).Marshal(),
		example.New().Float("x", 5, 6).Int64("seen", 7, 8).Marshal(),
	}
	out, err := p.Parse(batch, nil)
	if err != nil {
		log.Fatal(err)
	}
	x, _ := out.Dense("x")
	seen, _ := out.Sparse("seen")
	fmt.Println(x)
	fmt.Println(seen.Indices.Int64s(), seen.Values.Int64s(), seen.DenseShape)
	// Output:
	// Tensor<float32 [3,2]>[1 2 3 4 5 6]
	// [0 0 2 0 2 1] [3 7 8] [3,2]
}

func ExampleParseSingleSequence() {
	rec := example.NewSequence().
		Context("length", example.Int64List(3)).
		List("tokens", example.Int64List(5, 1), example.Int64List(9, 2), example.Int64List(4, 4)).
		Marshal()
	ctx, lists, err := example.ParseSingleSequence(rec,
		example.Spec{"length": example.FixedLen(tensor.Int64)},
		example.Spec{"tokens": example.FixedLenSequence(tensor.Int64, 2)},
		"seq-0")
	if err != nil {
		log.Fatal(err)
	}
	length, _ := ctx.Dense("length")
	tokens, _ := lists.Dense("tokens")
	fmt.Println(length, tokens)
	// Output: Tensor<int64 []>[3] Tensor<int64 [3,2]>[5 1 9 2 4 4]
}

// Parsing record after record into the same tensors: the second parse
// overwrites the first's values, allocating nothing.
func ExampleParser_ParseSingleInto() {
	p, err := example.NewParser(example.Spec{
		"image": example.FixedLen(tensor.Float32, 2),
		"label": example.FixedLen(tensor.Int64),
	})
	if err != nil {
		log.Fatal(err)
	}
	var comps []tensor.Tensor
	for i, rec := range [][]byte{
		example.New().Floats("image", []float32{0.5, 1}).Int64("label", 3).Marshal(),
		example.New().Floats("image", []float32{2, 4}).Int64("label", 7).Marshal(),
	} {
		comps, err = p.ParseSingleInto(comps, rec, fmt.Sprint("rec:", i))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(comps)
	}
	// Output:
	// [Tensor<float32 [2]>[0.5 1] Tensor<int64 []>[3]]
	// [Tensor<float32 [2]>[2 4] Tensor<int64 []>[7]]
}

// Read every feature of an Example, whatever its names and kinds, without
// a spec: what a tool that shows or converts records needs.
func ExampleScanner() {
	rec := example.New().Int64("label", 7).Floats("pixels", []float32{0, 0.5, 1}).Strings("name", "seven").Marshal()
	var s example.Scanner
	if err := s.Scan(rec); err != nil {
		log.Fatal(err)
	}
	for i := range s.Len() {
		switch s.Kind(i) {
		case tensor.Int64:
			fmt.Printf("%s: %v\n", s.Name(i), s.AppendInt64s(nil, i))
		case tensor.Float32:
			fmt.Printf("%s: %v\n", s.Name(i), s.AppendFloats(nil, i))
		case tensor.String:
			fmt.Printf("%s: %q\n", s.Name(i), s.AppendBytes(nil, i))
		}
	}
	// Output:
	// label: [7]
	// pixels: [0 0.5 1]
	// name: ["seven"]
}
