package builtin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/novacode/nova/tool"
)

// GrepInput is the input of the Grep tool. The flag-like names ("-i", "-A")
// are ripgrep's, which is what models are trained to send.
type GrepInput struct {
	Pattern     string `json:"pattern" jsonschema:"The regular expression pattern to search for in file contents"`
	Path        string `json:"path,omitempty" jsonschema:"File or directory to search in (rg PATH). Defaults to the working directory"`
	Glob        string `json:"glob,omitempty" jsonschema:"Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\") - maps to rg --glob"`
	Type        string `json:"type,omitempty" jsonschema:"File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than glob for standard file types"`
	OutputMode  string `json:"output_mode,omitempty" jsonschema:"Output mode: \"content\" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), \"files_with_matches\" shows file paths (supports head_limit), \"count\" shows match counts (supports head_limit). Defaults to \"files_with_matches\""`
	IgnoreCase  bool   `json:"-i,omitempty" jsonschema:"Case insensitive search (rg -i)"`
	LineNumbers *bool  `json:"-n,omitempty" jsonschema:"Show line numbers in output (rg -n). Requires output_mode: \"content\", ignored otherwise. Defaults to true"`
	After       int    `json:"-A,omitempty" jsonschema:"Number of lines to show after each match (rg -A). Requires output_mode: \"content\", ignored otherwise"`
	Before      int    `json:"-B,omitempty" jsonschema:"Number of lines to show before each match (rg -B). Requires output_mode: \"content\", ignored otherwise"`
	Context     int    `json:"-C,omitempty" jsonschema:"Number of lines to show before and after each match (rg -C). Requires output_mode: \"content\", ignored otherwise"`
	HeadLimit   int    `json:"head_limit,omitempty" jsonschema:"Limit output to first N lines/entries, equivalent to \"| head -N\". Works across all output modes. Defaults to no limit"`
	Multiline   bool   `json:"multiline,omitempty" jsonschema:"Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false"`
}

// Output modes.
const (
	modeContent = "content"
	modeFiles   = "files_with_matches"
	modeCount   = "count"
)

// grepLineMax is the longest matching line Grep shows; minified files
// otherwise drown the results.
const grepLineMax = 500

// NewGrep returns the Grep tool. It searches with ripgrep when rg is on
// PATH and with a built-in parallel search otherwise; both give the same
// output.
func NewGrep() *tool.Typed[GrepInput] { return newGrep(autoBackend) }

func newGrep(backend grepBackend) *tool.Typed[GrepInput] {
	enums := map[string][]any{"output_mode": {modeContent, modeFiles, modeCount}}
	return tool.New("Grep", grepDesc, true, enums, func(ctx context.Context, env *tool.Env, in GrepInput) (tool.Result, error) {
		return runGrep(ctx, env, in, backend)
	}).WithEffects(func(env *tool.Env, in GrepInput) tool.Effects {
		return tool.Effects{Reads: []string{env.Abs(cmp.Or(in.Path, "."))}}
	})
}

const grepDesc = `A powerful search tool built on ripgrep.

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke grep or rg as a Bash command.
- Supports full regex syntax (e.g. "log.*Error", "function\\s+\\w+"). Literal braces need escaping: use "interface\\{\\}" to find "interface{}".
- Filter files with glob (e.g. "*.js", "**/*.tsx") or type (e.g. "js", "py", "rust").
- output_mode: "content" shows matching lines, "files_with_matches" (default) shows only file paths, most recently modified first, "count" shows match counts per file.
- Patterns match within single lines by default. For patterns that span lines, like "struct \\{[\\s\\S]*?field", use multiline: true.
- Files excluded by .gitignore, binary files and the .git directory are skipped.`

// grepQuery is a validated Grep call, as the back-ends take it.
type grepQuery struct {
	pattern    string
	root       string // absolute: the directory, or the one file, to search
	isFile     bool
	ignoreCase bool
	multiline  bool
	globs      []string // rg --glob syntax; "!" excludes
	fileType   string
	mode       string
	before     int
	after      int
	// readFile, when set, reads every file the Go back-end searches; a
	// path guard sets it to re-check each one (see autoBackend).
	readFile func(path string) ([]byte, error)
}

// grepLine is one line of output: a matching line or a context line.
type grepLine struct {
	n     int
	text  string
	match bool
}

// grepFile is what a back-end found in one file. lines is filled in content
// mode only; count is the number of matching lines (in files_with_matches
// mode, at least 1).
type grepFile struct {
	path  string
	lines []grepLine
	count int
}

// grepBackend runs a query. An error of type userError is the model's
// mistake and becomes an error Result; other errors are the host's.
type grepBackend func(ctx context.Context, q *grepQuery) ([]grepFile, error)

// userError is a mistake in the model's input found by a back-end.
type userError string

func (e userError) Error() string { return string(e) }

// rgLookPath finds ripgrep; a variable so tests can hide it.
var rgLookPath = func() (string, error) { return exec.LookPath("rg") }

func autoBackend(ctx context.Context, q *grepQuery) ([]grepFile, error) {
	// ripgrep opens files itself, where no re-check can reach: under a path
	// guard the built-in back-end searches, re-checking every file it
	// opens. Its output is the same.
	if q.readFile != nil {
		return goSearch(ctx, q)
	}
	if rg, err := rgLookPath(); err == nil {
		return rgSearch(ctx, rg, q)
	}
	return goSearch(ctx, q)
}

func runGrep(ctx context.Context, env *tool.Env, in GrepInput, backend grepBackend) (tool.Result, error) {
	if in.Pattern == "" {
		return tool.Errorf("pattern is empty. Give a regular expression to search for."), nil
	}
	if in.After < 0 || in.Before < 0 || in.Context < 0 || in.HeadLimit < 0 {
		return tool.Errorf("-A, -B, -C and head_limit must not be negative."), nil
	}
	q := &grepQuery{
		pattern:    in.Pattern,
		ignoreCase: in.IgnoreCase,
		multiline:  in.Multiline,
		fileType:   strings.TrimSpace(in.Type),
		mode:       cmp.Or(in.OutputMode, modeFiles),
	}
	if q.mode == modeContent {
		q.before = cmp.Or(in.Before, in.Context)
		q.after = cmp.Or(in.After, in.Context)
	}
	re, err := compileGrep(q)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	globs, err := splitGlobs(in.Glob)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	q.globs = globs

	q.root = env.Dir
	if p := strings.TrimSpace(in.Path); p != "" && p != "undefined" && p != "null" {
		q.root = env.Abs(p)
		fi, err := os.Stat(q.root)
		switch {
		case os.IsNotExist(err):
			return tool.Errorf("%s", notExist("Path", q.root)), nil
		case err != nil:
			return tool.Errorf("Cannot access %s: %v", q.root, err), nil
		}
		q.isFile = !fi.IsDir()
	}
	var refused atomic.Int64
	if env.Guard != nil {
		f, err := openRead(ctx, env, q.root)
		if _, ok := errors.AsType[*refusal](err); ok {
			return ioResult("search", q.root, err), nil
		}
		if err == nil {
			f.Close()
		}
		q.readFile = func(path string) ([]byte, error) {
			data, err := readChecked(ctx, env, path)
			if _, ok := errors.AsType[*refusal](err); ok {
				refused.Add(1)
			}
			return data, err
		}
	}

	files, err := backend(ctx, q)
	var ue userError
	switch {
	case errors.As(err, &ue):
		return tool.Errorf("%s", ue), nil
	case err != nil && ctx.Err() != nil:
		return tool.Errorf("Grep was cancelled."), nil
	case err != nil:
		return tool.Result{}, err
	}
	lineNumbers := in.LineNumbers == nil || *in.LineNumbers
	out := tool.Truncate(formatGrep(q, re, files, lineNumbers, in.HeadLimit), maxToolOutput)
	if n := refused.Load(); n > 0 {
		files := "1 file was"
		if n > 1 {
			files = fmt.Sprintf("%d files were", n)
		}
		out += fmt.Sprintf("(%s not searched: the path guard refused them, as they lead outside the workspace or may hold secrets such as .env files. Give one as path to ask the user for it.)\n", files)
	}
	return tool.Result{Content: out}, nil
}

// compileGrep validates the pattern and compiles it for the Go back-end.
// Both back-ends validate here so that a bad pattern gets the same message
// whichever runs; ripgrep's regex syntax and Go's (RE2) agree on all but
// rare corners.
func compileGrep(q *grepQuery) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(q.pattern); err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		return nil, userError(fmt.Sprintf("Invalid regex pattern %q: %s. Grep uses ripgrep (RE2-style) syntax: no lookaround or backreferences, and literal ( ) [ ] { } . * + ? | need a backslash, e.g. \"interface\\\\{\\\\}\".", q.pattern, msg))
	}
	if !q.multiline && matchesNewline(q.pattern) {
		return nil, userError(fmt.Sprintf("The pattern %q contains a literal newline, but lines are searched one at a time. Set multiline: true to match across lines.", q.pattern))
	}
	// (?m): the Go back-end first runs the regex over the whole file, where
	// ^ and $ must still mean line start and end, as they do in ripgrep.
	flags := "m"
	if q.multiline {
		flags += "s"
	}
	if q.ignoreCase {
		flags += "i"
	}
	return regexp.Compile("(?" + flags + ")" + q.pattern)
}

// matchesNewline reports whether the pattern contains a literal "\n", which
// ripgrep refuses outside multiline mode.
func matchesNewline(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		if r.Op == syntax.OpLiteral && slices.Contains(r.Rune, '\n') {
			return true
		}
		return slices.ContainsFunc(r.Sub, walk)
	}
	return walk(re)
}

// splitGlobs splits the glob argument into ripgrep --glob values. Models
// send several globs separated by spaces or commas ("*.ts, *.tsx"); commas
// inside {…} belong to the alternation.
func splitGlobs(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Fields(s) {
		parts := []string{f}
		if !strings.Contains(f, "{") {
			parts = strings.Split(f, ",")
		}
		for _, p := range parts {
			if p == "" || p == "!" {
				continue
			}
			if !doublestar.ValidatePattern(strings.TrimPrefix(p, "!")) {
				return nil, userError(fmt.Sprintf("Invalid glob %q: check for an unclosed [ or {.", p))
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// formatGrep renders back-end results in ripgrep's output format. It is the
// one formatter for both back-ends, which is what makes their output equal.
func formatGrep(q *grepQuery, re *regexp.Regexp, files []grepFile, lineNumbers bool, headLimit int) string {
	if len(files) == 0 {
		if q.mode == modeFiles {
			return "No files found"
		}
		return "No matches found"
	}
	limit := func(n int) int {
		if headLimit > 0 && headLimit < n {
			return headLimit
		}
		return n
	}
	var b strings.Builder
	switch q.mode {
	case modeFiles:
		// Most recently modified first: those are most likely what the
		// model is working on.
		hits := make([]fileHit, len(files))
		for i, f := range files {
			hits[i].path = f.path
			if fi, err := os.Stat(f.path); err == nil {
				hits[i].mtime = fi.ModTime()
			}
		}
		sortByMtime(hits)
		fmt.Fprintf(&b, "Found %s\n", plural(len(hits), "file"))
		n := limit(len(hits))
		for _, h := range hits[:n] {
			b.WriteString(h.path)
			b.WriteByte('\n')
		}
		if n < len(hits) {
			fmt.Fprintf(&b, "(Showing %d of %d files: head_limit reached.)\n", n, len(hits))
		}
	case modeCount:
		sortByPath(files)
		total := 0
		for _, f := range files {
			total += f.count
		}
		n := limit(len(files))
		for _, f := range files[:n] {
			fmt.Fprintf(&b, "%s:%d\n", f.path, f.count)
		}
		if n < len(files) {
			fmt.Fprintf(&b, "(Showing %d of %d files: head_limit reached.)\n", n, len(files))
		}
		fmt.Fprintf(&b, "\nFound %s across %s.\n", plural(total, "matching line"), plural(len(files), "file"))
	default:
		sortByPath(files)
		var out []string
		withContext := q.before > 0 || q.after > 0
		for _, f := range files {
			prev := -1
			for _, l := range f.lines {
				// ripgrep separates non-adjacent groups with "--" when
				// context is on, also between files.
				if withContext && len(out) > 0 && (prev < 0 || l.n != prev+1) {
					out = append(out, "--")
				}
				prev = l.n
				sep := "-"
				if l.match {
					sep = ":"
				}
				text := cutAround(strings.TrimSuffix(l.text, "\r"), re, grepLineMax)
				if lineNumbers {
					out = append(out, f.path+sep+strconv.Itoa(l.n)+sep+text)
				} else {
					out = append(out, f.path+sep+text)
				}
			}
		}
		n := limit(len(out))
		for _, l := range out[:n] {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if n < len(out) {
			fmt.Fprintf(&b, "(Showing %d of %d lines: head_limit reached.)\n", n, len(out))
		}
	}
	return b.String()
}

// cutAround shortens a long line to about max bytes around its first
// match, so that a hit deep inside a minified file is still visible.
func cutAround(s string, re *regexp.Regexp, max int) string {
	if len(s) <= max {
		return s
	}
	start := 0
	if loc := re.FindStringIndex(s); loc != nil && loc[0] > max/4 {
		start = min(loc[0]-max/4, len(s)-max)
	}
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	end := start + max
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	var b strings.Builder
	if start > 0 {
		fmt.Fprintf(&b, "[%d characters omitted] …", start)
	}
	b.WriteString(s[start:end])
	if end < len(s) {
		fmt.Fprintf(&b, "… [%d characters omitted]", len(s)-end)
	}
	return b.String()
}

func sortByPath(files []grepFile) {
	slices.SortFunc(files, func(a, b grepFile) int { return cmp.Compare(a.path, b.path) })
}
