package sealed

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

type doc struct {
	Name   string          `json:"name"`
	Count  int64           `json:"count"`
	Ratio  float64         `json:"ratio"`
	Data   []byte          `json:"data"`
	List   []int           `json:"list,omitempty"`
	Nested map[string]bool `json:"nested,omitempty"`
	Raw    json.RawMessage `json:"raw,omitempty"`
}

var sample = doc{Name: "a <b> & c", Count: -12345, Ratio: 0.1, Data: []byte{0, 1, 2, 250},
	List: []int{3, 1, 4}, Nested: map[string]bool{"x": true, "y": false}, Raw: json.RawMessage(`{"k": [1, 2]}`)}

func TestRoundTrip(t *testing.T) {
	for _, v := range []doc{sample, {}} {
		b, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), `{"crc32c":`) {
			t.Fatalf("not sealed first: %s", b)
		}
		var got doc
		sealed, err := Unmarshal(b, &got)
		if err != nil || !sealed {
			t.Fatalf("Unmarshal(%s) = %v, %v", b, sealed, err)
		}
		b2, _ := Marshal(got)
		if string(b2) != string(b) {
			t.Fatalf("round trip changed the document:\n%s\n%s", b, b2)
		}
	}
}

func TestEmptyObject(t *testing.T) {
	b, err := Marshal(struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	var v struct{}
	if sealed, err := Unmarshal(b, &v); err != nil || !sealed {
		t.Fatalf("%s: %v, %v", b, sealed, err)
	}
}

func TestNotAnObject(t *testing.T) {
	for _, v := range []any{[]int{1}, 3, "s", nil} {
		if _, err := Marshal(v); err == nil {
			t.Errorf("Marshal(%v) sealed a non-object", v)
		}
	}
}

func TestUnsealed(t *testing.T) {
	b, _ := json.Marshal(sample)
	var got doc
	sealed, err := Unmarshal(b, &got)
	if err != nil || sealed {
		t.Fatalf("Unmarshal of a plain document = %v, %v", sealed, err)
	}
	if !reflect.DeepEqual(got.Data, sample.Data) || got.Count != sample.Count {
		t.Fatalf("decoded %+v", got)
	}
	// A member the type lacks: a name damaged, the checksum's (two flips
	// would otherwise turn a sealed document into one read unchecked:
	// the checksum's name and a version number, audit 97).
	for _, s := range []string{
		strings.Replace(string(b), `"count"`, `"cOunt_"`, 1),
		`{"crc32s":1,` + string(b[1:]),
	} {
		if sealed, err := Unmarshal([]byte(s), &got); !errors.Is(err, ErrDamaged) || sealed {
			t.Errorf("%s: %v, %v; want ErrDamaged", s, sealed, err)
		}
	}
}

// Harmless changes decode to the same value and pass.
func TestHarmlessChanges(t *testing.T) {
	b, _ := Marshal(sample)
	var want doc
	if _, err := Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		strings.Replace(string(b), `"count"`, `"COUNT"`, 1),
		strings.Replace(string(b), `,"name"`, ` ,  "name"`, 1),
	} {
		var got doc
		if _, err := Unmarshal([]byte(s), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, %+v", s, err, got)
		}
	}
}

// Every single bit flipped in a sealed document fails to decode or decodes
// to the value sealed. A flip in the checksum's name leaves a document not
// sealed with a member its type lacks, which is damage too.
func TestEveryBitFlip(t *testing.T) {
	b, _ := Marshal(sample)
	var want doc
	if _, err := Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	damaged, passed := 0, 0
	for i := range len(b) * 8 {
		c := []byte(string(b))
		c[i/8] ^= 1 << (i % 8)
		var got doc
		sealed, err := Unmarshal(c, &got)
		if err != nil {
			if errors.Is(err, ErrDamaged) {
				damaged++
			}
			continue
		}
		if !sealed {
			t.Errorf("bit %d: the flip unsealed the document: %s", i, c)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("bit %d: accepted another value: %s", i, c)
		}
		passed++
	}
	if damaged == 0 {
		t.Fatal("no flip was found damaged")
	}
	t.Logf("%d bits: %d refused as damaged, %d harmless", len(b)*8, damaged, passed)
}

// A member the value lacks is not decoded, and leaves the value as sealed;
// a member lost or given twice changes it.
func TestMemberAddedOrLost(t *testing.T) {
	b, _ := Marshal(sample)
	var got doc
	if _, err := Unmarshal([]byte(strings.Replace(string(b), `"name"`, `"extra":1,"name"`, 1)), &got); err != nil {
		t.Errorf("a member the value lacks: %v", err)
	}
	for _, s := range []string{
		strings.Replace(string(b), `,"list":[3,1,4]`, ``, 1),
		strings.Replace(string(b), `"count":-12345`, `"count":-12345,"count":7`, 1),
	} {
		if s == string(b) {
			t.Fatal("the edit changed nothing")
		}
		var got doc
		if _, err := Unmarshal([]byte(s), &got); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: %v, want ErrDamaged", s, err)
		}
	}
}

// Whatever its bytes, Unmarshal does not panic, and a document it accepts
// as sealed seals again to a document of the same value.
func FuzzUnmarshal(f *testing.F) {
	b, _ := Marshal(sample)
	f.Add(b)
	f.Add([]byte(`{"crc32c":0}`))
	f.Add([]byte(`{"crc32c":null,"count":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got doc
		sealed, err := Unmarshal(data, &got)
		if err != nil || !sealed {
			return
		}
		again, err := Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var back doc
		if _, err := Unmarshal(again, &back); err != nil || !reflect.DeepEqual(back, got) {
			t.Fatalf("resealed %s: %v, %+v", again, err, back)
		}
	})
}
