package builtin

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/novacode/nova/tool"
)

// ReadInput is the input of the Read tool.
type ReadInput struct {
	FilePath string `json:"file_path" jsonschema:"The absolute path to the file to read"`
	Offset   int    `json:"offset,omitempty" jsonschema:"The line number to start reading from (1-based). Only provide if the file is too large to read at once"`
	Limit    int    `json:"limit,omitempty" jsonschema:"The number of lines to read. Only provide if the file is too large to read at once"`
}

const (
	// readDefaultLimit is how many lines Read returns when not told.
	readDefaultLimit = 2000
	// readMaxOutput stops a Read of many long lines before it floods the
	// context; the closing note tells the model where to continue.
	readMaxOutput = 100_000
	// readMaxFileSize is the largest file Read records for Edit and Write
	// (whose staleness check hashes the whole file); larger files are
	// read, not recorded.
	readMaxFileSize = 64 << 20
	// binarySniffLen is how much of a file is checked for NUL bytes.
	binarySniffLen = 8 << 10
)

// binaryExts are extensions whose files are never text, so Read refuses them
// without reading them.
var binaryExts = map[string]string{}

func init() {
	for kind, exts := range map[string][]string{
		"an image":           {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff", ".heic", ".avif", ".psd"},
		"an archive":         {".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".jar", ".war", ".whl", ".deb", ".rpm", ".dmg", ".iso"},
		"a compiled binary":  {".exe", ".dll", ".so", ".dylib", ".o", ".a", ".lib", ".class", ".pyc", ".wasm", ".bin"},
		"a document":         {".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt"},
		"a media file":       {".mp3", ".mp4", ".wav", ".flac", ".ogg", ".mov", ".avi", ".mkv", ".webm"},
		"a font":             {".ttf", ".otf", ".woff", ".woff2", ".eot"},
		"a database or blob": {".sqlite", ".db", ".parquet", ".pkl", ".npy", ".pt", ".onnx", ".safetensors"},
	} {
		for _, e := range exts {
			binaryExts[e] = kind
		}
	}
}

// binaryExt refuses a file whose extension says it is binary, without
// reading it.
func binaryExt(path string) (tool.Result, bool) {
	if kind, ok := binaryExts[strings.ToLower(filepath.Ext(path))]; ok {
		return tool.Errorf("Cannot read %s: it is %s (a binary file). Read handles text files only.", path, kind), false
	}
	return tool.Result{}, true
}

// NewRead returns the Read tool.
func NewRead() *tool.Typed[ReadInput] {
	return tool.New("Read", readDesc, true, nil, runRead).WithEffects(func(env *tool.Env, in ReadInput) tool.Effects {
		return tool.Effects{Reads: []string{env.Abs(in.FilePath)}}
	})
}

const readDesc = `Reads a file from the local filesystem.

Usage:
- file_path should be an absolute path; a relative path is resolved against the working directory.
- By default it reads up to 2000 lines from the start of the file. For long files, pass offset (1-based line number) and limit to read a part.
- Lines longer than 2000 characters are cut.
- Output is in cat -n format: the line number, a tab, then the line. The line-number prefix is not part of the file: never copy it into Edit's old_string.
- Text files only: binary files such as images and archives are refused. Use LS, not Read, for directories.
- Reading a file is required before editing or overwriting it with Edit or Write.
- It is fine to read several files in parallel in one response.`

func runRead(ctx context.Context, env *tool.Env, in ReadInput) (tool.Result, error) {
	if strings.TrimSpace(in.FilePath) == "" {
		return tool.Errorf("file_path is empty. Give the path of the file to read."), nil
	}
	if in.Offset < 0 || in.Limit < 0 {
		return tool.Errorf("offset and limit must not be negative (got offset=%d, limit=%d). offset is the 1-based line to start at.", in.Offset, in.Limit), nil
	}
	path := env.Abs(in.FilePath)
	var data []byte
	if env.Editor != nil {
		var res tool.Result
		var ok, stream bool
		if data, res, ok, stream = readInEditor(ctx, env, path); stream {
			return readStream(ctx, env, path, in)
		} else if !ok {
			return res, nil
		}
	} else {
		fi, err := os.Stat(path)
		switch {
		case os.IsNotExist(err):
			return tool.Errorf("%s", notExist("File", path)), nil
		case err != nil:
			return tool.Errorf("Cannot read %s: %v", path, err), nil
		case fi.IsDir():
			return tool.Errorf("%s is a directory, not a file. Use LS to list its contents.", path), nil
		case !fi.Mode().IsRegular():
			return tool.Errorf("%s is not a regular file (%s); Read handles regular text files only.", path, fi.Mode().Type()), nil
		}
		if res, ok := binaryExt(path); !ok {
			return res, nil
		}
		if fi.Size() > readWholeMax {
			return readStream(ctx, env, path, in)
		}
		if data, err = readChecked(ctx, env, path); err != nil {
			return ioResult("read", path, err), nil
		}
	}
	if bytes.IndexByte(data[:min(len(data), binarySniffLen)], 0) >= 0 {
		return tool.Errorf("Cannot read %s: it is a binary file (it contains NUL bytes). Read handles text files only; use Bash (e.g. file, xxd | head) to inspect it.", path), nil
	}
	if env.Files != nil {
		env.Files.Record(path, data)
	}
	if len(data) == 0 {
		return tool.Result{Content: fmt.Sprintf("(The file %s exists but is empty.)", path)}, nil
	}

	lines := splitLines(string(data))
	start := max(in.Offset, 1)
	if start > len(lines) {
		return tool.Errorf("offset %d is past the end of %s, which has %s. Use a smaller offset.", in.Offset, path, plural(len(lines), "line")), nil
	}
	limit := in.Limit
	if limit == 0 {
		limit = readDefaultLimit
	}
	end := min(start-1+limit, len(lines))

	var b strings.Builder
	shown := start - 1
	for shown < end && b.Len() < readMaxOutput {
		numbered(&b, shown+1, lines[shown:shown+1])
		shown++
	}
	if rest := len(lines) - shown; rest > 0 {
		word := "lines"
		if rest == 1 {
			word = "line"
		}
		fmt.Fprintf(&b, "… %d more %s; use offset=%d to read further.\n", rest, word, shown+1)
	}
	return tool.Result{Content: b.String()}, nil
}
