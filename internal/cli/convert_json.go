package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/sluiceml/sluice/example/pb"
	"google.golang.org/protobuf/proto"
)

// The members of a line of cat's output, the input of convert --from
// json: an Example's features, a SequenceExample's context and feature
// lists, or a record's raw bytes. The key cat adds with --keys is
// accepted and ignored. A feature holds at most one list.
const (
	lineMembers    = "key, bytes, features, context, feature_lists, raw"
	featureMembers = "int64, float, bytes"
)

// The kinds of record a line describes.
const (
	lineExample = iota + 1
	lineSequence
	lineRaw
)

// A jsonParser turns cat's JSON lines back into records.
type jsonParser struct {
	bytes bytesMode // how bytes values are written (cat's --bytes)
	mode  bytesMode // how the current line's are: bytes, or its "bytes" member's
	max   int64     // the largest record (--max-record-size); 0: no limit
	kind  int       // of the last line parsed
	s     jsonScanner
	mo    proto.MarshalOptions
	out   []byte
}

func newJSONParser(mode bytesMode) *jsonParser {
	// Deterministic: map entries sorted by name, so the same line always
	// gives the same bytes.
	return &jsonParser{bytes: mode, mo: proto.MarshalOptions{Deterministic: true}}
}

// errReparse asks parse to read a line again, whose "bytes" member came
// after bytes values it read in another mode.
var errReparse = errors.New("read the line again")

// errLossyLine is the error for a line of cat --bytes text.
var errLossyLine = errors.New(`the line says "bytes":"text": cat --bytes text is lossy (bytes that are not UTF-8 became U+FFFD) and cannot be read back; print the records with cat --bytes auto (the default) or --bytes base64`)

// parse returns the record line describes, valid until the next call.
func (p *jsonParser) parse(line []byte) ([]byte, error) {
	p.mode = p.bytes
	rec, err := p.parseLine(line, false)
	if errors.Is(err, errReparse) {
		rec, err = p.parseLine(line, true)
	}
	return rec, err
}

// parseLine reads line in p.mode, which a "bytes" member changes;
// again says the mode is already the line's.
func (p *jsonParser) parseLine(line []byte, again bool) ([]byte, error) {
	s := &p.s
	s.reset(line)
	p.kind = 0
	if s.ws() != '{' {
		return nil, fmt.Errorf("want a JSON object, not %s", s.kind())
	}
	var (
		seen    = map[string]bool{}
		feats   *pb.Features
		context *pb.Features
		lists   *pb.FeatureLists
		raw     []byte
	)
	err := s.object(func(name string) error {
		if seen[name] {
			return fmt.Errorf("member %q twice", name)
		}
		null, err := s.null()
		if err != nil || null {
			return err
		}
		seen[name] = true
		switch name {
		case "key":
			_, err = p.str("key")
		case "bytes":
			// cat's --bytes, when not auto: what the line's bytes
			// values are, whatever convert's --bytes says.
			var mode []byte
			if mode, err = p.str("bytes"); err != nil {
				return err
			}
			switch string(mode) {
			case "text":
				return errLossyLine
			case "base64", "auto":
				m, _ := parseBytesMode(string(mode))
				read := seen["features"] || seen["context"] || seen["feature_lists"]
				if m != p.mode && !again && read {
					p.mode = m
					return errReparse
				}
				p.mode = m
			default:
				return fmt.Errorf(`"bytes" must be "base64" or "auto", not %q`, mode)
			}
		case "features":
			feats, err = p.features("features")
		case "context":
			context, err = p.features("context")
		case "feature_lists":
			lists, err = p.featureLists()
		case "raw":
			var b64 []byte
			if b64, err = p.str("raw"); err == nil {
				if raw, err = base64.StdEncoding.AppendDecode(p.out[:0], b64); err != nil {
					err = fmt.Errorf("raw: %w", err)
				}
			}
		default:
			err = fmt.Errorf("unknown member %q (want %s; plain JSON objects, each member a feature, are --from jsonl)", name, lineMembers)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	example, sequence := seen["features"], seen["context"] || seen["feature_lists"]
	switch {
	case example && !sequence && !seen["raw"]:
		p.kind = lineExample
		return p.marshal(&pb.Example{Features: feats})
	case sequence && !example && !seen["raw"]:
		p.kind = lineSequence
		return p.marshal(&pb.SequenceExample{Context: context, FeatureLists: lists})
	case seen["raw"] && !example && !sequence:
		p.kind = lineRaw
		p.out = raw
		return raw, nil
	}
	return nil, errors.New(`want one of "features" (an Example), "context" and "feature_lists" (a SequenceExample) or "raw"`)
}

func (p *jsonParser) marshal(m proto.Message) ([]byte, error) {
	b, err := p.mo.MarshalAppend(p.out[:0], m)
	if err != nil {
		return nil, err
	}
	p.out = b
	return b, nil
}

// str reads a string member's value, naming the member in an error.
func (p *jsonParser) str(where string) ([]byte, error) {
	if p.s.ws() != '"' {
		return nil, fmt.Errorf("%s: want a string, not %s", where, p.s.kind())
	}
	return p.s.str()
}

// want checks that the next value starts with c, an object's or an
// array's opening, naming the member in an error.
func (p *jsonParser) want(c byte, where string) error {
	if p.s.ws() == c {
		return nil
	}
	what := "a JSON object"
	if c == '[' {
		what = "an array"
	}
	return fmt.Errorf("%s: want %s, not %s", where, what, p.s.kind())
}

// features reads an object of features; an empty one is no message, so
// that {} and an absent member give the same record.
func (p *jsonParser) features(where string) (*pb.Features, error) {
	if err := p.want('{', where); err != nil {
		return nil, err
	}
	var fs *pb.Features
	err := p.s.object(func(name string) error {
		f, err := p.feature()
		if err != nil {
			prefix := ""
			if where == "context" {
				prefix = "context: "
			}
			return fmt.Errorf("%sfeature %q: %w", prefix, name, err)
		}
		if fs == nil {
			fs = &pb.Features{Feature: map[string]*pb.Feature{}}
		}
		if fs.Feature[name] != nil {
			return fmt.Errorf("%s: feature %q twice", where, name)
		}
		fs.Feature[name] = f
		return nil
	})
	return fs, err
}

// featureLists reads a SequenceExample's feature lists, each an array of
// features; none is no message.
func (p *jsonParser) featureLists() (*pb.FeatureLists, error) {
	if err := p.want('{', "feature_lists"); err != nil {
		return nil, err
	}
	var fl *pb.FeatureLists
	err := p.s.object(func(name string) error {
		if err := p.want('[', fmt.Sprintf("feature list %q", name)); err != nil {
			return err
		}
		list := &pb.FeatureList{}
		err := p.s.array(func(i int) error {
			f, err := p.feature()
			if err != nil {
				return fmt.Errorf("feature list %q, step %d: %w", name, i, err)
			}
			list.Feature = append(list.Feature, f)
			return nil
		})
		if err != nil {
			return err
		}
		if fl == nil {
			fl = &pb.FeatureLists{FeatureList: map[string]*pb.FeatureList{}}
		}
		if fl.FeatureList[name] != nil {
			return fmt.Errorf("feature list %q twice", name)
		}
		fl.FeatureList[name] = list
		return nil
	})
	return fl, err
}

// feature reads one feature: {"int64":[...]}, {"float":[...]},
// {"bytes":[...]} or {} (no list).
func (p *jsonParser) feature() (*pb.Feature, error) {
	if p.s.ws() != '{' {
		return nil, fmt.Errorf("want a feature, a JSON object, not %s", p.s.kind())
	}
	f := &pb.Feature{}
	err := p.s.object(func(kind string) error {
		null, err := p.s.null()
		if err != nil || null {
			return err
		}
		if f.Kind != nil {
			return errors.New("more than one of int64, float and bytes")
		}
		switch kind {
		case "int64":
			var v []int64
			err = p.list(kind, func(i int) error {
				n, err := p.int64()
				v = append(v, n)
				return err
			})
			f.Kind = &pb.Feature_Int64List{Int64List: &pb.Int64List{Value: v}}
		case "float":
			var v []float32
			err = p.list(kind, func(i int) error {
				x, err := p.float()
				v = append(v, x)
				return err
			})
			f.Kind = &pb.Feature_FloatList{FloatList: &pb.FloatList{Value: v}}
		case "bytes":
			var v [][]byte
			err = p.list(kind, func(i int) error {
				b, err := p.bytesValue()
				v = append(v, b)
				return err
			})
			f.Kind = &pb.Feature_BytesList{BytesList: &pb.BytesList{Value: v}}
		default:
			err = fmt.Errorf("unknown member %q (want %s)", kind, featureMembers)
		}
		return err
	})
	return f, err
}

// list reads a feature's array of values, naming the value in an error.
func (p *jsonParser) list(kind string, each func(i int) error) error {
	if err := p.want('[', kind); err != nil {
		return err
	}
	return p.s.array(func(i int) error {
		if err := each(i); err != nil {
			return fmt.Errorf("%s value %d: %w", kind, i, err)
		}
		return nil
	})
}

// int64 reads an int64 as cat writes it: a number, or a string of its
// digits (beyond ±2^53, or always with --int64 string).
func (p *jsonParser) int64() (int64, error) {
	var text []byte
	var err error
	switch c := p.s.ws(); {
	case c == '"':
		text, err = p.s.str()
	case c == '-' || c >= '0' && c <= '9':
		text, err = p.s.number()
	default:
		return 0, fmt.Errorf("want an integer, not %s", p.s.kind())
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an int64", text)
	}
	return n, nil
}

// float reads a float as cat writes it: a number, or "NaN", "Infinity" or
// "-Infinity" (protobuf's JSON mapping; a number in a string is accepted
// too, as that mapping does). A number beyond float32's range is an
// error, not an infinity.
func (p *jsonParser) float() (float32, error) {
	switch c := p.s.ws(); {
	case c == '"':
		text, err := p.s.str()
		if err != nil {
			return 0, err
		}
		switch string(text) {
		case "NaN":
			return float32(math.NaN()), nil
		case "Infinity":
			return float32(math.Inf(1)), nil
		case "-Infinity":
			return float32(math.Inf(-1)), nil
		}
		return parseFloat32(text)
	case c == '-' || c >= '0' && c <= '9':
		text, err := p.s.number()
		if err != nil {
			return 0, err
		}
		return parseFloat32(text)
	}
	return 0, fmt.Errorf("want a number, not %s", p.s.kind())
}

func parseFloat32(text []byte) (float32, error) {
	f, err := strconv.ParseFloat(string(text), 32)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		// ParseFloat reads "inf" and "nan" too, which JSON does not
		// write; and a range error is a value float32 cannot hold.
		return 0, fmt.Errorf("%q is not a float32", text)
	}
	return float32(f), nil
}

// bytesValue reads a bytes value as cat wrote it with --bytes: text, or
// {"b64":"..."} for other bytes (auto, the default), or a base64 string
// (base64).
func (p *jsonParser) bytesValue() ([]byte, error) {
	switch p.s.ws() {
	case '"':
		text, err := p.s.str()
		if err != nil {
			return nil, err
		}
		if p.mode == bytesBase64 {
			b, err := base64.StdEncoding.AppendDecode(nil, text)
			if err != nil {
				if p.bytes == bytesBase64 {
					return nil, fmt.Errorf("--bytes base64: %w", err)
				}
				return nil, fmt.Errorf(`"bytes":"base64": %w`, err)
			}
			return b, nil
		}
		return bytes.Clone(text), nil
	case '{':
		var b []byte
		members := 0
		err := p.s.object(func(name string) error {
			members++
			if name != "b64" || members > 1 {
				return errors.New(`want text or {"b64":"..."}`)
			}
			text, err := p.str("b64")
			if err != nil {
				return err
			}
			if b, err = base64.StdEncoding.AppendDecode(nil, text); err != nil {
				return fmt.Errorf("b64: %w", err)
			}
			return nil
		})
		if err == nil && members == 0 {
			err = errors.New(`want text or {"b64":"..."}`)
		}
		return b, err
	}
	return nil, fmt.Errorf("want a string, not %s", p.s.kind())
}

// convertJSON reads JSON lines as cat prints them and writes their
// records: `sluice cat | jq ... | sluice convert --from json -` edits
// TFRecord data with any JSON tool.
func convertJSON(ctx context.Context, names []string, o convertOptions, prog *progress, t *tally, write func([]byte) error) error {
	mode, err := parseBytesMode(o.bytes)
	if err != nil {
		return err
	}
	if mode == bytesText {
		return errors.New("--bytes text cannot be read back: bytes that were not UTF-8 became U+FFFD; use auto or base64")
	}
	p := newJSONParser(mode)
	p.max = settingsFrom(ctx).maxRecord
	for _, name := range names {
		if err := convertJSONFile(ctx, name, p, prog, t, write); err != nil {
			return err
		}
	}
	return nil
}

func convertJSONFile(ctx context.Context, name string, p *jsonParser, prog *progress, t *tally, write func([]byte) error) error {
	r, err := openText(ctx, name, prog)
	if err != nil {
		return err
	}
	defer r.Close()
	return eachLine(ctx, name, r, func(lineNo int, line []byte) error {
		if len(bytes.Trim(line, jsonSpace)) == 0 {
			// Blank lines, such as a trailing one, hold no record; a
			// line of another space (U+00A0) is not JSON, and fails.
			return nil
		}
		t.read(len(line))
		rec, err := p.parse(line)
		if err == nil && p.max > 0 && int64(len(rec)) > p.max {
			err = fmt.Errorf("record of %d bytes is larger than --max-record-size (%d)", len(rec), p.max)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
		return write(rec)
	})
}
