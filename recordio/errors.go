package recordio

import "errors"

var (
	// ErrState is wrapped by RestoreState's errors: a state that does not
	// parse, is inconsistent, or does not fit the unit it names.
	ErrState = errors.New("invalid reader state")

	// ErrShortHeader reports a fixed-length record file shorter than its
	// header. TensorFlow fails such a unit with OutOfRange ("reached end of
	// file"), which a read loop mistakes for the end of input; sluice's
	// error does not match io.EOF.
	ErrShortHeader = errors.New("file shorter than its header")

	// ErrLineTooLong reports a line longer than a LineSplitter's limit
	// (LineSplitter.SetMaxLine) or a TextLine reader's (MaxRecordSize).
	ErrLineTooLong = errors.New("line too long")
)
