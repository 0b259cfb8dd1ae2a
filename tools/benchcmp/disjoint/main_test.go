package main

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	old, err := parse(strings.NewReader(`pkg: example.com/q
BenchmarkA-2   100   10.0 ns/op   0 B/op   0 allocs/op
BenchmarkA-2   100   12.0 ns/op   0 B/op   0 allocs/op
BenchmarkB-2   100   50.0 ns/op
BenchmarkB-2   100   60.0 ns/op
BenchmarkC-2   100   5.0 ns/op
BenchmarkGone-2 100  1.0 ns/op
`))
	if err != nil {
		t.Fatal(err)
	}
	cur, err := parse(strings.NewReader(`pkg: example.com/q
BenchmarkA-2   100   20.0 ns/op   16 B/op   1 allocs/op
BenchmarkA-2   100   22.0 ns/op   16 B/op   1 allocs/op
BenchmarkB-2   100   55.0 ns/op
BenchmarkB-2   100   70.0 ns/op
BenchmarkC-1   100   2.0 ns/op
BenchmarkNew-2 100   1.0 ns/op
`))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	report(&out, old, cur)
	got := out.String()
	for _, want := range []string{
		"3 benchmarks in both; median ns/op faster in 1, slower in 2; ranges apart: 1 faster, 1 slower",
		"1.91× example.com/q BenchmarkA  old 10–12  new 20–22  allocs 0 → 1",
		"0.40× example.com/q BenchmarkC",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	// B's ranges overlap (50–60 against 55–70): in neither list.
	if strings.Contains(got, "BenchmarkB ") {
		t.Errorf("B listed though its ranges overlap:\n%s", got)
	}
}
