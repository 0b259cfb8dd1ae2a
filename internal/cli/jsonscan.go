package cli

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A jsonScanner reads the JSON values of one line in one pass, for convert
// --from json. cat's lines are long (an MNIST image is 784 floats), and
// encoding/json, which decodes a nested value by scanning it again at
// every level and boxes every number in an interface, read them at 13
// MB/s; the scanner reads values where they lie and copies only strings
// with escapes.
type jsonScanner struct {
	b   []byte
	i   int
	buf []byte // a string's unescaped bytes
}

func (s *jsonScanner) reset(line []byte) {
	s.b, s.i = line, 0
}

// ws skips white space and returns the next byte, or 0 at the end (or at
// a NUL byte: s.i tells them apart).
func (s *jsonScanner) ws() byte {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return c
		}
	}
	return 0
}

// errEnd is the error of a line that ends inside a value.
var errEnd = errors.New("not JSON: the line ends inside a value")

// syntax returns the error of an unexpected byte where want was expected.
func (s *jsonScanner) syntax(want string) error {
	if s.i >= len(s.b) {
		return errEnd
	}
	return fmt.Errorf("not JSON: want %s at byte %d of the line, not %q", want, s.i, rune(s.b[s.i]))
}

// consume reads the byte c, after white space.
func (s *jsonScanner) consume(c byte) error {
	if s.ws() != c {
		return s.syntax(strconv.QuoteRune(rune(c)))
	}
	s.i++
	return nil
}

// kind names the next value's kind, for errors.
func (s *jsonScanner) kind() string {
	c := s.ws()
	switch {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	case s.i >= len(s.b):
		return "the end of the line"
	}
	// The character there, not its first byte: U+00A0 is "\u00a0", not
	// 'Â'.
	r, _ := utf8.DecodeRune(s.b[s.i:])
	return fmt.Sprintf("%q, which starts no JSON value", r)
}

// null reads a null if one is next.
func (s *jsonScanner) null() (bool, error) {
	if s.ws() != 'n' {
		return false, nil
	}
	if len(s.b)-s.i < 4 || string(s.b[s.i:s.i+4]) != "null" {
		return false, s.syntax("null")
	}
	s.i += 4
	return true, nil
}

// object reads an object, calling each with each member's name to read
// the member's value.
func (s *jsonScanner) object(each func(name string) error) error {
	return s.objectBytes(func(name []byte) error { return each(string(name)) })
}

// objectBytes is object with each member's name as bytes, valid during
// the call.
func (s *jsonScanner) objectBytes(each func(name []byte) error) error {
	if err := s.consume('{'); err != nil {
		return err
	}
	if s.ws() == '}' {
		s.i++
		return nil
	}
	for {
		name, err := s.str()
		if err != nil {
			return err
		}
		if err := s.consume(':'); err != nil {
			return err
		}
		if err := each(name); err != nil {
			return err
		}
		switch s.ws() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.syntax(`',' or '}'`)
		}
	}
}

// array reads an array, calling each to read each element.
func (s *jsonScanner) array(each func(i int) error) error {
	if err := s.consume('['); err != nil {
		return err
	}
	if s.ws() == ']' {
		s.i++
		return nil
	}
	for i := 0; ; i++ {
		if err := each(i); err != nil {
			return err
		}
		switch s.ws() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.syntax(`',' or ']'`)
		}
	}
}

// str reads a string and returns its bytes, valid until the next call:
// the line's own bytes when it has no escapes, else the scanner's buffer.
// Invalid UTF-8 and unescaped control characters are errors; an escaped
// lone surrogate becomes U+FFFD, as encoding/json makes it.
func (s *jsonScanner) str() ([]byte, error) {
	if s.ws() != '"' {
		return nil, s.syntax("a string")
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], nil
		case c == '\\' || c >= utf8.RuneSelf:
			s.buf = append(s.buf[:0], s.b[start:s.i]...)
			return s.escaped()
		case c < 0x20:
			return nil, fmt.Errorf("not JSON: a control character in a string at byte %d of the line", s.i)
		}
		s.i++
	}
	return nil, errEnd
}

// escaped reads the rest of a string into s.buf.
func (s *jsonScanner) escaped() ([]byte, error) {
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.buf, nil
		case c < 0x20:
			return nil, fmt.Errorf("not JSON: a control character in a string at byte %d of the line", s.i)
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n == 1 {
				return nil, fmt.Errorf("not UTF-8 at byte %d of the line", s.i)
			}
			s.buf = append(s.buf, s.b[s.i:s.i+n]...)
			s.i += n
		case c != '\\':
			s.buf = append(s.buf, c)
			s.i++
		default:
			if s.i+1 >= len(s.b) {
				return nil, errEnd
			}
			s.i++
			switch e := s.b[s.i]; e {
			case '"', '\\', '/':
				s.buf = append(s.buf, e)
			case 'b':
				s.buf = append(s.buf, '\b')
			case 'f':
				s.buf = append(s.buf, '\f')
			case 'n':
				s.buf = append(s.buf, '\n')
			case 'r':
				s.buf = append(s.buf, '\r')
			case 't':
				s.buf = append(s.buf, '\t')
			case 'u':
				r, err := s.hex4(s.i + 1)
				if err != nil {
					return nil, err
				}
				s.i += 4
				if utf16.IsSurrogate(r) {
					// A pair is two escapes; one alone is no character.
					r2 := rune(-1)
					if s.i+2 < len(s.b) && s.b[s.i+1] == '\\' && s.b[s.i+2] == 'u' {
						if r2, err = s.hex4(s.i + 3); err != nil {
							return nil, err
						}
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						s.i += 6
					} else {
						r = utf8.RuneError
					}
				}
				s.buf = utf8.AppendRune(s.buf, r)
			default:
				return nil, fmt.Errorf(`not JSON: an unknown escape \%c at byte %d of the line`, e, s.i-1)
			}
			s.i++
		}
	}
	return nil, errEnd
}

// hex4 reads the four hex digits of a \u escape at i.
func (s *jsonScanner) hex4(i int) (rune, error) {
	if i+4 > len(s.b) {
		return 0, errEnd
	}
	var r rune
	for _, c := range s.b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, fmt.Errorf(`not JSON: a \u escape without four hex digits at byte %d of the line`, i-2)
		}
		r = r<<4 | rune(c)
	}
	return r, nil
}

// number reads a number, as JSON writes one, and returns its text.
func (s *jsonScanner) number() ([]byte, error) {
	s.ws()
	start := s.i
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch n := digits(); {
	case n == 0:
		return nil, s.syntax("a digit")
	case n > 1 && s.b[s.i-n] == '0':
		return nil, fmt.Errorf("not JSON: a number with a leading zero at byte %d of the line", s.i-n)
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return nil, s.syntax("a digit")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return nil, s.syntax("a digit")
		}
	}
	return s.b[start:s.i], nil
}

// end reports an error unless only white space is left.
func (s *jsonScanner) end() error {
	if s.ws(); s.i < len(s.b) {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}
