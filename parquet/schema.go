package parquet

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnsupported is wrapped by the error for a column or a file that
// uses a Parquet feature this package does not read (a map, a list of
// lists, a compression codec); the error says which.
var ErrUnsupported = errors.New("not supported")

// A Kind is what an Example holds a column's values as.
type Kind uint8

const (
	Int64 Kind = iota + 1 // an Example's int64_list
	Float                 // float_list (float32)
	Bytes                 // bytes_list
)

var kindNames = [...]string{Int64: "int64", Float: "float", Bytes: "bytes"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// A Column is one leaf column of a file.
type Column struct {
	// Name is the column's dotted path, without the groups that make
	// a list a list: "price", "address.city", and "tags" for a list
	// whose leaf is tags.list.element.
	Name string
	// Kind is what its values become.
	Kind Kind
	// List reports whether a row holds any number of values, not at most
	// one.
	List bool
	// Text reports whether a Bytes column holds text: it is annotated
	// STRING (or UTF8), which readers show as strings, not binary.
	Text bool
	// Type describes the stored type, "INT32 (DATE)" or
	// "BYTE_ARRAY (STRING)", for messages.
	Type string
	// Err, when not nil, says why the column cannot be read (it wraps
	// ErrUnsupported); the other columns can.
	Err error

	leaf     schemaElement
	path     []string // in the file's schema, as column chunks name it
	maxDef   int32
	maxRep   int32
	listDef  int32 // a list column: the definition level of an empty list
	physical physicalType
	conv     conversion
}

// maxSchemaDepth bounds the nesting of groups, so that a hostile schema
// of a million nested groups cannot exhaust the stack.
const maxSchemaDepth = 64

// A schemaNode is a schema element on the way from the root to a leaf.
type schemaNode struct {
	el   *schemaElement
	def  int32 // definition level counting this node
	rep  int32
	list bool // annotated LIST
	mp   bool // annotated MAP or MAP_KEY_VALUE
	kids int32
}

// columns flattens the schema into its leaf columns, in file order.
func columns(schema []schemaElement) ([]Column, error) {
	if len(schema) == 0 {
		return nil, errors.New("schema is empty")
	}
	root := &schema[0]
	if root.NumChildren < 0 || int64(root.NumChildren) >= int64(len(schema)) {
		return nil, fmt.Errorf("schema root claims %d children of %d elements", root.NumChildren, len(schema)-1)
	}
	var cols []Column
	next := 1
	stack := []schemaNode{{el: root, kids: root.NumChildren}}
	var walk func(n int32) error
	walk = func(n int32) error {
		for range n {
			if next >= len(schema) {
				return fmt.Errorf("schema ends inside group %q", strings.Join(stackNames(stack), "."))
			}
			el := &schema[next]
			next++
			parent := stack[len(stack)-1]
			node := schemaNode{el: el, def: parent.def, rep: parent.rep, kids: el.NumChildren}
			switch el.Repetition {
			case repOptional:
				node.def++
			case repRepeated:
				node.def++
				node.rep++
			}
			node.list = el.ConvertedType == convList && el.HasConvertedType || el.Logical.Kind == logicalList
			node.mp = el.HasConvertedType && (el.ConvertedType == convMap || el.ConvertedType == convMapKeyValue) || el.Logical.Kind == logicalMap
			stack = append(stack, node)
			if el.HasType || el.NumChildren == 0 {
				if el.NumChildren != 0 {
					return fmt.Errorf("schema: leaf %q has %d children", el.Name, el.NumChildren)
				}
				cols = append(cols, leafColumn(stack))
			} else {
				if el.NumChildren < 0 || int64(el.NumChildren) > int64(len(schema)-next) {
					return fmt.Errorf("schema: group %q claims %d children, %d elements are left", el.Name, el.NumChildren, len(schema)-next)
				}
				if len(stack) > maxSchemaDepth {
					return fmt.Errorf("schema: groups nested more than %d deep", maxSchemaDepth)
				}
				if err := walk(el.NumChildren); err != nil {
					return err
				}
			}
			stack = stack[:len(stack)-1]
		}
		return nil
	}
	if err := walk(root.NumChildren); err != nil {
		return nil, err
	}
	if next != len(schema) {
		return nil, fmt.Errorf("schema: %d elements after the root's children", len(schema)-next)
	}
	return cols, nil
}

func stackNames(stack []schemaNode) []string {
	names := make([]string, 0, len(stack))
	for _, n := range stack[1:] {
		names = append(names, n.el.Name)
	}
	return names
}

// leafColumn describes the leaf at the top of stack (stack[0] is the
// root).
func leafColumn(stack []schemaNode) Column {
	leaf := stack[len(stack)-1]
	c := Column{
		leaf:     *leaf.el,
		path:     stackNames(stack),
		maxDef:   leaf.def,
		maxRep:   leaf.rep,
		physical: leaf.el.Type,
	}
	c.Name = strings.Join(c.path, ".")
	if !leaf.el.HasType {
		c.Err = fmt.Errorf("column %q has no type: untyped leaves are %w", c.Name, ErrUnsupported)
		return c
	}
	c.conv, c.Kind, c.Type, c.Err = conversionOf(leaf.el)
	c.Text = c.Kind == Bytes && (leaf.el.Logical.Kind == logicalString || leaf.el.HasConvertedType && leaf.el.ConvertedType == convUTF8)
	for _, n := range stack[1:] {
		if n.mp {
			c.Err = fmt.Errorf("column %q is in a map: maps are %w", c.Name, ErrUnsupported)
			return c
		}
	}
	switch {
	case c.maxRep > 1:
		c.Err = fmt.Errorf("column %q is a list nested in a list: nested lists are %w", c.Name, ErrUnsupported)
	case c.maxRep == 1:
		c.List = true
		c.Name = listName(stack)
		for _, n := range stack[1:] {
			if n.el.Repetition == repRepeated {
				c.listDef = n.def - 1
			}
		}
	}
	return c
}

// listName names a list column for its list rather than for the groups
// that encode it: a LIST group's repeated child (list, array, bag) is
// dropped, and so is the leaf below it when it is the repeated group's
// only field (element, item, array_element).
func listName(stack []schemaNode) string {
	var names []string
	for i := 1; i < len(stack); i++ {
		n := stack[i]
		if n.el.Repetition == repRepeated && stack[i-1].list {
			if i+1 == len(stack)-1 && n.kids == 1 {
				break // the leaf is the element
			}
			continue
		}
		names = append(names, n.el.Name)
	}
	return strings.Join(names, ".")
}
