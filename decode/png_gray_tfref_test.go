package decode

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"
)

// TensorFlow's decode_png(channels=1) of color PNGs with the chunks that
// give libpng a file gamma (tools/tfref/pnggray.py): with a gamma not near
// 1 (sRGB, most gAMAs) libpng's png_set_rgb_to_gray, as TensorFlow calls
// it, converts through linear light, with tables that depend on the gamma,
// the bit depth and, for 16 bits, the sBIT chunk; sluice must give its
// gray exactly. SLUICE_PNG_GRAY names another reference file, such as one
// the script wrote of larger images.
func TestPNGGrayMatchesTensorFlow(t *testing.T) {
	var ref struct {
		Side  int
		Cases []struct{ Name, PNG, Gray string }
	}
	if path := os.Getenv("SLUICE_PNG_GRAY"); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &ref); err != nil {
			t.Fatal(err)
		}
	} else {
		loadJSON(t, "tf_png_gray.json", &ref)
	}
	if len(ref.Cases) < 50 {
		t.Fatalf("only %d cases", len(ref.Cases))
	}
	d, _ := NewImage(1)
	for _, c := range ref.Cases {
		data, _ := base64.StdEncoding.DecodeString(c.PNG)
		want, _ := base64.StdEncoding.DecodeString(c.Gray)
		got, err := d.Decode(data, c.Name)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		g := got.Uint8s()
		if len(g) != len(want) {
			t.Errorf("%s: %d pixels, TensorFlow %d", c.Name, len(g), len(want))
			continue
		}
		bad, first := 0, -1
		for i := range g {
			if g[i] != want[i] {
				if first < 0 {
					first = i
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d pixels differ from TensorFlow's; the first, %d, is %d, not %d", c.Name, bad, len(g), first, g[first], want[first])
		}
	}
}
