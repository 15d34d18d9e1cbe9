package nova

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/novacode/nova/session"
)

// SessionInfo summarises a stored session.
type SessionInfo struct {
	ID          string
	Created     time.Time
	Updated     time.Time
	FirstPrompt string
	Turns       int // model calls
	CostUSD     float64
	Model       string
	// Subagents are the transcripts of the subagents the session started
	// (the Task tool), oldest first; each is a session nova --resume takes
	// by its ID, <session id>.<agent id>.
	Subagents []SessionInfo
	// Parent, for a subagent, is the session that started it; AgentID is
	// its id in that session, AgentType its kind and Description the
	// Task call's description of its task.
	Parent, AgentID, AgentType, Description string
}

// Prompt is one turn as rewinding counts them: a prompt the person sent
// and everything the model did about it.
type Prompt struct {
	// N numbers the prompts still in the conversation from 1.
	N int
	// Text is what the person typed; Label its first line.
	Text, Label string
	// Files are the files changed from this prompt on, up to the next one.
	Files []string

	turn int
}

// FileRestore is one file a rewind restored, or deleted because it did
// not exist before.
type FileRestore struct {
	Path    string
	Deleted bool
}

// RewindReport says what a rewind did.
type RewindReport struct {
	SessionID string
	// Prompt is the turn rewound to (the conversation now ends before it).
	Prompt Prompt
	Files  []FileRestore
	// Conversation is false when only files were restored.
	Conversation bool
}

// ListSessions lists the stored sessions of the workspace dir, most recent
// first, each with its subagents' transcripts in Subagents. dataDir ""
// means the default.
func ListSessions(dir, dataDir string) ([]SessionInfo, error) {
	pdir, err := projectDir(dir, dataDir)
	if err != nil {
		return nil, err
	}
	return listIn(pdir)
}

// listIn lists the sessions of pdir with their subagents under them. A
// subagent whose parent is not listed (its transcript is gone or damaged)
// is listed on its own, so it can still be found and resumed.
func listIn(pdir string) ([]SessionInfo, error) {
	list, err := session.List(pdir)
	if err != nil {
		return nil, err
	}
	infos := make([]*SessionInfo, len(list))
	byID := make(map[string]*SessionInfo, len(list))
	for i, s := range list {
		infos[i] = &SessionInfo{ID: s.ID, Created: s.Created, Updated: s.Updated, FirstPrompt: s.FirstPrompt, Turns: s.Turns,
			CostUSD: s.CostUSD, Model: s.Model, Parent: s.Parent, AgentID: s.AgentID, AgentType: s.AgentType, Description: s.Description}
		byID[s.ID] = infos[i]
	}
	var top []*SessionInfo
	children := map[string][]*SessionInfo{}
	for _, in := range infos {
		if p := byID[in.Parent]; p != nil && !descends(byID, p, in) {
			children[in.Parent] = append(children[in.Parent], in)
		} else {
			top = append(top, in)
		}
	}
	out := make([]SessionInfo, len(top))
	for i, in := range top {
		out[i] = withSubagents(in, children)
	}
	return out, nil
}

// withSubagents copies in with its subagents under it, recursively (a
// subagent of a resumed subagent sits two levels down), oldest first: the
// order they were started in.
func withSubagents(in *SessionInfo, children map[string][]*SessionInfo) SessionInfo {
	out := *in
	for _, c := range children[in.ID] {
		out.Subagents = append(out.Subagents, withSubagents(c, children))
	}
	slices.SortFunc(out.Subagents, func(a, b SessionInfo) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// descends reports whether p is in or one of its descendants by the
// headers' Parent fields: headers written by hand could make a cycle, whose
// sessions would otherwise hang under each other and out of the listing.
func descends(byID map[string]*SessionInfo, p, in *SessionInfo) bool {
	for seen := 0; p != nil && seen <= len(byID); seen++ {
		if p == in {
			return true
		}
		p = byID[p.Parent]
	}
	return false
}

func projectDir(dir, dataDir string) (string, error) {
	dir, err := workspace(dir)
	if err != nil {
		return "", err
	}
	data, err := dataDirOf(dataDir)
	if err != nil {
		return "", err
	}
	return session.ProjectDir(data, dir), nil
}

// StoredPrompts returns the turns of a stored session of the workspace dir
// (id "" = the latest) and its id.
func StoredPrompts(dir, dataDir, id string) (string, []Prompt, error) {
	pdir, err := projectDir(dir, dataDir)
	if err != nil {
		return "", nil, err
	}
	if id, err = idOrLatest(pdir, id); err != nil {
		return "", nil, err
	}
	t, st, err := session.Open(pdir, id)
	if err != nil {
		return id, nil, fmt.Errorf("open session %s: %w", id, err)
	}
	defer t.Close()
	return id, promptsOf(st), nil
}

func idOrLatest(pdir, id string) (string, error) {
	if id != "" {
		return id, nil
	}
	latest, err := session.Latest(pdir)
	if err != nil {
		return "", err
	}
	return latest.ID, nil
}

func promptsOf(st *session.State) []Prompt {
	ps := session.Prompts(st)
	out := make([]Prompt, len(ps))
	for i, p := range ps {
		out[i] = Prompt{N: p.N, Text: p.Text, Label: p.Label(), Files: p.Files, turn: p.Turn}
	}
	return out
}

// promptNumber is the prompt a person means by turn n (from 1).
func promptNumber(prompts []Prompt, n int) (Prompt, error) {
	if n < 1 || n > len(prompts) {
		return Prompt{}, fmt.Errorf("there is no turn %d: the conversation has %d (one per prompt; list them with nova rewind --list)", n, len(prompts))
	}
	return prompts[n-1], nil
}

// Rewind restores the files a stored session of the workspace dir (id "" =
// the latest) changed from its nth prompt on to their content before it,
// and, unless filesOnly, truncates the conversation there, so that the
// next continuation starts before that prompt.
func Rewind(dir, dataDir, id string, n int, filesOnly bool) (RewindReport, error) {
	pdir, err := projectDir(dir, dataDir)
	if err != nil {
		return RewindReport{}, err
	}
	if id, err = idOrLatest(pdir, id); err != nil {
		return RewindReport{}, err
	}
	t, st, err := session.Open(pdir, id)
	if err != nil {
		return RewindReport{}, fmt.Errorf("open session %s: %w", id, err)
	}
	defer t.Close()
	rep := RewindReport{SessionID: id}
	p, err := promptNumber(promptsOf(st), n)
	if err != nil {
		return rep, fmt.Errorf("session %s: %w", id, err)
	}
	rep.Prompt = p
	if rep.Files, err = restore(pdir, id, st, p); err != nil {
		return rep, err
	}
	if !filesOnly {
		if err := t.Append(session.Record{Type: session.TypeRewind, Turn: p.turn}); err != nil {
			return rep, fmt.Errorf("truncate the conversation: %w", err)
		}
		if err := t.Sync(); err != nil {
			return rep, err
		}
		rep.Conversation = true
	}
	return rep, nil
}

func restore(pdir, id string, st *session.State, p Prompt) ([]FileRestore, error) {
	plan := session.RewindPlan(st.Snapshots, p.turn)
	if err := session.NewSnapshots(pdir, id).Apply(plan); err != nil {
		return nil, fmt.Errorf("restore files: %w", err)
	}
	out := make([]FileRestore, len(plan))
	for i, r := range plan {
		out[i] = FileRestore{Path: r.Path, Deleted: r.Delete}
	}
	return out, nil
}

// Sessions lists the workspace's stored sessions, most recent first.
func (s *Session) Sessions() ([]SessionInfo, error) {
	if s.store == nil {
		return nil, errInMemory
	}
	return listIn(s.store.dir)
}

var errInMemory = errors.New("this session keeps nothing on disk (InMemory)")

// Prompts returns the session's turns, one per prompt, for Rewind.
func (s *Session) Prompts() ([]Prompt, error) {
	s.running.Lock()
	defer s.running.Unlock()
	if s.store == nil {
		return nil, errInMemory
	}
	st, err := session.Load(s.store.rec.Path())
	if errors.Is(err, fs.ErrNotExist) && !s.store.rec.Exists() {
		return nil, nil // no prompt sent yet
	}
	if err != nil {
		return nil, err
	}
	return promptsOf(st), nil
}

// Rewind restores the files the session changed from its nth prompt on
// and truncates the conversation before it; the returned History is the
// conversation that remains.
func (s *Session) Rewind(n int) (RewindReport, *History, error) {
	s.running.Lock()
	defer s.running.Unlock()
	rep := RewindReport{SessionID: s.id}
	if s.store == nil {
		return rep, nil, errInMemory
	}
	st, err := session.Load(s.store.rec.Path())
	if errors.Is(err, fs.ErrNotExist) && !s.store.rec.Exists() {
		return rep, nil, errors.New("nothing to rewind yet: no prompt has been sent")
	}
	if err != nil {
		return rep, nil, err
	}
	p, err := promptNumber(promptsOf(st), n)
	if err != nil {
		return rep, nil, err
	}
	rep.Prompt = p
	if rep.Files, err = restore(s.store.dir, s.id, st, p); err != nil {
		return rep, nil, err
	}
	if err := s.store.rec.Append(session.Record{Type: session.TypeRewind, Turn: p.turn}); err != nil {
		return rep, nil, err
	}
	rep.Conversation = true
	if st, err = session.Load(s.store.rec.Path()); err != nil {
		return rep, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conv = stateConversation(s.id, s.system, st)
	return rep, historyOf(st, s.agent.Model, s.windowNow()), nil
}

// Resume switches the session to the stored session id of the workspace:
// its conversation continues with the next Send. It returns that
// conversation.
func (s *Session) Resume(id string) (*History, error) {
	s.running.Lock()
	defer s.running.Unlock()
	if s.store == nil {
		return nil, errInMemory
	}
	t, st, err := session.Open(s.store.dir, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	st0 := s.store
	_ = st0.rec.Close()
	st0.id, st0.state, st0.resumed = id, st, true
	st0.rec = t
	st0.snaps = session.NewSnapshots(st0.dir, id)
	st0.snaps.Seen(st.Snapshots)
	// The loop records into, and snapshots for, the session switched to.
	s.agent.Recorder = t
	s.agent.Snapshot = t.Snapshotter(st0.snaps)
	s.id = id
	s.plan.setID(id)
	s.conv = stateConversation(id, s.system, st)
	h := historyOf(st, s.agent.Model, s.windowNow())
	s.mu.Unlock()
	// Its context reaches the model with the next prompt.
	s.sessionStart(context.Background(), "resume")
	return h, nil
}

// windowNow is the context window known now, for a History's status line.
func (s *Session) windowNow() int {
	if s.agent.ContextWindow != nil {
		return s.agent.ContextWindow()
	}
	if s.agent.ModelInfo != nil {
		return s.agent.ModelInfo.ContextWindow
	}
	return 0
}

// Latest reports whether this session is the workspace's most recent one
// (nova -c continues it).
func (s *Session) Latest() bool {
	if s.store == nil {
		return false
	}
	latest, err := session.Latest(s.store.dir)
	return err == nil && latest.ID == s.id
}
