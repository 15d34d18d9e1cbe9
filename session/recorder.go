package session

import (
	"errors"
	"fmt"
	"os"

	"github.com/novacode/nova/llm"
)

// A Transcript is the loop's recorder (agent.Recorder): the methods below
// write the records Load reads back. session imports neither agent nor
// event, so they take llm values and plain fields. Like Append, they are
// safe for concurrent use: a tool's goroutine records snapshots while the
// loop records messages.

// Message records m, appended to the history during turn.
func (t *Transcript) Message(turn int, m llm.Message) error {
	return t.Append(Record{Type: TypeMessage, Turn: turn, Message: &m})
}

// Usage records the session's running totals after a model call of turn.
func (t *Transcript) Usage(turn int, total llm.Usage, costUSD float64) error {
	return t.Append(Record{Type: TypeUsage, Turn: turn, Usage: &total, CostUSD: costUSD})
}

// Boundary records a compaction in turn: from here on the conversation is
// msgs (the summary and re-injected context, then the kept tail). id and
// reason name it; the token counts are the estimates before and after.
func (t *Transcript) Boundary(turn int, id, reason string, tokensBefore, tokensAfter int64, msgs []llm.Message) error {
	return t.Append(Record{Type: TypeBoundary, Turn: turn, BoundaryID: id, Reason: reason,
		TokensBefore: tokensBefore, TokensAfter: tokensAfter, Messages: msgs})
}

// TurnEnd makes everything recorded so far durable (Sync).
func (t *Transcript) TurnEnd(int) error { return t.Sync() }

// End records that a run ended in turn, and why.
func (t *Transcript) End(turn int, reason string) error {
	return t.Append(Record{Type: TypeEnd, Turn: turn, Reason: reason})
}

// Snapshotter returns the loop's snapshot hook (agent.Agent.Snapshot): before
// a tool changes files, the prior content of each regular file among paths is
// saved in s (once per turn and path) and its snapshot record appended here.
// Directories, links and devices are skipped: only file contents are kept. A
// path that could not be kept does not stop the others; the errors are
// returned together, for the loop's warning event. It is safe for concurrent
// use.
func (t *Transcript) Snapshotter(s *Snapshots) func(turn int, paths []string) error {
	return func(turn int, paths []string) error {
		var errs []error
		for _, p := range paths {
			if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
				continue
			}
			rec, ok, err := s.Save(turn, p)
			if err != nil {
				errs = append(errs, fmt.Errorf("snapshot %s (a rewind cannot restore it): %w", p, err))
				continue
			}
			if ok {
				if err := t.Append(rec); err != nil {
					errs = append(errs, fmt.Errorf("record snapshot of %s: %w", p, err))
				}
			}
		}
		return errors.Join(errs...)
	}
}
