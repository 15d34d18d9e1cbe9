package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/novacode/nova/llm"
)

// tailWindow is how much of a transcript's end summarize reads first; it
// doubles until the records it needs are in it.
const tailWindow = 64 << 10

// summarize reads what a listing needs from the two ends of a transcript,
// so listing many long sessions (and finding the one to continue) does not
// decode every message of every one: the header and the first prompt from
// the start, the time, cost and turn count from the end. It gives what
// Info would say from Load, except that damage in the middle of a file
// (which Load reports) goes unnoticed until the session is resumed.
func summarize(path string) (Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	header, prompt, err := summarizeHead(f)
	if err != nil {
		return Info{}, fmt.Errorf("summarize %s: %w", path, err)
	}
	end, err := summarizeTail(f, fi.Size())
	if err != nil {
		return Info{}, fmt.Errorf("summarize %s: %w", path, err)
	}
	return Info{
		Path: path, Created: header.Time, Updated: end.updated,
		FirstPrompt: prompt, Turns: end.turns, CostUSD: end.cost,
		Model: header.Model, Cwd: header.Cwd,
		Parent: header.Parent, AgentID: header.AgentID, AgentType: header.AgentType, Description: header.Description,
	}, nil
}

// summarizeHead returns the header and the first prompt a person typed,
// reading records from the start until it has found one (a session without
// one is read to its end, as Load would).
func summarizeHead(r io.Reader) (Record, string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		header  Record
		scratch []byte
		n       int
	)
	for {
		line, newline, err := readLine(br, &scratch)
		if err != nil && err != io.EOF {
			return header, "", err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			// Only role and content matter here, but a message is small
			// next to the tool results this never decodes.
			var rec Record
			if jerr := json.Unmarshal(line, &rec); jerr != nil || rec.Type == "" {
				if n == 0 {
					return header, "", errors.New("the header line is torn or invalid")
				}
				return header, "", nil // a torn line: the prompt, if any, is not in the file
			}
			if n == 0 {
				if rec.Type != TypeHeader {
					return header, "", fmt.Errorf("first record is %q, not a header", rec.Type)
				}
				header = rec
			}
			n++
			if rec.Type == TypeMessage && rec.Message != nil && rec.Message.Role == llm.RoleUser {
				if p := promptText(rec.Message); p != "" {
					return header, p, nil
				}
			}
		}
		if !newline || err == io.EOF {
			if n == 0 {
				return header, "", errors.New("empty file")
			}
			return header, "", nil
		}
	}
}

// tailSummary is what the end of a transcript says.
type tailSummary struct {
	updated time.Time
	cost    float64
	turns   int
}

// summarizeTail reads records backwards from the end. Turn numbers only
// grow in file order (a rewind record names an earlier turn, but the next
// run continues after the highest one), so the highest turn is the largest
// seen up to the last record that is not a rewind; the cost is the last
// usage record's running total; the time is the last record's.
func summarizeTail(f io.ReaderAt, size int64) (tailSummary, error) {
	var s tailSummary
	for window := int64(tailWindow); ; window *= 2 {
		start := max(0, size-window)
		buf := make([]byte, size-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return s, err
		}
		if start > 0 {
			// The first piece is the end of a line that began earlier.
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				continue
			}
			buf = buf[i+1:]
		}
		s = tailSummary{}
		var haveTime, haveCost, haveTurn, last bool
		last = true // the next non-blank line seen is the file's last
		for len(buf) > 0 && !(haveTime && haveCost && haveTurn) {
			i := bytes.LastIndexByte(bytes.TrimRight(buf, "\n"), '\n')
			line := buf[i+1:]
			buf = buf[:max(i, 0)]
			if len(bytes.TrimSpace(line)) == 0 {
				if i < 0 {
					break
				}
				continue
			}
			var rec struct {
				Type    string    `json:"type"`
				Time    time.Time `json:"time"`
				Turn    int       `json:"turn"`
				CostUSD float64   `json:"cost_usd"`
			}
			if err := json.Unmarshal(line, &rec); err != nil || rec.Type == "" {
				if last {
					last = false // a torn last line, as Load skips it
					if i < 0 {
						break
					}
					continue
				}
				return s, errors.New("an invalid record before the last line")
			}
			last = false
			if !haveTime && !rec.Time.IsZero() {
				s.updated, haveTime = rec.Time, true
			}
			if !haveCost && rec.Type == TypeUsage {
				s.cost, haveCost = rec.CostUSD, true
			}
			s.turns = max(s.turns, rec.Turn)
			if rec.Type != TypeRewind && rec.Turn > 0 {
				haveTurn = true
			}
			if i < 0 {
				break
			}
		}
		if (haveTime && haveCost && haveTurn) || start == 0 {
			return s, nil
		}
	}
}
