package storage

import (
	"errors"
	"io"
)

// MaskEOF returns err, made not to match io.EOF if it wraps io.EOF
// without being it: a failure, not the end of the input. Go's HTTP client
// reports a connection the server closed before answering as an error
// wrapping io.EOF ("Get ...: EOF"), and a reader of records that takes
// every error matching io.EOF for its end would end early without a word
// (audit 61: an object store that dropped connections lost whole files).
// The error returned matches io.ErrUnexpectedEOF, and whatever else err
// matches, and reads as err does. io.EOF itself and nil are returned as
// they are.
func MaskEOF(err error) error {
	if err == nil || err == io.EOF || !errors.Is(err, io.EOF) {
		return err
	}
	return &maskedEOF{err}
}

type maskedEOF struct{ err error }

func (e *maskedEOF) Error() string { return e.err.Error() }

// Is matches io.ErrUnexpectedEOF and what err matches but io.EOF. There
// is no Unwrap, through which errors.Is would find io.EOF.
func (e *maskedEOF) Is(target error) bool {
	return target == io.ErrUnexpectedEOF || target != io.EOF && errors.Is(e.err, target)
}

// As finds in err's chain what errors.As would, so that a store's typed
// errors (an API error, a status code) stay reachable.
func (e *maskedEOF) As(target any) bool { return errors.As(e.err, target) }
