package natsqueue

import "fmt"

// decodeClosed checks the value of a closed flag found in the bucket. The
// flag is only ever written with closedValue; anything else was written
// by something that is not a sluice queue, and is reported rather than
// taken for a closed queue.
func decodeClosed(v []byte) error {
	if string(v) != closedValue {
		return fmt.Errorf("the closed flag holds %s, not %q", quoteShort(v), closedValue)
	}
	return nil
}

// quoteShort quotes at most the first 64 bytes of b, for error messages
// about bytes that came from the network.
func quoteShort(b []byte) string {
	const n = 64
	if len(b) <= n {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q... (%d bytes)", b[:n], len(b))
}
