package example

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/sluiceml/sluice/example/pb"
)

// scanExample is the fast path for one Example: it fills refs (indexed by
// slot) with the requested features of rec.
func scanExample(rec []byte, p *plan, refs []featureRef) *wireError {
	clear(refs)
	for b := rec; len(b) > 0; {
		f, rest, bad := next(b)
		if bad != "" {
			return &wireError{offset: offsetIn(rec, b), what: bad}
		}
		b = rest
		if f.num != fieldExampleFeatures || f.typ != protowire.BytesType {
			continue
		}
		werr := scanMap(rec, f.val, p, func(slot int, value []byte) *wireError {
			if werr := scanFeature(rec, value, &refs[slot]); werr != nil {
				werr.feature = p.slotNames[slot]
				return werr
			}
			return nil
		})
		if werr != nil {
			return werr
		}
	}
	return nil
}

// refFromMessage is the reference path's featureRef for a decoded Feature.
func refFromMessage(f *pb.Feature) featureRef {
	r := featureRef{present: true, gen: f}
	switch k := f.GetKind().(type) {
	case *pb.Feature_BytesList:
		r.kind, r.count = kindBytes, len(k.BytesList.GetValue())
	case *pb.Feature_FloatList:
		r.kind, r.count = kindFloat, len(k.FloatList.GetValue())
	case *pb.Feature_Int64List:
		r.kind, r.count = kindInt64, len(k.Int64List.GetValue())
	}
	return r
}

// unmarshalError reports a record proto.Unmarshal rejected. The protobuf
// library does not say where, so the offset is unknown (-1).
func unmarshalError(err error) *wireError {
	return &wireError{offset: -1, what: err.Error()}
}

// messageExample is the reference path for one Example: proto.Unmarshal
// into the generated types, then a walk of the requested features.
func messageExample(rec []byte, p *plan, refs []featureRef) *wireError {
	clear(refs)
	var ex pb.Example
	if err := proto.Unmarshal(rec, &ex); err != nil {
		return unmarshalError(err)
	}
	m := ex.GetFeatures().GetFeature()
	for slot, name := range p.slotNames {
		if f, ok := m[name]; ok {
			refs[slot] = refFromMessage(f)
		}
	}
	return nil
}
