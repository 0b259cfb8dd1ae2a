package cli

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cell is a name as a text table shows it: as it is, or quoted as Go
// quotes a string when it would break the table or be taken for another
// name: a tab or newline would shift its row's columns or start a row of
// its own, bytes that are not UTF-8 would reach the terminal raw, an
// empty name would leave its column blank, and one with spaces at an end
// would look like another, or like none.
func cell(name string) string {
	if name == "" || strings.HasPrefix(name, `"`) || strings.TrimSpace(name) != name || !utf8.ValidString(name) ||
		strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(name)
	}
	return name
}
