package decode

import "encoding/binary"

// gifFirstFrame returns b, or a copy in which the first frame is at the
// origin of a logical screen of its own size. TensorFlow's GIF reader
// (giflib) makes its output the first frame's size whatever the logical
// screen's, so a frame that extends past the screen, or a screen of 0 × 0,
// is not an error to it as it is to Go's image/gif; and sluice's output is
// the first frame's pixels whatever its offset. The screen's size is also
// what the size limit is checked against.
func gifFirstFrame(b []byte) []byte {
	if len(b) < 13 {
		return b
	}
	pos := 13
	if flags := b[10]; flags&0x80 != 0 {
		pos += 3 << (flags&7 + 1)
	}
	for pos < len(b) {
		switch b[pos] {
		case 0x21: // extension: label, then sub-blocks up to a 0
			pos += 2
			for pos < len(b) && b[pos] != 0 {
				pos += 1 + int(b[pos])
			}
			pos++
			continue
		case 0x2c: // image descriptor
			if pos+9 > len(b) {
				return b
			}
			d := b[pos+1 : pos+9]
			if binary.LittleEndian.Uint32(d) == 0 && string(d[4:8]) == string(b[6:10]) {
				return b // at the origin of a screen of its size
			}
			c := append([]byte(nil), b...)
			copy(c[6:10], d[4:8])   // the screen: the frame's width and height
			clear(c[pos+1 : pos+5]) // the frame: at the origin
			return c
		}
		return b // the trailer or bad data, for image/gif to report
	}
	return b
}
