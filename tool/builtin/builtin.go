// Package builtin holds NovaCode's built-in tools: Read, Write, Edit, Bash
// (with BashOutput and KillShell for its background commands), Glob, Grep,
// LS, AskUserQuestion, WebFetch, TodoWrite and ExitPlanMode (All), and
// ToolSearch, which finds a registry's deferred tools (NewToolSearch). Their names, input fields and output formats follow the
// conventions of Claude Code's tools, which current models are trained on:
// a model that already knows how to call them makes fewer mistakes.
//
// Each tool is built with tool.New from a typed input struct, so its JSON
// Schema comes from the struct. Mistakes by the model (a missing file, a
// non-unique edit, a bad regex) come back as error Results whose text says
// what to do next; Go errors are left for failures of the host.
package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/novacode/nova/tool"
)

// All returns every built-in tool in a stable order. The order matters: the
// tools array is part of the cached prompt prefix, so it must not change
// between requests.
func All() []tool.Tool {
	return []tool.Tool{
		NewBash(),
		NewBashOutput(),
		NewKillShell(),
		NewGlob(),
		NewGrep(),
		NewLS(),
		NewRead(),
		NewEdit(),
		NewWrite(),
		NewAskUserQuestion(),
		NewWebFetch(),
		NewTodoWrite(),
		NewExitPlanMode(),
	}
}

// maxToolOutput caps what Bash and Grep return, in bytes.
const maxToolOutput = 30000

// lineMax is the longest line Read shows before cutting it.
const lineMax = 2000

// cutLine shortens s to at most max bytes (on a rune boundary) and says how
// much was left out, so the model knows the line is incomplete.
func cutLine(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + fmt.Sprintf("… [line truncated: %d more characters]", len(s)-i)
}

// numbered formats lines in `cat -n` style, the first one numbered first.
// Carriage returns at line ends are dropped so CRLF files read cleanly.
func numbered(b *strings.Builder, first int, lines []string) {
	for i, l := range lines {
		b.WriteString(fmt.Sprintf("%6d\t", first+i))
		b.WriteString(cutLine(strings.TrimSuffix(l, "\r"), lineMax))
		b.WriteByte('\n')
	}
}

// splitLines splits content into lines the way an editor counts them: a
// final newline does not start another line, and "" has no lines.
func splitLines(content string) []string {
	if content == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(content, "\n"), "\n")
}

// plural returns "1 line", "2 lines".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// notExist describes a missing path and, when the directory holds something
// with a similar name, suggests it: a model often gets the case or the
// extension wrong.
func notExist(kind, path string) string {
	msg := fmt.Sprintf("%s does not exist: %s", kind, path)
	if s := similarName(path); s != "" {
		msg += fmt.Sprintf(". Did you mean %s?", s)
	} else if _, err := os.Stat(filepath.Dir(path)); err != nil {
		msg += fmt.Sprintf(" (its directory %s does not exist either)", filepath.Dir(path))
	}
	return msg
}

// similarName returns the entry of path's directory whose name is closest to
// path's, or "" when none is close enough to be a plausible typo.
func similarName(path string) string {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(dir)
	if err != nil || base == "" {
		return ""
	}
	lbase := strings.ToLower(base)
	stem := strings.TrimSuffix(lbase, filepath.Ext(lbase))
	best, bestScore := "", 1<<30
	for _, e := range entries {
		name := strings.ToLower(e.Name())
		var score int
		switch {
		case name == lbase:
			score = 0 // differs only in case
		case strings.TrimSuffix(name, filepath.Ext(name)) == stem:
			score = 1 // another extension
		default:
			d := editDistance(name, lbase)
			if d > 2 || d*3 > len(lbase) {
				continue
			}
			score = 1 + d
		}
		if score < bestScore || (score == bestScore && e.Name() < filepath.Base(best)) {
			best, bestScore = filepath.Join(dir, e.Name()), score
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
