package cli

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/tfrecord"
)

func bytesOf(v ...string) *pb.Feature {
	b := make([][]byte, len(v))
	for i, s := range v {
		b[i] = []byte(s)
	}
	return &pb.Feature{Kind: &pb.Feature_BytesList{BytesList: &pb.BytesList{Value: b}}}
}

// statsReport is stats --output json as the tests read it.
type statsReport struct {
	Records      int64
	Features     []jsonStats
	FeatureLists []jsonStats `json:"feature_lists"`
}

func runStats(t *testing.T, args ...string) statsReport {
	t.Helper()
	code, out, errOut := run(t, append([]string{"stats", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r statsReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	return r
}

func feature(t *testing.T, fs []jsonStats, name string) jsonStats {
	t.Helper()
	for _, f := range fs {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no feature %q in %+v", name, fs)
	return jsonStats{}
}

// Each feature's summary, against figures worked out here from the values
// the records were made of.
func TestStatsValues(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	xs := [][]float32{{1, 2}, {3, nan}, {inf, 0}, {-1e30}, {}}
	words := [][]string{{"cat", "dog"}, {""}, {"cat"}, {"\xff\xfe", "cat"}, {"dog"}}
	ids := make([]int64, maxDistinct+1)
	for i := range ids {
		ids[i] = int64(i)
	}
	var recs [][]byte
	for i := range 5 {
		f := map[string]*pb.Feature{
			"x":     floats(xs[i]...),
			"label": int64s(int64(i%3), int64(i%3)),
			"word":  bytesOf(words[i]...),
			"blob":  bytesOf(strings.Repeat("b", 10*i+40)), // over 64 bytes from the third record
			"kinds": int64s(1),
		}
		if i == 4 {
			f["kinds"] = floats(1)
			f["ids"] = int64s(ids...)
		}
		recs = append(recs, marshal(t, &pb.Example{Features: &pb.Features{Feature: f}}))
	}
	p := writeRecords(t, t.TempDir(), "v.tfrecord", tfrecord.None, recs...)
	r := runStats(t, p)
	if r.Records != 5 {
		t.Fatalf("%d records", r.Records)
	}

	// Finite floats: 1, 2, 3, 0, -1e30 (float32's, as float64).
	x := feature(t, r.Features, "x")
	finite := []float64{1, 2, 3, 0, float64(float32(-1e30))}
	mean, ss := 0.0, 0.0
	for _, v := range finite {
		mean += v / 5
	}
	for _, v := range finite {
		ss += (v - mean) * (v - mean)
	}
	if x.Kind != "float" || x.Values != 7 || x.Min != finite[4] || x.Max != 3.0 || x.NaNs != 1 || x.Infs != 1 || x.Zeros != 1 ||
		math.Abs(val(x.Mean)-mean) > 1e-9*math.Abs(mean) || math.Abs(val(x.StdDev)-math.Sqrt(ss/5)) > 1e-9*math.Sqrt(ss/5) ||
		x.Distinct != nil || x.Top != nil {
		t.Errorf("x: %+v, want mean %v, std dev %v", x, mean, math.Sqrt(ss/5))
	}
	// Quantiles of the finite values, all of them kept: exact, and
	// interpolated as numpy.quantile does (sorted: -1e30, 0, 1, 2, 3).
	if q := x.Quantiles; q == nil || !x.QuantilesExact || math.Abs(q.P1/(0.96*finite[4])-1) > 1e-12 ||
		q.P25 != 0 || q.P50 != 1 || q.P75 != 2 || math.Abs(q.P99-2.96) > 1e-12 {
		t.Errorf("x's quantiles %+v (exact %v)", q, x.QuantilesExact)
	}

	// Labels 0, 1, 2, 0, 1, each twice.
	l := feature(t, r.Features, "label")
	wantTop := []jsonTop{{Value: 0.0, Count: 4}, {Value: 1.0, Count: 4}, {Value: 2.0, Count: 2}}
	if l.Min != 0.0 || l.Max != 2.0 || val(l.Mean) != 0.8 || l.Zeros != 4 || l.Distinct == nil || *l.Distinct != 3 || !equalTop(l.Top, wantTop) {
		t.Errorf("label: %+v, top %+v, want %+v", l, l.Top, wantTop)
	}

	// Bytes: lengths 3, 3, 0, 3, 2, 3, 3, and the value that is not UTF-8
	// in base64.
	w := feature(t, r.Features, "word")
	if w.Min != 0.0 || w.Max != 3.0 || math.Abs(val(w.Mean)-17.0/7) > 1e-12 || w.Zeros != 1 || *w.Distinct != 4 {
		t.Errorf("word: %+v", w)
	}
	wantWords := []jsonTop{{Value: "cat", Count: 3}, {Value: "dog", Count: 2}, {Value: "", Count: 1},
		{Base64: base64.StdEncoding.EncodeToString([]byte("\xff\xfe")), Count: 1}}
	if !equalTop(w.Top, wantWords) {
		t.Errorf("word's top %+v, want %+v", w.Top, wantWords)
	}

	// Counting stops for long values and for many distinct ones, but the
	// figures go on.
	if b := feature(t, r.Features, "blob"); b.Untracked != "values over 64 bytes" || b.Top != nil || b.Max != 80.0 ||
		b.Quantiles == nil || b.Quantiles.P50 != 60 {
		t.Errorf("blob: %+v", b)
	}
	if id := feature(t, r.Features, "ids"); id.Untracked != "over 10000 distinct values" || id.Max != float64(maxDistinct) || id.Values != maxDistinct+1 ||
		id.QuantilesExact || math.Abs(id.Quantiles.P50-maxDistinct/2) > 0.1*maxDistinct {
		t.Errorf("ids: %+v", id)
	}
	// A feature of two kinds has no figures of its values.
	if k := feature(t, r.Features, "kinds"); k.Kind != "mixed" || k.Min != nil || k.Top != nil {
		t.Errorf("kinds: %+v", k)
	}

	// --top bounds the list.
	r = runStats(t, "--top", "1", p)
	if l := feature(t, r.Features, "label"); !equalTop(l.Top, wantTop[:1]) {
		t.Errorf("--top 1: %+v", l.Top)
	}
}

func equalTop(got, want []jsonTop) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// A feature list's figures are over the values of all its steps.
func TestStatsFeatureLists(t *testing.T) {
	var recs [][]byte
	for i := range 3 {
		steps := make([]*pb.Feature, i+1)
		for j := range steps {
			steps[j] = int64s(int64(j))
		}
		recs = append(recs, marshal(t, &pb.SequenceExample{
			Context:      &pb.Features{Feature: map[string]*pb.Feature{"id": int64s(int64(i))}},
			FeatureLists: &pb.FeatureLists{FeatureList: map[string]*pb.FeatureList{"tok": {Feature: steps}}},
		}))
	}
	p := writeRecords(t, t.TempDir(), "s.tfrecord", tfrecord.None, recs...)
	r := runStats(t, p)
	tok := feature(t, r.FeatureLists, "tok")
	// Steps 0; 0, 1; 0, 1, 2.
	if tok.Steps == nil || *tok.Steps != 6 || tok.Values != 6 || tok.Max != 2.0 || math.Abs(val(tok.Mean)-4.0/6) > 1e-12 ||
		!equalTop(tok.Top, []jsonTop{{Value: 0.0, Count: 3}, {Value: 1.0, Count: 2}, {Value: 2.0, Count: 1}}) {
		t.Errorf("tok: %+v", tok)
	}
	if id := feature(t, r.Features, "id"); id.Values != 3 || val(id.Mean) != 1 {
		t.Errorf("id: %+v", id)
	}
}

// The text report, on schema's test records (golden), and the ways in
// and out that are not TFRecord and JSON.
func TestStatsOutputs(t *testing.T) {
	dir := t.TempDir()
	writeRecords(t, dir, "ex.tfrecord.gz", tfrecord.Gzip, append(schemaExamples(t), []byte("\xff\xff not a proto"))...)
	writeRecords(t, dir, "seq.tfrecord", tfrecord.None, schemaSequences(t)...)
	for _, file := range []string{"ex", "seq"} {
		t.Run(file, func(t *testing.T) {
			code, out, errOut := run(t, "stats", filepath.Join(dir, file+".*"))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "stats_"+file, dir, out)
		})
	}
	// JSON lines: the Examples convert would write.
	jl := filepath.Join(dir, "e.jsonl")
	os.WriteFile(jl, []byte(`{"a": 1, "b": [0.5, 1.5], "c": "x"}`+"\n"+`{"a": 3, "b": [2.5], "c": "x"}`+"\n"), 0o644)
	r := runStats(t, "--from", "jsonl", jl)
	if a := feature(t, r.Features, "a"); r.Records != 2 || val(a.Mean) != 2 || a.Kind != "int64" {
		t.Errorf("jsonl: %+v", r)
	}
	if c := feature(t, r.Features, "c"); !equalTop(c.Top, []jsonTop{{Value: "x", Count: 2}}) {
		t.Errorf("jsonl c: %+v", c)
	}
	// CSV: the Examples convert would write, with its flags; --limit stops
	// the conversion.
	csv := filepath.Join(dir, "e.csv")
	os.WriteFile(csv, []byte("n;w\n1;a\n2;\n6;a\n"), 0o644)
	r = runStats(t, "--from", "csv", "--header", "--delimiter", ";", "--columns", "n:float,w", csv)
	if n := feature(t, r.Features, "n"); r.Records != 3 || n.Kind != "float" || val(n.Mean) != 3 {
		t.Errorf("csv: %+v", r)
	}
	if w := feature(t, r.Features, "w"); !equalTop(w.Top, []jsonTop{{Value: "a", Count: 2}, {Value: "", Count: 1}}) {
		t.Errorf("csv w: %+v", w)
	}
	if r = runStats(t, "--from", "csv", "--header", "--delimiter", ";", "--limit", "2", csv); r.Records != 2 {
		t.Errorf("csv --limit 2: %d records", r.Records)
	}
}

func TestStatsErrors(t *testing.T) {
	dir := t.TempDir()
	p := writeRecords(t, dir, "ex.tfrecord", tfrecord.None, example.New().Int64("a", 1).Marshal())
	for _, args := range [][]string{
		{"--from", "xml", p},
		{"--header", p},
		{"--from", "csv", "--compression", "GZIP", p},
		{"--top", "-1", p},
		{"-o", "go", p},
		{filepath.Join(dir, "none-*")},
	} {
		if code, out, errOut := run(t, append([]string{"stats"}, args...)...); code == 0 || errOut == "" || out != "" {
			t.Errorf("stats %v: exit %d, %q, %q; want an error", args, code, out, errOut)
		}
	}
	// A corrupt record fails the command with the file and offset, as
	// schema's does.
	data, _ := os.ReadFile(p)
	data[12] ^= 1
	os.WriteFile(p, data, 0o644)
	if code, _, errOut := run(t, "stats", p); code != 1 || !strings.Contains(errOut, p+": corrupted record at 12 (data CRC mismatch in record at 0)") {
		t.Errorf("corrupt file: exit %d, %q", code, errOut)
	}
}

// --json writes int64s beyond ±2^53 as strings of their digits, as cat
// does, so that jq does not round them; smaller ones stay numbers.
func TestStatsJSONExactInt64(t *testing.T) {
	big := int64(1)<<53 + 1
	p := writeRecords(t, t.TempDir(), "big.tfrecord", tfrecord.None,
		example.New().Int64("id", big, math.MinInt64, 7).Marshal(),
		example.New().Int64("id", big).Marshal())
	code, out, errOut := run(t, "stats", "--json", p)
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{`"min": "-9223372036854775808"`, `"max": "9007199254740993"`, `"value": "9007199254740993"`, `"value": 7`} {
		if !strings.Contains(out, want) {
			t.Errorf("--json does not hold %s:\n%s", want, out)
		}
	}
}

// The text report's TOP VALUES table has no sections: a context feature
// and a feature list of the same name are told apart by their names.
func TestStatsTopValuesSameName(t *testing.T) {
	rec := marshal(t, &pb.SequenceExample{
		Context:      &pb.Features{Feature: map[string]*pb.Feature{"x": int64s(5), "only": int64s(1)}},
		FeatureLists: &pb.FeatureLists{FeatureList: map[string]*pb.FeatureList{"x": {Feature: []*pb.Feature{int64s(9)}}}},
	})
	p := writeRecords(t, t.TempDir(), "s.tfrecord", tfrecord.None, rec)
	code, out, errOut := run(t, "stats", p)
	if code != 0 {
		t.Fatal(errOut)
	}
	_, top, _ := strings.Cut(out, "TOP VALUES")
	for _, want := range []string{"\nx (context)  ", "5 (1, 100%)", "\nx (feature list)  ", "9 (1, 100%)", "\nonly  "} {
		if !strings.Contains(top, want) {
			t.Errorf("TOP VALUES does not hold %q:\n%s", want, top)
		}
	}
}

// val is *p, or NaN for a value the report left out.
func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// The mean keeps what Welford's running mean loses beside values near
// ±FLT_MAX; a feature without finite values has no mean or spread, not 0;
// a name that is not UTF-8 comes with its bytes (audit 60).
func TestStatsExtremes(t *testing.T) {
	recs := [][]byte{
		example.New().Floats("x", []float32{9.22e18, math.MaxFloat32, -math.MaxFloat32, 1}).
			Floats("n", []float32{float32(math.NaN())}).Floats("e", nil).Int64("\xffab", 1).Marshal(),
	}
	p := writeRecords(t, t.TempDir(), "x.tfrecord", tfrecord.None, recs...)
	r := runStats(t, p)
	want := float64(float32(9.22e18)+1) / 4
	if x := feature(t, r.Features, "x"); math.Abs(val(x.Mean)-want) > 1e-9*want {
		t.Errorf("mean of 9.22e18, ±FLT_MAX and 1: %v, want %v", val(x.Mean), want)
	}
	for _, name := range []string{"n", "e"} {
		if f := feature(t, r.Features, name); f.Mean != nil || f.StdDev != nil {
			t.Errorf("%s, no finite value: mean %v, std dev %v; want neither", name, val(f.Mean), val(f.StdDev))
		}
	}
	var named bool
	for _, f := range r.Features {
		if f.NameBase64 != "" {
			named = f.NameBase64 == base64.StdEncoding.EncodeToString([]byte("\xffab"))
		}
	}
	if !named {
		t.Errorf("no feature with the name's bytes: %+v", r.Features)
	}
}
