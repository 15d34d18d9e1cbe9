package fleet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// Results is where a batch's results go: one TaskResult per line, each
// written whole as its task ends. A results file (OpenResults) is also what
// a batch resumes from: the tasks it holds as succeeded are Done.
type Results struct {
	mu   sync.Mutex
	w    io.Writer
	f    *os.File // nil when writing to a stream
	done map[string]bool

	// Torn is set when the file ended in a partial line (a crash in the
	// middle of a write), which OpenResults cut off.
	Torn bool
	// Unreadable are the numbers of complete lines that are not results;
	// they are kept, and their tasks are not Done.
	Unreadable []int
}

// NewResults writes results to w (standard output): nothing to resume from.
func NewResults(w io.Writer) *Results {
	return &Results{w: w, done: map[string]bool{}}
}

// OpenResults opens the results file at path for appending, creating it if
// need be, and reads which tasks it holds as succeeded (Done): re-running a
// batch with the same file skips them. A partial last line is cut off
// (Torn), so that the next result starts on a line of its own.
func OpenResults(path string) (*Results, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the results: %w", err)
	}
	r := &Results{w: f, f: f, done: map[string]bool{}}
	if err := r.read(); err != nil {
		f.Close()
		return nil, fmt.Errorf("read the results in %s: %w", path, err)
	}
	return r, nil
}

// read takes the succeeded ids from the file and cuts a partial last line.
func (r *Results) read() error {
	br := bufio.NewReaderSize(r.f, 64<<10)
	var whole int64 // bytes up to the end of the last complete line
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			if len(line) > 0 {
				r.Torn = true
				return r.f.Truncate(whole)
			}
			return nil
		}
		if err != nil {
			return err
		}
		whole += int64(len(line))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var head struct {
			ID      string `json:"id"`
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
			IsError bool   `json:"is_error"`
		}
		if json.Unmarshal(line, &head) != nil || head.ID == "" || head.Type != "result" {
			r.Unreadable = append(r.Unreadable, n)
			continue
		}
		if head.Subtype == SubtypeSuccess && !head.IsError {
			r.done[head.ID] = true
		}
	}
}

// Done reports whether the results held a successful line for the task
// when they were opened, or got one since.
func (r *Results) Done(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done[id]
}

// Write appends one result as one line, in one write: a crash leaves at
// most a partial last line, which the next OpenResults cuts off.
func (r *Results) Write(res TaskResult) error {
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encode the result of %s: %w", res.ID, err)
	}
	b = append(b, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.w.Write(b); err != nil {
		return fmt.Errorf("write the result of %s: %w", res.ID, err)
	}
	if res.Succeeded() {
		r.done[res.ID] = true
	}
	return nil
}

// Close makes a results file durable (fsync) and closes it; a stream is
// left open.
func (r *Results) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.f
	if f == nil {
		return nil
	}
	r.f = nil
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("save the results: %w", err)
	}
	return nil
}
