//go:build amd64 && !amd64.v3

package digits

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestGoldenDigest pins the bytes a seed gives, so that a change to the
// generator is caught. The bytes hold for one platform (see the package
// doc): amd64 built without fused multiply-adds (GOAMD64 v1 or v2, the
// default), on a CPU with FMA, which math.Exp and math.Log, reached by
// the noise's normal deviates now and then, use when the CPU has it.
func TestGoldenDigest(t *testing.T) {
	if !cpu.X86.HasFMA {
		t.Skip("math.Exp and math.Log round differently on a CPU without FMA")
	}
	for _, tt := range []struct {
		n    int
		seed uint64
		want string
	}{
		{500, 42, "5b6671a2c66e824203e60ae54f6bae36f41a13ac957e1b53403f5013b73095a4"},
		{300, 7, "c6c2b97291ce4c9561e69fc535fa9949209dc957b4e50e6395c5280616d8df18"},
		{24000, 42, "bf3e7753701cce58046f8f385e2c60f9c240bd303a9677fd9041cd24869a788b"}, // the demo's
	} {
		images, labels, err := Generate(tt.n, tt.seed)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		h.Write(images)
		h.Write(labels)
		if got := hex.EncodeToString(h.Sum(nil)); got != tt.want {
			t.Errorf("Generate(%d, %d): sha256 %s, want %s", tt.n, tt.seed, got, tt.want)
		}
	}
}
