package queue

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// TestPaddedBatchTooLarge checks that a PaddingFIFO dequeue whose padded
// batch (PAD-03) no machine holds fails with ErrResourceExhausted, as
// TensorFlow's fails with ResourceExhausted "OOM when allocating tensor
// with shape[2,1073741824,1073741824] and type float", rather than crash
// the process; and that the queue goes on serving afterwards.
func TestPaddedBatchTooLarge(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		d     tensor.DType
		elems []tensor.Tensor
		want  string
		ram   bool // the cap is the machine's memory
	}{
		{"above 2^48 elements", tensor.Float32, []tensor.Tensor{
			tensor.New([]float32{}, 1<<30, 0), tensor.New([]float32{}, 0, 1<<30),
		}, "OOM when allocating tensor with shape[2,1073741824,1073741824] and type float", false},
		{"above 2^48 bytes", tensor.Float64, []tensor.Tensor{
			tensor.New([]float64{}, 1<<24, 0), tensor.New([]float64{}, 0, 1<<22),
		}, "shape[2,16777216,4194304] and type double", false},
		{"above the machine", tensor.Uint8, []tensor.Tensor{
			// 2^45 bytes: below make's limit, above any test machine's
			// memory.
			tensor.New([]uint8{}, 1<<22, 0), tensor.New([]uint8{}, 0, 1<<22),
		}, "shape[2,4194304,4194304] and type uint8", true},
		{"strings", tensor.String, []tensor.Tensor{
			tensor.New([][]byte{}, 1<<22, 0), tensor.New([][]byte{}, 0, 1<<22),
		}, "and type string", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.ram && tensor.MemoryLimit() == tensor.MaxElements {
				t.Skip("the machine's memory is not known")
			}
			q, err := NewPaddingFIFO(4, []tensor.DType{tt.d}, []tensor.Shape{{-1, -1}})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tt.elems {
				if err := q.Enqueue(ctx, Element{e}); err != nil {
					t.Fatal(err)
				}
			}
			_, err = q.DequeueMany(ctx, len(tt.elems))
			if !errors.Is(err, ErrResourceExhausted) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("DequeueMany error %v, want ErrResourceExhausted with %q", err, tt.want)
			}
			// The queue still works.
			one := tensor.Zeros(tt.d, tensor.Shape{1, 2})
			if err := q.Enqueue(ctx, Element{one}); err != nil {
				t.Fatal(err)
			}
			b, err := q.DequeueMany(ctx, 1)
			if err != nil || !b[0].Shape().Equal(tensor.Shape{1, 1, 2}) {
				t.Fatalf("DequeueMany after the error: %v, %v", b, err)
			}
		})
	}
}
