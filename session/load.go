package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/novacode/nova/llm"
)

// InterruptedResult is the content of the tool results Load adds for calls
// that never got one (the process died while they ran).
const InterruptedResult = "[interrupted: the session ended before this call finished]"

// State is what Load reads back from a transcript.
type State struct {
	Header Record
	// Messages is the conversation to resume: the last boundary's Messages
	// and the messages after it, with rewinds applied, repaired so that every
	// tool_use has a tool_result (see Repaired).
	Messages []llm.Message
	// Repaired counts the tool-result messages Load inserted into Messages
	// for calls that had none. They are not in the file; Load derives the
	// same ones every time, so a caller need not record them.
	Repaired int
	// Turns is the highest turn number recorded; the next run continues
	// at Turns+1.
	Turns int
	// Usage and CostUSD are the last running totals.
	Usage   llm.Usage
	CostUSD float64
	// LastCall is the last model call's usage (the difference of the last
	// two running totals): its prompt is what fills the context window
	// now, for a resumed session's status line.
	LastCall llm.Usage
	// Torn reports that a torn last line was found and skipped.
	Torn bool
	// Snapshots holds every snapshot record in file order, rewound turns
	// included (RewindPlan needs them to know what a file held before).
	Snapshots []Record
	// Live holds the message, boundary and snapshot records still in effect
	// after rewinds, in file order, including those before the last boundary
	// (a rewind to before a compaction brings them back). Messages is derived
	// from it; Turns lists from it.
	Live []Record
	// FirstPrompt is the text of the session's first user prompt, for
	// listings.
	FirstPrompt string
	// Ended reports that the last record is an end record: the last run
	// finished rather than crashed or was killed.
	Ended bool
	// Updated is the time of the last record.
	Updated time.Time
}

// Load reads the transcript at path. A torn last line (no trailing newline,
// or invalid JSON on the last line) is skipped and reported in State.Torn; an
// invalid line anywhere else is an error naming its line number, because
// records after it were written after the damage and cannot be trusted to
// make sense without it.
func Load(path string) (*State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	defer f.Close()
	st, _, err := load(f, path)
	return st, err
}

// tail describes how the file ends, for Open.
type tail struct {
	good           int64 // bytes up to the end of the last whole, valid line
	size           int64 // bytes read
	missingNewline bool  // the last valid line has no '\n'
}

func load(r io.Reader, path string) (*State, tail, error) {
	var (
		st      = &State{}
		end     tail
		br      = bufio.NewReaderSize(r, 256<<10)
		scratch []byte
		off     int64 // offset of the current line
		lineNo  int
		records int
		// A line that failed to parse is an error only if a non-blank line
		// follows it; if it turns out to be the last, it is a torn tail.
		bad     error
		badLine int
	)
	fail := func(n int, err error) (*State, tail, error) {
		return nil, tail{}, fmt.Errorf("load session %s: line %d: %w", path, n, err)
	}
	for {
		line, newline, rerr := readLine(br, &scratch)
		if rerr != nil && rerr != io.EOF {
			return nil, tail{}, fmt.Errorf("load session %s: %w", path, rerr)
		}
		if len(line) == 0 && !newline {
			break // EOF
		}
		lineNo++
		start := off
		off += int64(len(line))
		if newline {
			off++
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if !newline {
				break
			}
			continue // blank lines are never written; a trailing run of them is cut by Open
		}
		if bad != nil {
			return fail(badLine, bad)
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			bad, badLine = err, lineNo
			end.good = start
			if rerr == io.EOF {
				break
			}
			continue
		}
		if rec.Type == "" {
			bad, badLine = errors.New("record has no type"), lineNo
			end.good = start
			if rerr == io.EOF {
				break
			}
			continue
		}
		end.good, end.missingNewline = off, !newline
		if records == 0 && rec.Type != TypeHeader {
			return fail(lineNo, fmt.Errorf("first record is %q, not a header", rec.Type))
		}
		records++
		st.apply(&rec)
		if rerr == io.EOF {
			break
		}
	}
	st.Torn = bad != nil
	end.size = off
	if records == 0 {
		if st.Torn {
			return nil, tail{}, fmt.Errorf("load session %s: the header line is torn", path)
		}
		return nil, tail{}, fmt.Errorf("load session %s: empty file", path)
	}
	st.finish()
	return st, end, nil
}

// readLine returns the next line without its '\n' and whether it had one.
// The returned slice is valid until the next call.
func readLine(br *bufio.Reader, scratch *[]byte) ([]byte, bool, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		buf := append((*scratch)[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice('\n')
			buf = append(buf, line...)
		}
		*scratch = buf
		line = buf
	}
	if err == nil {
		return line[:len(line)-1], true, nil
	}
	return line, false, err
}

// apply folds one record into the state.
func (st *State) apply(r *Record) {
	st.Turns = max(st.Turns, r.Turn)
	if !r.Time.IsZero() {
		st.Updated = r.Time
	}
	st.Ended = r.Type == TypeEnd
	switch r.Type {
	case TypeHeader:
		if st.Header.Type == "" {
			st.Header = *r
		}
	case TypeMessage:
		if r.Message == nil {
			return
		}
		if st.FirstPrompt == "" && r.Message.Role == llm.RoleUser {
			st.FirstPrompt = promptText(r.Message)
		}
		st.Live = append(st.Live, *r)
	case TypeBoundary:
		st.Live = append(st.Live, *r)
	case TypeSnapshot:
		st.Snapshots = append(st.Snapshots, *r)
		st.Live = append(st.Live, *r)
	case TypeUsage:
		if r.Usage != nil {
			u, prev := *r.Usage, st.Usage
			st.LastCall = llm.Usage{
				InputTokens: u.InputTokens - prev.InputTokens, OutputTokens: u.OutputTokens - prev.OutputTokens,
				CacheReadTokens: u.CacheReadTokens - prev.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens - prev.CacheWriteTokens,
				Estimated: u.Estimated,
			}
			st.Usage = u
		}
		st.CostUSD = r.CostUSD
	case TypeRewind:
		st.Live = slices.DeleteFunc(st.Live, func(x Record) bool { return x.Turn >= r.Turn })
	}
}

// finish derives Messages from Live.
func (st *State) finish() {
	from := 0
	var msgs []llm.Message
	for i := len(st.Live) - 1; i >= 0; i-- {
		if st.Live[i].Type == TypeBoundary {
			from = i + 1
			msgs = append(msgs, st.Live[i].Messages...)
			break
		}
	}
	for _, r := range st.Live[from:] {
		if r.Type == TypeMessage {
			msgs = append(msgs, *r.Message)
		}
	}
	st.Messages, st.Repaired = repair(msgs)
}

// repair gives every tool_use a tool_result. Results have to be in the user
// message right after the assistant message that called, so a message with
// the missing ones is inserted there; the messages themselves are left
// byte-for-byte as they were sent.
func repair(msgs []llm.Message) ([]llm.Message, int) {
	var out []llm.Message
	added := 0
	for i := range msgs {
		m := &msgs[i]
		if out != nil {
			out = append(out, *m)
		}
		if m.Role != llm.RoleAssistant {
			continue
		}
		calls := m.ToolCalls()
		if len(calls) == 0 {
			continue
		}
		have := map[string]bool{}
		if i+1 < len(msgs) && msgs[i+1].Role == llm.RoleUser {
			for _, b := range msgs[i+1].Content {
				if b.Type == llm.BlockToolResult {
					have[b.ToolUseID] = true
				}
			}
		}
		var fill []llm.Block
		for _, c := range calls {
			if !have[c.ToolUseID] {
				fill = append(fill, llm.Block{Type: llm.BlockToolResult, ToolUseID: c.ToolUseID, Content: InterruptedResult, IsError: true})
			}
		}
		if fill == nil {
			continue
		}
		if out == nil {
			out = make([]llm.Message, i+1, len(msgs)+1)
			copy(out, msgs[:i+1])
		}
		out = append(out, llm.Message{Role: llm.RoleUser, Content: fill})
		added++
	}
	if out == nil {
		return msgs, 0
	}
	return out, added
}

// promptText is what a person typed in m: its text blocks without the
// <system-reminder> sections the loop adds.
func promptText(m *llm.Message) string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == llm.BlockToolResult {
			return "" // a tool-results message is not a prompt
		}
		if b.Type != llm.BlockText {
			continue
		}
		if t := strings.TrimSpace(stripReminders(b.Text)); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

// PromptText is what a person typed in m: its text without the
// <system-reminder> sections the loop adds (the preamble among them); ""
// for a message of tool results or of reminders only.
func PromptText(m llm.Message) string { return promptText(&m) }

func stripReminders(s string) string {
	const open, closing = "<system-reminder>", "</system-reminder>"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], closing)
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len(closing):]
	}
}

// Prompt is one prompt a person sent, with what the model did about it,
// for a rewind UI: a person thinks in the prompts they typed, not in the
// model calls each took.
type Prompt struct {
	// N numbers the prompts still in the conversation from 1, oldest first.
	N int
	// Turn is the model call that read the prompt first: rewinding to
	// before the prompt is rewinding to before this turn (RewindPlan and a
	// rewind record take it).
	Turn int
	// Text is what the person typed (without reminders).
	Text string
	// Files are the paths snapshotted (changed) from this prompt's first
	// turn up to the next prompt's, in the order they were first changed.
	Files []string
}

// Label is the prompt's first non-blank line.
func (p Prompt) Label() string {
	for _, l := range strings.Split(p.Text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// Prompts lists the prompts still in the conversation (rewound ones are
// gone), oldest first, including those before a compaction boundary.
//
// A prompt is the user message of text that opens its turn: the loop
// records a run's prompt first, with the turn of the model call that reads
// it, and every message it adds itself (tool results, reminders, the
// request to continue a cut answer) either follows that turn's answer or
// holds no text but reminders. Transcripts of every version carry this, so
// no record marks prompts.
func Prompts(st *State) []Prompt {
	var out []Prompt
	seen := map[int]bool{} // turns that already have a record
	for _, r := range st.Live {
		first := !seen[r.Turn]
		seen[r.Turn] = true
		switch r.Type {
		case TypeMessage:
			if !first || r.Message.Role != llm.RoleUser {
				continue
			}
			if text := promptText(r.Message); text != "" {
				out = append(out, Prompt{N: len(out) + 1, Turn: r.Turn, Text: text})
			}
		case TypeSnapshot:
			if len(out) == 0 {
				continue // a file changed before any prompt: nothing to list it under
			}
			p := &out[len(out)-1]
			if !slices.Contains(p.Files, r.Path) {
				p.Files = append(p.Files, r.Path)
			}
		}
	}
	return out
}
