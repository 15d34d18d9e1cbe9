package pathguard

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// RecheckWalk implements tool.WalkGuard: it judges realDir as Recheck judges
// a read and returns the judge of the entries a walk finds below it. The
// walk opens every entry relative to its directory's descriptor without
// following a symbolic link, so an entry's real path is realDir plus its
// relative path: it is inside whatever realDir is inside, and of Recheck's
// checks only the secret ones can differ from realDir's. The judge looks at
// what could be a secret (a secret-looking name, a credentials place under
// home, a data directory's settings file) and hands exactly those entries
// to Recheck, approvals included; everything else passes without a
// filesystem call.
//
// It adds one rule Recheck does not have: a file with more than one hard
// link is refused unless approved by its own path. Recheck lets a named
// file with links be read, since the person or rule that named it judged
// that name; a walk names nothing, and another name of the file (a key
// under ~/.ssh, a .env) is invisible from this one.
func (g *Guard) RecheckWalk(realDir string, approved []string) (func(rel string, isDir bool, links uint64) error, error) {
	if err := g.Recheck(realDir, false, approved); err != nil {
		return nil, err
	}
	w := &walkJudge{g: g, dir: filepath.Clean(realDir), approved: approved}
	w.findPlaces()
	return w.check, nil
}

// walkJudge judges the entries below one directory.
type walkJudge struct {
	g        *Guard
	dir      string
	approved []string
	// places are the normalised relative paths (normName per component,
	// joined by "/") below dir that homeSecret or a data directory would
	// flag; maxDepth is their largest number of components. Deeper entries
	// lie below one of them, which the walk must have entered (approved)
	// or never reached.
	places   map[string]bool
	maxDepth int
	// all is set when dir itself lies in such a place: every entry is
	// handed to Recheck.
	all bool
}

// findPlaces fills places (see walkJudge) for the homes and data
// directories that dir lies in or above.
func (w *walkJudge) findPlaces() {
	add := func(parts []string) {
		if w.places == nil {
			w.places = map[string]bool{}
		}
		w.places[strings.Join(parts, "/")] = true
		w.maxDepth = max(w.maxDepth, len(parts))
	}
	for _, home := range []string{w.g.home, w.g.homeResolved} {
		if home == "" {
			continue
		}
		if below, ok := relParts(w.dir, home); ok {
			// dir is home or below it: the places of homeSecrets that
			// start with dir's own components.
			for _, s := range homeSecrets {
				switch {
				case len(s) <= len(below) && slices.Equal(s, below[:len(s)]):
					w.all = true
				case len(s) > len(below) && slices.Equal(s[:len(below)], below):
					add(s[len(below):])
				}
			}
		} else if above, ok := relParts(home, w.dir); ok {
			// Home lies below dir: every place, under home's own path.
			for _, s := range homeSecrets {
				add(append(slices.Clone(above), s...))
			}
		}
	}
	for _, d := range w.g.dataDirs {
		if d == "" {
			continue
		}
		if parts, ok := relParts(filepath.Join(d, "settings.json"), w.dir); ok && len(parts) > 0 {
			add(parts)
		}
	}
}

func (w *walkJudge) check(rel string, isDir bool, links uint64) error {
	if rel == "" || strings.ContainsRune(rel, 0) {
		return &RefusedError{Path: w.dir + "/" + rel, Reason: fmt.Sprintf("the entry %q has no usable name", rel)}
	}
	flagged := w.all || secretName(rel[strings.LastIndexAny(rel, `/\`)+1:]) != ""
	if !flagged && w.places != nil {
		if parts := nameParts(rel); len(parts) <= w.maxDepth {
			for i, c := range parts {
				parts[i] = normName(c)
			}
			flagged = w.places[strings.Join(parts, "/")]
		}
	}
	full := filepath.Join(w.dir, filepath.FromSlash(rel))
	if flagged {
		if err := w.g.Recheck(full, false, w.approved); err != nil {
			return err
		}
	}
	if !isDir && links > 1 && !slices.ContainsFunc(w.approved, func(a string) bool { return filepath.IsAbs(a) && filepath.Clean(a) == full }) {
		return &RefusedError{Path: full, Reason: fmt.Sprintf("it has %d hard links and was found by a search: another of its names, which the guard cannot see, may hold secrets. Name the file itself to read it", links)}
	}
	return nil
}
