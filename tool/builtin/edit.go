package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/novacode/nova/tool"
)

// EditInput is the input of the Edit tool.
type EditInput struct {
	FilePath   string `json:"file_path" jsonschema:"The absolute path to the file to modify"`
	OldString  string `json:"old_string" jsonschema:"The text to replace"`
	NewString  string `json:"new_string" jsonschema:"The text to replace it with (must be different from old_string)"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace all occurrences of old_string (default false)"`
}

// NewEdit returns the Edit tool.
func NewEdit() *tool.Typed[EditInput] {
	return tool.New("Edit", editDesc, false, nil, runEdit).WithEffects(func(env *tool.Env, in EditInput) tool.Effects {
		return tool.Effects{Writes: []string{env.Abs(in.FilePath)}}
	})
}

const editDesc = `Performs exact string replacements in files.

Usage:
- You must Read the file before editing it, and it must not have changed on disk since; otherwise the edit is refused.
- old_string must match the file exactly, including whitespace and indentation. When copying from Read's output, leave out the line-number prefix (spaces, a number and a tab): it is not part of the file.
- The edit fails if old_string is not unique in the file. Include more surrounding lines to make it unique, or set replace_all to change every occurrence (useful for renaming).
- An empty old_string creates a new file with new_string as its content.`

// snippetContext is how many unchanged lines the confirmation shows around
// an edit, so the model can check the result without another Read.
const snippetContext = 4

func runEdit(ctx context.Context, env *tool.Env, in EditInput) (tool.Result, error) {
	if strings.TrimSpace(in.FilePath) == "" {
		return tool.Errorf("file_path is empty. Give the path of the file to edit."), nil
	}
	if in.OldString == in.NewString {
		return tool.Errorf("old_string and new_string are identical, so the edit would change nothing. Give the new text in new_string."), nil
	}
	path := env.Abs(in.FilePath)
	if env.Files != nil {
		// Agents of one session (subagents side by side) change a file
		// one at a time: the second finds it changed since it read it.
		defer env.Files.Lock(path)()
	}
	if env.Editor != nil {
		return editInEditor(ctx, env, path, in)
	}
	fi, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		if in.OldString != "" {
			return tool.Errorf("%s. To create a new file, use an empty old_string or the Write tool.", notExist("File", path)), nil
		}
		return createByEdit(ctx, env, path, in.NewString)
	case err != nil:
		return tool.Errorf("Cannot edit %s: %v", path, err), nil
	case fi.IsDir():
		return tool.Errorf("%s is a directory, not a file.", path), nil
	}

	// Under a path guard the file is opened and re-checked before its
	// content is read, and the edit is written through the same file.
	var f *os.File
	if env.Guard != nil {
		if f, _, err = openWrite(ctx, env, path, false); err != nil {
			return ioResult("edit", path, err), nil
		}
		defer f.Close() // after replaceContent closed it: a harmless no-op
	}
	data, res, ok := readFresh(env, path, f)
	if !ok {
		return res, nil
	}
	store := func(b []byte) error {
		if f != nil {
			return replaceContent(f, b)
		}
		// os.WriteFile keeps the mode of an existing file; the mode is
		// passed only in case the file vanished meanwhile.
		return os.WriteFile(path, b, fi.Mode().Perm())
	}
	return applyEdit(env, path, string(data), in, store)
}

// applyEdit replaces in.OldString by in.NewString in content, the file's
// text as the model read it, and stores the result with store.
func applyEdit(env *tool.Env, path, content string, in EditInput, store func([]byte) error) (tool.Result, error) {
	if in.OldString == "" {
		if content != "" {
			return tool.Errorf("old_string is empty, but %s already exists and is not empty. Give the text to replace in old_string, or use Write to replace the whole file.", path), nil
		}
		return writeEdit(env, path, store, content, in.NewString, "", in.NewString, 1)
	}

	old, repl := in.OldString, in.NewString
	n := strings.Count(content, old)
	if n == 0 && strings.Contains(content, "\r\n") && !strings.Contains(old, "\r") {
		// The file has Windows line endings, which Read does not show; the
		// model's "\n" means "\r\n" here.
		old = strings.ReplaceAll(old, "\n", "\r\n")
		repl = strings.ReplaceAll(strings.ReplaceAll(repl, "\r\n", "\n"), "\n", "\r\n")
		n = strings.Count(content, old)
	}
	switch {
	case n == 0:
		return tool.Errorf("%s", notFoundMessage(path, content, in.OldString)), nil
	case n > 1 && !in.ReplaceAll:
		return tool.Errorf("Found %d matches of old_string in %s, but replace_all is false. Add more surrounding lines to old_string so it matches exactly one place, or set replace_all to true to replace every occurrence.", n, path), nil
	}
	// strings.Replace, unlike regexp replacement, gives no special meaning
	// to "$" in the new text.
	updated := strings.Replace(content, old, repl, 1)
	if in.ReplaceAll {
		updated = strings.ReplaceAll(content, old, repl)
	}
	return writeEdit(env, path, store, content, updated, old, repl, n)
}

// createByEdit handles an empty old_string on a file that does not exist.
func createByEdit(ctx context.Context, env *tool.Env, path, content string) (tool.Result, error) {
	if env.Guard != nil {
		f, created, err := openWrite(ctx, env, path, true)
		if err != nil {
			return ioResult("create", path, err), nil
		}
		if !created {
			f.Close()
			return tool.Errorf("%s did not exist a moment ago but does now (another program created it). Read it, then edit it.", path), nil
		}
		if err := replaceContent(f, []byte(content)); err != nil {
			return tool.Errorf("Cannot create %s: %v", path, err), nil
		}
		if env.Files != nil {
			env.Files.Record(path, []byte(content))
		}
		return tool.Result{Content: fmt.Sprintf("Created %s (%s).", path, plural(len(splitLines(content)), "line"))}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return tool.Errorf("Cannot create the directory for %s: %v", path, err), nil
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return tool.Errorf("Cannot create %s: %v", path, err), nil
	}
	if env.Files != nil {
		env.Files.Record(path, []byte(content))
	}
	return tool.Result{Content: fmt.Sprintf("Created %s (%s).", path, plural(len(splitLines(content)), "line"))}, nil
}

// writeEdit stores updated, which is original with n occurrences of old
// replaced by repl, with store, and confirms with the lines that changed.
func writeEdit(env *tool.Env, path string, store func([]byte) error, original, updated, old, repl string, n int) (tool.Result, error) {
	if err := store([]byte(updated)); err != nil {
		return tool.Errorf("Cannot write %s: %v", path, err), nil
	}
	if env.Files != nil {
		env.Files.Record(path, []byte(updated))
	}
	if n > 1 {
		return tool.Result{Content: fmt.Sprintf("Updated %s: replaced %d occurrences of old_string, on lines %s.", path, n, occurrenceLines(original, old, repl))}, nil
	}
	at := strings.Index(original, old)
	if old == "" {
		at = 0
	}
	lines := splitLines(updated)
	startLine := strings.Count(original[:at], "\n") + 1
	endLine := startLine + strings.Count(repl, "\n")
	from := max(startLine-snippetContext, 1)
	to := min(endLine+snippetContext, len(lines))
	var b strings.Builder
	fmt.Fprintf(&b, "The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n", path)
	if from <= to {
		numbered(&b, from, lines[from-1:to])
	}
	return tool.Result{Content: b.String()}, nil
}

// occurrenceLines lists the lines of the updated file on which each
// replacement of old by repl in original begins, for the confirmation of a
// replace_all. Every earlier replacement shifts the later ones by the
// difference in line count between repl and old.
func occurrenceLines(original, old, repl string) string {
	const maxListed = 20
	shift := strings.Count(repl, "\n") - strings.Count(old, "\n")
	var nums []string
	line, pos, i := 1, 0, 0
	for ; ; i++ {
		j := strings.Index(original[pos:], old)
		if j < 0 {
			break
		}
		line += strings.Count(original[pos:pos+j], "\n")
		if i < maxListed {
			nums = append(nums, strconv.Itoa(line+i*shift))
		}
		line += strings.Count(old, "\n")
		pos += j + len(old)
	}
	s := strings.Join(nums, ", ")
	if i > maxListed {
		s += fmt.Sprintf(" and %d more", i-maxListed)
	}
	return s
}

var lineNumberPrefix = regexp.MustCompile(`(?m)^\s*\d+\t`)

// notFoundMessage explains why old_string did not match, naming the likely
// cause when it can tell.
func notFoundMessage(path, content, old string) string {
	msg := fmt.Sprintf("old_string was not found in %s.", path)
	switch {
	case lineNumberPrefix.MatchString(old):
		return msg + " It seems to include line-number prefixes from Read's output (spaces, a number, a tab); those are not part of the file. Remove them and keep the exact indentation that follows the tab."
	case strings.Contains(collapseSpace(content), collapseSpace(old)):
		return msg + " The same text exists with different whitespace or indentation (tabs vs spaces, trailing spaces, line breaks). Copy it exactly from Read's output."
	}
	return msg + " It must match the file exactly, character for character, including whitespace and indentation. Read the file again to see its current content."
}

// collapseSpace reduces every run of whitespace to one space.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
