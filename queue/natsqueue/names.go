package natsqueue

import (
	"fmt"
	"strings"
)

// token turns a queue name into one NATS subject token that is also a
// valid stream, consumer and key-value key name. TensorFlow names may hold
// '/', '.' or spaces, none of which those names allow, so every byte
// outside [A-Za-z0-9_-] is written as =XX. The mapping is one to one: two
// queue names never share a token.
func token(name string) string {
	var b strings.Builder
	for i := range len(name) {
		c := name[i]
		if plain(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "=%02X", c)
		}
	}
	return b.String()
}

// names are the JetStream objects one queue uses.
type names struct {
	stream   string // one stream per queue name, shared by its epochs
	subjects string // the stream's subjects, a wildcard over the epochs
	subject  string // this epoch's subject
	consumer string // this epoch's durable consumer, shared by all workers
	bucket   string // key-value bucket of closed flags
	key      string // this epoch's closed flag
	idPrefix string // prefix of this epoch's message IDs
	token    string // the queue name's token
	epoch    int
}

func newNames(name string, epoch int, c *config) names {
	t := token(name)
	n := names{
		stream:   "SLUICE_" + t,
		subjects: "sluice.q." + t + ".>",
		subject:  fmt.Sprintf("sluice.q.%s.e%d", t, epoch),
		consumer: fmt.Sprintf("%s_e%d", t, epoch),
		bucket:   "sluice_queues",
		key:      fmt.Sprintf("%s.e%d", t, epoch),
		idPrefix: fmt.Sprintf("%s/%d/", t, epoch),
		token:    t,
		epoch:    epoch,
	}
	if c.stream != "" {
		n.stream = c.stream
	}
	if c.bucket != "" {
		n.bucket = c.bucket
	}
	return n
}

// msgID is the Nats-Msg-Id of the k-th enqueue (from 0) of unit through
// this queue and epoch. The ID depends on the unit's content and on how
// many times the same content was enqueued before, not on its position:
// two producers that enqueue the same epoch's list, each shuffled with its
// own seed, produce the same set of IDs, so JetStream stores each unit once
// (and a unit listed twice is stored twice, as in-process queues would).
// A position-based ID would instead merge different units that happened to
// share a position. The content enters as a SHA-256 prefix so that an ID
// stays short whatever the file name.
func (n names) msgID(unit []byte, k int) string {
	return newMsgID(n.token, n.epoch, unit, k).String()
}
