package parquet_test

import (
	"bytes"
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

// Write a file of a scalar column and a list column, then read it back.
func ExampleWriter() {
	var buf bytes.Buffer
	w, err := parquet.NewWriter(&buf, []parquet.Column{
		{Name: "word", Kind: parquet.Bytes, Text: true},
		{Name: "scores", Kind: parquet.Float, List: true},
	}, parquet.WriterOptions{Compression: parquet.Snappy})
	if err != nil {
		log.Fatal(err)
	}
	for i, word := range []string{"alpha", "beta", "gamma"} {
		w.SetBytes(0, [][]byte{[]byte(word)})
		if i != 1 { // beta's scores are null
			w.SetFloats(1, []float32{float32(i), 0.5})
		}
		if err := w.WriteRow(); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	f, err := parquet.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "words.parquet")
	if err != nil {
		log.Fatal(err)
	}
	rows, err := f.Rows(nil)
	if err != nil {
		log.Fatal(err)
	}
	for rows.Next() {
		fmt.Printf("%s null=%v %v\n", rows.Bytes(0)[0], rows.Null(1), rows.Floats(1))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// alpha null=false [0 0.5]
	// beta null=true []
	// gamma null=false [2 0.5]
}
