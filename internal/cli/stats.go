package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

func newStatsCmd() *cobra.Command {
	var (
		limit       int
		topN        int
		output      *outputFlag
		compression string
		from        string
		csv         convertOptions
	)
	cmd := &cobra.Command{
		Use:   "stats FILE...",
		Short: "Summarise the values of every feature of Example records",
		Long: `stats reads Example or SequenceExample records and reports, for every
feature, what schema does (its kind, how many records hold it, how many values
it has) and a summary of its values: for float and int64 features their
minimum, median, maximum, mean and standard deviation and how many are zero,
and for floats how many are NaN or infinite (left out of the rest); for bytes
features the same of the values' lengths, and how many are empty. For int64
features and bytes values of up to 64 bytes it counts each distinct value
and lists the most common (--top), while there are at most 10 000 of them:
a label's classes, a category's words. A feature list's figures are over the
values of all its steps. The median (and, in --json, the 1st, 25th, 75th and
99th percentiles) is exact up to 1024 values and else estimated from a
uniform sample of 1024 of them, marked ≈.

--from csv, --from jsonl and --from parquet summarise the Examples convert
would write of those files (for CSV, with the same --header, --delimiter and
--columns). --output json (or --json) prints the report as data; in it an
int64 minimum, maximum or most common value beyond ±2^53 (9007199254740992),
which jq and JavaScript would round, is a string of its digits, as in cat's
output (quantiles and means are floats).

Each feature summarised costs about a kilobyte: more distinct features than
one a KiB of --max-record-size (262 144 by default, 1 024 at least) is an
error naming the record that brought the first one over.`,
		Example: "  sluice stats 'data/train-*.tfrecord.gz'\n" +
			"  sluice stats --limit 10000 --top 20 data.tfrecord\n" +
			"  sluice stats --from csv --header data.csv.gz\n" +
			"  sluice stats --from parquet --json 'part-*.parquet'",
		Args: cobra.MinimumNArgs(1),
		RunE: withTally(func(cmd *cobra.Command, args []string, t *tally) error {
			format, err := output.get()
			if err != nil {
				return err
			}
			if err := checkLimit(cmd); err != nil {
				return err
			}
			if topN < 0 {
				return fmt.Errorf("--top must be 0 or more, not %d", topN)
			}
			s := newSchema()
			s.values = true
			s.maxFeatures = maxColumns(cmd.Context())
			switch from {
			case "tfrecord", "jsonl", "parquet":
				if csv.header || csv.delimiter != "," || csv.columns != "" {
					return fmt.Errorf("--header, --delimiter and --columns are for --from csv")
				}
				err = readSchema(cmd, args, from, compression, limit, t, s)
			case "csv":
				if compression != "auto" {
					return fmt.Errorf("--compression: CSV's is found from each file's first bytes")
				}
				err = readCSVExamples(cmd.Context(), args, csv, limit, t, s)
			default:
				return fmt.Errorf("--from must be tfrecord, csv, jsonl or parquet, not %q", from)
			}
			if err != nil {
				return err
			}
			if format == "json" {
				return writeStatsJSON(cmd.OutOrStdout(), s, topN)
			}
			return writeStatsText(cmd.OutOrStdout(), s, topN)
		}),
	}
	f := cmd.Flags()
	f.IntVar(&limit, "limit", -1, "read at most this many records in all (-1: all)")
	f.IntVar(&topN, "top", 10, "list at most this many of a feature's most common values")
	output = addOutputFlag(cmd, "text", "json")
	f.StringVar(&compression, "compression", "auto", compressionUsage)
	f.StringVar(&from, "from", "tfrecord", "input format: tfrecord (Examples), csv, jsonl or parquet")
	f.BoolVar(&csv.header, "header", false, "with --from csv: the files' first line names the columns")
	f.StringVar(&csv.delimiter, "delimiter", ",", "with --from csv: the field delimiter, one character (\\t for a tab)")
	f.StringVar(&csv.columns, "columns", "", "with --from csv: name:int64|float|string,... as convert's (a column without :type is inferred)")
	return cmd
}

// errEnough stops a conversion at stats' --limit.
var errEnough = errors.New("enough records")

// readCSVExamples reads into s the Examples convert --from csv would write
// of the CSV files args names, with o's --header, --delimiter and
// --columns, at most limit of them (limit < 0: all).
func readCSVExamples(ctx context.Context, args []string, o convertOptions, limit int, t *tally, s *schema) error {
	names, err := expand(ctx, args)
	if err != nil {
		return err
	}
	// Stopping as soon as the limit is reached, not at the record after
	// it, keeps the next file from being opened, and counted, for nothing.
	s.files, err = readCSV(ctx, names, o, nil, t, func(rec []byte) error {
		if limit >= 0 && s.records >= int64(limit) {
			return errEnough
		}
		if err := s.add(rec); err != nil {
			return err
		}
		if limit >= 0 && s.records >= int64(limit) {
			return errEnough
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}

func writeStatsText(w io.Writer, s *schema, topN int) error {
	fmt.Fprintln(w, s.summary())
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	s.eachSection(func(title string, list bool, m map[string]*featureStats) {
		n := s.holders()
		per := "VALUES"
		if list {
			per = "VALUES/STEP"
		}
		fmt.Fprintln(tw)
		fmt.Fprintf(tw, "%s\tKIND\tIN RECORDS\t%s\tMIN\tMEDIAN\tMAX\tMEAN\tSTD DEV\tZEROS\tNAN\tINF\n", title, per)
		for _, st := range sorted(m) {
			values := spread(st.minN, st.maxN, st.total, st.present)
			if list {
				values = spread(st.minN, st.maxN, st.total, st.steps)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cell(st.name), st.kindText(), st.in(n), values, strings.Join(valueColumns(st), "\t"))
		}
	})
	if err := tw.Flush(); err != nil {
		return err
	}
	if topN == 0 {
		return nil
	}
	tw = tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "\nTOP VALUES\tDISTINCT\tMOST COMMON (COUNT, SHARE OF THE VALUES)\n")
	any := false
	for i, m := range []map[string]*featureStats{s.features, s.lists} {
		for _, st := range sorted(m) {
			k := st.kind()
			if k != "int64" && k != "bytes" || st.total == 0 {
				continue
			}
			any = true
			// The table has no sections: a context feature and a feature
			// list of the same name are told apart by their names.
			name := cell(st.name)
			if s.features[st.name] != nil && s.lists[st.name] != nil {
				name += [...]string{" (context)", " (feature list)"}[i]
			}
			v := st.vals
			if v.untracked != "" {
				fmt.Fprintf(tw, "%s\t—\tnot counted: %s\n", name, v.untracked)
				continue
			}
			var parts []string
			if k == "int64" {
				for _, c := range top(v.ints, topN) {
					parts = append(parts, fmt.Sprintf("%d (%d, %s)", c.value, c.count, percent(c.count, st.total)))
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\n", name, len(v.ints), strings.Join(parts, ", "))
				continue
			}
			for _, c := range top(v.strs, topN) {
				parts = append(parts, fmt.Sprintf("%s (%d, %s)", strconv.Quote(c.value), c.count, percent(c.count, st.total)))
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\n", name, len(v.strs), strings.Join(parts, ", "))
		}
	}
	if !any {
		return nil
	}
	return tw.Flush()
}

// valueColumns are the text report's MIN to INF columns of a feature:
// bytes features' figures are of their values' lengths, and their zeros
// are empty values. A median from a sample of the values, not all of
// them, is marked ≈.
func valueColumns(st *featureStats) []string {
	v := st.vals
	dash := []string{"—", "—", "—", "—", "—", "—", "—", "—"}
	median := func(unit string) string {
		q, exact := v.q.quantiles(0.5)
		if exact {
			return number(q[0]) + unit
		}
		return "≈" + number(q[0]) + unit
	}
	switch k := st.kind(); {
	case v.n == 0 && v.nans == 0 && v.infs == 0, k != "float" && k != "int64" && k != "bytes":
		return dash
	case k == "float":
		cols := []string{"—", "—", "—", "—", "—", "—", strconv.FormatInt(v.nans, 10), strconv.FormatInt(v.infs, 10)}
		if v.n > 0 {
			copy(cols, []string{number(v.minF), median(""), number(v.maxF), number(v.mean()), number(v.stdDev()), share(v.zeros, st.total)})
		}
		return cols
	case k == "int64":
		return []string{strconv.FormatInt(v.minI, 10), median(""), strconv.FormatInt(v.maxI, 10), number(v.mean()), number(v.stdDev()),
			share(v.zeros, st.total), "—", "—"}
	default:
		return []string{strconv.FormatInt(v.minI, 10) + " B", median(" B"), strconv.FormatInt(v.maxI, 10) + " B", number(v.mean()) + " B",
			number(v.stdDev()) + " B", share(v.zeros, st.total), "—", "—"}
	}
}

// share shows a count of values with its share of all of them.
func share(n, of int64) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", n, percent(n, of))
}

// number formats a float for the text report: four significant digits.
func number(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// jsonStats is one feature in stats --output json.
type jsonStats struct {
	Name       string `json:"name"`
	NameBase64 string `json:"name_base64,omitempty"` // the name's bytes, if not UTF-8
	Kind       string `json:"kind"`
	Records    int64  `json:"records"`
	Values     int64  `json:"values"`
	MinValues  int    `json:"min_values"`
	MaxValues  int    `json:"max_values"`
	Steps      *int64 `json:"steps,omitempty"`
	Min        any    `json:"min,omitempty"` // bytes: lengths
	Max        any    `json:"max,omitempty"`
	// Mean and StdDev are of the finite values; absent when there are
	// none (audit 60: they said 0).
	Mean   *float64 `json:"mean,omitempty"`
	StdDev *float64 `json:"std_dev,omitempty"`
	// Quantiles are the values at 1, 25, 50, 75 and 99% of the sorted
	// values (bytes: lengths), from a uniform sample of 1024 of them
	// unless QuantilesExact.
	Quantiles      *jsonQuantiles `json:"quantiles,omitempty"`
	QuantilesExact bool           `json:"quantiles_exact,omitempty"`
	Zeros          int64          `json:"zeros"` // bytes: empty values
	NaNs           int64          `json:"nans"`
	Infs           int64          `json:"infs"`
	// Distinct and Top are set for int64 and bytes features whose values
	// were counted; Untracked says why a feature's were not.
	Distinct  *int      `json:"distinct,omitempty"`
	Top       []jsonTop `json:"top,omitempty"`
	Untracked string    `json:"untracked,omitempty"`
}

type jsonQuantiles struct {
	P1  float64 `json:"p1"`
	P25 float64 `json:"p25"`
	P50 float64 `json:"p50"`
	P75 float64 `json:"p75"`
	P99 float64 `json:"p99"`
}

// jsonTop is one of a feature's most common values: an int64, a string
// for bytes that are UTF-8, or else base64 in Base64.
type jsonTop struct {
	Value  any    `json:"value,omitempty"`
	Base64 string `json:"base64,omitempty"`
	Count  int64  `json:"count"`
}

// exactInt is v as cat's --int64 exact writes it: a number, or beyond
// ±2^53, which jq and JavaScript would round, a string of its digits.
func exactInt(v int64) any {
	if v > maxExactInt || v < -maxExactInt {
		return strconv.FormatInt(v, 10)
	}
	return v
}

func writeStatsJSON(w io.Writer, s *schema, topN int) error {
	conv := func(m map[string]*featureStats, list bool) []jsonStats {
		out := []jsonStats{}
		for _, st := range sorted(m) {
			v := st.vals
			js := jsonStats{Name: st.name, NameBase64: nameBase64(st.name), Kind: st.kind(), Records: st.present, Values: st.total,
				MinValues: max(st.minN, 0), MaxValues: st.maxN,
				Zeros: v.zeros, NaNs: v.nans, Infs: v.infs}
			if list {
				js.Steps = &st.steps
			}
			if v.n > 0 {
				mean, sd := v.mean(), v.stdDev()
				js.Mean, js.StdDev = &mean, &sd
				switch js.Kind {
				case "float":
					js.Min, js.Max = v.minF, v.maxF
				case "int64":
					js.Min, js.Max = exactInt(v.minI), exactInt(v.maxI)
				case "bytes":
					js.Min, js.Max = v.minI, v.maxI
				}
				if js.Min != nil {
					q, exact := v.q.quantiles(0.01, 0.25, 0.5, 0.75, 0.99)
					js.Quantiles, js.QuantilesExact = &jsonQuantiles{q[0], q[1], q[2], q[3], q[4]}, exact
				}
			}
			switch {
			case js.Kind != "int64" && js.Kind != "bytes":
			case v.untracked != "":
				js.Untracked = v.untracked
			case js.Kind == "int64":
				d := len(v.ints)
				js.Distinct = &d
				for _, c := range top(v.ints, topN) {
					js.Top = append(js.Top, jsonTop{Value: exactInt(c.value), Count: c.count})
				}
			default:
				d := len(v.strs)
				js.Distinct = &d
				for _, c := range top(v.strs, topN) {
					t := jsonTop{Count: c.count}
					if utf8.ValidString(c.value) {
						t.Value = c.value
					} else {
						t.Base64 = base64.StdEncoding.EncodeToString([]byte(c.value))
					}
					js.Top = append(js.Top, t)
				}
			}
			out = append(out, js)
		}
		return out
	}
	return writeJSON(w, newJSONReport(s, conv))
}
