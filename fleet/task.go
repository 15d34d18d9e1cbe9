package fleet

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/novacode/nova"
)

// Task is one task of a batch: one line of a task file, such as
//
//	{"id": "t1", "prompt": "fix the flaky test", "cwd": "/src/app"}
//	{"id": "t2", "prompt": "bump the Go version", "git": {"url": "https://…/repo.git", "ref": "main"}}
//
// Fields left empty take the batch's defaults (Config.Defaults).
type Task struct {
	// ID names the task in the results; unique within a file.
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
	// Cwd is the workspace to work in (relative paths are relative to the
	// current directory of the process); Git is a repository to clone into
	// a scratch workspace instead. With neither, the batch's directory.
	Cwd string `json:"cwd,omitempty"`
	Git *Git   `json:"git,omitempty"`

	Model          string   `json:"model,omitempty"`
	Provider       string   `json:"provider,omitempty"`
	MaxTurns       int      `json:"max_turns,omitempty"`
	PermissionMode string   `json:"permission_mode,omitempty"`
	AllowedTools   []string `json:"allowed_tools,omitempty"`
	// Timeout bounds the whole task (workspace, session, diff); a task
	// past it fails. JSON: a duration ("90s", "10m") or seconds (600).
	Timeout Duration `json:"timeout,omitzero"`

	// Line is the line of the task file the task came from (ParseTasks);
	// not part of the task's JSON.
	Line int `json:"-"`
}

// Git is a repository a task works on in a clone of its own.
type Git struct {
	URL string `json:"url"`
	// Ref is the branch, tag or commit to check out; empty means the
	// repository's default branch.
	Ref string `json:"ref,omitempty"`
}

// Duration is a time.Duration that reads from JSON as a duration string
// ("1m30s") or a number of seconds, and writes as a string.
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("timeout %q: want a duration such as \"90s\" or \"10m\"", s)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("timeout %s: want a duration such as \"90s\" or a number of seconds", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// LineError is a line of a task file that is not a task: its number (from
// 1) and why. ParseTasks reports it and goes on with the next line.
type LineError struct {
	Line int
	// ID is the task's id when the line had one.
	ID  string
	Err error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// maxLine bounds a task line: a prompt is text a person or a script wrote,
// and a runaway line (a binary file named by mistake) must not be read into
// memory whole.
const maxLine = 16 << 20

// ParseTasks reads a JSONL task file: one task object per line. Blank lines
// are skipped; CRLF line ends and a UTF-8 byte order mark are accepted. A
// line that is not a valid task — bad JSON, an unknown field, a missing id
// or prompt, both cwd and git, an unknown permission mode or provider, an
// id already used on an earlier line — is yielded as a *LineError, and
// parsing goes on. Reading r failing ends the sequence with that error.
func ParseTasks(r io.Reader) iter.Seq2[Task, error] {
	return func(yield func(Task, error) bool) {
		br := bufio.NewReaderSize(r, 64<<10)
		seen := map[string]int{} // id -> line
		for n := 1; ; n++ {
			line, tooLong, err := readLine(br)
			if err != nil && err != io.EOF {
				yield(Task{}, fmt.Errorf("read tasks: %w", err))
				return
			}
			if n == 1 {
				line = bytes.TrimPrefix(line, []byte("\ufeff"))
			}
			switch {
			case tooLong:
				if !yield(Task{}, &LineError{Line: n, Err: fmt.Errorf("longer than %d MiB", maxLine>>20)}) {
					return
				}
			case len(bytes.TrimSpace(line)) > 0:
				t, perr := parseTask(line)
				t.Line = n
				if perr == nil {
					if first, dup := seen[t.ID]; dup {
						perr = fmt.Errorf("duplicate id %q (first on line %d)", t.ID, first)
					} else {
						seen[t.ID] = n
					}
				}
				if perr != nil {
					if !yield(Task{}, &LineError{Line: n, ID: t.ID, Err: perr}) {
						return
					}
				} else if !yield(t, nil) {
					return
				}
			}
			if err == io.EOF {
				return
			}
		}
	}
}

// readLine reads one line without its end (LF or CRLF). tooLong reports a
// line past maxLine, which is consumed but not returned.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > maxLine {
			tooLong = true
			line = nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		return line, tooLong, err
	}
}

// parseTask decodes and checks one line. The id is returned even when the
// rest is wrong, so that the error can name the task.
func parseTask(line []byte) (Task, error) {
	var t Task
	dec := json.NewDecoder(bytes.NewReader(line))
	// A misspelt field ("max_turn") would otherwise be a default silently
	// applied to a task that asked for something else.
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		var id struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(line, &id)
		return Task{ID: id.ID}, fmt.Errorf("not a task object: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Task{ID: t.ID}, errors.New("more than one JSON value on the line")
	}
	return t, t.Validate()
}

// Validate checks what a task file can get wrong beyond JSON syntax.
func (t Task) Validate() error {
	switch {
	case t.ID == "":
		return errors.New(`no "id"`)
	case len(t.ID) > 256:
		return fmt.Errorf("id longer than 256 bytes")
	case !printable(t.ID):
		return fmt.Errorf("id %s has control characters", strconv.Quote(t.ID))
	case t.Prompt == "":
		return errors.New(`no "prompt"`)
	case t.Cwd != "" && t.Git != nil:
		return errors.New(`both "cwd" and "git": a task works in one of them`)
	case t.Git != nil && t.Git.URL == "":
		return errors.New(`"git" without "url"`)
	case t.Git != nil && strings.HasPrefix(t.Git.Ref, "-"):
		// git would read it as an option.
		return fmt.Errorf("git ref %q starts with a dash", t.Git.Ref)
	case t.MaxTurns < 0:
		return fmt.Errorf("max_turns %d: want 0 (no limit) or more", t.MaxTurns)
	case t.Timeout < 0:
		return fmt.Errorf("timeout %s: want a positive duration", time.Duration(t.Timeout))
	}
	if err := nova.ValidMode(t.PermissionMode); err != nil {
		return err
	}
	return nova.ValidProvider(t.Provider)
}

// printable: the id is shown on progress lines and in file names.
func printable(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return false
		}
	}
	return true
}

// WithDefaults fills the fields t leaves empty from d: a task's own
// fields win over the batch's.
func (t Task) WithDefaults(d Task) Task {
	if t.Cwd == "" && t.Git == nil {
		t.Cwd, t.Git = d.Cwd, d.Git
	}
	t.Model = cmp.Or(t.Model, d.Model)
	t.Provider = cmp.Or(t.Provider, d.Provider)
	t.PermissionMode = cmp.Or(t.PermissionMode, d.PermissionMode)
	if t.MaxTurns == 0 {
		t.MaxTurns = d.MaxTurns
	}
	if t.AllowedTools == nil {
		t.AllowedTools = d.AllowedTools
	}
	if t.Timeout == 0 {
		t.Timeout = d.Timeout
	}
	return t
}
