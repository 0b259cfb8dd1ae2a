package datasets

import "io"

// maxEmptyReads is how many reads in a row of no bytes and no error a
// Progress reader allows, as bufio.Reader does for its own reads.
const maxEmptyReads = 100

// Progress returns r made to give up on a source that returns no bytes and
// no error: after 100 such reads in a row a Read returns
// io.ErrNoProgress. io.ReadFull, and a bufio.Reader asked for more than
// its buffer, read such a source for ever, spinning a CPU (audit 101).
func Progress(r io.Reader) io.Reader { return &progress{r: r} }

type progress struct{ r io.Reader }

func (p *progress) Read(b []byte) (int, error) {
	for range maxEmptyReads {
		n, err := p.r.Read(b)
		if n > 0 || err != nil || len(b) == 0 {
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}
