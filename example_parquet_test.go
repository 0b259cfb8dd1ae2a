package sluice_test

import (
	"context"
	"fmt"
	"log"

	"github.com/sluiceml/sluice"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
)

// Train from Parquet files directly: each row is an Example of its
// columns, read by the spec's features of the same names (here a scalar
// of every row and a nullable list, pyarrow's file of 300 rows).
func ExampleParquet() {
	spec := example.Spec{
		"i64":   example.FixedLen(tensor.Int64),
		"ilist": example.VarLen(tensor.Int64),
	}
	ds := sluice.Examples("parquet/testdata/default.parquet", spec, sluice.Parquet(), sluice.Readers(1))
	rows, values := 0, 0
	for b, err := range ds.Batches(context.Background(), 128) {
		if err != nil {
			log.Fatal(err)
		}
		rows += len(b.Int64("i64"))
		values += b.Sparse("ilist").Values.Len()
	}
	fmt.Println(rows, "rows,", values, "list values")
	// Output: 300 rows, 878 list values
}
