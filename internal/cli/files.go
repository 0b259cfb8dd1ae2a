package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sluiceml/sluice/recordio"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tfrecord"
)

// expand turns the command's arguments, each a file name or glob pattern,
// into file names, in argument order and sorted within a pattern. A
// pattern that matches nothing is an error naming it: a typo must not
// look like an empty data set.
//
// An existing file is its own name even when the name holds glob
// characters (weird [v1].tfrecord): only a name that names no file is a
// pattern. "-" and /dev/stdin name standard input, which can be read only
// once and so be named only once.
func expand(ctx context.Context, patterns []string) ([]string, error) {
	var names []string
	stdin := ""
	for _, p := range patterns {
		if isStdin(p) {
			if stdin != "" {
				return nil, fmt.Errorf("%s: standard input is already named (as %s); it can be read only once", p, stdin)
			}
			stdin = p
			names = append(names, p)
			continue
		}
		if err := checkNotDirectory(p); err != nil {
			return nil, err
		}
		if strings.ContainsAny(p, `*?[\`) && exists(ctx, p) {
			names = append(names, p)
			continue
		}
		m, err := storage.Glob(ctx, p)
		if err != nil {
			return nil, err // names the pattern
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no such file (the pattern matches nothing)", p)
		}
		for _, n := range m {
			if err := checkNotDirectory(n); err != nil {
				return nil, err
			}
		}
		names = append(names, m...)
	}
	return names, nil
}

// isStdin reports whether name names standard input.
func isStdin(name string) bool { return name == "-" || name == "/dev/stdin" }

// exists reports whether name can be opened as it is.
func exists(ctx context.Context, name string) bool {
	f, err := storage.Open(ctx, name)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// defaultMaxRecordSize is the --max-record-size default.
const defaultMaxRecordSize = 256 << 20

// maxRecordSizeUsage is the help of --max-record-size.
const maxRecordSizeUsage = "largest record in bytes that commands read (TensorFlow allows 2 GiB); " +
	"the 256 MiB default is far above real Examples and keeps a damaged length field or a decompression bomb " +
	"(kilobytes of zstd inflating to a 2 GiB record) from costing gigabytes of memory"

// readSettings are the settings of the commands that read records, from
// the root command's flags and from cobra.
type readSettings struct {
	maxRecord int64
	stdin     io.Reader
}

type readSettingsKey struct{}

// setReadSettings is the root command's PersistentPreRunE: it puts the
// read settings in the command's context, where recordFiles finds them
// however deep the reading happens.
func setReadSettings(cmd *cobra.Command, _ []string) error {
	n, err := cmd.Flags().GetInt64("max-record-size")
	if err != nil {
		n = defaultMaxRecordSize
	}
	if n < 1 {
		return fmt.Errorf("--max-record-size must be at least 1, not %d", n)
	}
	s := &readSettings{maxRecord: n, stdin: &stdinReader{ctx: cmd.Context(), r: cmd.InOrStdin()}}
	cmd.SetContext(context.WithValue(cmd.Context(), readSettingsKey{}, s))
	return nil
}

// settingsFrom returns the read settings in ctx, or the defaults.
func settingsFrom(ctx context.Context) *readSettings {
	if s, ok := ctx.Value(readSettingsKey{}).(*readSettings); ok {
		return s
	}
	return &readSettings{maxRecord: defaultMaxRecordSize, stdin: os.Stdin}
}

// openText opens a text input (CSV, JSON lines): the file name names, or
// standard input for "-" and /dev/stdin, copying what it reads, before
// decompression, to tee. A GZIP or ZSTD stream, known by its first bytes,
// is decompressed; ZLIB is not looked for, since its two-byte header can
// begin a line of text ("x^").
func openText(ctx context.Context, name string, tee io.Writer) (io.ReadCloser, error) {
	var f io.ReadCloser
	if isStdin(name) {
		f = io.NopCloser(settingsFrom(ctx).stdin)
	} else {
		var err error
		if f, err = storage.Open(ctx, name); err != nil {
			return nil, err
		}
	}
	br := bufio.NewReaderSize(io.TeeReader(f, tee), 64<<10)
	prefix, err := br.Peek(16)
	if err != nil && err != io.EOF {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := tfrecord.DetectCompression(prefix)
	if c != tfrecord.Gzip && c != tfrecord.Zstd {
		return textFile{br, f.Close}, nil
	}
	d, err := tfrecord.NewDecompressor(c, br)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return textFile{d, func() error { d.Close(); return f.Close() }}, nil
}

// maxTextLine is the longest line a text input may have: --max-record-size,
// so that a decompressed bomb's endless line costs no more memory than a
// record may.
func maxTextLine(ctx context.Context) int {
	return int(min(settingsFrom(ctx).maxRecord, math.MaxInt32))
}

// errStopLines ends eachLine early, without an error.
var errStopLines = errors.New("stop reading lines")

// eachLine calls fn with each line of r, a text input called name, and the
// line's number, counting from 1, until the input ends or fn returns an
// error (errStopLines ends it without one). A line longer than
// maxTextLine, or one that cannot be read, is an error naming name and the
// line; a cancelled ctx is noticed every 4096 lines.
func eachLine(ctx context.Context, name string, r io.Reader, fn func(lineNo int, line []byte) error) error {
	lines := recordio.NewLineSplitter(r)
	lines.SetMaxLine(maxTextLine(ctx))
	for lineNo := 1; ; lineNo++ {
		if lineNo%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, err := lines.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
		if err := fn(lineNo, line); err != nil {
			if err == errStopLines {
				return nil
			}
			return err
		}
	}
}

// A textFile is what openText opens.
type textFile struct {
	io.Reader
	close func() error
}

func (f textFile) Close() error { return f.close() }

// recordOptions returns the tfrecord options the read settings in ctx
// ask for, for readers that do not go through recordFiles.
func recordOptions(ctx context.Context) recordio.Option {
	return recordio.MaxRecordSize(settingsFrom(ctx).maxRecord)
}

// compressionUsage is the help text of every --compression flag that
// reads.
const compressionUsage = "input compression: auto (detect from the file), NONE, ZLIB, GZIP or ZSTD"

// parseCompression reads a --compression value. "auto" (or empty) asks for
// detection; names are TensorFlow's, in any case.
func parseCompression(s string) (c tfrecord.Compression, auto bool, err error) {
	s = strings.ToUpper(s)
	if s == "" || s == "AUTO" {
		return tfrecord.None, true, nil
	}
	c, err = tfrecord.ParseCompression(s)
	if err != nil {
		return c, false, fmt.Errorf("--compression: %w", err)
	}
	return c, false, nil
}

// detectCompression reads the first bytes of f and guesses its compression.
func detectCompression(f storage.File) (tfrecord.Compression, error) {
	var prefix [16]byte
	n, err := f.ReadAt(prefix[:], 0)
	if err != nil && err != io.EOF {
		return tfrecord.None, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return tfrecord.DetectCompression(prefix[:n]), nil
}

// otherFormat names the format of a file that starts like one sluice
// converts rather than reads as TFRecord, and the command that converts
// it; "" for other files. A Parquet file read as TFRecord fails at offset
// 0 with a length CRC error, which would otherwise send the user to
// verify and salvage it.
func otherFormat(prefix []byte, name string) string {
	if bytes.HasPrefix(prefix, []byte("PAR1")) {
		if isStdin(name) || strings.ContainsAny(name, " '\"") {
			name = "FILE"
		}
		return fmt.Sprintf("the file starts like Parquet data, not TFRecord: sluice convert --from parquet %s --out NEW writes its rows as TFRecord Examples", name)
	}
	return ""
}

// recordFiles reads the records of one file after another through a
// single tfrecord.Reader, so that reading many files reuses its buffers.
type recordFiles struct {
	comp   tfrecord.Compression
	detect bool
	opts   []tfrecord.Option
	tally  *tally
	tee    io.Writer // if set, sees every byte read from the files (progress)

	r    *tfrecord.Reader
	f    storage.File
	name string
	hint string // set when --compression NONE was given and the file looks compressed
	flag string // the command's name for that flag, in the hint (default --compression)
	n    int    // records since the last context check

	opened int // files opened so far: what a summary that stops early read
}

// newRecordFiles reads with the compression of the --compression value
// flag and the reader options opts.
func newRecordFiles(flag string, t *tally, opts ...tfrecord.Option) (*recordFiles, error) {
	c, auto, err := parseCompression(flag)
	if err != nil {
		return nil, err
	}
	return &recordFiles{comp: c, detect: auto, opts: opts, tally: t}, nil
}

// clone returns a recordFiles with rf's settings and no file open, for
// another goroutine (the tally is safe to share; a tee must be too).
func (rf *recordFiles) clone() *recordFiles {
	return &recordFiles{comp: rf.comp, detect: rf.detect, opts: rf.opts, tally: rf.tally, tee: rf.tee, flag: rf.flag}
}

// open closes the current file, if any, and starts reading name, or
// standard input if name is "-" or /dev/stdin.
func (rf *recordFiles) open(ctx context.Context, name string) error {
	rf.close()
	rf.hint = ""
	set := settingsFrom(ctx)
	c := rf.comp
	opts := []tfrecord.Option{tfrecord.Name(name), tfrecord.MaxRecordSize(set.maxRecord)}
	var src io.Reader
	if isStdin(name) {
		// A pipe cannot be read at an offset: peek at its first bytes.
		br := bufio.NewReaderSize(set.stdin, 64<<10)
		prefix, err := br.Peek(16)
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s: %w", name, err)
		}
		if rf.detect {
			c = tfrecord.DetectCompression(prefix)
		}
		rf.hint = otherFormat(prefix, name)
		src = br
	} else {
		f, err := storage.Open(ctx, name)
		if err != nil {
			return err
		}
		if rf.detect {
			if c, err = detectCompression(f); err != nil {
				f.Close()
				return err
			}
		} else if c == tfrecord.None {
			// Only looked at to explain a failure: a compressed file read
			// as NONE fails with a length or checksum error that does not
			// say why.
			if d, err := detectCompression(f); err == nil && d != tfrecord.None {
				flag := rf.flag
				if flag == "" {
					flag = "--compression"
				}
				rf.hint = fmt.Sprintf("the file starts like %v data: try %s %v or auto", d, flag, d)
			}
		}
		var prefix [4]byte
		if n, _ := f.ReadAt(prefix[:], 0); n == len(prefix) {
			if h := otherFormat(prefix[:], name); h != "" {
				rf.hint = h
			}
		}
		if f.Size() >= 0 { // not a named pipe, whose size is unknown
			opts = append(opts, tfrecord.InputSize(f.Size()))
		}
		src, rf.f = f, f
	}
	opts = append(append(opts, c), rf.opts...)
	if rf.tee != nil {
		src = io.TeeReader(src, rf.tee)
	}
	if rf.r == nil {
		rf.r = tfrecord.NewReader(src, opts...)
	} else {
		rf.r.Reset(src, opts...)
	}
	rf.name = name
	rf.opened++
	return nil
}

// next returns the current file's next record, io.EOF at its end, or the
// reader's error, which names the file and offset. It checks ctx every
// few hundred records so that a cancelled command stops promptly.
func (rf *recordFiles) next(ctx context.Context) ([]byte, error) {
	if rf.n++; rf.n >= 256 {
		rf.n = 0
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	rec, err := rf.r.Next()
	switch {
	case err == nil:
		rf.tally.read(len(rec))
	case errors.Is(err, tfrecord.ErrTooLarge):
		rf.tally.failed()
		err = fmt.Errorf("%w; --max-record-size raises the limit", err)
	case err != io.EOF:
		rf.tally.failed()
		if rf.hint != "" {
			err = fmt.Errorf("%w (%s)", err, rf.hint)
		}
	}
	return rec, err
}

func (rf *recordFiles) close() {
	if rf.f != nil {
		rf.f.Close()
		rf.f = nil
	}
}

// eachRecord calls fn for every record of every file in order, with the
// record's file and its offset in the uncompressed stream, stopping at the
// first error or after limit records (limit < 0: no limit). The record is
// valid only during the call.
func eachRecord(ctx context.Context, names []string, rf *recordFiles, limit int, fn func(name string, offset int64, rec []byte) error) error {
	defer rf.close()
	n := 0
	for _, name := range names {
		if limit >= 0 && n >= limit {
			return nil
		}
		if err := rf.open(ctx, name); err != nil {
			return err
		}
		for limit < 0 || n < limit {
			rec, err := rf.next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if err := fn(name, rf.r.Offset(), rec); err != nil {
				return err
			}
			n++
		}
	}
	return nil
}
