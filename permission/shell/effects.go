package shell

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Effects is what a command line touches, as far as the analyser can bound
// it. The agent runs Bash calls whose effects do not conflict side by side,
// and the permission chain lets a command that only reads inside the
// workspace run without asking (Analysis.ReadOnly).
//
// Only programs the analyser knows are bounded, and only with the options
// their description lists: readers (cat, grep, ls, find, rg, git log, …)
// read their operands, or their working directory when they walk one;
// writers (rm, mv, cp, touch, mkdir, tee, sed -i, sort -o, tar -cf, dd,
// redirections, …) write their targets. Anything else — a build, a test
// run, a script, an interpreter, a wrapper, a network client, an option
// the description does not know, a path only known at run time, a
// background job — makes the line unbounded, and the paths such a command
// names are its possible reads and writes (MayRead, MayWrite): when in
// doubt, the call runs alone.
type Effects struct {
	// Unbounded gives why the line's reach cannot be listed; empty when
	// Reads and Writes are complete.
	Unbounded []string
	// Reads are the paths the line reads, absolute and clean.
	Reads []Read
	// Writes are the paths it creates, changes or removes, absolute and
	// clean (a directory stands for everything below it).
	Writes []string
	// MayRead and MayWrite are the paths named by commands whose effects
	// the analyser cannot bound (their operands and option values,
	// absolute): what such a command might read or write. The chain applies
	// its hard checks and deny rules to them as to Reads and Writes.
	MayRead, MayWrite []string
	// Unnamed are words that may name a file but are only known at run
	// time ($F, a path after a lost cd): no rule about paths can be checked
	// against them.
	Unnamed []string
	// Env names the environment variables the line reads, other than the
	// harmless ones (HOME, PWD, PATH, LANG, …): echo $GITHUB_TOKEN reads a
	// secret as surely as cat .env does.
	Env []string
}

// Read is one path a command reads.
type Read struct {
	Path string
	// Tree: everything below Path may be read (grep -r, rg, find, git).
	Tree bool
	// Contents: file contents are read, not only names and metadata
	// (cat and grep do; ls, find and stat do not).
	Contents bool
	// SkipsHidden: a Tree read leaves out names starting with a dot (rg
	// without --hidden).
	SkipsHidden bool
	// Glob: Path is an absolute pattern (cat src/*.go); what it reads is
	// what matches when the command runs. GlobDir gives the directory the
	// matches are in.
	Glob bool
}

// GlobDir is the directory a read's matches are in: its Path, or for a
// pattern the fixed directory in front of the first wildcard.
func (r Read) GlobDir() string {
	if !r.Glob {
		return r.Path
	}
	return globDir(r.Path)
}

// Bounded reports whether every path the line touches is listed.
func (e Effects) Bounded() bool { return len(e.Unbounded) == 0 }

// ReadOnly reports whether the command line only reads: every simple
// command is a known reader with no option that runs, writes or fetches
// anything, nothing is written (no redirection into a file), and nothing
// made the analysis unsure. Where it reads is in Effects.Reads; whether
// that is inside the workspace and free of secrets is the chain's call.
func (a *Analysis) ReadOnly() bool {
	return a.ParseError == "" && len(a.Unsafe) == 0 && len(a.Dangerous) == 0 && len(a.ProjectCode) == 0 &&
		a.Effects.Bounded() && len(a.Effects.Writes) == 0 && len(a.Writes) == 0 && len(a.Effects.Env) == 0
}

// harmlessEnv are variables whose values say nothing secret.
var harmlessEnv = set("HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "PATH", "LANG", "LANGUAGE", "TERM",
	"TMPDIR", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "UID", "EUID", "PPID", "RANDOM", "SECONDS", "LINENO",
	"BASH", "BASH_VERSION", "BASHPID", "SHLVL", "COLUMNS", "LINES", "IFS", "EPOCHSECONDS", "EPOCHREALTIME",
	"PIPESTATUS", "FUNCNAME", "GOPATH", "GOROOT", "GOOS", "GOARCH", "NODE_ENV", "CI", "EDITOR", "PAGER", "TZ")

// envRead notes a variable the line reads: one the script did not set
// itself comes from the environment.
func (z *analyzer) envRead(name string, st state) {
	if _, set := st.vars[name]; set || harmlessEnv[name] || strings.HasPrefix(name, "LC_") || name == "" {
		return
	}
	if c := name[0]; c >= '0' && c <= '9' || strings.ContainsRune("@*#?-$!_", rune(c)) && len(name) == 1 {
		return // positional and special parameters
	}
	if !slices.Contains(z.sink.a.Effects.Env, name) {
		z.sink.a.Effects.Env = append(z.sink.a.Effects.Env, name)
	}
}

func (z *analyzer) unbounded(format string, args ...any) {
	z.sink.add(&z.sink.a.Effects.Unbounded, "x", fmt.Sprintf(format, args...))
}

func (z *analyzer) addRead(r Read) {
	for i, x := range z.sink.a.Effects.Reads {
		if x.Path == r.Path {
			z.sink.a.Effects.Reads[i].Tree = x.Tree || r.Tree
			z.sink.a.Effects.Reads[i].Contents = x.Contents || r.Contents
			z.sink.a.Effects.Reads[i].SkipsHidden = x.SkipsHidden && r.SkipsHidden
			return
		}
	}
	z.sink.a.Effects.Reads = append(z.sink.a.Effects.Reads, r)
}

func (z *analyzer) unnamed(text string) {
	if !slices.Contains(z.sink.a.Effects.Unnamed, text) {
		z.sink.a.Effects.Unnamed = append(z.sink.a.Effects.Unnamed, text)
	}
}

func (z *analyzer) addWrite(p string) {
	if !slices.Contains(z.sink.a.Effects.Writes, p) {
		z.sink.a.Effects.Writes = append(z.sink.a.Effects.Writes, p)
	}
}

// cannotBound makes the line unbounded because of one command, whose
// operands and option values then are what it may read or write.
func (z *analyzer) cannotBound(c *cmd, format string, args ...any) {
	z.unbounded(format, args...)
	z.namedPaths(c)
}

// tableBounds makes the line unbounded when a command's options say its
// table cannot list what it touches: an option the table does not know,
// one that follows links out of a tree or widens its reach, or a word in
// option position only known at run time.
func (z *analyzer) tableBounds(c *cmd, p *program, r tableRun) {
	switch {
	case r.dynOpt:
		z.cannotBound(c, "%s with an option only known at run time", c.base)
		if p.anyAct(asRun | runs | asConfig) {
			z.unsafe("%s with an option only known at run time, which may make it run a program: %s", c.base, c.text)
		}
	case len(r.unknown) > 0:
		z.cannotBound(c, "%s %s is an option the analyser does not know", c.base, r.unknown[0])
	case r.has(follows):
		z.cannotBound(c, "%s follows symbolic links, which may lead out of the tree", c.base)
	case r.has(widens):
		z.cannotBound(c, "%s %s", c.base, p.why(widens, r))
	case r.has(asList):
		z.cannotBound(c, "%s reads the files a list names", c.base)
	}
}

// changeFile records a file a command deletes or changes (verb) and
// judges it, as writeFile does.
func (z *analyzer) changeFile(c *cmd, w wordInfo, what, verb string) {
	z.target(w, c.st, false, what, verb)
}

// writeFile records a file a command writes (Analysis.Writes and the
// effects) and judges it: protected places are Dangerous, places outside
// the workspace Unsafe.
func (z *analyzer) writeFile(c *cmd, w wordInfo, appendMode bool, what string) {
	z.target(w, c.st, appendMode, what, "writes")
}

// prefixWrite records the files a command writes under a name prefix
// (split's PREFIXaa, …): one write only known at run time, in the
// prefix's directory, which is judged as a write.
func (z *analyzer) prefixWrite(c *cmd, prefix wordInfo, what string) {
	z.sink.a.Writes = append(z.sink.a.Writes, Write{Path: prefix.text + "*", Dynamic: true})
	z.checkWrite(prefix, c.st, what)
	if !prefix.full {
		z.cannotBound(c, "%s writes files named after a prefix only known at run time", what)
		return
	}
	dir := path.Dir(prefix.val)
	if strings.HasSuffix(prefix.val, "/") {
		dir = prefix.val
	}
	if dirs := z.absPaths(dir, c.st); len(dirs) > 0 {
		for _, d := range dirs {
			z.addWrite(d)
		}
		return
	}
	z.cannotBound(c, "%s writes relative to a directory the analyser could not follow", what)
}

// namedPaths records what a command the analyser cannot bound names: each
// operand and option value that may be a path might be read or written.
func (z *analyzer) namedPaths(c *cmd) {
	fx := &z.sink.a.Effects
	add := func(w wordInfo) {
		vals, ok := z.wordPaths(c, w)
		if !ok {
			return
		}
		for _, v := range vals {
			if v == "-" || harmlessReads[v] || strings.Contains(v, "://") || isNumber(v) {
				continue
			}
			for _, a := range z.absPaths(v, c.st) {
				if !slices.Contains(fx.MayRead, a) {
					fx.MayRead = append(fx.MayRead, a)
					fx.MayWrite = append(fx.MayWrite, a)
				}
			}
		}
	}
	for _, i := range operandWords(c) {
		add(c.argv[i])
	}
	for _, w := range c.argv[1:] {
		if w.nonPath || !w.full {
			continue
		}
		// --file=x, -o/path, of=x (dd), @file (curl -d @f).
		for _, v := range attachedPaths(w.val) {
			add(wordInfo{text: v, lit: v, val: v, full: true})
		}
	}
}

// attachedPaths are the paths an option word carries: --file=x, -o/path.
func attachedPaths(opt string) []string {
	if c := pathCandidates(opt); len(c) > 1 {
		return c[1:]
	}
	return nil
}

// operandWords returns the indexes of a command's words that may be paths:
// not options (until --), not marked as text by the handler.
func operandWords(c *cmd) []int {
	var out []int
	dashdash := false
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		if w.nonPath {
			continue
		}
		if !dashdash && w.full && !w.glob {
			if w.val == "--" {
				dashdash = true
				continue
			}
			if strings.HasPrefix(w.val, "-") && w.val != "-" {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// readWord records a read of one word's path.
func (z *analyzer) readWord(c *cmd, w wordInfo, r Read) {
	if w.nonPath {
		return
	}
	vals, ok := z.wordPaths(c, w)
	if !ok {
		return
	}
	for _, v := range vals {
		if v == "-" || harmlessReads[v] {
			continue
		}
		rr := r
		rr.Glob = w.glob
		for _, a := range z.absPaths(v, c.st) {
			rr.Path = a
			z.addRead(rr)
			if r.Contents && c.idx >= 0 && c.idx < len(z.sink.meta) && z.secretPath(a) != "" {
				z.sink.meta[c.idx].secretOut = true // what it reads, it prints
			}
		}
	}
}

// wordPaths returns the values a path word may have; ok is false (and the
// line unbounded) when they are only known at run time or relative to a
// directory the analyser lost.
func (z *analyzer) wordPaths(c *cmd, w wordInfo) ([]string, bool) {
	var vals []string
	switch {
	case !w.dyn:
		vals = []string{w.lit}
		if w.glob {
			vals = []string{w.val}
		}
	case w.full:
		vals = []string{w.val}
	case len(w.alts) > 0:
		vals = w.alts
	default:
		z.unbounded("%s names a path only known at run time: %s", c.argv[0].val, w.text)
		z.unnamed(w.text)
		return nil, false
	}
	for _, v := range vals {
		if !strings.HasPrefix(v, "/") && len(c.st.cwds()) == 0 {
			z.unbounded("%s names %s relative to a directory the analyser could not follow", c.argv[0].val, v)
			z.unnamed(v)
			return nil, false
		}
	}
	return vals, true
}

// globDir is the fixed directory in front of a glob pattern's first
// wildcard: /ws/src/*.go → /ws/src, /ws/a/b*/c → /ws/a.
func globDir(p string) string {
	i := strings.IndexAny(p, "*?[{")
	if i < 0 {
		return p
	}
	return path.Dir(p[:i] + "x")
}

// hasAny reports whether a command has one of the words (an option spelled
// exactly, or --opt=value forms given whole).
func hasAny(c *cmd, words ...string) bool {
	for _, w := range c.argv[1:] {
		if slices.Contains(words, w.val) {
			return true
		}
	}
	return false
}

// optValue returns the word holding an option's value: a word of its own,
// or the part of the option's word after the option (--output=X, -oX).
func optValue(c *cmd, o opt) wordInfo {
	if o.valIdx < 0 || o.valIdx >= len(c.argv) {
		return wordInfo{full: true} // the option came last, without its value
	}
	w := c.argv[o.valIdx]
	w.nonPath = false // whatever judged it, the value is what it is
	if o.valIdx == o.idx {
		return valuePart(w, o.val)
	}
	return w
}

// valuePart is the word for the value at the end of w (--output=X, of=X,
// -oX): val is its known value. When w holds an expansion, the value's
// source text is what follows the = (or the whole word), and it may start
// with the unknown part.
func valuePart(w wordInfo, val string) wordInfo {
	v := w
	v.val, v.lit, v.alts, v.split, v.fields = val, val, nil, false, nil
	if w.full {
		v.text = val
		return v
	}
	v.text = w.text
	if _, after, ok := strings.Cut(w.text, "="); ok {
		v.text = after
	}
	v.unknownLead = strings.HasPrefix(v.text, "$") || strings.HasPrefix(v.text, "`") || strings.HasPrefix(v.text, `"$`)
	return v
}
