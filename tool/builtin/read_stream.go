package builtin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/novacode/nova/tool"
)

// readWholeMax is the largest file Read takes into memory whole; a larger
// one is streamed (readStream), so that a Read's memory does not grow with
// the file. A variable so that tests can stream small files.
var readWholeMax int64 = 8 << 20

// readStreamBuf is the stream's buffer: it bounds a Read's memory, with
// the output (readMaxOutput) and one cut line.
const readStreamBuf = 1 << 20

// readStream reads a file too large to hold, as runRead reads a small one:
// the same lines, numbers, cuts and notes. It reads the file once, counting
// lines up to offset, keeping the lines asked for and counting the rest (so
// that the note can say how many remain), and hashing it all for Edit and
// Write when it is small enough for them (readMaxFileSize).
func readStream(ctx context.Context, env *tool.Env, path string, in ReadInput) (tool.Result, error) {
	f, err := openRead(ctx, env, path)
	if err != nil {
		return ioResult("read", path, err), nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return tool.Errorf("Cannot read %s: %v", path, err), nil
	}
	if !fi.Mode().IsRegular() {
		return tool.Errorf("%s is not a regular file (%s); Read handles regular text files only.", path, fi.Mode().Type()), nil
	}
	var h hash.Hash
	if env.Files != nil && fi.Size() <= readMaxFileSize {
		h = sha256.New()
	}
	start := max(in.Offset, 1)
	limit := in.Limit
	if limit == 0 {
		limit = readDefaultLimit
	}
	end := start - 1 + limit // the last line to show

	var (
		out     strings.Builder
		buf     = make([]byte, readStreamBuf)
		no      = 1     // the number of the line being read
		line    []byte  // the shown line being read: its first lineMax+1 bytes
		lineLen int     // and its whole length
		lastCR  bool    // whether its last byte so far is "\r"
		shown   = start // the next line to show
		size    int64
		last    byte = '\n'
		first        = true
	)
	showing := func() bool { return no == shown && shown <= end && out.Len() < readMaxOutput }
	for {
		if err := ctx.Err(); err != nil {
			return tool.Errorf("Read was cancelled."), nil
		}
		n, err := f.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if first {
				if bytes.IndexByte(chunk[:min(n, binarySniffLen)], 0) >= 0 {
					return tool.Errorf("Cannot read %s: it is a binary file (it contains NUL bytes). Read handles text files only; use Bash (e.g. file, xxd | head) to inspect it.", path), nil
				}
				first = false
			}
			if h != nil {
				h.Write(chunk)
			}
			size += int64(n)
			last = chunk[n-1]
			for len(chunk) > 0 {
				if !showing() {
					// Past what is shown, or before it: count lines, in
					// bulk while the chunk ends before the next line to show.
					nl := bytes.Count(chunk, []byte{'\n'})
					if no >= shown || no+nl < shown {
						no += nl
						break
					}
					for no < shown {
						chunk = chunk[bytes.IndexByte(chunk, '\n')+1:]
						no++
					}
					continue
				}
				i := bytes.IndexByte(chunk, '\n')
				part := chunk
				if i >= 0 {
					part = chunk[:i]
				}
				if keep := lineMax + 1 - len(line); keep > 0 {
					line = append(line, part[:min(keep, len(part))]...)
				}
				lineLen += len(part)
				if len(part) > 0 {
					lastCR = part[len(part)-1] == '\r'
				}
				if i < 0 {
					break
				}
				writeNumbered(&out, no, line, lineLen, lastCR)
				line, lineLen, lastCR = line[:0], 0, false
				chunk = chunk[i+1:]
				no++
				shown++
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return tool.Errorf("Cannot read %s: %v", path, err), nil
		}
	}
	// A last line without a newline.
	total := no - 1
	if last != '\n' {
		total = no
		if showing() {
			writeNumbered(&out, no, line, lineLen, lastCR)
			shown++
		}
	}
	if h != nil {
		var sum [32]byte
		h.Sum(sum[:0])
		env.Files.RecordSum(path, size, sum)
	}
	if size == 0 {
		return tool.Result{Content: fmt.Sprintf("(The file %s exists but is empty.)", path)}, nil
	}
	if start > total {
		return tool.Errorf("offset %d is past the end of %s, which has %s. Use a smaller offset.", in.Offset, path, plural(total, "line")), nil
	}
	if rest := total - (shown - 1); rest > 0 {
		word := "lines"
		if rest == 1 {
			word = "line"
		}
		fmt.Fprintf(&out, "… %d more %s; use offset=%d to read further.\n", rest, word, shown)
		fmt.Fprintf(&out, "(%s is %s, %s: read it in parts with offset and limit, or find lines with Grep.", path, sizeText(size), plural(total, "line"))
		if size > readMaxFileSize {
			fmt.Fprintf(&out, " Edit and Write handle files up to %d MiB.", readMaxFileSize>>20)
		}
		out.WriteString(")\n")
	}
	return tool.Result{Content: out.String()}, nil
}

// writeNumbered writes one line as numbered writes it: line holds its first
// bytes (at least lineMax+1 of them if it is longer), n is its length,
// cr whether it ends with "\r" (dropped).
func writeNumbered(b *strings.Builder, no int, line []byte, n int, cr bool) {
	if cr {
		n--
		if len(line) > n {
			line = line[:n]
		}
	}
	b.WriteString(fmt.Sprintf("%6d\t", no))
	if n <= lineMax {
		b.Write(line)
	} else {
		i := lineMax
		for i > 0 && !utf8.RuneStart(line[i]) {
			i--
		}
		b.Write(line[:i])
		fmt.Fprintf(b, "… [line truncated: %d more characters]", n-i)
	}
	b.WriteByte('\n')
}

// sizeText is a file size for people.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
