package parquet_test

import (
	"fmt"
	"log"
	"os"

	"github.com/sluiceml/sluice/parquet"
)

// Read two columns of a Parquet file, row by row: a scalar and a list,
// which is empty in some rows and null in others.
func Example() {
	file, err := os.Open("testdata/default.parquet")
	if err != nil {
		log.Fatal(err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		log.Fatal(err)
	}
	f, err := parquet.Open(file, st.Size(), file.Name())
	if err != nil {
		log.Fatal(err)
	}
	rows, err := f.Rows([]string{"word", "ilist"})
	if err != nil {
		log.Fatal(err)
	}
	for rows.Next() && rows.Row() < 4 {
		word := rows.Bytes(0)[0] // a scalar column: one value
		if rows.Null(1) {
			fmt.Printf("%q no ilist\n", word)
			continue
		}
		fmt.Printf("%q ilist %v\n", word, rows.Int64s(1))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// "delta" no ilist
	// "ünïcødé" ilist [-767 -297]
	// "ünïcødé" ilist [-186 801 466]
	// "gamma" ilist [885 669 -306 730]
}
