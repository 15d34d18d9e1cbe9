package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// modeBits are the parts of a file mode a snapshot keeps.
const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// Snapshots is the content-addressed store of a session's file snapshots,
// <dir>/<id>/snapshots/<sha256 hex>. Identical contents are stored once. It is
// safe for concurrent use.
type Snapshots struct {
	dir string
	err error // an invalid id, reported by Save and Apply

	mu   sync.Mutex
	done map[snapKey]bool
}

type snapKey struct {
	turn int
	path string
}

// NewSnapshots opens the store of session id in dir. Nothing is created until
// the first Save.
func NewSnapshots(dir, id string) *Snapshots {
	s := &Snapshots{dir: filepath.Join(dir, id, "snapshots"), done: map[snapKey]bool{}}
	if err := validID(id); err != nil {
		s.err = err
	}
	return s
}

// Dir is the directory holding the objects.
func (s *Snapshots) Dir() string { return s.dir }

// Seen marks the (turn, path) pairs of earlier snapshot records as done, so
// a resumed session does not snapshot them again.
func (s *Snapshots) Seen(records []Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range records {
		if r.Type == TypeSnapshot {
			s.done[snapKey{r.Turn, r.Path}] = true
		}
	}
}

// Save snapshots path before turn changes it. The first call for a (turn,
// path) pair stores the current content (or notes that the file does not
// exist) and returns the record to append, with ok true; later calls for the
// same pair return ok false and do nothing, because only the content before
// the turn's first change matters. path is made absolute so Apply does not
// depend on the working directory. Save follows symlinks: it stores what a
// write through path would replace.
func (s *Snapshots) Save(turn int, path string) (rec Record, ok bool, err error) {
	if s.err != nil {
		return Record{}, false, fmt.Errorf("snapshot %s: %w", path, s.err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Record{}, false, fmt.Errorf("snapshot %s: %w", path, err)
	}
	k := snapKey{turn, abs}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done[k] {
		return Record{}, false, nil
	}
	rec = Record{Type: TypeSnapshot, Turn: turn, Path: abs}
	f, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		s.done[k] = true
		return rec, true, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("snapshot %s: %w", abs, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Record{}, false, fmt.Errorf("snapshot %s: %w", abs, err)
	}
	if !fi.Mode().IsRegular() {
		return Record{}, false, fmt.Errorf("snapshot %s: not a regular file (%s)", abs, fi.Mode().Type())
	}
	hash, err := s.store(f)
	if err != nil {
		return Record{}, false, fmt.Errorf("snapshot %s: %w", abs, err)
	}
	rec.Hash, rec.Mode = hash, uint32(fi.Mode()&modeBits)
	s.done[k] = true
	return rec, true, nil
}

// store copies r into the store and returns its hash. The object is written
// to a temporary file, synced and renamed, so a crash never leaves a
// partial object under a hash name.
func (s *Snapshots) store(r io.Reader) (string, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), r); err != nil {
		tmp.Close()
		return "", err
	}
	hash := hex.EncodeToString(h.Sum(nil))
	obj := filepath.Join(s.dir, hash)
	if _, err := os.Stat(obj); err == nil {
		tmp.Close()
		return hash, nil // deduplicated
	}
	// The transcript record naming this object is synced at the turn's end;
	// the object must be durable by then.
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), obj); err != nil {
		return "", err
	}
	return hash, nil
}

// Restore is one step of a rewind: put Hash's content at Path with Mode, or
// delete Path when the file did not exist.
type Restore struct {
	Path   string
	Hash   string
	Mode   uint32
	Delete bool
}

// RewindPlan computes what restoring the files to "before turn N" means:
// for every path with a snapshot at a turn >= N, the earliest such snapshot
// holds the content to restore (or deletion when its Hash is ""). Files no
// turn >= N touched are left alone. The plan is sorted by path.
func RewindPlan(snapshots []Record, turn int) []Restore {
	first := map[string]Record{}
	for _, r := range snapshots {
		if r.Type != TypeSnapshot || r.Turn < turn {
			continue
		}
		if f, ok := first[r.Path]; !ok || r.Turn < f.Turn {
			first[r.Path] = r
		}
	}
	plan := make([]Restore, 0, len(first))
	for _, r := range first {
		plan = append(plan, Restore{Path: r.Path, Hash: r.Hash, Mode: r.Mode, Delete: r.Hash == ""})
	}
	slices.SortFunc(plan, func(a, b Restore) int { return strings.Compare(a.Path, b.Path) })
	return plan
}

// Apply carries out a plan. Every object is checked to exist before any file
// is touched; then each file is written back byte for byte through a
// temporary file in its directory and a rename (so a reader never sees half
// a file), with its mode, creating parent directories as needed, and files
// that did not exist are deleted. A path that is now a symlink is written
// through. Ownership, and directories a rewound turn created, are not
// restored. Failures do not stop the other steps; they are all returned.
func (s *Snapshots) Apply(plan []Restore) error {
	if s.err != nil {
		return fmt.Errorf("rewind files: %w", s.err)
	}
	for _, r := range plan {
		if r.Delete {
			continue
		}
		if !validHash(r.Hash) {
			return fmt.Errorf("rewind files: %s: malformed snapshot hash %q", r.Path, r.Hash)
		}
		if _, err := os.Stat(filepath.Join(s.dir, r.Hash)); err != nil {
			return fmt.Errorf("rewind files: %s: snapshot missing: %w", r.Path, err)
		}
	}
	var errs []error
	for _, r := range plan {
		if r.Delete {
			if err := os.Remove(r.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("rewind files: delete %s: %w", r.Path, err))
			}
			continue
		}
		if err := s.restore(r); err != nil {
			errs = append(errs, fmt.Errorf("rewind files: restore %s: %w", r.Path, err))
		}
	}
	return errors.Join(errs...)
}

func (s *Snapshots) restore(r Restore) error {
	target := r.Path
	if fi, err := os.Lstat(target); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if t, err := filepath.EvalSymlinks(target); err == nil {
			target = t
		}
	}
	src, err := os.Open(filepath.Join(s.dir, r.Hash))
	if err != nil {
		return err
	}
	defer src.Close()
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".nova-rewind-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), src); err != nil {
		tmp.Close()
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != r.Hash {
		tmp.Close()
		return fmt.Errorf("snapshot %s is corrupt (its content hashes to %s)", r.Hash, got)
	}
	mode := fs.FileMode(r.Mode) & modeBits
	if mode == 0 {
		mode = 0o644 // no mode recorded; a file Save could read was readable
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}

func validHash(h string) bool {
	if len(h) != sha256.Size*2 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
