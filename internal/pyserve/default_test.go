package pyserve

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/tensor"
)

// TestParseDefault reads defaults as the Python package sends them: JSON
// numbers and strings, with NaN and the infinities as strings and bytes
// that are not UTF-8 as {"base64": ...}, which JSON cannot hold otherwise
// (audit 35: json.dumps wrote NaN, which no JSON reader takes).
func TestParseDefault(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		dt   tensor.DType
		want string // fmt of the values; "" for an error
	}{
		{`1.5`, tensor.Float32, "[1.5]"},
		{`"nan"`, tensor.Float32, "[NaN]"},
		{`["inf", "-inf", 2]`, tensor.Float64, "[+Inf -Inf 2]"},
		{`"Infinity"`, tensor.Float64, "[+Inf]"},
		{`[1, 9007199254740993]`, tensor.Int64, "[1 9007199254740993]"},
		{`"abc"`, tensor.String, "[[97 98 99]]"},
		{`[{"base64": "/wA="}, "x"]`, tensor.String, "[[255 0] [120]]"},
		{`"1.5"`, tensor.Float32, ""}, // a finite number is a JSON number
		{`"nan"`, tensor.Int64, ""},
		{`{"base64": "!!"}`, tensor.String, ""},
		{`{"base64": "AA==", "x": 1}`, tensor.String, ""},
		{`{"b64": "AA=="}`, tensor.String, ""},
		{`true`, tensor.Float32, ""},
		// Arrays of several dimensions, as NumPy's tolist() gives them,
		// row-major (audit 56); ragged lists are no array.
		{`[[1, 2], [3, 4]]`, tensor.Float32, "[1 2 3 4]"},
		{`[[[1], [2]], [[3], [4]]]`, tensor.Int64, "[1 2 3 4]"},
		{`[["a"], ["b"]]`, tensor.String, "[[97] [98]]"},
		{`[[1, 2], [3]]`, tensor.Float32, ""},
		{`[[1, 2], 3]`, tensor.Float32, ""},
		{`[1, [2, 3]]`, tensor.Float32, ""},
		{`[[1, 2, 3], [[4], [5], [6]]]`, tensor.Float32, ""},
		{`[[], []]`, tensor.Float32, "[]"},
	} {
		got, err := parseDefault(json.RawMessage(tc.raw), tc.dt)
		if tc.want == "" {
			if !errors.Is(err, sluice.ErrInvalid) {
				t.Errorf("%s as %v: %v, want an error", tc.raw, tc.dt, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s as %v: %v", tc.raw, tc.dt, err)
			continue
		}
		var s string
		switch tc.dt {
		case tensor.Float32:
			s = fmt.Sprint(got.Float32s())
		case tensor.Float64:
			s = fmt.Sprint(got.Float64s())
		case tensor.Int64:
			s = fmt.Sprint(got.Int64s())
		case tensor.String:
			s = fmt.Sprint(got.Strings())
		}
		if s != tc.want {
			t.Errorf("%s as %v: %s, want %s", tc.raw, tc.dt, s, tc.want)
		}
	}
}
