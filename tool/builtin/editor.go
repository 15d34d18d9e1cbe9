package builtin

import (
	"context"
	"fmt"
	"os"

	"github.com/novacode/nova/tool"
)

// Read, Write and Edit through the editor (tool.Env.Editor): an editor
// that offers its file system (ACP's fs/read_text_file and
// fs/write_text_file) holds buffers whose unsaved text is what the person
// sees, so the tools read that text and write into it. The editor follows
// paths as it likes, so nothing of the file it will open can be re-checked
// afterwards: instead the guard resolves the path first, as its checks do,
// and judges the resolved path (for writing, for Write and Edit) before the
// editor is asked about it; a secret, protected or outside path is refused
// as on disk, and the editor is asked about the resolved path, not the one
// the model named. The file state works as on disk: Read records what the
// editor returned, and Write and Edit refuse a buffer that changed since.

// editorPath resolves path and re-checks it (write for Write and Edit):
// the path to ask the editor about.
func editorPath(ctx context.Context, env *tool.Env, path string, write bool) (string, error) {
	if env.Guard == nil {
		return path, nil
	}
	target, err := env.Guard.ResolvePath(path)
	if err != nil {
		return "", &refusal{fmt.Errorf("the path cannot be resolved safely, so it was refused for safety: %w", err)}
	}
	if err := env.Guard.Recheck(target, write, tool.ApprovedPaths(ctx)); err != nil {
		return "", &refusal{err}
	}
	return target, nil
}

// onDisk is what the disk says of the file the editor is asked about: a
// directory or a special file is refused as on disk; a missing file may
// still be a buffer the editor has not saved yet.
func onDisk(target string) (fi os.FileInfo, missing bool, err error) {
	fi, err = os.Stat(target)
	if os.IsNotExist(err) {
		return nil, true, nil
	}
	return fi, false, err
}

// readInEditor is Read's content from the editor. stream says that the
// file is on disk and too large to hold (readWholeMax): Read streams it from
// disk instead, as without an editor, since the editor would send it whole.
// An editor's unsaved changes to such a file are not seen.
func readInEditor(ctx context.Context, env *tool.Env, path string) (data []byte, res tool.Result, ok, stream bool) {
	target, err := editorPath(ctx, env, path, false)
	if err != nil {
		return nil, ioResult("read", path, err), false, false
	}
	fi, missing, err := onDisk(target)
	switch {
	case err != nil:
		return nil, tool.Errorf("Cannot read %s: %v", path, err), false, false
	case missing:
	case fi.IsDir():
		return nil, tool.Errorf("%s is a directory, not a file. Use LS to list its contents.", path), false, false
	case !fi.Mode().IsRegular():
		return nil, tool.Errorf("%s is not a regular file (%s); Read handles regular text files only.", path, fi.Mode().Type()), false, false
	}
	if res, ok := binaryExt(path); !ok {
		return nil, res, false, false
	}
	if !missing && fi.Size() > readWholeMax {
		return nil, tool.Result{}, false, true
	}
	text, err := env.Editor.ReadTextFile(ctx, target)
	switch {
	case err != nil && missing:
		return nil, tool.Errorf("%s", notExist("File", path)), false, false
	case err != nil:
		return nil, tool.Errorf("Cannot read %s: the editor: %v", path, err), false, false
	case len(text) > readMaxFileSize:
		return nil, tool.Errorf("%s is %d MiB in the editor, too large for Read. Use Grep to find the relevant lines, or save it and Read it with offset and limit.", path, len(text)>>20), false, false
	}
	return []byte(text), tool.Result{}, true, false
}

// writeInEditor is Write into the editor's buffer.
func writeInEditor(ctx context.Context, env *tool.Env, path, content string) (tool.Result, error) {
	target, err := editorPath(ctx, env, path, true)
	if err != nil {
		return ioResult("write", path, err), nil
	}
	fi, missing, err := onDisk(target)
	switch {
	case err != nil:
		return tool.Errorf("Cannot write %s: %v", path, err), nil
	case missing:
	case fi.IsDir():
		return tool.Errorf("%s is a directory; Write needs a file path.", path), nil
	case !fi.Mode().IsRegular():
		return tool.Errorf("Cannot write %s: it is not a regular file (%s)", path, fi.Mode().Type()), nil
	}
	old, readErr := env.Editor.ReadTextFile(ctx, target)
	exists := !missing || readErr == nil
	if exists {
		if res, ok := seen(env, path); !ok {
			return res, nil
		}
		if readErr != nil {
			return tool.Errorf("Cannot read %s: the editor: %v", path, readErr), nil
		}
		if res, ok := unchangedSince(env, path, []byte(old), "in the editor"); !ok {
			return res, nil
		}
	}
	if err := env.Editor.WriteTextFile(ctx, target, content); err != nil {
		return tool.Errorf("Cannot write %s: the editor: %v", path, err), nil
	}
	if env.Files != nil {
		env.Files.Record(path, []byte(content))
	}
	return writeDone(path, content, !exists), nil
}

// editInEditor is Edit of the editor's buffer.
func editInEditor(ctx context.Context, env *tool.Env, path string, in EditInput) (tool.Result, error) {
	target, err := editorPath(ctx, env, path, true)
	if err != nil {
		return ioResult("edit", path, err), nil
	}
	fi, missing, err := onDisk(target)
	switch {
	case err != nil:
		return tool.Errorf("Cannot edit %s: %v", path, err), nil
	case missing:
	case fi.IsDir():
		return tool.Errorf("%s is a directory, not a file.", path), nil
	case !fi.Mode().IsRegular():
		return tool.Errorf("Cannot edit %s: it is not a regular file (%s)", path, fi.Mode().Type()), nil
	}
	store := func(b []byte) error {
		if err := env.Editor.WriteTextFile(ctx, target, string(b)); err != nil {
			return fmt.Errorf("the editor: %w", err)
		}
		return nil
	}
	text, err := env.Editor.ReadTextFile(ctx, target)
	switch {
	case err != nil && missing && in.OldString != "":
		return tool.Errorf("%s. To create a new file, use an empty old_string or the Write tool.", notExist("File", path)), nil
	case err != nil && missing:
		if err := store([]byte(in.NewString)); err != nil {
			return tool.Errorf("Cannot create %s: %v", path, err), nil
		}
		if env.Files != nil {
			env.Files.Record(path, []byte(in.NewString))
		}
		return tool.Result{Content: fmt.Sprintf("Created %s (%s).", path, plural(len(splitLines(in.NewString)), "line"))}, nil
	case err != nil:
		return tool.Errorf("Cannot edit %s: the editor: %v", path, err), nil
	}
	if res, ok := seen(env, path); !ok {
		return res, nil
	}
	if res, ok := unchangedSince(env, path, []byte(text), "in the editor"); !ok {
		return res, nil
	}
	return applyEdit(env, path, text, in, store)
}
