package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/sluiceml/sluice/index"
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
		if storage.HasMeta(p) {
			m, err := storage.Match(ctx, p)
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
			continue
		}
		m, err := storage.Glob(ctx, p)
		if err != nil {
			return nil, err // names the pattern
		}
		if len(m) == 0 {
			return nil, notThere(p)
		}
		for _, n := range m {
			if err := checkNotDirectory(n); err != nil {
				return nil, err
			}
		}
		names = append(names, m...)
	}
	if err := onePipeOnce(names); err != nil {
		return nil, err
	}
	return names, nil
}

// onePipeOnce refuses a pipe named twice (a FIFO by two spellings,
// standard input as "-" and /dev/fd/0): a reader of each would take part
// of its data, and the records of neither would be whole (verify reported
// hundreds of bad records in good data; audit 106). A regular file named
// twice is read twice, as asked.
func onePipeOnce(names []string) error {
	type pipe struct {
		name string
		fi   os.FileInfo
	}
	var seen []pipe
	for _, n := range names {
		fi := pipeInfo(n)
		if fi == nil {
			continue
		}
		for _, p := range seen {
			if os.SameFile(p.fi, fi) {
				return fmt.Errorf("%s: the same pipe as %s, which can be read only once", n, p.name)
			}
		}
		seen = append(seen, pipe{n, fi})
	}
	return nil
}

// pipeInfo returns what the system says of the pipe or socket name is,
// looked up without opening it, or nil for any other file.
func pipeInfo(name string) os.FileInfo {
	var fi os.FileInfo
	var err error
	if isStdin(name) {
		fi, err = os.Stdin.Stat()
	} else if local, ok := localName(name); ok {
		fi, err = os.Stat(local)
	} else {
		return nil
	}
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil
	}
	return fi
}

// isStdin reports whether name names standard input.
func isStdin(name string) bool { return name == "-" || name == "/dev/stdin" }

// isStream reports whether name is standard input, or a local file that is
// not a regular file (a named pipe, /dev/fd/N of a process substitution, a
// device): one that can be read once, in order, and must be opened only by
// the reader that reads it.
func isStream(name string) bool {
	if isStdin(name) {
		return true
	}
	local, ok := localName(name)
	if !ok {
		return false
	}
	fi, err := os.Stat(local)
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}

// notThere is the error for a name with no glob characters that Glob did
// not find: why the name cannot be looked up, when that is not that it
// is missing (a folder on the way that this user may not search, a path
// too long), rather than that it matches nothing.
func notThere(name string) error {
	if local, ok := localName(name); ok {
		var pe *fs.PathError
		if _, err := os.Lstat(local); errors.As(err, &pe) && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", name, pe.Err)
		}
	}
	return fmt.Errorf("%s: no such file (the pattern matches nothing)", name)
}

// defaultMaxRecordSize is the --max-record-size default.
const defaultMaxRecordSize = 256 << 20

// maxRecordSizeUsage is the help of --max-record-size.
const maxRecordSizeUsage = "largest record in bytes that commands read (TensorFlow allows 2 GiB); " +
	"the 256 MiB default is far above real Examples and keeps a damaged length field or a decompression bomb " +
	"(kilobytes of zstd inflating to a 2 GiB record) from costing gigabytes of memory; " +
	"for Parquet it bounds each column's page, and a row's values"

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
		sf, err := storage.Open(ctx, name)
		if err != nil {
			return nil, err
		}
		f = sf
		if sf.Size() < 0 {
			// A named pipe's reads may wait for a writer for ever, and
			// must end when the command is interrupted.
			r, stop := untilDone(ctx, sf)
			f = textFile{r, func() error { stop(); return sf.Close() }}
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

// parseCompression reads the value s of a flag that names the compression
// of files to read. "auto" (or empty) asks for detection; names are
// TensorFlow's, in any case.
func parseCompression(s, flag string) (c tfrecord.Compression, auto bool, err error) {
	u := strings.ToUpper(s)
	if u == "" || u == "AUTO" {
		return tfrecord.None, true, nil
	}
	c, err = tfrecord.ParseCompression(u)
	if err != nil {
		// Not tfrecord's words, which name TensorFlow's "" for NONE:
		// the flag's own spellings.
		return c, false, fmt.Errorf("%s must be auto, NONE, ZLIB, GZIP or ZSTD, not %q", flag, s)
	}
	return c, false, nil
}

// errWrongCompression is wrapped by the error for a file that certainly is
// not compressed as --compression says: its first bytes cannot begin such
// a stream, and are those of another. It is no damage (verify does not
// count it as bad records), and no byte of the file was read as records.
var errWrongCompression = errors.New("the file is not compressed as --compression says")

// checkCompression returns an error wrapping errWrongCompression when a
// file whose first bytes are prefix cannot be c, and starts like
// uncompressed TFRecord data or another compression's stream; flag is the
// flag that named c. A prefix like none of them (a damaged file, another
// format) is left to the reader to report.
func checkCompression(name string, prefix []byte, c tfrecord.Compression, flag string) error {
	if startsLike(prefix, c) {
		return nil
	}
	looks := tfrecord.DetectCompression(prefix)
	what := looks.String() + " data"
	if looks == tfrecord.None {
		if !startsLike(prefix, tfrecord.None) {
			return nil
		}
		what = "uncompressed TFRecord data"
	}
	if flag == "" {
		flag = "--compression"
	}
	return &compressionError{name: name, hint: fmt.Sprintf("the file starts like %s, not %v: try %s %v or auto", what, c, flag, looks)}
}

// A compressionError is checkCompression's error.
type compressionError struct{ name, hint string }

func (e *compressionError) Error() string { return e.name + ": " + e.hint }
func (e *compressionError) Unwrap() error { return errWrongCompression }

// startsLike reports whether prefix, a file's first 16 bytes (or all of a
// shorter file), can begin a stream of compression c: a TFRecord header
// whose length CRC holds for None, the magic number or header for the
// others. An empty or too short prefix can begin anything.
func startsLike(prefix []byte, c tfrecord.Compression) bool {
	switch c {
	case tfrecord.None:
		return len(prefix) < 12 || binary.LittleEndian.Uint32(prefix[8:12]) == tfrecord.MaskedCRC(prefix[:8])
	case tfrecord.Gzip:
		return len(prefix) < 2 || prefix[0] == 0x1f && prefix[1] == 0x8b
	case tfrecord.Zlib:
		// DetectCompression checks a TFRecord header first, which two
		// bytes cannot hold.
		return len(prefix) < 2 || tfrecord.DetectCompression(prefix[:2]) == tfrecord.Zlib
	case tfrecord.Zstd:
		// A frame, or a skippable frame (magic 0x184D2A50 to 0x184D2A5F).
		if len(prefix) < 4 {
			return true
		}
		m := binary.LittleEndian.Uint32(prefix)
		return m == 0xFD2FB528 || m&0xFFFFFFF0 == 0x184D2A50
	}
	return true
}

// beginsAs reports whether prefix, however short, is the start of a
// stream of compression c (not None): its bytes, as far as they go, are
// c's magic number or header. startsLike, for a prefix too short to tell,
// says yes; this says yes only to bytes that fit, so that a file of one
// letter is text unless the letter can begin c (ZLIB's "x").
func beginsAs(prefix []byte, c tfrecord.Compression) bool {
	switch c {
	case tfrecord.Gzip:
		return bytes.HasPrefix([]byte{0x1f, 0x8b}, prefix[:min(len(prefix), 2)])
	case tfrecord.Zlib:
		// CMF: deflate (8) with a window of at most 32 KiB.
		return len(prefix) == 0 || prefix[0]&0x0f == 8 && prefix[0]>>4 <= 7 && startsLike(prefix, c)
	case tfrecord.Zstd:
		// A frame's magic number, or a skippable frame's (0x184D2A50 to
		// 0x184D2A5F), little-endian.
		head := prefix[:min(len(prefix), 4)]
		frame := bytes.HasPrefix([]byte{0x28, 0xb5, 0x2f, 0xfd}, head)
		skippable := len(head) == 0 || head[0]&0xf0 == 0x50 && bytes.HasPrefix([]byte{0x2a, 0x4d, 0x18}, head[1:])
		return frame || skippable
	}
	return startsLike(prefix, c)
}

// otherFormat names the format of a file that starts like one sluice
// converts rather than reads as TFRecord (Parquet, CSV, JSON lines), and
// the command that converts it, or like a sluice index; "" for other
// files. Such a file read as TFRecord fails at offset 0 with a length CRC
// error or a truncated record, which would otherwise send the user to
// verify and salvage it.
func otherFormat(prefix []byte, name string) string {
	if bytes.HasPrefix(prefix, []byte("PAR1")) {
		if isStdin(name) || strings.ContainsAny(name, " '\"") {
			name = "FILE"
		}
		return fmt.Sprintf("the file starts like Parquet data, not TFRecord: sluice convert --from parquet %s --out NEW writes its rows as TFRecord Examples", name)
	}
	if index.IsIndex(prefix) {
		// sluice index --beside puts FILE.idx next to FILE, where a
		// pattern such as 'data/*' finds it too.
		return "the file starts like a sluice index (sluice index --beside writes FILE.idx beside FILE), not TFRecord: leave it out, with a pattern such as 'data/*.tfrecord'"
	}
	if looksLikeText(prefix) {
		if isStdin(name) || strings.ContainsAny(name, " '\"") {
			name = "FILE"
		}
		text := bytes.TrimLeft(bytes.TrimPrefix(prefix, utf8BOM), " \t\r\n")
		for _, m := range []string{`{"features":`, `{"context":`, `{"feature_lists":`, `{"raw":`, `{"key":`} {
			if bytes.HasPrefix(text, []byte(m)) {
				return fmt.Sprintf("the file starts like sluice cat's JSON lines, not TFRecord: sluice convert --from json %s --out NEW writes their records", name)
			}
		}
		if bytes.HasPrefix(text, []byte("{")) {
			return fmt.Sprintf("the file starts like text, JSON lines, not TFRecord: sluice convert --from jsonl %s --out NEW writes its objects as TFRecord Examples", name)
		}
		return fmt.Sprintf("the file starts like text, CSV or JSON lines, not TFRecord: sluice convert --from csv %s --out NEW (or --from jsonl) writes its lines as TFRecord Examples", name)
	}
	return ""
}

// formatHint returns otherFormat's hint for the file name, for a reader
// that does not go through recordFiles; "" if it cannot be read again: a
// stream (a named pipe), whose open would wait for a writer that may never
// come (audit 84: index hung on one).
func formatHint(ctx context.Context, name string) string {
	if isStream(name) {
		return ""
	}
	f, err := storage.Open(ctx, name)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, headSize)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return ""
	}
	return formatOf(head[:n], tfrecord.DetectCompression(head[:n]), name)
}

// formatOf returns otherFormat's hint for a file whose first bytes are
// prefix, read as compressed by c: the hint for what the start
// decompresses to, or else for the start itself (text whose first bytes
// happen to look like a zlib header decompresses to garbage, or not at
// all). Only the first 16 bytes of either are looked at: a byte that is
// not text further on (a Latin-1 letter in a CSV) does not make a text
// file binary.
func formatOf(prefix []byte, c tfrecord.Compression, name string) string {
	if c != tfrecord.None {
		if hint := otherFormat(plainHead(prefix, c), name); hint != "" {
			return hint
		}
	}
	return otherFormat(prefix[:min(len(prefix), 16)], name)
}

// headSize is how much of a file's start is read for otherFormat: the
// compression's header and enough of its stream to decompress a few
// bytes.
const headSize = 4096

// plainHead returns the first bytes of what prefix, a file's first bytes,
// holds once decompressed as c says: as much of the start as prefix
// decompresses to, up to 16 bytes, or nothing if it does not. A gzipped
// CSV file is text inside.
func plainHead(prefix []byte, c tfrecord.Compression) []byte {
	d, err := tfrecord.NewDecompressor(c, bytes.NewReader(prefix))
	if err != nil {
		return nil
	}
	defer d.Close()
	var head [16]byte
	n, _ := io.ReadFull(d, head[:])
	return head[:n]
}

// looksLikeText reports whether prefix, a file's first bytes, is text:
// UTF-8 (its last character perhaps cut short) with no control
// characters but tab and line ends. A TFRecord file never starts so: its
// first 8 bytes are a record's length, little-endian, whose last is 0
// for any record under 2^56 bytes; so text is no damaged TFRecord file
// but another format, most often CSV or JSON lines given without --from.
func looksLikeText(prefix []byte) bool {
	if len(prefix) == 0 {
		return false
	}
	if n := len(prefix); n > utf8.UTFMax {
		// A character the prefix cuts short is no sign of binary data.
		for i := n - 1; i >= n-utf8.UTFMax+1; i-- {
			if utf8.RuneStart(prefix[i]) {
				if !utf8.FullRune(prefix[i:]) {
					prefix = prefix[:i]
				}
				break
			}
		}
	}
	return isText(prefix)
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
	stop func() bool // ends the current file's tie to the context (streams)
	name string
	c    tfrecord.Compression // the current file's
	hint string               // what the file looks like, when it is another format than TFRecord
	flag string               // the command's name for --compression, in hints (default --compression)
	n    int                  // records since the last context check

	opened int // files opened so far: what a summary that stops early read
}

// newRecordFiles reads with the compression of the --compression value
// flag and the reader options opts.
func newRecordFiles(flag string, t *tally, opts ...tfrecord.Option) (*recordFiles, error) {
	c, auto, err := parseCompression(flag, "--compression")
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
	opts := []tfrecord.Option{tfrecord.Name(name), tfrecord.MaxRecordSize(set.maxRecord)}
	var (
		src    io.Reader
		prefix []byte // the first bytes, which say the compression
	)
	if isStdin(name) {
		src = set.stdin
	} else {
		f, err := storage.Open(ctx, name)
		if err != nil {
			return err
		}
		rf.f = f
		if f.Size() < 0 {
			// A named pipe or a device: its reads may wait for a writer
			// for ever, and must end when the command is interrupted.
			src, rf.stop = untilDone(ctx, f)
		} else {
			// Enough to decompress the start of a compressed file, whose
			// text (a gzipped CSV) the hint names too.
			head := make([]byte, headSize)
			n, err := f.ReadAt(head, 0)
			if err != nil && err != io.EOF {
				rf.close()
				return fmt.Errorf("%s: %w", name, err)
			}
			prefix, src = head[:n], untilCancelled{ctx, f}
			opts = append(opts, tfrecord.InputSize(f.Size()))
		}
	}
	if prefix == nil {
		// A stream cannot be read at an offset: peek at its first bytes.
		// The first 16 bytes, and whatever else the same reads brought,
		// without waiting for more.
		br := bufio.NewReaderSize(src, 64<<10)
		if _, err := br.Peek(16); err != nil && err != io.EOF {
			rf.close()
			return fmt.Errorf("%s: %w", name, err)
		}
		p, _ := br.Peek(min(br.Buffered(), headSize))
		prefix, src = p, br
	}
	c := rf.comp
	if rf.detect {
		c = tfrecord.DetectCompression(prefix)
	} else if err := checkCompression(name, prefix, c, rf.flag); err != nil {
		rf.close()
		return err
	}
	if rf.detect || c == tfrecord.None || !beginsAs(prefix, c) {
		rf.hint = formatOf(prefix, c, name)
	} else if head := plainHead(prefix, c); len(head) > 0 || len(prefix) <= 4 {
		// A file that starts as its named compression does is what it
		// decompresses to: that its first byte is also a letter
		// (ZLIB's "x") says nothing (audit 68).
		rf.hint = otherFormat(head, name)
	} else {
		// Past a header that does not decompress: text whose first
		// letters happen to make one ("hC", "x^" for ZLIB; audit 72).
		rf.hint = formatOf(prefix, c, name)
	}
	rf.c = c
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
	if rf.stop != nil {
		rf.stop()
		rf.stop = nil
	}
	if rf.f != nil {
		rf.f.Close()
		rf.f = nil
	}
}

// untilDone returns a reader of f, a stream, whose blocked reads end with
// ctx's error once ctx is done, and a function that ends that tie, to be
// called when f is closed. A local pipe is read through Go's poller
// (storage.Local), where a read deadline ends a blocked read without a
// goroutine; a stream without deadlines is read a read at a time in a
// goroutine the context can leave behind, as standard input is.
func untilDone(ctx context.Context, f storage.File) (io.Reader, func() bool) {
	d, ok := f.(interface{ SetReadDeadline(time.Time) error })
	if !ok || d.SetReadDeadline(time.Time{}) != nil {
		return &stdinReader{ctx: ctx, r: f}, func() bool { return false }
	}
	stop := context.AfterFunc(ctx, func() { d.SetReadDeadline(time.Unix(1, 0)) })
	return deadlineReader{ctx, f}, stop
}

// A deadlineReader reads a stream whose reads a past deadline ends when
// ctx is done, and returns ctx's error for them.
type deadlineReader struct {
	ctx context.Context
	r   io.Reader
}

func (r deadlineReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) && r.ctx.Err() != nil {
		err = r.ctx.Err()
	}
	return n, err
}

// An untilCancelled reads r until ctx is done, then returns ctx's error.
// A reader that scans a damaged stretch for the next record within one
// call (tfrecord's resync, under --skip-corrupt and in verify) reads on
// to the stretch's end, past any check between records: 3 GB of zeros
// took 30 s to answer a signal (audit 57).
type untilCancelled struct {
	ctx context.Context
	r   io.Reader
}

func (r untilCancelled) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
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
