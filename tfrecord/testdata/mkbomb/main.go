// Command mkbomb writes a TFRecord decompression bomb: a compressed file of
// one record of zero bytes, small on disk and large once inflated, for
// measuring what readers allocate on hostile input. It is not part of the
// build; run it with
//
//	go run ./tfrecord/testdata/mkbomb -compression ZSTD -o bomb.zst
//
// -length sets the length the record's header claims (default 2 GiB - 1,
// within TensorFlow's limit) and -hold the bytes of data that follow the
// header (default: all of them and the data CRC, a well-formed record; less
// makes a truncated one whose header claims more than the file holds).
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"log"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"

	"github.com/sluiceml/sluice/tfrecord"
)

func main() {
	length := flag.Int64("length", 1<<31-1, "record length the header claims")
	hold := flag.Int64("hold", -1, "data bytes present after the header (-1: the whole record and its CRC)")
	comp := flag.String("compression", "ZSTD", "NONE, ZLIB, GZIP or ZSTD")
	out := flag.String("o", "", "output file")
	flag.Parse()
	if *out == "" {
		log.Fatal("mkbomb: -o is required")
	}
	c, err := tfrecord.ParseCompression(*comp)
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := compressor(c, bw)
	if err != nil {
		log.Fatal(err)
	}
	if err := write(w, *length, *hold); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	st, _ := os.Stat(*out)
	fmt.Printf("%s: %d bytes, one %v record claiming %d bytes\n", *out, st.Size(), c, *length)
}

// write writes the record: the header for length, then hold bytes of zero
// data (and the data CRC when the record is whole).
func write(w io.Writer, length, hold int64) error {
	var h [12]byte
	binary.LittleEndian.PutUint64(h[:], uint64(length))
	binary.LittleEndian.PutUint32(h[8:], tfrecord.MaskedCRC(h[:8]))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	whole := hold < 0
	if whole {
		hold = length
	}
	zeros := make([]byte, 1<<20)
	crc := uint32(0)
	table := crc32.MakeTable(crc32.Castagnoli)
	for n := hold; n > 0; {
		m := min(n, int64(len(zeros)))
		crc = crc32.Update(crc, table, zeros[:m])
		if _, err := w.Write(zeros[:m]); err != nil {
			return err
		}
		n -= m
	}
	if whole {
		var foot [4]byte
		binary.LittleEndian.PutUint32(foot[:], tfrecord.Mask(crc))
		_, err := w.Write(foot[:])
		return err
	}
	return nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func compressor(c tfrecord.Compression, w io.Writer) (io.WriteCloser, error) {
	switch c {
	case tfrecord.Zlib:
		return zlib.NewWriterLevel(w, zlib.BestCompression)
	case tfrecord.Gzip:
		return gzip.NewWriterLevel(w, gzip.BestCompression)
	case tfrecord.Zstd:
		return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	}
	return nopCloser{w}, nil
}
