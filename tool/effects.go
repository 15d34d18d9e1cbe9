package tool

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
)

// Effects is what one call will touch, worked out from its input before it
// runs. The executor lets calls whose effects do not conflict run side by
// side; everything else waits for exactly the earlier calls it conflicts with.
//
// Paths are absolute and clean; a directory stands for everything below it.
// The zero value touches nothing (echo, sleep, a question).
type Effects struct {
	// Exclusive: what the call touches cannot be bounded (a build, a test
	// run, a script, an interpreter, a command the analyser does not know).
	// It conflicts with every other call.
	Exclusive bool
	// Reads are the files and directories the call reads.
	Reads []string
	// Writes are the files and directories it creates, changes or removes.
	Writes []string
}

// Exclusive is the effect of a call whose reach the runtime cannot bound.
func Exclusive() Effects { return Effects{Exclusive: true} }

// ReadsEverything is the effect of a read-only call whose paths are not
// known: it may run beside other reads, never beside a write.
func ReadsEverything() Effects { return Effects{Reads: []string{string(filepath.Separator)}} }

// ReadOnly reports whether the call only reads.
func (e Effects) ReadOnly() bool { return !e.Exclusive && len(e.Writes) == 0 }

// Conflicts reports whether e and o must not run at the same time: either is
// exclusive, or one writes a path the other reads or writes, or a directory
// holding it, or a path below it.
func (e Effects) Conflicts(o Effects) bool {
	if e.Exclusive || o.Exclusive {
		return true
	}
	return overlapAny(e.Writes, o.Writes) || overlapAny(e.Writes, o.Reads) || overlapAny(o.Writes, e.Reads)
}

func overlapAny(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if Overlap(x, y) {
				return true
			}
		}
	}
	return false
}

// Overlap reports whether two clean absolute paths are the same, or one is a
// directory holding the other. Compared by components: /ws-old is not in /ws.
func Overlap(a, b string) bool {
	return Within(a, b) || Within(b, a)
}

// Within reports whether p is dir or below it (both clean and absolute).
func Within(p, dir string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// Resolved returns e with every path's symbolic links resolved, so that two
// names of one file are seen to conflict. A path that does not exist yet is
// resolved as far as it exists.
func (e Effects) Resolved() Effects {
	if e.Exclusive {
		return e
	}
	out := Effects{Reads: make([]string, 0, len(e.Reads)), Writes: make([]string, 0, len(e.Writes))}
	for _, p := range e.Reads {
		out.Reads = appendUnique(out.Reads, resolvePath(p)...)
	}
	for _, p := range e.Writes {
		out.Writes = appendUnique(out.Writes, resolvePath(p)...)
	}
	return out
}

// resolvePath returns p, and p with its symbolic links resolved when that
// differs. Both are kept: a write through a link changes the link's target,
// and removing the link changes the name.
func resolvePath(p string) []string {
	p = filepath.Clean(p)
	rest := ""
	for dir := p; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			r = filepath.Join(r, rest)
			if r != p {
				return []string{p, r}
			}
			return []string{p}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return []string{p}
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

func appendUnique(list []string, ps ...string) []string {
	for _, p := range ps {
		if !slices.Contains(list, p) {
			list = append(list, p)
		}
	}
	return list
}

// Effector is implemented by tools that can tell from one call's input what
// the call will touch.
type Effector interface {
	Effects(env *Env, input json.RawMessage) Effects
}

// EffectsOf returns what a call of t with input will touch: the tool's own
// account when it gives one; else, for a read-only tool, a read of
// everything; else exclusive.
func EffectsOf(t Tool, env *Env, input json.RawMessage) Effects {
	if e, ok := t.(Effector); ok {
		return e.Effects(env, input)
	}
	return defaultEffects(t.ReadOnly())
}

func defaultEffects(readOnly bool) Effects {
	if readOnly {
		return ReadsEverything()
	}
	return Exclusive()
}
