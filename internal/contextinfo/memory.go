package contextinfo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Memory scopes.
const (
	ScopeUser    = "user"    // the user's config directory ($NOVA_HOME or ~/.novacode)
	ScopeProject = "project" // the repository root down to the working directory
)

const (
	// MaxMemoryBytes caps each memory file; the rest is cut with a marker.
	MaxMemoryBytes = 40 << 10
	// MaxImportDepth is how deep @imports nest: a file found by discovery is
	// depth 0, what it imports depth 1, and imports in a depth-3 file are
	// not followed.
	MaxImportDepth = 3
)

// MemoryNames are the memory file names looked for at each level, in order.
// AGENTS.md is the cross-tool convention, NOVA.md ours, CLAUDE.md read so a
// project set up for Claude Code works unchanged.
var MemoryNames = []string{"AGENTS.md", "NOVA.md", "CLAUDE.md"}

// MemoryFile is one memory file's text as the model will read it.
type MemoryFile struct {
	// Path is absolute, as found (not symlink-resolved).
	Path string
	// Scope is ScopeUser or ScopeProject; an imported file has the scope of
	// the file that imports it.
	Scope string
	// Content is the file's text, cut at MaxMemoryBytes (with a marker), with
	// a note line after each import line that was not followed.
	Content string
}

// MemoryFiles finds the memory files for a session in dir, in the order the
// model should read them (later is more specific):
//
//  1. MemoryNames in home, the user's config directory ("" skips it);
//  2. MemoryNames at each level from the repository root (the nearest
//     ancestor of dir holding .git, or dir itself outside a repository) down
//     to dir.
//
// A file that imports others is followed directly by them (depth first, in
// line order). An import is a line that consists only of "@path" outside a
// fenced code block; path is relative to the importing file's directory (or
// absolute). It is not followed, and a note saying why is put after the
// line, when the target is missing, lies outside both the repository root and
// home (symlinks resolved), is already included (a cycle, or a file that was
// found anyway), or would be deeper than MaxImportDepth.
//
// Missing files, directories and files holding only whitespace are skipped.
// A discovered file that exists but cannot be read is an error: the user
// wrote instructions and would not want them silently dropped.
func MemoryFiles(home, dir string) ([]MemoryFile, error) {
	abs := absPath(dir)
	root, ok := repoRoot(abs)
	if !ok {
		root = abs
	}
	c := &collector{seen: map[string]bool{}, inChain: map[string]bool{}}
	c.allowed = append(c.allowed, resolve(root))
	if home != "" {
		home = absPath(home)
		c.allowed = append(c.allowed, resolve(home))
		for _, n := range MemoryNames {
			if err := c.discover(filepath.Join(home, n), ScopeUser); err != nil {
				return nil, err
			}
		}
	}
	for _, level := range levels(root, abs) {
		for _, n := range MemoryNames {
			if err := c.discover(filepath.Join(level, n), ScopeProject); err != nil {
				return nil, err
			}
		}
	}
	return c.files, nil
}

// levels lists root, then each directory below it on the way to dir.
func levels(root, dir string) []string {
	out := []string{root}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return out
	}
	cur := root
	for part := range strings.SplitSeq(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		out = append(out, cur)
	}
	return out
}

// resolve returns p with symlinks resolved, or p cleaned if that fails.
func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// within reports whether p is base or below it.
func within(p, base string) bool {
	rel, err := filepath.Rel(base, p)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

type collector struct {
	files   []MemoryFile
	allowed []string        // symlink-resolved roots imports must stay in
	seen    map[string]bool // resolved paths already included
	inChain map[string]bool // resolved paths on the current import chain
}

// errSkip means the file is absent (or not a regular file): skip it.
var errSkip = errors.New("not a regular file")

// discover adds a file found by the level walk.
func (c *collector) discover(path, scope string) error {
	key := resolve(path)
	if c.seen[key] {
		return nil // imported earlier, or home is also a project level
	}
	if err := c.add(path, key, scope, 0); err != nil && !errors.Is(err, errSkip) {
		return fmt.Errorf("read memory file %s: %w", path, err)
	}
	return nil
}

// add reads one file and, recursively, its imports.
func (c *collector) add(path, key, scope string, depth int) error {
	text, size, err := readCapped(path)
	if err != nil {
		return err
	}
	c.seen[key] = true
	if strings.TrimSpace(text) == "" {
		return nil
	}
	idx := len(c.files)
	c.files = append(c.files, MemoryFile{Path: path, Scope: scope})
	c.inChain[key] = true
	content := c.imports(path, text, scope, depth, size > MaxMemoryBytes)
	delete(c.inChain, key)
	if size > MaxMemoryBytes {
		if !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
		content += fmt.Sprintf("[… truncated: this file is %d bytes; only the first %d are shown]\n", size, MaxMemoryBytes)
	}
	c.files[idx].Content = content
	return nil
}

// readCapped returns at most MaxMemoryBytes of a regular file, cut at a rune
// boundary, and the file's full size.
func readCapped(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return "", 0, errSkip
		}
		return "", 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", 0, err
	}
	if !fi.Mode().IsRegular() {
		return "", 0, errSkip
	}
	buf, err := io.ReadAll(io.LimitReader(f, MaxMemoryBytes+1))
	if err != nil {
		return "", 0, err
	}
	size := max(fi.Size(), int64(len(buf))) // the file may grow while read
	if len(buf) > MaxMemoryBytes {
		cut := MaxMemoryBytes
		for cut > 0 && !utf8.RuneStart(buf[cut]) {
			cut--
		}
		buf = buf[:cut]
	}
	return string(buf), size, nil
}

// imports follows the import lines of text (the content of path) and
// returns text with a note after each import that was not followed. When
// truncated, the last line is incomplete and is never taken as an import.
func (c *collector) imports(path, text, scope string, depth int, truncated bool) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	inFence := false
	for i, line := range lines {
		b.WriteString(line)
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || (truncated && i == len(lines)-1) {
			continue
		}
		target, ok := importTarget(trimmed)
		if !ok {
			continue
		}
		if note := c.follow(path, target, scope, depth); note != "" {
			if !strings.HasSuffix(line, "\n") {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "(import @%s not followed: %s)\n", target, note)
		}
	}
	return b.String()
}

// importTarget reports whether a trimmed line is an import, "@path" with
// no whitespace in path.
func importTarget(trimmed string) (string, bool) {
	if len(trimmed) < 2 || trimmed[0] != '@' || strings.ContainsAny(trimmed, " \t") {
		return "", false
	}
	return trimmed[1:], true
}

// follow includes one import and returns "" or why it was not followed.
func (c *collector) follow(from, target, scope string, depth int) string {
	if depth+1 > MaxImportDepth {
		return fmt.Sprintf("imports nest at most %d deep", MaxImportDepth)
	}
	p := filepath.FromSlash(target)
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from), p)
	}
	key, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return "file not found"
		}
		return err.Error()
	}
	inside := false
	for _, a := range c.allowed {
		inside = inside || within(key, a)
	}
	switch {
	case !inside:
		return "outside the repository and the user config directory"
	case c.inChain[key]:
		return "import cycle"
	case c.seen[key]:
		return "already included"
	}
	if err := c.add(p, key, scope, depth+1); err != nil {
		if errors.Is(err, errSkip) {
			return "not a regular file"
		}
		return err.Error()
	}
	return ""
}

// Render formats files as the block the model reads, or "" when there are
// none:
//
//	<memory>
//	<one line saying how to read the files>
//
//	--- /home/u/.novacode/AGENTS.md (user memory) ---
//	…content…
//
//	--- /repo/NOVA.md (project memory) ---
//	…content…
//	</memory>
func Render(files []MemoryFile) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<memory>\n")
	b.WriteString("Instructions from memory files: the user's own first, then the project's from the repository root down to the working directory; an imported file follows the file that imports it. Where they disagree, the later, more specific file wins.\n")
	for _, f := range files {
		fmt.Fprintf(&b, "\n--- %s (%s memory) ---\n", f.Path, f.Scope)
		b.WriteString(f.Content)
		if !strings.HasSuffix(f.Content, "\n") {
			b.WriteByte('\n')
		}
	}
	b.WriteString("</memory>")
	return b.String()
}
