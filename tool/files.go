package tool

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// FileState remembers, per absolute path, what the file looked like when the
// model last read or wrote it. Edit and Write use it to refuse changing a file
// the model has not seen, or one that changed on disk since (a person or a
// formatter edited it), which would otherwise silently clobber that change.
//
// Safe for concurrent use: read-only tools run in parallel.
type FileState struct {
	mu    sync.Mutex
	files map[string]FileStamp
	locks *pathLocks // shared by every fork
}

// pathLocks serialises the changes of one file across agents.
type pathLocks struct {
	mu    sync.Mutex
	locks map[string]*pathLock
}

type pathLock struct {
	mu   sync.Mutex
	refs int
}

// FileStamp identifies one version of a file.
type FileStamp struct {
	ModTime time.Time
	Size    int64
	Sum     [32]byte
}

// NewFileState returns an empty tracker.
func NewFileState() *FileState {
	return &FileState{files: map[string]FileStamp{}, locks: &pathLocks{locks: map[string]*pathLock{}}}
}

// Fork returns the file state of another agent of the same session (a
// subagent): it starts knowing no file, so the agent must read a file
// before it edits it, and it shares the per-path locks, so two agents
// changing one file are serialised, and the second finds the file changed
// since it read it rather than overwriting the first's change.
func (s *FileState) Fork() *FileState {
	return &FileState{files: map[string]FileStamp{}, locks: s.locks}
}

// Lock holds path against changes by any agent of the session until the
// returned function is called: Edit and Write hold it from the staleness
// check to the write.
func (s *FileState) Lock(path string) (unlock func()) {
	ls := s.locks
	ls.mu.Lock()
	l := ls.locks[path]
	if l == nil {
		l = &pathLock{}
		ls.locks[path] = l
	}
	l.refs++
	ls.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		ls.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(ls.locks, path)
		}
		ls.mu.Unlock()
	}
}

// Record notes that the model has seen path with content data.
func (s *FileState) Record(path string, data []byte) {
	st := FileStamp{Sum: sha256.Sum256(data), Size: int64(len(data))}
	if fi, err := os.Stat(path); err == nil {
		st.ModTime = fi.ModTime()
	}
	s.mu.Lock()
	s.files[path] = st
	s.mu.Unlock()
}

// RecordSum is Record for a file read as a stream: its size and SHA-256
// computed while it was read.
func (s *FileState) RecordSum(path string, size int64, sum [32]byte) {
	st := FileStamp{Sum: sum, Size: size}
	if fi, err := os.Stat(path); err == nil {
		st.ModTime = fi.ModTime()
	}
	s.mu.Lock()
	s.files[path] = st
	s.mu.Unlock()
}

// Lookup returns the stamp recorded for path.
func (s *FileState) Lookup(path string) (FileStamp, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.files[path]
	return st, ok
}

// Changed reports whether current differs from what was recorded for path.
// Content decides: a touched file with identical bytes is not "changed".
func (s *FileState) Changed(path string, current []byte) bool {
	st, ok := s.Lookup(path)
	if !ok {
		return true
	}
	return st.Size != int64(len(current)) || st.Sum != sha256.Sum256(current)
}

func absPath(dir, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}
