// Package pyserve is the Go side of sluice's Python package: a server that
// runs one sluice data set for one Python process and hands it the batches
// through shared memory.
//
// The Python process starts the server (cmd/sluice-serve) as a child and
// talks to it over the child's stdin and stdout. Each message is a JSON
// object preceded by its length, 4 bytes little-endian; every request gets
// exactly one reply, in order (a next refused, before an open or with
// keep and count beyond the ring, gets one error reply whatever its
// count). Requests are decoded strictly: a field that is not its op's is
// a protocol error. Error replies' texts are cut to 64 KiB each.
// The end of the input ends the session, even while a next waits for a
// batch. The requests:
//
//	open    {"op":"open", "kind":"examples"|"sequence_examples"|"records"|"csv"|"fixed", "files":[...], ...}
//	        → {"features":[...]} or {"error":{...}}; an open after the
//	        first ends the data set before and starts this one, in the
//	        same slots
//	next    {"op":"next"} → {"batch":{...}}, {"end":true} or {"error":{...}}
//	        {"op":"next","count":4}: four such replies, written at once
//	        (keep+count at most the slots less one)
//	        {"op":"next","keep":1}: the same, the last batch sent still
//	        held by the client, which can so ask for the batch after the
//	        one it is about to read, and find it waiting in the pipe
//	        (the server frees every batch sent before the last keep).
//	        A batch reply, when the count has grown since the last, the
//	        end and a data error carry "skipped":N, the corrupt records
//	        skipped so far (skip_corrupt)
//	state   {"op":"state"} → {"state":...}: a deterministic data set's
//	        position after the batches sent ({"op":"state","before":2}:
//	        before the last two, which the client has not handed out)
//	mapped  {"op":"mapped","file":PATH} → {"ok":true}; the server unlinks
//	        PATH if it is a named file
//	close   {"op":"close"} → {"ok":true}; the server exits
//	write   {"op":"write","out":[FILE...],"compression":"GZIP"} → {"ok":true}:
//	        record messages follow, a message whose first byte is 0 and
//	        the rest records, each 4 bytes of length (little-endian) and
//	        its bytes, which get no reply; then
//	commit  {"op":"commit"} → {"wrote":N}: the files under their names,
//	        or {"error":{...}} and none, except an error of kind
//	        "not_durable" (storage.ErrNotDurable): the files are under
//	        their names, but the folder could not be flushed to disk. The
//	        end of the input, an error or another write leaves none
//	        (see write.go)
//
// A batch's arrays are written into one of a few slot files; the reply
// names the slot, and the file when it is new to the client, and where
// each feature's bytes are. A slot is written again only after the client
// asked for the next batch, so the arrays of a batch are valid until then.
// On Linux a slot file is an anonymous file of memory (memfd_create),
// which the client opens by the server's descriptor, /proc/PID/fd/N: it is
// in no directory, and its memory goes with the two processes' descriptors
// and mappings, however they end. Elsewhere, or with SLUICE_SHM_DIR set, it
// is a named file (in /dev/shm where there is one); the client maps it and
// says so with "mapped", and the server unlinks it at once, so that nothing
// is left behind when either process dies after that.
package pyserve

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/sluiceml/sluice"
)

// MaxMessage is the largest message either side accepts. Requests are
// small; a larger length prefix is a broken or hostile stream, and is
// refused before anything is allocated for it.
const MaxMessage = 16 << 20

// ErrProtocol is wrapped by the errors of malformed messages.
var ErrProtocol = errors.New("pyserve: protocol error")

// ReadMessage reads one length-prefixed message from r. At the start of a
// message, the end of r is io.EOF; within one, io.ErrUnexpectedEOF.
func ReadMessage(r io.Reader) ([]byte, error) { return readMessage(r, nil) }

// readMessage is ReadMessage reading into buf when the message fits.
func readMessage(r io.Reader, buf []byte) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n > MaxMessage {
		return nil, fmt.Errorf("%w: a message of %d bytes (at most %d)", ErrProtocol, n, MaxMessage)
	}
	msg := buf[:0]
	if cap(msg) < int(n) {
		msg = make([]byte, n)
	}
	msg = msg[:n]
	if _, err := io.ReadFull(r, msg); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return msg, nil
}

// WriteMessage writes v as JSON with its length prefix, in one Write.
func WriteMessage(w io.Writer, v any) error {
	buf, err := appendMessage(nil, v)
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// appendMessage appends v as JSON with its length prefix to buf.
func appendMessage(buf []byte, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return buf, err
	}
	if len(body) > MaxMessage {
		return buf, fmt.Errorf("%w: a message of %d bytes (at most %d)", ErrProtocol, len(body), MaxMessage)
	}
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(body)))
	return append(buf, body...), nil
}

// A Request is one message from the client. Op says which; Open is set
// for "open" and File for "mapped".
type Request struct {
	Op   string `json:"op"`
	File string `json:"file,omitempty"`
	// Keep, in a "next", is how many of the last batches sent the
	// client still holds: 0 frees them all, 1 lets a client ask for the
	// batch after next while it reads the next one.
	Keep int `json:"keep,omitempty"`
	// Before, in a "state", is how many of the last batches sent the
	// trainer has not been handed yet (sent ahead): the state is the
	// position before them (sluice.Iterator.CheckpointBefore), at most
	// sluice.MaxCheckpointBefore.
	Before int `json:"before,omitempty"`
	// Count, in a "next", is how many batches to send, each its own
	// reply, written together: a client that asks for four at a time
	// quarters the messages, and the processes' wake-ups, per batch. 0
	// is 1. Keep+Count is at most the slots less one.
	Count int `json:"count,omitempty"`
	// Retire, in an "open", lists the slots whose memory arrays the
	// client handed out before still view (a batch the trainer kept
	// past its iteration): the server gives each a new file before it
	// uses it again, and the old memory stays the trainer's, unchanged,
	// until its arrays go.
	Retire []int `json:"retire,omitempty"`
	*Open
	*Write
}

// Write starts writing TFRecord files (a "write" request): the records
// come next, in record messages, and a "commit" gives the files their
// names (see write.go).
type Write struct {
	Out         []string `json:"out"`         // the files, records dealt round-robin
	Compression string   `json:"compression"` // NONE, GZIP, ZLIB or ZSTD
}

// Open describes the data set to read and how to batch it.
type Open struct {
	Kind  string   `json:"kind"`  // examples, sequence_examples, csv or fixed
	Files []string `json:"files"` // names or glob patterns

	Spec    FeatureSpecs `json:"spec,omitempty"`    // examples
	Columns []ColumnSpec `json:"columns,omitempty"` // csv
	Fields  []FieldSpec  `json:"fields,omitempty"`  // fixed

	// A SequenceExample's context features (fixed, varlen) and feature
	// lists (sequence, varlen): sequence_examples.
	Context  FeatureSpecs `json:"context,omitempty"`
	Sequence FeatureSpecs `json:"sequence,omitempty"`

	HeaderLines int     `json:"header_lines,omitempty"` // csv
	Delim       *string `json:"delim,omitempty"`        // csv: one byte; nil: a comma
	RecordBytes int     `json:"record_bytes,omitempty"` // fixed
	HeaderBytes int     `json:"header_bytes,omitempty"` // fixed
	FooterBytes int     `json:"footer_bytes,omitempty"` // fixed
	Compression string  `json:"compression,omitempty"`  // fixed; examples detect it
	SkipCorrupt bool    `json:"skip_corrupt,omitempty"` // examples, sequence_examples
	Format      string  `json:"format,omitempty"`       // examples: tfrecord (default) or parquet

	BatchSize     int     `json:"batch_size"`
	DropRemainder bool    `json:"drop_remainder,omitempty"`
	Epochs        int     `json:"epochs,omitempty"` // 0: one
	Forever       bool    `json:"forever,omitempty"`
	Shuffle       int     `json:"shuffle,omitempty"` // records' shuffle buffer; 0: none
	ShuffleFiles  bool    `json:"shuffle_files,omitempty"`
	Readers       int     `json:"readers,omitempty"` // 0: one per CPU
	Seed          *uint64 `json:"seed,omitempty"`
	Shard         []int   `json:"shard,omitempty"` // [index, count]
	Slots         int     `json:"slots,omitempty"` // ring size; 0: DefaultSlots

	// Deterministic reads in an order fixed by the seed and options
	// (sluice.Deterministic), which state can save; GlobalShuffle
	// shuffles every record of every file each epoch (examples and fixed).
	Deterministic bool `json:"deterministic,omitempty"`
	GlobalShuffle bool `json:"global_shuffle,omitempty"`
	// Resume is a state a "state" request returned: the iteration goes on
	// from there.
	Resume json.RawMessage `json:"resume,omitempty"`

	// QueueURL, a nats:// URL, makes the workers that give the same URL
	// and QueueName share one filename queue on NATS JetStream, each file
	// of an epoch read by one of them (see natsFiles); QueueEpoch is the
	// number of its first epoch, for a job that goes on from epoch k.
	QueueURL   string `json:"queue_url,omitempty"`
	QueueName  string `json:"queue_name,omitempty"`
	QueueEpoch int    `json:"queue_epoch,omitempty"`
}

// A FeatureSpec is one feature of an Example spec: kind fixed (a dense
// feature of Shape per record), varlen (any number of values per record),
// sparse (a SparseFeature)
// or sequence (FixedLenSequence: steps of Shape). A fixed feature of a
// dtype other than float32, int64 and bytes is read from one bytes value
// per record holding the values' little-endian encoding (decode_raw), as
// MNIST's image_raw holds its pixels.
type FeatureSpec struct {
	Kind    string          `json:"kind"`
	DType   string          `json:"dtype"` // float32, int64 or bytes
	Shape   []int           `json:"shape,omitempty"`
	Default json.RawMessage `json:"default,omitempty"` // a number, string or list of them
	// AllowMissing, for kind sequence, is true when absent: an Example
	// requires it; a SequenceExample's feature list that is not allowed
	// to be missing must be in every record (TensorFlow's default).
	AllowMissing *bool `json:"allow_missing,omitempty"`

	// Kind sparse (tf.io.SparseFeature): values from the feature
	// ValueKey, their indices from the int64 features IndexKeys, one per
	// dimension of Size.
	IndexKeys     []string `json:"index_keys,omitempty"`
	ValueKey      string   `json:"value_key,omitempty"`
	Size          []int    `json:"size,omitempty"`
	AlreadySorted bool     `json:"already_sorted,omitempty"`

	// DCTMethod, for kind image, is decode_jpeg's: "" or "INTEGER_FAST"
	// (TensorFlow's default), or "INTEGER_ACCURATE" (decode.AccurateDCT).
	DCTMethod string `json:"dct_method,omitempty"`
	// MaxScans, for kind image, is decode.MaxScans: the most scans of a
	// JPEG (0: the default, 100).
	MaxScans int `json:"max_scans,omitempty"`
}

// FeatureSpecs are the features of a spec by name, decoded strictly (see
// its UnmarshalJSON).
type FeatureSpecs map[string]FeatureSpec

// A ColumnSpec is one CSV column. Without Default and not Required, an
// empty field is the type's zero.
type ColumnSpec struct {
	Name     string          `json:"name"`
	DType    string          `json:"dtype"`
	Default  json.RawMessage `json:"default,omitempty"`
	Required bool            `json:"required,omitempty"`
}

// A FieldSpec is one field of a fixed-length record (sluice.Field).
type FieldSpec struct {
	Name      string `json:"name"`
	Offset    int    `json:"offset"`
	Size      int    `json:"size"`
	DType     string `json:"dtype"`
	Shape     []int  `json:"shape,omitempty"`
	Transpose []int  `json:"transpose,omitempty"`
	BigEndian bool   `json:"big_endian,omitempty"`
}

// DecodeRequest parses one message body as a Request, strictly: unknown
// fields, and fields of another op, are errors, so that a misspelt option
// ({"op":"next","cout":4}, {"op":"state","befor":2}) fails instead of
// being ignored. Its errors wrap ErrProtocol, or sluice.ErrInvalid for a
// spec's feature, column or field the user gave with a misspelt key. The
// request of every batch, spelt as the Python client spells it, takes a
// path of its own without encoding/json (decodeNext).
func DecodeRequest(msg []byte) (*Request, error) {
	if req := new(Request); decodeNext(msg, req) {
		return req, nil
	}
	var op struct {
		Op string `json:"op"`
	}
	if err := json.Unmarshal(msg, &op); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	req := &Request{Op: op.Op}
	var err error
	switch op.Op {
	case "open":
		var o struct {
			Op     string `json:"op"`
			Retire []int  `json:"retire"`
			Open
		}
		err = strictUnmarshal(msg, &o)
		req.Open, req.Retire = &o.Open, o.Retire
	case "write":
		var o struct {
			Op string `json:"op"`
			Write
		}
		err = strictUnmarshal(msg, &o)
		req.Write = &o.Write
	case "next":
		var o struct {
			Op    string `json:"op"`
			Keep  int    `json:"keep"`
			Count int    `json:"count"`
		}
		err = strictUnmarshal(msg, &o)
		req.Keep, req.Count = o.Keep, o.Count
	case "state":
		var o struct {
			Op     string `json:"op"`
			Before int    `json:"before"`
		}
		err = strictUnmarshal(msg, &o)
		req.Before = o.Before
	case "mapped":
		var o struct {
			Op   string `json:"op"`
			File string `json:"file"`
		}
		if err = strictUnmarshal(msg, &o); err == nil && o.File == "" {
			err = errors.New("no file")
		}
		req.File = o.File
	case "close", "commit":
		err = strictUnmarshal(msg, &op)
	default:
		return nil, fmt.Errorf("%w: unknown op %q", ErrProtocol, op.Op)
	}
	if errors.Is(err, sluice.ErrInvalid) {
		// A spec the user gave (a dict feature or column with a
		// misspelt key): an argument, not the client's protocol.
		return nil, fmt.Errorf("%s: %w", op.Op, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrProtocol, op.Op, err)
	}
	return req, nil
}

// strictSpec decodes one spec of an open (a feature, column or field the
// user may have written as a dict) strictly, its errors wrapping
// sluice.ErrInvalid and naming it: what and its name.
func strictSpec(data []byte, v any, what, name string) error {
	if err := strictUnmarshal(data, v); err != nil {
		if name == "" {
			var n struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(data, &n) == nil {
				name = n.Name
			}
		}
		return fmt.Errorf("%s %q: %v: %w", what, name, err, sluice.ErrInvalid)
	}
	return nil
}

// UnmarshalJSON decodes a spec's features strictly, each error naming
// its feature.
func (m *FeatureSpecs) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("features: %v: %w", err, sluice.ErrInvalid)
	}
	*m = make(FeatureSpecs, len(raw))
	for name, r := range raw {
		var f FeatureSpec
		if err := strictSpec(r, &f, "feature", name); err != nil {
			return err
		}
		(*m)[name] = f
	}
	return nil
}

// UnmarshalJSON decodes a CSV column strictly: a misspelt key
// ("requird") is the user's error, naming the column.
func (c *ColumnSpec) UnmarshalJSON(data []byte) error {
	type plain ColumnSpec // without this method
	return strictSpec(data, (*plain)(c), "column", "")
}

// UnmarshalJSON decodes a fixed-length record's field strictly.
func (f *FieldSpec) UnmarshalJSON(data []byte) error {
	type plain FieldSpec
	return strictSpec(data, (*plain)(f), "field", "")
}

// decodeNext decodes the request of every batch as the Python client
// spells it, {"op":"next"} with ,"keep":K and ,"count":C in that order,
// without encoding/json; ok is false for anything else, which takes the
// general path. It decodes into req, which it may change even when it
// reports false.
func decodeNext(msg []byte, req *Request) (ok bool) {
	rest, ok := bytes.CutPrefix(msg, []byte(`{"op":"next"`))
	if !ok {
		return false
	}
	*req = Request{Op: "next"}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"keep":`)); ok {
		if req.Keep, rest, ok = cutInt(rest); !ok {
			return false
		}
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"count":`)); ok {
		if req.Count, rest, ok = cutInt(rest); !ok {
			return false
		}
	}
	return string(rest) == "}"
}

// cutInt cuts a small decimal number (at most 4 digits, no sign or
// leading zero but 0 itself) off the front of b.
func cutInt(b []byte) (n int, rest []byte, ok bool) {
	i := 0
	for i < len(b) && i < 5 && '0' <= b[i] && b[i] <= '9' {
		n = n*10 + int(b[i]-'0')
		i++
	}
	if i == 0 || i > 4 || i > 1 && b[0] == '0' {
		return 0, b, false
	}
	return n, b[i:], true
}

func strictUnmarshal(msg []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(msg))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("data after the message")
	}
	return nil
}

// Reply is one message to the client: exactly one of its fields is set.
type Reply struct {
	Features []FeatureInfo `json:"features,omitempty"` // to open
	ShmDir   string        `json:"shm_dir,omitempty"`  // to open: where the slot files are
	// NewSlots, to an open, says that every slot has a new file (or will
	// have, at its first batch): the data set needs another number of
	// slots than the one before, or is the server's first. The client's
	// maps of the old files are no slot's any more.
	NewSlots bool       `json:"new_slots,omitempty"`
	Batch    *BatchInfo `json:"batch,omitempty"` // to next
	End      bool       `json:"end,omitempty"`   // to next: no more batches
	// Skipped is the count of corrupt records the iteration's readers
	// have skipped so far (skip_corrupt; sluice.Iterator.Skipped), on a
	// batch when it differs from the last batch's, on the end and on an
	// error of the iteration.
	Skipped int64  `json:"skipped,omitempty"`
	OK      bool   `json:"ok,omitempty"`    // to mapped, close and write
	Wrote   *int64 `json:"wrote,omitempty"` // to commit: the records written
	// State is the iteration's position after the batches the client
	// has been sent (sluice.Iterator.Checkpoint), to a "state" request.
	State json.RawMessage `json:"state,omitempty"`
	Error *ErrorInfo      `json:"error,omitempty"`
}

// FeatureInfo describes one feature of the opened data set. A list is a
// SequenceExample's dense feature list or an Example's FixedLenSequence
// feature: padded, with its records' step counts.
type FeatureInfo struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`  // dense, varlen, sparse, raw (numbers from a bytes value), or list (below)
	DType string `json:"dtype"` // numpy's name, or bytes
}

// A BatchInfo says where a batch is: which slot, and each feature's arrays
// in it. File and FileSize are set when the slot has a new file, which
// the client maps before it reads the batch.
type BatchInfo struct {
	Slot     int         `json:"slot"`
	File     string      `json:"file,omitempty"`
	FileSize int         `json:"file_size,omitempty"`
	Rows     int         `json:"rows"`
	Arrays   []ArrayInfo `json:"arrays"`
}

// An ArrayInfo is one feature of a batch. A numeric feature is NBytes of
// little-endian values of DType at Offset, of Shape (rows first). A bytes
// feature (DType "bytes") has one value per element of Shape: its bytes
// are data[off[i]:off[i+1]], where off is the int64 array of
// Shape's element count plus one at Offset and data the NBytes at
// DataOffset. A VarLen feature is padded to the longest record of the
// batch (zeros, empty bytes), and each record's count of values is the
// int64 array of Rows at LengthsOffset; so is a list's count of steps
// (a dense feature list, or an Example's FixedLenSequence), its values
// padded to the most steps. A sparse feature (or a
// VarLen feature list) is NNZ values (as
// a numeric or bytes feature of Shape [NNZ]) and their indices, an int64
// array [NNZ, len(Shape)] at IndicesOffset, in a dense Shape (rows first).
type ArrayInfo struct {
	Name          string `json:"name"`
	DType         string `json:"dtype"`
	Shape         []int  `json:"shape"`
	Offset        int    `json:"offset"`
	NBytes        int    `json:"nbytes"`
	DataOffset    int    `json:"data_offset,omitempty"`
	LengthsOffset int    `json:"lengths_offset,omitempty"`
	NNZ           int    `json:"nnz,omitempty"`
	IndicesOffset int    `json:"indices_offset,omitempty"`
}

// ErrorInfo is an error of the Go side. Kind is "data" for bad data (the
// place is then in File, Offset, Line, Record and Key, from the
// *dataerr.Error), "invalid" for options out of range, "nofiles" when a
// pattern matches nothing, "protocol" for a malformed request,
// "not_durable" for a write whose files are under their names but whose
// folder could not be flushed to disk (storage.ErrNotDurable), and
// "other".
type ErrorInfo struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Offset  int64  `json:"offset"`
	Line    int64  `json:"line,omitempty"`
	Record  int64  `json:"record"`
	Key     string `json:"key,omitempty"`
}
