package session

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ErrNoSession is wrapped by Latest when dir holds no session.
var ErrNoSession = errors.New("no session to continue")

// Info summarizes one session for listings.
type Info struct {
	ID          string
	Path        string
	Created     time.Time // the header's time
	Updated     time.Time // the last record's time
	FirstPrompt string
	Turns       int
	CostUSD     float64
	Model       string
	Cwd         string // the header's working directory (slugs can collide)
	// Parent is set for a subagent's transcript: the session whose Task
	// call started it (see Record.Parent), with the subagent's AgentID,
	// AgentType and Description.
	Parent, AgentID, AgentType, Description string
}

// List summarizes every session in dir, most recently updated first,
// subagents' transcripts included (Info.Parent set). A
// directory that does not exist holds no sessions. Files that cannot be read
// or parsed are left out: one damaged transcript must not hide the others.
// Each transcript is read at its two ends only (see summarize), so listing
// costs little however long the sessions are.
func List(dir string) ([]Info, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []Info
	for _, e := range entries {
		name := e.Name()
		id, ok := strings.CutSuffix(name, ".jsonl")
		if !ok || !e.Type().IsRegular() || validID(id) != nil {
			continue
		}
		info, err := summarize(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if info.FirstPrompt == "" && info.Turns == 0 {
			// A header and nothing else: a run that failed before its
			// prompt was sent (earlier versions created the file at
			// start). Nothing to list, continue or resume.
			continue
		}
		info.ID = id
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return out, nil
}

// Latest is the most recently updated session in dir that is not a
// subagent's: a subagent that ran last (in the background, or after its
// parent's last record) is part of its parent's work, which is what a
// continuation picks up. With none, the error wraps ErrNoSession and names
// dir.
func Latest(dir string) (Info, error) {
	all, err := List(dir)
	if err != nil {
		return Info{}, err
	}
	for _, s := range all {
		if s.Parent == "" {
			return s, nil
		}
	}
	return Info{}, fmt.Errorf("%w in %s", ErrNoSession, dir)
}

// ProjectDir is where the sessions of workspace live:
// <dataDir>/projects/<slug>, the slug being workspace with every character
// outside [A-Za-z0-9._-] (path separators included) replaced by '-'. Slugs
// too long for a file name are shortened and made unique with a hash.
func ProjectDir(dataDir, workspace string) string {
	return filepath.Join(dataDir, "projects", slug(workspace))
}

func slug(workspace string) string {
	var b strings.Builder
	for _, r := range workspace {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := b.String()
	if strings.Trim(s, ".") == "" {
		// "", "." and ".." would name the projects directory or its parent.
		s = strings.Repeat("-", max(len(s), 1))
	}
	const maxLen = 200 // file names are limited to 255 bytes
	if len(s) > maxLen {
		sum := sha256.Sum256([]byte(workspace))
		s = s[:maxLen-17] + "-" + hex.EncodeToString(sum[:8])
	}
	return s
}

// NewID returns a fresh random session id (a version 4 UUID).
func NewID() string {
	var u [16]byte
	rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
