package decode

import (
	"image"
	"image/color"

	"github.com/sluiceml/sluice/tensor"
)

// toHWC converts img to a [h, w, channels] uint8 tensor; two channels are
// gray and alpha. gg, if not nil, converts color to gray. Each of Go's
// concrete image types has its own loop, so no pixel goes through the
// image.Image interface.
func toHWC(img image.Image, channels int, gg *grayGamma) tensor.Tensor {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := make([]uint8, w*h*channels)
	px := pixelWriter{out: out, channels: channels, gg: gg}
	switch m := img.(type) {
	case *image.Gray:
		for y := range h {
			row := m.Pix[y*m.Stride : y*m.Stride+w]
			for _, v := range row {
				px.gray(v, 255)
			}
		}
	case *image.Gray16:
		// libpng's strip-16, as TensorFlow sets it up: the high byte.
		for y := range h {
			row := m.Pix[y*m.Stride : y*m.Stride+2*w]
			for x := range w {
				px.gray(row[2*x], 255)
			}
		}
	case *image.NRGBA:
		// Gray PNGs with alpha or transparency come here too: with equal
		// components the weighted gray is the gray value exactly.
		for y := range h {
			row := m.Pix[y*m.Stride : y*m.Stride+4*w]
			for x := range w {
				p := row[4*x : 4*x+4]
				px.rgba(p[0], p[1], p[2], p[3])
			}
		}
	case *image.NRGBA64:
		for y := range h {
			row := m.Pix[y*m.Stride : y*m.Stride+8*w]
			for x := range w {
				p := row[8*x : 8*x+8]
				px.rgba16(p)
			}
		}
	case *image.RGBA:
		// Go's PNG decoder makes RGBA only of opaque images, where
		// premultiplied and straight alpha agree.
		for y := range h {
			row := m.Pix[y*m.Stride : y*m.Stride+4*w]
			for x := range w {
				p := row[4*x : 4*x+4]
				if p[3] != 255 {
					c := color.NRGBAModel.Convert(color.RGBA{p[0], p[1], p[2], p[3]}).(color.NRGBA)
					px.rgba(c.R, c.G, c.B, c.A)
					continue
				}
				px.rgba(p[0], p[1], p[2], 255)
			}
		}
	case *image.RGBA64:
		for y := range h {
			row := m.Pix[y*m.Stride : y*m.Stride+8*w]
			for x := range w {
				p := row[8*x : 8*x+8]
				if p[6] != 255 || p[7] != 255 {
					c := color.NRGBA64Model.Convert(m.RGBA64At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA64)
					px.rgba16([]uint8{uint8(c.R >> 8), uint8(c.R), uint8(c.G >> 8), uint8(c.G), uint8(c.B >> 8), uint8(c.B), uint8(c.A >> 8), uint8(c.A)})
					continue
				}
				px.rgba16(p)
			}
		}
	case *image.Paletted:
		var pal [256][4]uint8
		for i, c := range m.Palette {
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			pal[i] = [4]uint8{n.R, n.G, n.B, n.A}
		}
		for y := range h {
			for _, i := range m.Pix[y*m.Stride : y*m.Stride+w] {
				p := &pal[i]
				px.rgba(p[0], p[1], p[2], p[3])
			}
		}
	case *image.YCbCr:
		writeYCbCr(m, &px, whole(w, h))
	case *jpegYCbCr:
		writeYCC(m, &px, whole(w, h))
	default: // CMYK JPEGs and anything rarer: slow but general.
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				px.rgba(c.R, c.G, c.B, c.A)
			}
		}
	}
	return tensor.New(out, h, w, channels)
}

// pixelWriter appends pixels to out in the requested channel layout.
type pixelWriter struct {
	out      []uint8
	i        int
	channels int
	gg       *grayGamma // libpng's gamma-correct gray, or nil for luma's
}

func (p *pixelWriter) gray(v, a uint8) {
	o := p.out[p.i : p.i+p.channels]
	switch p.channels {
	case 1:
		o[0] = v
	case 2:
		o[0], o[1] = v, a
	case 3:
		o[0], o[1], o[2] = v, v, v
	case 4:
		o[0], o[1], o[2], o[3] = v, v, v, a
	}
	p.i += p.channels
}

func (p *pixelWriter) rgba(r, g, b, a uint8) {
	o := p.out[p.i : p.i+p.channels]
	switch p.channels {
	case 1:
		o[0] = p.luma(r, g, b)
	case 2:
		o[0], o[1] = p.luma(r, g, b), a
	case 3:
		o[0], o[1], o[2] = r, g, b
	case 4:
		o[0], o[1], o[2], o[3] = r, g, b, a
	}
	p.i += p.channels
}

// rgba16 writes a pixel of 16-bit big-endian samples (R, G, B, A), which
// TensorFlow's PNG decoder narrows to their high bytes; libpng makes gray
// before narrowing, from all 16 bits.
func (p *pixelWriter) rgba16(s []uint8) {
	if p.channels > 2 {
		p.rgba(s[0], s[2], s[4], s[6])
		return
	}
	r := uint32(s[0])<<8 | uint32(s[1])
	g := uint32(s[2])<<8 | uint32(s[3])
	b := uint32(s[4])<<8 | uint32(s[5])
	var v uint8
	if p.gg != nil {
		v = uint8(p.gg.gray16(r, g, b) >> 8)
	} else {
		// libpng's 16-bit sum rounds, where its 8-bit one truncates.
		v = uint8((9797*r + 19234*g + 3737*b + 16384) >> 23)
	}
	if p.channels == 1 {
		p.out[p.i] = v
	} else {
		p.out[p.i], p.out[p.i+1] = v, s[6]
	}
	p.i += p.channels
}

// luma is the gray of an 8-bit color, gamma-correct if p.gg says so.
func (p *pixelWriter) luma(r, g, b uint8) uint8 {
	if p.gg != nil {
		return p.gg.gray8(r, g, b)
	}
	return luma(r, g, b)
}

// luma converts a color to gray as TensorFlow's PNG decoder has libpng do
// it (png_set_rgb_to_gray with 0.299 and 0.587) for a file without a gamma
// or of gamma near 1 (grayGamma does the others): the weights in 15-bit
// fixed point, truncated as libpng converts them (29900·32768/100000 and
// 58700·32768/100000, blue taking the rest), and the sum truncated too.
// A color JPEG's gray is its luma plane instead, as libjpeg's.
func luma(r, g, b uint8) uint8 {
	if r == g && r == b {
		return r
	}
	return uint8((9797*uint32(r) + 19234*uint32(g) + 3737*uint32(b)) >> 15)
}
