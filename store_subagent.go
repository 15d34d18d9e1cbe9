package nova

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/novacode/nova/session"
)

// subagentRecorder starts the transcript that keeps the conversation of
// subagent agentID (the Task tool's), beside the session's own:
// <session id>.<agentID>.jsonl, a session nova --resume takes like any
// other. Its header names the session that started it (the session's id
// now: a /resume switches it), the agent's id and type, the Task call's
// description and model, the model the subagent runs; ListSessions lists it
// under that session and nova -c never picks it. As for a new session, the
// file is created with the first record (session.Start), so a subagent that
// fails before its first message leaves nothing behind; path, the file it
// will be, is what event.SubagentRun.Transcript reports.
//
// The caller closes rec when the subagent ends; Session.Close closes those
// still open (a background subagent's), and closing twice is harmless. For
// an InMemory session it returns nil, "", nil: nothing is kept.
//
// Safe to call from several goroutines at once (subagents start in
// parallel), but not with s.mu held. An agentID must be new to the stored
// session, in this process and in earlier ones (a resumed session's
// subagents keep their files): one already used is an error wrapping
// fs.ErrExist, as is an id session.SubagentID refuses (letters, digits,
// '_' and '-' only).
func (s *Session) subagentRecorder(agentID, agentType, description, model string) (rec *session.Transcript, path string, err error) {
	if s.store == nil {
		return nil, "", nil
	}
	s.mu.Lock()
	parent := s.id
	s.mu.Unlock()
	return s.store.startSubagent(session.Record{
		Cwd: s.dir, Model: model, Provider: s.ep.Provider,
		Parent: parent, AgentID: agentID, AgentType: agentType, Description: description,
	})
}

// startSubagent starts the transcript of the subagent header describes.
func (o *openedSession) startSubagent(header session.Record) (*session.Transcript, string, error) {
	id, err := session.SubagentID(header.Parent, header.AgentID)
	if err != nil {
		return nil, "", fmt.Errorf("subagent transcript: %w", err)
	}
	o.subMu.Lock()
	defer o.subMu.Unlock()
	if o.closed {
		return nil, "", fmt.Errorf("subagent transcript %s: the session is closed", id)
	}
	// Start only creates the file at the first record, where an existing
	// one would fail the subagent's first message: say it now, while the
	// caller can still choose another id.
	path := filepath.Join(o.dir, id+".jsonl")
	if _, used := o.subagents[id]; used {
		return nil, "", fmt.Errorf("subagent transcript %s: %w", id, fs.ErrExist)
	}
	if _, err := os.Lstat(path); err == nil {
		return nil, "", fmt.Errorf("subagent transcript %s: %w", id, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("subagent transcript %s: %w", id, err)
	}
	t, err := session.Start(o.dir, id, header)
	if err != nil {
		return nil, "", err
	}
	if o.subagents == nil {
		o.subagents = map[string]*session.Transcript{}
	}
	o.subagents[id] = t
	return t, t.Path(), nil
}
