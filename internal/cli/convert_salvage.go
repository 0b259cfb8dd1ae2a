package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sluiceml/sluice/tfrecord"
)

// A salvage is what convert --skip-corrupt skipped: it copies every record
// it can read and reports the rest, where convert alone stops at the first
// damage and writes nothing.
type salvage struct {
	w     io.Writer // where each problem is reported as it is found
	bad   damage    // what was skipped, a truncated or broken end counting one
	files int       // files with anything skipped
}

// copyRecords passes every good record of names to write, reporting on
// s.w each stretch of corrupt records skipped and each file whose end was
// lost (truncated, or a compressed stream broken: the records before the
// damage are kept). A file that cannot be opened or read, a record over
// --max-record-size and a failed write stop the copy, as they do without
// --skip-corrupt: they are not damaged data to leave behind.
func (s *salvage) copyRecords(ctx context.Context, names []string, rf *recordFiles, write func([]byte) error) error {
	defer rf.close()
	for _, name := range names {
		if err := rf.open(ctx, name); err != nil {
			return err
		}
		v := &fileVerdict{Name: name}
		err := scanRecords(ctx, rf, v, func(rec []byte) error { return located(name, rf.r.Offset(), write(rec)) })
		for _, p := range v.Problems {
			fmt.Fprintf(s.w, "sluice: skipped: %s\n", p.line)
		}
		if err != nil {
			if !isDamage(err) || ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(s.w, "sluice: skipped: %v (the rest of the file)\n", err)
			v.lostEnd()
		}
		if v.Hint != "" {
			fmt.Fprintf(s.w, "sluice: %s: %s\n", name, v.Hint)
		}
		if v.Bad > 0 {
			s.bad.add(v)
			s.files++
		}
	}
	return nil
}

// isDamage reports whether err is damage in the data: a corrupt or
// truncated record, a broken compressed stream. A record over the size
// limit is not: raising the limit reads it. Ending a file's reading, such
// an error loses the rest of the file.
func isDamage(err error) bool {
	return errors.Is(err, tfrecord.ErrDataLoss) && !errors.Is(err, tfrecord.ErrTooLarge)
}

// skippedAny reports whether anything was skipped.
func (s *salvage) skippedAny() bool { return s != nil && s.bad.any() }

// skippedText says what was skipped, as the summary does.
func (s *salvage) skippedText() string {
	return fmt.Sprintf("%v in %s", s.bad, plural(s.files, "file"))
}

// summary is what convert adds to its last line.
func (s *salvage) summary() string {
	if !s.skippedAny() {
		return ""
	}
	return "; skipped " + s.skippedText()
}
