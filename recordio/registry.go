package recordio

import (
	"fmt"
	"slices"
	"sync"

	"github.com/sluiceml/sluice/queue"
)

// A Factory makes a new, unopened Format.
type Factory func() Format

// builder makes a configured Format from a reader's options.
type builder func(s *settings) (Format, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]builder{}
)

// Register makes a format available by name to Open. It panics if the name
// is taken, as database/sql.Register does: registration happens in init
// functions, where a clash is a programming error. The built-in readers are
// registered under TensorFlow's names: "TFRecordReader", "TextLineReader",
// "FixedLengthRecordReader", "WholeFileReader" and "IdentityReader".
func Register(name string, f Factory) {
	register(name, func(*settings) (Format, error) { return f(), nil })
}

func register(name string, b builder) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("recordio: Register called twice for format " + name)
	}
	registry[name] = b
}

// Formats returns the registered format names, sorted.
func Formats() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Open returns a reader of q's work units in the registered format name,
// configured by opts: a format chosen at run time, as a tool or a
// configuration file names it. The reader's kind, in messages, is name.
func Open(name string, q queue.Queue, opts ...Option) (*Reader, error) {
	registryMu.RLock()
	b, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("recordio: unknown format %q (registered: %q): %w", name, Formats(), queue.ErrInvalidArgument)
	}
	f, err := b(newSettings(opts))
	if err != nil {
		return nil, err
	}
	return NewReader(name, f, q, opts...), nil
}

func init() {
	register(tfRecordKind, func(s *settings) (Format, error) { return newTFRecordFormat(s.compression, s), nil })
	register(textLineKind, newTextLineFormat)
	register(fixedLengthKind, func(s *settings) (Format, error) { return newFixedLengthFormat(s) })
	register(wholeFileKind, func(*settings) (Format, error) { return &wholeFileFormat{}, nil })
	register(identityKind, func(*settings) (Format, error) { return &identityFormat{}, nil })
}

// The built-in readers' kinds, TensorFlow's op names.
const (
	tfRecordKind    = "TFRecordReader"
	textLineKind    = "TextLineReader"
	fixedLengthKind = "FixedLengthRecordReader"
	wholeFileKind   = "WholeFileReader"
	identityKind    = "IdentityReader"
)
