// Package gitexclude keeps files nova makes for itself out of git: when
// such a file lies inside a git work tree (a data directory under a home
// directory kept in git, NOVA_HOME inside a project), its path is added to
// the repository's info/exclude, so that `git add -A` cannot commit a
// transcript or the person's own settings by accident. info/exclude is
// never committed and holds for every work tree of the repository, unlike
// a .gitignore nova would have to write into the project.
package gitexclude

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Add makes the repository whose work tree holds path ignore it: a line
// "/rel/path" (with a trailing slash for a directory) is appended to its
// info/exclude, unless that file has the line already. path must be
// absolute; it need not exist yet. Outside any work tree, and inside a git
// directory, Add does nothing. It reports whether it added the line.
func Add(path string, dir bool) (bool, error) {
	root, gitDir, ok := workTree(filepath.Dir(path))
	if !ok {
		return false, nil
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false, nil
	}
	if first, _, _ := strings.Cut(filepath.ToSlash(rel), "/"); first == ".git" {
		return false, nil // git never tracks its own directory
	}
	line := "/" + escape(filepath.ToSlash(rel))
	if dir {
		line += "/"
	}
	exclude := filepath.Join(commonDir(gitDir), "info", "exclude")
	data, err := os.ReadFile(exclude)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("keep %s out of git: %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == line {
			return false, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(exclude), 0o755); err != nil {
		return false, fmt.Errorf("keep %s out of git: %w", path, err)
	}
	f, err := os.OpenFile(exclude, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return false, fmt.Errorf("keep %s out of git: %w", path, err)
	}
	var b strings.Builder
	if len(data) > 0 && data[len(data)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString("# NovaCode's own files, never to be committed\n")
	b.WriteString(line + "\n")
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return false, fmt.Errorf("keep %s out of git: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return false, fmt.Errorf("keep %s out of git: %w", path, err)
	}
	return true, nil
}

// workTree finds the work tree holding dir: the nearest directory upwards
// with a .git directory, or a .git file naming the git directory (a linked
// worktree, a submodule). A bare directory or a dir inside .git has none.
func workTree(dir string) (root, gitDir string, ok bool) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if filepath.Base(d) == ".git" {
			return "", "", false
		}
		p := filepath.Join(d, ".git")
		fi, err := os.Lstat(p)
		switch {
		case err == nil && fi.IsDir():
			return d, p, true
		case err == nil && fi.Mode().IsRegular():
			if g, ok := readGitFile(p); ok {
				return d, g, true
			}
			return "", "", false
		}
		if filepath.Dir(d) == d {
			return "", "", false
		}
	}
}

// readGitFile reads a .git file: "gitdir: PATH", relative to its directory.
func readGitFile(p string) (string, bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", false
	}
	g = strings.TrimSpace(g)
	if !filepath.IsAbs(g) {
		g = filepath.Join(filepath.Dir(p), g)
	}
	return g, true
}

// commonDir is where a git directory keeps what its worktrees share,
// info/exclude among it: the path its commondir file names, or itself.
func commonDir(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

// escape quotes what gitignore patterns would read as wildcards (a
// leading "#" or "!" cannot occur: the line starts with "/").
func escape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
