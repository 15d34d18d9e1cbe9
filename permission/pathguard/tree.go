package pathguard

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// errStop ends a walk early.
var errStop = errors.New("stop")

// SecretBelow walks the tree at dir (a resolved directory; a file is checked
// on its own) without following symbolic links and returns why reading every
// file in it would read a secret (the first secret-looking name found), or
// "". skipHidden leaves out names starting with a dot and what is below
// them, as a reader that skips hidden files does (rg without --hidden).
// A tree of more than limit entries is not walked to the end: the answer is
// then a refusal, as nothing can be said about the rest.
func (g *Guard) SecretBelow(dir string, skipHidden bool, limit int) string {
	seen := 0
	var found string
	// Names decide, but for what lies under a secret place in home
	// (~/.ssh/…), which only a tree reaching into home can hold: only then
	// is each path's place looked at too.
	inHome := g.home != "" && (within(g.home, dir, false) || within(dir, g.home, false)) ||
		g.homeResolved != "" && (within(g.homeResolved, dir, false) || within(dir, g.homeResolved, false))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // an unreadable entry is not read by the command either
		}
		if p != dir && skipHidden && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		seen++
		if seen > limit {
			found = fmt.Sprintf("%s holds more than %d entries, too many to check for secrets", dir, limit)
			return errStop
		}
		r := secretName(d.Name())
		if r == "" && inHome {
			r = g.homeSecret(p)
		}
		if r != "" {
			found = fmt.Sprintf("%s (%s)", r, p)
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) && found == "" {
		return "" // a missing tree holds nothing to read
	}
	return found
}
