package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
)

// stateMagic starts a model's saved state.
const stateMagic = "sluice-model-1\n"

// MarshalBinary returns the model's whole state: its configuration, its
// weights and its momentum, so that a model restored from it trains on
// exactly as this one would.
func (m *Model) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(stateMagic)
	c := m.cfg
	binary.Write(&b, binary.LittleEndian, [4]int64{int64(c.Inputs), int64(c.Classes), int64(c.Hidden), int64(c.Seed)})
	binary.Write(&b, binary.LittleEndian, [2]float32{c.LearningRate, c.Momentum})
	for _, l := range m.layers {
		for _, v := range [][]float32{l.w, l.b, l.vw, l.vb} {
			binary.Write(&b, binary.LittleEndian, v)
		}
	}
	return b.Bytes(), nil
}

// UnmarshalBinary sets the model to a state MarshalBinary returned. The
// state must be of a model of the same configuration.
func (m *Model) UnmarshalBinary(data []byte) error {
	r := bytes.NewReader(data)
	magic := make([]byte, len(stateMagic))
	if _, err := r.Read(magic); err != nil || string(magic) != stateMagic {
		return errors.New("model: not a saved model state")
	}
	var sizes [4]int64
	var rates [2]float32
	if err := binary.Read(r, binary.LittleEndian, &sizes); err != nil {
		return fmt.Errorf("model: state: %w", err)
	}
	if err := binary.Read(r, binary.LittleEndian, &rates); err != nil {
		return fmt.Errorf("model: state: %w", err)
	}
	if err := checkRates(rates[0], rates[1]); err != nil {
		return fmt.Errorf("model: state: %w", err)
	}
	c := m.cfg
	if sizes != [4]int64{int64(c.Inputs), int64(c.Classes), int64(c.Hidden), int64(c.Seed)} {
		return fmt.Errorf("model: state of a model of %d inputs, %d classes, %d hidden units (seed %d), not this one's %d, %d, %d (seed %d)",
			sizes[0], sizes[1], sizes[2], uint64(sizes[3]), c.Inputs, c.Classes, c.Hidden, c.Seed)
	}
	want := 0
	for _, l := range m.layers {
		want += 4 * 2 * (len(l.w) + len(l.b))
	}
	if r.Len() != want {
		return fmt.Errorf("model: state holds %d bytes of weights, want %d", r.Len(), want)
	}
	for _, l := range m.layers {
		for _, v := range [][]float32{l.w, l.b, l.vw, l.vb} {
			binary.Read(r, binary.LittleEndian, v)
		}
	}
	m.cfg.LearningRate, m.cfg.Momentum = rates[0], rates[1]
	return nil
}

// Digest returns the SHA-256 of the model's weights and momentum, in hex:
// two models with the same digest predict and train on alike, bit for bit.
func (m *Model) Digest() string {
	h := sha256.New()
	var buf [4]byte
	for _, l := range m.layers {
		for _, v := range [][]float32{l.w, l.b, l.vw, l.vb} {
			for _, x := range v {
				binary.LittleEndian.PutUint32(buf[:], math.Float32bits(x))
				h.Write(buf[:])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
