package example

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sluiceml/sluice/example/pb"
)

// A Builder collects the features of one Example and marshals them. Its
// methods return the Builder, so an Example reads as one expression:
//
//	rec := example.New().Int64("label", 7).Floats("image", pix).Marshal()
//
// A Builder keeps the slices it is given rather than copying them. Setting
// a name again replaces its value. Reset empties a Builder for reuse, so a
// loop that writes many Examples with one Builder and AppendMarshal into
// one buffer allocates nothing in steady state.
type Builder struct {
	entries []entry
	// index finds an entry by name once there are more than
	// builderScanMax, so that an Example of many features is built in
	// linear time rather than quadratic; it is kept (cleared) across
	// Resets.
	index map[string]int
}

// builderScanMax is how many entries Set searches one by one before it
// indexes them by name.
const builderScanMax = 16

type entry struct {
	name string
	f    Feature
	list int // list body size, computed by AppendMarshal
	feat int // Feature body size
	ent  int // map entry body size
}

// New returns an empty Builder.
func New() *Builder { return &Builder{} }

// Reset removes all features, keeping the Builder's storage.
func (b *Builder) Reset() *Builder {
	clear(b.entries) // drop references to the callers' slices
	b.entries = b.entries[:0]
	clear(b.index)
	return b
}

// Set sets the feature name to f.
func (b *Builder) Set(name string, f Feature) *Builder {
	if len(b.entries) <= builderScanMax {
		for i := range b.entries {
			if b.entries[i].name == name {
				b.entries[i].f = f
				return b
			}
		}
	} else {
		if len(b.index) == 0 {
			if b.index == nil {
				b.index = make(map[string]int, 2*len(b.entries))
			}
			for i, e := range b.entries {
				b.index[e.name] = i
			}
		}
		if i, ok := b.index[name]; ok {
			b.entries[i].f = f
			return b
		}
		b.index[name] = len(b.entries)
	}
	b.entries = append(b.entries, entry{name: name, f: f})
	return b
}

// Int64 sets name to the int64 values v.
func (b *Builder) Int64(name string, v ...int64) *Builder { return b.Set(name, Int64List(v...)) }

// Int64s sets name to the int64 values v.
func (b *Builder) Int64s(name string, v []int64) *Builder { return b.Set(name, Int64List(v...)) }

// Float sets name to the float values v.
func (b *Builder) Float(name string, v ...float32) *Builder { return b.Set(name, FloatList(v...)) }

// Floats sets name to the float values v.
func (b *Builder) Floats(name string, v []float32) *Builder { return b.Set(name, FloatList(v...)) }

// Bytes sets name to the byte strings v.
func (b *Builder) Bytes(name string, v ...[]byte) *Builder { return b.Set(name, BytesList(v...)) }

// Strings sets name to the strings v, stored as bytes.
func (b *Builder) Strings(name string, v ...string) *Builder { return b.Set(name, StringList(v...)) }

// Marshal returns the serialized Example.
func (b *Builder) Marshal() []byte { return b.AppendMarshal(nil) }

// AppendMarshal appends the serialized Example to dst and returns the
// extended slice. Features are written in the order they were first set,
// numeric lists packed, as TensorFlow writes them.
func (b *Builder) AppendMarshal(dst []byte) []byte {
	n := b.featuresSize()
	if len(b.entries) == 0 {
		return dst
	}
	dst = protowire.AppendTag(dst, fieldExampleFeatures, protowire.BytesType)
	dst = protowire.AppendVarint(dst, uint64(n))
	return b.appendFeatures(dst)
}

// featuresSize computes the sizes of every nested message and returns the
// size of the Features body.
func (b *Builder) featuresSize() int {
	n := 0
	for i := range b.entries {
		e := &b.entries[i]
		e.list = e.f.listSize()
		e.feat = e.f.size(e.list)
		e.ent = 1 + protowire.SizeBytes(len(e.name)) + 1 + protowire.SizeBytes(e.feat)
		n += 1 + protowire.SizeBytes(e.ent)
	}
	return n
}

// appendFeatures appends the Features body; featuresSize must have run.
func (b *Builder) appendFeatures(dst []byte) []byte {
	for i := range b.entries {
		e := &b.entries[i]
		dst = protowire.AppendTag(dst, fieldFeaturesMap, protowire.BytesType)
		dst = protowire.AppendVarint(dst, uint64(e.ent))
		dst = protowire.AppendTag(dst, fieldEntryKey, protowire.BytesType)
		dst = protowire.AppendString(dst, e.name)
		dst = protowire.AppendTag(dst, fieldEntryValue, protowire.BytesType)
		dst = protowire.AppendVarint(dst, uint64(e.feat))
		dst = e.f.appendFeature(dst, e.list)
	}
	return dst
}

// Proto returns the Example as the generated message type.
func (b *Builder) Proto() *pb.Example {
	fs := make(Features, len(b.entries))
	for _, e := range b.entries {
		fs[e.name] = e.f
	}
	return fs.Proto()
}
