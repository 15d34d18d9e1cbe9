package builtin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/novacode/nova/tool"
)

// WriteInput is the input of the Write tool.
type WriteInput struct {
	FilePath string `json:"file_path" jsonschema:"The absolute path to the file to write (must be absolute, not relative)"`
	Content  string `json:"content" jsonschema:"The content to write to the file"`
}

// NewWrite returns the Write tool.
func NewWrite() *tool.Typed[WriteInput] {
	return tool.New("Write", writeDesc, false, nil, runWrite).WithEffects(func(env *tool.Env, in WriteInput) tool.Effects {
		return tool.Effects{Writes: []string{env.Abs(in.FilePath)}}
	})
}

const writeDesc = `Writes a file to the local filesystem, replacing it if it exists.

Usage:
- Creates missing parent directories.
- If the file already exists, you must Read it first, and it must not have changed on disk since; otherwise the write is refused.
- Prefer Edit for changing existing files: it sends only the changed part.
- Do not create documentation files (*.md, README) unless asked to.`

func runWrite(ctx context.Context, env *tool.Env, in WriteInput) (tool.Result, error) {
	if strings.TrimSpace(in.FilePath) == "" {
		return tool.Errorf("file_path is empty. Give the path of the file to write."), nil
	}
	path := env.Abs(in.FilePath)
	if env.Files != nil {
		// Agents of one session (subagents side by side) change a file
		// one at a time: the second finds it changed since it read it.
		defer env.Files.Lock(path)()
	}
	if env.Editor != nil {
		return writeInEditor(ctx, env, path, in.Content)
	}
	fi, err := os.Stat(path)
	exists := err == nil
	switch {
	case exists && fi.IsDir():
		return tool.Errorf("%s is a directory; Write needs a file path.", path), nil
	case exists && env.Guard != nil:
		// Checked for freshness below, through the re-checked file.
	case exists:
		if _, res, ok := readFresh(env, path, nil); !ok {
			return res, nil
		}
	case !os.IsNotExist(err):
		return tool.Errorf("Cannot write %s: %v", path, err), nil
	}
	if env.Guard != nil {
		return writeGuarded(ctx, env, path, in.Content)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return tool.Errorf("Cannot create the directory for %s: %v", path, err), nil
	}
	// Writing in place (rather than to a temporary file and renaming) keeps
	// an existing file's mode, owner and hard links.
	if err := os.WriteFile(path, []byte(in.Content), 0o644); err != nil {
		return tool.Errorf("Cannot write %s: %v", path, err), nil
	}
	if env.Files != nil {
		env.Files.Record(path, []byte(in.Content))
	}
	return writeDone(path, in.Content, !exists), nil
}

// writeDone confirms a write.
func writeDone(path, content string, created bool) tool.Result {
	verb := "Updated"
	if created {
		verb = "Created"
	}
	return tool.Result{Content: fmt.Sprintf("%s %s (%s).", verb, path, plural(len(splitLines(content)), "line"))}
}

// writeGuarded is Write under a path guard: the file is opened (created if
// need be) and re-checked before its old content is read for the freshness
// check or replaced.
func writeGuarded(ctx context.Context, env *tool.Env, path, content string) (tool.Result, error) {
	f, created, err := openWrite(ctx, env, path, true)
	if err != nil {
		return ioResult("write", path, err), nil
	}
	if !created {
		if _, res, ok := readFresh(env, path, f); !ok {
			f.Close()
			return res, nil
		}
	}
	if err := replaceContent(f, []byte(content)); err != nil {
		return tool.Errorf("Cannot write %s: %v", path, err), nil
	}
	if env.Files != nil {
		env.Files.Record(path, []byte(content))
	}
	return writeDone(path, content, created), nil
}

// readFresh returns the content of an existing file that is about to be
// changed. It refuses (ok false, with res explaining) when the model has not
// read the file or the file changed on disk since it did: changing it would
// silently discard whatever the model has not seen. A session without file
// tracking (env.Files nil) skips the check. The content comes from f when
// given (a file opened and re-checked by openWrite), from path otherwise.
func readFresh(env *tool.Env, path string, f *os.File) (data []byte, res tool.Result, ok bool) {
	if res, ok := seen(env, path); !ok {
		return nil, res, false
	}
	var err error
	if f != nil {
		data, err = readAllFrom(f)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, tool.Errorf("Cannot read %s: %v", path, err), false
	}
	if res, ok := unchangedSince(env, path, data, "on disk"); !ok {
		return nil, res, false
	}
	return data, tool.Result{}, true
}

// seen refuses a change to a file the model has not read.
func seen(env *tool.Env, path string) (tool.Result, bool) {
	if env.Files != nil {
		if _, seen := env.Files.Lookup(path); !seen {
			return tool.Errorf("%s exists but has not been read yet. Read it first, then retry.", path), false
		}
	}
	return tool.Result{}, true
}

// unchangedSince refuses a change to a file whose content (data, as found
// where: on disk, in the editor) is not what the model read.
func unchangedSince(env *tool.Env, path string, data []byte, where string) (tool.Result, bool) {
	if env.Files != nil && env.Files.Changed(path, data) {
		return tool.Errorf("%s has changed %s since you read it (the user, a formatter or another tool modified it). Read it again, then retry.", path, where), false
	}
	return tool.Result{}, true
}
