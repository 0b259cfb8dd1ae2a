package sequence

import (
	"encoding/json"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// FuzzRestoredStates decodes arbitrary carried states from a checkpoint:
// each is refused with an error or gives values of exactly the declared
// types and shapes, never a panic or an allocation the data does not pay
// for.
func FuzzRestoredStates(f *testing.F) {
	initial := map[string]tensor.Tensor{
		"n": tensor.Scalar[int32](0),
		"h": tensor.New([]float32{0.5, -1}, 2),
		"s": tensor.StringScalar("start"),
	}
	s, err := NewStateSaver(2, 2, initial)
	if err != nil {
		f.Fatal(err)
	}
	var c carried
	c.save("n", []string{"seq_0:a"}, tensor.New([]int32{7}, 1))
	c.save("h", []string{"seq_0:a"}, tensor.New([]float32{1, 2}, 1, 2))
	c.save("s", []string{"seq_1:b"}, tensor.Strings("state"))
	seed, err := c.checkpoint()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(seed))
	f.Add([]byte(`[{"key":"k","values":{"h":{"dtype":"float32","shape":[2],"data":"AAAAAAAAAAA="}}}]`))
	f.Add([]byte(`[{"key":"k","values":{"h":{"dtype":"float32","shape":[1099511627776,1099511627776],"data":""}}}]`))
	f.Add([]byte(`[{"key":"k","values":{"x":{}}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		states, err := s.restoredStates(json.RawMessage(data))
		if err != nil {
			return
		}
		for key, m := range states {
			for name, v := range m {
				want := initial[name]
				if v.DType() != want.DType() || !v.Shape().Equal(want.Shape()) {
					t.Fatalf("state %s of %s restored as %v %v, declared %v %v", name, key, v.DType(), v.Shape(), want.DType(), want.Shape())
				}
			}
		}
	})
}
