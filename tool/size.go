package tool

import (
	"fmt"
	"unicode/utf8"
)

// Truncate caps s at max bytes, keeping its head and tail and a marker in
// between that says how much was left out. Cuts fall on rune boundaries.
func Truncate(s string, max int) string {
	if len(s) <= max || max <= 0 {
		return s
	}
	marker := func(n int) string {
		return fmt.Sprintf("\n\n[... %d characters truncated ...]\n\n", n)
	}
	keep := max - len(marker(len(s)))
	if keep < 2 {
		keep = 2
	}
	head := runeFloor(s, keep/2)
	tail := runeCeil(s, len(s)-(keep-head))
	return s[:head] + marker(tail-head) + s[tail:]
}

func runeFloor(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

func runeCeil(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}
