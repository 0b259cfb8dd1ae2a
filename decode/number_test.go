package decode

import (
	"math"
	"strconv"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// The fast path agrees with strconv.ParseFloat wherever it answers.
func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"1.5", "-0.125", "123456.7", "0.1", ".5", "5.", "-", ".", "+.", "16777217", "0.333333333"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, bits := range []int{32, 64} {
			got, ok := parseFloat([]byte(s), bits)
			want, err := strconv.ParseFloat(string(trimSpace([]byte(s))), bits)
			if ne, isNum := err.(*strconv.NumError); isNum && ne.Err == strconv.ErrRange {
				err = nil
			}
			if fast, fok := parseSimpleFloat([]byte(s), bits); fok && len(s) > 0 {
				if err != nil || (fast != want && !(math.IsNaN(fast) && math.IsNaN(want))) {
					t.Fatalf("%q bits %d: fast path %v, strconv %v (%v)", s, bits, fast, want, err)
				}
			}
			if ok && err == nil && got != want && !math.IsNaN(got) {
				t.Fatalf("%q bits %d: %v, strconv %v", s, bits, got, want)
			}
		}
	})
}

func TestParseSimpleFloat(t *testing.T) {
	// The second group has more digits than float32 holds: float32 goes
	// through float64 there, and 16777217 and 16777219 (float32 midpoints) must take
	// the slow path to round to even.
	for _, s := range []string{"1.5", "-0.125", "123456.7", "0.1", "0.2", "0.3", "3.14159", "16777215", "99.99",
		"341.33333", "16777217", "16777219", "0.333333333", "123456.789012", "900719925474099"} {
		for _, bits := range []int{32, 64} {
			got, ok := parseSimpleFloat([]byte(s), bits)
			want, _ := strconv.ParseFloat(s, bits)
			if (s == "16777217" || s == "16777219") && bits == 32 {
				if ok {
					t.Errorf("%s/32 took the fast path", s)
				}
				continue
			}
			if !ok || got != want {
				t.Errorf("%s/%d: %v %v, want %v", s, bits, got, ok, want)
			}
		}
	}
	for _, s := range []string{"-", ".", "+.", "1e5", "0x1", "inf", "1.2.3", "12345678901234567"} {
		if _, ok := parseSimpleFloat([]byte(s), 64); ok {
			t.Errorf("%q took the fast path", s)
		}
	}
}

// ValidField answers as decoding does: a field is valid for a type
// exactly when a CSV column of that type decodes it.
func TestValidField(t *testing.T) {
	for _, v := range []string{"1", " 5", "+7", "-0", "1.5", "1e39", "-nan", "nan(x_1)", "inf", "0x10",
		"1_000", "2023_01", "9223372036854775808", "2147483648", "abc", "1e", "0b1", "\t3\t"} {
		for _, dt := range []tensor.DType{tensor.Int32, tensor.Int64, tensor.Float32, tensor.Float64, tensor.String} {
			d, err := NewCSV([]Column{Required(dt)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.Decode([]byte(v))
			if got := ValidField(dt, []byte(v)); got != (err == nil) {
				t.Errorf("ValidField(%v, %q) = %v, but decoding it: %v", dt, v, got, err)
			}
		}
	}
}
