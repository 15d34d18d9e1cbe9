package builtin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync/atomic"

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

// NewGrep returns the Grep tool.
func NewGrep() *tool.Typed[GrepInput] {
	enums := map[string][]any{"output_mode": {modeContent, modeFiles, modeCount}}
	return tool.New("Grep", grepDesc, true, enums, runGrep).WithEffects(func(env *tool.Env, in GrepInput) tool.Effects {
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
- Files are chosen as ripgrep chooses them: what .gitignore, .ignore and .rgignore files exclude, hidden files and directories (names starting with a dot) and binary files are skipped, unless a glob or type asks for them, or path names them.`

// grepQuery is a validated Grep call.
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
}

// grepLine is one line of output: a matching line or a context line.
type grepLine struct {
	n     int
	text  string
	match bool
}

// userError is a mistake in the model's input.
type userError string

func (e userError) Error() string { return string(e) }

func runGrep(ctx context.Context, env *tool.Env, in GrepInput) (tool.Result, error) {
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
	m, err := compileGrep(q)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	globs, err := splitGlobs(in.Glob)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	q.globs = globs
	var typeGlobs []string
	if q.fileType != "" {
		if typeGlobs = fileTypes[q.fileType]; typeGlobs == nil {
			names := slices.Sorted(maps.Keys(fileTypes))
			return tool.Errorf("Unknown file type %q. Known types: %s. Or use glob instead, e.g. \"*.ext\".", q.fileType, strings.Join(names, ", ")), nil
		}
	}

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
	// The root is opened and re-checked like any file a tool reads; the
	// walk starts from this very descriptor.
	f, err := openRead(ctx, env, q.root)
	if err != nil {
		return ioResult("search", q.root, err), nil
	}
	defer f.Close()

	lineNumbers := in.LineNumbers == nil || *in.LineNumbers
	coll := newGrepCollector(q.mode, in.HeadLimit, maxToolOutput, len(q.root)+2, q.before+q.after > 0)
	coll.lineNumbers = lineNumbers
	opts := scanOpts{mode: q.mode, before: q.before, after: q.after, keepBytes: maxToolOutput, keepLines: math.MaxInt}
	if in.HeadLimit > 0 {
		opts.keepLines = in.HeadLimit
	}
	var notes grepNotes
	if q.isFile {
		err = grepFile1(ctx, f, q, m, opts, coll, &notes)
	} else {
		err = grepTree(ctx, env, f, q, m, typeGlobs, opts, coll, &notes)
	}
	switch {
	case ctx.Err() != nil:
		return tool.Errorf("Grep was cancelled."), nil
	case err != nil:
		return ioResult("search", q.root, err), nil
	}
	out := coll.format()
	if n := notes.String(); n != "" {
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += n
	}
	return tool.Result{Content: out}, nil
}

// grepNotes are what the output says about files not (fully) searched.
type grepNotes struct {
	guard           string
	changed, tooBig int64
	partial         atomic.Int64
}

func (n *grepNotes) String() string {
	var b strings.Builder
	b.WriteString(n.guard)
	if n.changed > 0 {
		fmt.Fprintf(&b, "(%s changed between the listing and the read (replaced, or made a link) and %s skipped.)\n", plural(int(n.changed), "file"), map[bool]string{true: "was", false: "were"}[n.changed == 1])
	}
	if n.tooBig > 0 {
		fmt.Fprintf(&b, "(%s larger than %d MiB %s not searched: multiline mode needs a whole file at once.)\n", plural(int(n.tooBig), "file"), multilineMax>>20, map[bool]string{true: "was", false: "were"}[n.tooBig == 1])
	}
	if p := n.partial.Load(); p > 0 {
		fmt.Fprintf(&b, "(%s longer than %d MiB %s searched in their first %d MiB only: the pattern is not a plain string.)\n", plural(int(p), "line"), scanBufMax>>20, map[bool]string{true: "was", false: "were"}[p == 1], scanBufMax>>20)
	}
	return b.String()
}

// grepFile1 searches the one file the path names: as ripgrep searches a file
// named on its command line, whatever the filters say, and with a NUL byte
// read as a line end rather than ending the search.
func grepFile1(ctx context.Context, f *os.File, q *grepQuery, m *matcher, opts scanOpts, coll *grepCollector, notes *grepNotes) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("it is not a regular file (%s)", fi.Mode().Type())
	}
	opts.binary = binaryConvert
	sc := newScanner(ctx, m, opts)
	var res scanResult
	var found bool
	if q.multiline {
		if fi.Size() > multilineMax {
			notes.tooBig++
			return nil
		}
		data, err := io.ReadAll(io.LimitReader(f, multilineMax))
		if err != nil {
			return err
		}
		found = sc.scanWhole(data, &res)
	} else if found, err = sc.scan(f, &res, fi.Size()); err != nil && !errors.Is(err, errStopped) {
		return err
	}
	notes.partial.Add(int64(res.partial))
	if found {
		coll.add(fromScan(q.root, fi.ModTime().UnixNano(), &res))
	}
	return nil
}

// grepTree searches the tree under the directory root (opened and
// re-checked).
func grepTree(ctx context.Context, env *tool.Env, root *os.File, q *grepQuery, m *matcher, typeGlobs []string, opts scanOpts, coll *grepCollector, notes *grepNotes) error {
	w, rd, level, err := startWalk(ctx, env, root, q.root)
	if err != nil {
		return err
	}
	w.filter = walkFilter{overrides: overrideRules(q.globs), typeGlobs: typeGlobs}
	var slots chan []byte // whole-file buffers of multiline mode
	if q.multiline {
		slots = make(chan []byte, multilineSlots)
		for range multilineSlots {
			slots <- nil
		}
	}
	var changedFiles, tooBig atomic.Int64
	w.newVisitor = func(w *searchWalk) walkVisitor {
		return &grepVisitor{w: w, env: env, ctx: ctx, root: q.root, m: m, coll: coll, sc: newScanner(ctx, m, opts),
			multiline: q.multiline, slots: slots, tooBig: &tooBig, partial: &notes.partial, changed: &changedFiles}
	}
	err = w.run(ctx, rd, level)
	notes.guard = w.guardNote("searched")
	notes.changed = w.changed.Load() + changedFiles.Load()
	notes.tooBig = tooBig.Load()
	return err
}

// multilineSlots bounds the files held whole at once in multiline mode
// (multilineMax each), whatever the number of workers.
const multilineSlots = 4

// startWalk prepares a walk of the directory root (opened and re-checked,
// named path): the guard's judge of its entries, the ignore rules of the
// directories above it and its descriptor.
func startWalk(ctx context.Context, env *tool.Env, root *os.File, path string) (*searchWalk, *wdir, *ignoreLevel, error) {
	w := &searchWalk{maxDepth: -1, workers: walkWorkers()}
	top := filepath.Clean(path)
	if env.Guard != nil {
		real, err := env.Guard.RealPath(root)
		if err != nil {
			return nil, nil, nil, &refusal{fmt.Errorf("cannot tell which directory was really opened, so it was refused for safety: %w", err)}
		}
		top = real
		approved := tool.ApprovedPaths(ctx)
		if wg, ok := env.Guard.(tool.WalkGuard); ok && walkBeneath {
			if w.check, err = wg.RecheckWalk(real, approved); err != nil {
				return nil, nil, nil, &refusal{err}
			}
		} else {
			// A guard of its own, or no openat: every entry by its path.
			guard := env.Guard
			w.check = func(rel string, _ bool, _ uint64) error {
				return guard.Recheck(filepath.Join(real, filepath.FromSlash(rel)), false, approved)
			}
		}
	}
	rd, err := newRootDir(root)
	if err != nil {
		return nil, nil, nil, err
	}
	return w, rd, ancestorLevels(top), nil
}

// grepVisitor searches the files one worker of a walk keeps.
type grepVisitor struct {
	w         *searchWalk
	env       *tool.Env
	ctx       context.Context
	root      string
	m         *matcher
	coll      *grepCollector
	sc        *scanner
	res       scanResult
	multiline bool
	slots     chan []byte
	tooBig    *atomic.Int64
	partial   *atomic.Int64
	changed   *atomic.Int64
}

func (v *grepVisitor) file(d *wdir, e *dirent, rel string) {
	w := v.w
	if w.check != nil {
		if err := w.check(rel, false, 0); err != nil {
			w.refuse(rel, false, err)
			return
		}
	}
	if beforeOpen != nil {
		beforeOpen(rel)
	}
	f, st, err := d.openFile(e.name, e.ino)
	if err != nil {
		w.skipped(err)
		return
	}
	defer f.Close()
	if w.check != nil && st.links > 1 {
		if err := w.check(rel, false, st.links); err != nil {
			w.refuse(rel, false, err)
			return
		}
	}
	if !walkBeneath && v.env.Guard != nil {
		// Opened by path: re-check what was opened (search_fs_path.go).
		if err := recheck(v.ctx, v.env, f.osFile(), false); err != nil {
			w.refuse(rel, false, err)
			return
		}
	}
	var found bool
	if v.multiline {
		if st.size > multilineMax {
			v.tooBig.Add(1)
			return
		}
		var buf []byte
		select {
		case buf = <-v.slots:
		case <-v.ctx.Done():
			return
		}
		defer func() { v.slots <- buf }()
		buf = slices.Grow(buf[:0], int(st.size)+1)
		n, err := io.ReadFull(f, buf[:cap(buf)])
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return
		}
		found = v.sc.scanWhole(buf[:n], &v.res)
	} else {
		found, err = v.sc.scan(f, &v.res, st.size)
		if err != nil {
			return
		}
	}
	if v.res.partial > 0 {
		v.partial.Add(int64(v.res.partial))
	}
	if found {
		v.coll.add(fromScan(filepath.Join(v.root, filepath.FromSlash(rel)), st.mtime, &v.res))
	}
}

// beforeOpen, if set, is called before a walk opens a file: tests swap
// files there.
var beforeOpen func(rel string)

// compileGrep validates the pattern and compiles it. The messages say what
// ripgrep's syntax (which models know) and Go's (RE2) have in common.
func compileGrep(q *grepQuery) (*matcher, error) {
	if _, err := regexp.Compile(q.pattern); err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		return nil, userError(fmt.Sprintf("Invalid regex pattern %q: %s. Grep uses ripgrep (RE2-style) syntax: no lookaround or backreferences, and literal ( ) [ ] { } . * + ? | need a backslash, e.g. \"interface\\\\{\\\\}\".", q.pattern, msg))
	}
	if !q.multiline && matchesNewline(q.pattern) {
		return nil, userError(fmt.Sprintf("The pattern %q contains a literal newline, but lines are searched one at a time. Set multiline: true to match across lines.", q.pattern))
	}
	return newMatcher(q.pattern, q.ignoreCase, q.multiline)
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
