// Package sealed writes JSON documents that are read back later, such as
// checkpoints, with a checksum of their content, so that a document
// damaged on its way (a flipped bit in a file saved beside a model, an
// edit by hand) is refused rather than read as other values.
//
// A sealed document is the JSON object of its value with one more member,
// first: "crc32c", the CRC-32C (Castagnoli) of the object as
// encoding/json marshals the value. Unmarshal decodes the value, marshals
// it again and compares: any change of a value, a member that the value
// does not have, or a member lost changes those bytes. Changes that decode
// to the same value (white space, the case of a member's name, which
// encoding/json ignores) are not damage and pass.
//
// The check holds only while marshalling a decoded value gives the bytes
// it was decoded from: the value's type may gain fields only with
// omitempty (so that documents saved before keep their bytes), and must
// not have a field named crc32c.
package sealed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"reflect"
	"strconv"
)

// ErrDamaged is returned by Unmarshal for a sealed document whose content
// does not match its checksum.
var ErrDamaged = errors.New("damaged: its content does not match its checksum")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// member is the name of the checksum's member.
const member = "crc32c"

// Marshal returns the sealed JSON encoding of v, which must encode as a
// JSON object.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(b) < 2 || b[0] != '{' {
		return nil, fmt.Errorf("sealed: %T does not encode as a JSON object", v)
	}
	out := make([]byte, 0, len(b)+24)
	out = append(out, `{"`+member+`":`...)
	out = strconv.AppendUint(out, uint64(crc32.Checksum(b, castagnoli)), 10)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// Unmarshal decodes data into v, a pointer, as json.Unmarshal does, and
// reports whether data was sealed. A sealed document whose content does
// not match its checksum returns an error wrapping ErrDamaged; so does an
// unsealed one with a member v's type lacks (a name damaged, the
// checksum's among them). Another unsealed one (saved before its format
// was sealed) is decoded unchecked, and the caller decides whether to
// accept it.
func Unmarshal(data []byte, v any) (sealed bool, err error) {
	var seal struct {
		CRC *uint32 `json:"crc32c"`
	}
	if err := json.Unmarshal(data, &seal); err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return seal.CRC != nil, err
	}
	if seal.CRC == nil {
		// Not sealed: saved before its format was, by the value's type
		// then, whose members the type still has. One it lacks is a
		// member's name damaged, maybe the checksum's own ("crc32s"),
		// which would let damage after it through unchecked.
		strict := json.NewDecoder(bytes.NewReader(data))
		strict.DisallowUnknownFields()
		if err := strict.Decode(reflect.New(reflect.TypeOf(v).Elem()).Interface()); err != nil {
			return false, fmt.Errorf("%w (not sealed, and %v)", ErrDamaged, err)
		}
		return false, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return true, err
	}
	if sum := crc32.Checksum(b, castagnoli); sum != *seal.CRC {
		return true, fmt.Errorf("%w (crc32c %d, content's %d)", ErrDamaged, *seal.CRC, sum)
	}
	return true, nil
}
