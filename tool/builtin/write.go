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
	return tool.New("Write", writeDesc, false, nil, runWrite)
}

const writeDesc = `Writes a file to the local filesystem, replacing it if it exists.

Usage:
- Creates missing parent directories.
- If the file already exists, you must Read it first, and it must not have changed on disk since; otherwise the write is refused.
- Prefer Edit for changing existing files: it sends only the changed part.
- Do not create documentation files (*.md, README) unless asked to.`

func runWrite(_ context.Context, env *tool.Env, in WriteInput) (tool.Result, error) {
	if strings.TrimSpace(in.FilePath) == "" {
		return tool.Errorf("file_path is empty. Give the path of the file to write."), nil
	}
	path := env.Abs(in.FilePath)
	fi, err := os.Stat(path)
	exists := err == nil
	switch {
	case exists && fi.IsDir():
		return tool.Errorf("%s is a directory; Write needs a file path.", path), nil
	case exists:
		if _, res, ok := readFresh(env, path); !ok {
			return res, nil
		}
	case !os.IsNotExist(err):
		return tool.Errorf("Cannot write %s: %v", path, err), nil
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
	verb := "Created"
	if exists {
		verb = "Updated"
	}
	return tool.Result{Content: fmt.Sprintf("%s %s (%s).", verb, path, plural(len(splitLines(in.Content)), "line"))}, nil
}

// readFresh returns the content of an existing file that is about to be
// changed. It refuses (ok false, with res explaining) when the model has not
// read the file or the file changed on disk since it did: changing it would
// silently discard whatever the model has not seen. A session without file
// tracking (env.Files nil) skips the check.
func readFresh(env *tool.Env, path string) (data []byte, res tool.Result, ok bool) {
	if env.Files != nil {
		if _, seen := env.Files.Lookup(path); !seen {
			return nil, tool.Errorf("%s exists but has not been read yet. Read it first, then retry.", path), false
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, tool.Errorf("Cannot read %s: %v", path, err), false
	}
	if env.Files != nil && env.Files.Changed(path, data) {
		return nil, tool.Errorf("%s has changed on disk since you read it (the user, a formatter or another tool modified it). Read it again, then retry.", path), false
	}
	return data, tool.Result{}, true
}
