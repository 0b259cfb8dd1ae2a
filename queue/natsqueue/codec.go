package natsqueue

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// This file holds what the queue writes to NATS and reads back: queue
// names as subject tokens, message IDs, the unit messages themselves and
// the closed flag. A unit's payload is its bytes as they are; what comes
// back from the server is checked before it is believed, since anything
// with access to the subject or the bucket may have written it.

// ErrBadMessage is wrapped by the error of a Dequeue that met a message
// on the queue's subject that this package did not write as it stands: a
// message ID of another queue or epoch, or one that does not match the
// unit's content. The message is terminated, so that the next Dequeue
// goes on with the units after it.
//
// One kind of message never reaches this check: an empty one with a
// Status header, which the NATS client takes for the server's own word
// on the pull request and drops. The server counts it delivered and
// unacknowledged, so the end of input waits for it as for a unit another
// worker holds, until the consumer's MaxDeliver (Option MaxDeliver) gives
// up on it; a queue open to untrusted writers sets one.
var ErrBadMessage = errors.New("not a unit of this queue")

// untoken is token's inverse. It accepts only what token writes, so that
// a name has one token and a token one name.
func untoken(t string) (string, error) {
	if t == "" {
		return "", errors.New("empty queue token")
	}
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case plain(c):
			b.WriteByte(c)
		case c == '=':
			if i+2 >= len(t) || !upperHex(t[i+1]) || !upperHex(t[i+2]) {
				return "", fmt.Errorf("queue token %s: bad escape at byte %d", quoteShort([]byte(t)), i)
			}
			v, _ := strconv.ParseUint(t[i+1:i+3], 16, 8)
			if plain(byte(v)) {
				return "", fmt.Errorf("queue token %s: byte %d escapes %q, which needs no escape", quoteShort([]byte(t)), i, byte(v))
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			return "", fmt.Errorf("queue token %s: byte %d is %q", quoteShort([]byte(t)), i, c)
		}
	}
	return b.String(), nil
}

// plain reports whether token writes c as it is.
func plain(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

func upperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }

// A msgID is a Nats-Msg-Id taken apart: the k-th enqueue (from 0), through
// one handle, of a unit whose SHA-256 starts with hash, into a queue's
// epoch. Its text is token/epoch/hash/k, hash in lower-case hex.
type msgID struct {
	token string
	epoch int
	hash  [16]byte
	k     int
}

func newMsgID(token string, epoch int, unit []byte, k int) msgID {
	h := sha256.Sum256(unit)
	return msgID{token: token, epoch: epoch, hash: [16]byte(h[:16]), k: k}
}

func (id msgID) String() string {
	return id.token + "/" + strconv.Itoa(id.epoch) + "/" + hex.EncodeToString(id.hash[:]) + "/" + strconv.Itoa(id.k)
}

// matches reports whether unit is the content id was made for.
func (id msgID) matches(unit []byte) bool {
	h := sha256.Sum256(unit)
	return bytes.Equal(h[:16], id.hash[:])
}

// parseMsgID takes apart a message ID that String wrote, and rejects
// anything else.
func parseMsgID(s string) (msgID, error) {
	bad := func(why string) (msgID, error) {
		return msgID{}, fmt.Errorf("message ID %s: %s", quoteShort([]byte(s)), why)
	}
	parts := strings.Split(s, "/")
	if len(parts) != 4 {
		return bad("not token/epoch/hash/count")
	}
	var id msgID
	if _, err := untoken(parts[0]); err != nil {
		return bad("bad queue token")
	}
	id.token = parts[0]
	var err error
	if id.epoch, err = parseCount(parts[1]); err != nil {
		return bad("epoch " + err.Error())
	}
	if len(parts[2]) != 2*len(id.hash) || strings.ToLower(parts[2]) != parts[2] {
		return bad("hash is not 32 lower-case hex digits")
	}
	if _, err := hex.Decode(id.hash[:], []byte(parts[2])); err != nil {
		return bad("hash is not 32 lower-case hex digits")
	}
	if id.k, err = parseCount(parts[3]); err != nil {
		return bad("count " + err.Error())
	}
	return id, nil
}

// parseCount parses a count as strconv.Itoa writes one: decimal digits,
// no sign, no leading zero.
func parseCount(s string) (int, error) {
	if s == "" || s[0] < '0' || s[0] > '9' || len(s) > 1 && s[0] == '0' {
		return 0, fmt.Errorf("%s is not a count", quoteShort([]byte(s)))
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s is not a count", quoteShort([]byte(s)))
	}
	return n, nil
}

// decodeUnit checks a message delivered to this epoch's consumer, on
// subject, with message ID id ("" if none) and payload data, and returns
// the unit. A message without an ID is taken as it is (published by hand,
// say); one with an ID must carry this queue's and epoch's, made for its
// content.
func (n names) decodeUnit(subject, id string, data []byte) ([]byte, error) {
	if subject != n.subject {
		return nil, fmt.Errorf("on subject %s, not %q: %w", quoteShort([]byte(subject)), n.subject, ErrBadMessage)
	}
	if id == "" {
		return data, nil
	}
	mid, err := parseMsgID(id)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrBadMessage)
	}
	if mid.token+"/"+strconv.Itoa(mid.epoch)+"/" != n.idPrefix {
		return nil, fmt.Errorf("message ID %s is another queue's or epoch's: %w", quoteShort([]byte(id)), ErrBadMessage)
	}
	if !mid.matches(data) {
		return nil, fmt.Errorf("message ID %s was not made for the unit %s: %w", quoteShort([]byte(id)), quoteShort(data), ErrBadMessage)
	}
	return data, nil
}

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
