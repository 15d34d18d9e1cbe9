package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// rgArgs builds ripgrep's command line. The flags make ripgrep apply exactly
// the rules of the Go back-end: .gitignore files (even outside a git
// repository) and .git/info/exclude, but not .ignore/.rgignore files, the
// user's global excludes or a ripgrep config file, none of which the Go
// back-end reads. Hidden files are searched; version-control directories
// are not.
func rgArgs(q *grepQuery) []string {
	args := []string{"--no-config", "--hidden", "--no-require-git", "--no-ignore-dot", "--no-ignore-global"}
	if q.isFile || gitRoot(q.root) == "" {
		// Outside a repository, .gitignore files above the search root do
		// not apply (see newIgnoreStack).
		args = append(args, "--no-ignore-parent")
	}
	if q.ignoreCase {
		args = append(args, "-i")
	}
	if q.multiline {
		args = append(args, "-U", "--multiline-dotall")
	}
	if q.fileType != "" {
		args = append(args, "--type", q.fileType)
	}
	for _, g := range q.globs {
		args = append(args, "--glob", g)
	}
	// Last, so that they win over the model's globs.
	for _, d := range slices.Sorted(maps.Keys(vcsDirs)) {
		args = append(args, "--glob", "!"+d)
	}
	switch q.mode {
	case modeFiles:
		args = append(args, "--files-with-matches", "--null")
	case modeContent:
		args = append(args, "--json", fmt.Sprintf("-B%d", q.before), fmt.Sprintf("-A%d", q.after))
	default:
		args = append(args, "--json")
	}
	return append(args, "-e", q.pattern, "--", q.root)
}

// rgSearch runs q with ripgrep and parses its output into grepFiles.
func rgSearch(ctx context.Context, rg string, q *grepQuery) ([]grepFile, error) {
	// Validate as the Go back-end does, for identical error messages.
	if _, err := compileGrep(q); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, rg, rgArgs(q)...)
	// ripgrep matches --glob patterns relative to its working directory;
	// the Go back-end matches them relative to the search root.
	cmd.Dir = q.root
	if q.isFile {
		cmd.Dir = filepath.Dir(q.root)
	}
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start ripgrep: %w", err)
	}
	var files []grepFile
	var parseErr error
	if q.mode == modeFiles {
		var out []byte
		out, parseErr = io.ReadAll(stdout)
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				files = append(files, grepFile{path: p, count: 1})
			}
		}
	} else {
		files, parseErr = parseRgJSON(stdout, q.mode == modeContent)
	}
	if parseErr != nil {
		_, _ = io.Copy(io.Discard, stdout)
	}
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if parseErr != nil {
		return nil, fmt.Errorf("read ripgrep output: %w", parseErr)
	}
	// Exit status 1 means no match. Status 2 means an error; with some
	// results (say, one unreadable file among many) the results stand.
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) && exit.ExitCode() == 2 && len(files) == 0 {
		msg := strings.TrimSpace(stderr.String())
		return nil, userError("ripgrep failed: " + tailLines(msg, 20))
	}
	if waitErr != nil && !errors.As(waitErr, &exit) {
		return nil, fmt.Errorf("ripgrep: %w", waitErr)
	}
	return files, nil
}

// rgMessage is one line of ripgrep's --json output.
type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgData `json:"path"`
		Lines      rgData `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

// rgData is ripgrep's encoding of text that may not be UTF-8.
type rgData struct {
	Text  *string `json:"text"`
	Bytes string  `json:"bytes"`
}

func (d rgData) String() string {
	if d.Text != nil {
		return *d.Text
	}
	b, _ := base64.StdEncoding.DecodeString(d.Bytes)
	return string(b)
}

// parseRgJSON collects match (and, with keepLines, context) messages per
// file. A multiline match comes as one message holding several lines; it is
// split so that every line is numbered, as the Go back-end reports them.
func parseRgJSON(r io.Reader, keepLines bool) ([]grepFile, error) {
	type acc struct {
		lines map[int]grepLine
		count int
	}
	byPath := map[string]*acc{}
	var order []string
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		raw, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			var m rgMessage
			if jerr := json.Unmarshal(raw, &m); jerr != nil {
				return nil, jerr
			}
			if m.Type == "match" || m.Type == "context" {
				path := m.Data.Path.String()
				a := byPath[path]
				if a == nil {
					a = &acc{lines: map[int]grepLine{}}
					byPath[path] = a
					order = append(order, path)
				}
				text := strings.TrimSuffix(m.Data.Lines.String(), "\n")
				for i, t := range strings.Split(text, "\n") {
					n := m.Data.LineNumber + i
					old, seen := a.lines[n]
					if m.Type == "match" && !(seen && old.match) {
						a.count++
					}
					if !seen || m.Type == "match" {
						a.lines[n] = grepLine{n: n, text: t, match: m.Type == "match"}
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	files := make([]grepFile, 0, len(order))
	for _, p := range order {
		a := byPath[p]
		if a.count == 0 {
			continue
		}
		f := grepFile{path: p, count: a.count}
		if keepLines {
			for _, l := range a.lines {
				f.lines = append(f.lines, l)
			}
			slices.SortFunc(f.lines, func(x, y grepLine) int { return x.n - y.n })
		}
		files = append(files, f)
	}
	return files, nil
}

// tailLines keeps the last n lines of s.
func tailLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
