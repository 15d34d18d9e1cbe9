package shell

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Options tells the analyser where it runs.
type Options struct {
	// Workspace is the absolute directory the command runs in. Paths
	// outside it are Unsafe; deleting it is Dangerous. Empty means
	// unknown: every absolute path then counts as outside.
	Workspace string
	// Home is the user's absolute home directory, used for ~ and $HOME
	// and for the dangerous-path list. Empty means unknown: ~ stays
	// dynamic.
	Home string
}

// Analysis is what Analyze finds in one command line.
type Analysis struct {
	// Commands lists every simple command that would run, in source order.
	Commands []Command
	// Writes lists the files the line certainly writes, creates, deletes
	// or changes: redirection targets and the targets of every known
	// writer (cp, rm, tee, sed -i, curl -o, sort -o, tar -cf, go build -o,
	// …). What a command only might write (an unknown program's operands)
	// is in Effects.MayWrite instead.
	Writes []Write
	// Unsafe gives the reasons the analyser cannot prove the command safe
	// with per-command rules: the chain asks.
	Unsafe []string
	// Dangerous gives the reasons from the built-in dangerous list: the
	// chain asks even in bypassPermissions mode.
	Dangerous []string
	// ProjectCode gives the commands that run code the workspace defines
	// (package.json scripts, Makefiles, tests, build scripts, scripts run
	// by path). Not a reason to ask by itself; see the package doc.
	ProjectCode []string
	// ParseError is non-empty when the command does not parse: the chain
	// asks. The other fields are then empty (Effects unbounded).
	ParseError string
	// Effects is what the line touches, for scheduling and for the
	// read-only rule; see Effects and ReadOnly.
	Effects Effects
}

// Command is one simple command.
type Command struct {
	// Args are the argv words after quote removal. A word that is not a
	// fixed string (it contains an expansion, a substitution, an unquoted
	// glob or brace pattern, or a tilde other than a leading ~ or ~/) is
	// kept as its source text and marked in Dynamic.
	Args []string
	// Dynamic has one entry per Args element: true if that word is not a
	// fixed string.
	Dynamic []bool
	// Assigns are the leading VAR=value assignments, as written.
	Assigns []string
	// Text is the command's source text, for messages.
	Text string
	// Program is the program's name without its directory (/bin/rm is
	// rm), from a variable's value when the analyser knows it (r=rm; $r);
	// "" when it is only known at run time.
	Program string
	// Canon are the command's words as deny rules see them: Program, then
	// the arguments with known values resolved, and for git without its
	// global options (git -C x push is git push). nil when Program is "".
	// CanonDynamic marks the words still only known at run time.
	Canon        []string
	CanonDynamic []bool
}

// Write is a file a command writes.
type Write struct {
	// Path is the literal target with ~ expanded, relative as written when
	// the command runs in the workspace, joined to the new directory after
	// a cd. When Dynamic is set it is the target's source text.
	Path string
	// Dynamic is true when the target is not a fixed path (an expansion,
	// or a relative path after a cd the analyser could not follow).
	Dynamic bool
	// Append is true for >> and &>> (and tee -a).
	Append bool
	// Remove is true when the target is deleted, not written (rm,
	// unlink, find -delete): removing one name of a hard-linked file
	// leaves the others as they were.
	Remove bool
}

// maxScriptDepth bounds how deeply strings run by `sh -c`, `su -c`, watch
// and the like are analysed in turn; deeper nesting is Unsafe.
const maxScriptDepth = 4

// maxNesting bounds the syntax nesting the walker follows (subshells in
// subshells, wrappers of wrappers); deeper nesting is Unsafe.
const maxNesting = 200

// Analyze parses src as a bash command line and analyses it. It never
// panics: an internal error is reported as an Unsafe reason.
func Analyze(src string, opt Options) (a *Analysis) {
	a = &Analysis{}
	defer func() {
		if r := recover(); r != nil {
			// A bug here must make the chain ask, not crash the agent
			// or, worse, let the command through unanalysed.
			a = &Analysis{Unsafe: []string{fmt.Sprintf("internal error while analysing the command: %v", r)},
				Effects: Effects{Unbounded: []string{"internal error while analysing the command"}}}
		}
	}()
	opt = cleanOptions(opt)
	f, err := parse(src)
	if err != nil {
		return &Analysis{ParseError: err.Error(), Effects: Effects{Unbounded: []string{"the command does not parse"}}}
	}
	s := newSink(a)
	z := newAnalyzer(src, opt, s, 0)
	z.checkSource()
	st := z.initialState()
	z.prepass(f)
	z.stmtList(f.Stmts, st)
	return a
}

// parse parses src as bash. The parser's own failures (including panics on
// pathological input) become errors.
func parse(src string) (f *syntax.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("parser failure: %v", r)
		}
	}()
	p := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
	return p.Parse(strings.NewReader(src), "")
}

// cleanOptions keeps only absolute directories: a relative workspace or
// home would make every containment check meaningless.
func cleanOptions(opt Options) Options {
	clean := func(p string) string {
		if p == "" || !strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
			return ""
		}
		return path.Clean(p)
	}
	return Options{Workspace: clean(opt.Workspace), Home: clean(opt.Home)}
}

// sink collects the findings of one Analyze call, shared by the analysers of
// nested scripts (sh -c strings) so that everything ends up in one list.
type sink struct {
	a    *Analysis
	meta []cmdMeta // parallel to a.Commands
	seen map[string]bool
	// downloaded are files written by a downloader (curl -o x, wget -O x,
	// curl … > x): running one of them later is a download-and-run.
	downloaded map[string]bool
	// downloadedDirs are directories a download filled (git clone URL):
	// what runs from them runs code from the network.
	downloadedDirs []string
	// tainted are files the line wrote with secrets in them (cp .env x,
	// cat key > x, zip s.zip .env): sending one is sending the secret.
	tainted map[string]bool
}

// cmdMeta is what the pipeline checks need to know about a command.
type cmdMeta struct {
	download bool // fetches data from the network (curl, wget, …)
	interp   bool // an interpreter reading its program from stdin
	shell    bool // a shell reading its script from stdin
	// sent are the files it sends over the network (curl -d @f, -T f);
	// sendsStdin: it sends its standard input (curl -d @-, nc host).
	sent       []wordInfo
	sendsStdin bool
	// decode: it decodes or decompresses its input (base64 -d, xxd -r,
	// gunzip): what it prints was hidden.
	decode bool
	// secretOut: it prints secrets (cat .env, env, gpg
	// --export-secret-keys).
	secretOut bool
	// lang is the language of an interpreter reading its program from
	// standard input (python, node, perl, …).
	lang string
	// socket: one of its words names /dev/tcp or /dev/udp (cp f
	// /dev/tcp/host/80): what it writes goes over the network.
	socket bool
	// extractDir is where an extraction writes (tar -x, unzip).
	extractDir string
}

func newSink(a *Analysis) *sink {
	return &sink{a: a, seen: map[string]bool{}, downloaded: map[string]bool{}, tainted: map[string]bool{}}
}

func (s *sink) add(list *[]string, kind, reason string) {
	if s.seen[kind+reason] {
		return
	}
	s.seen[kind+reason] = true
	*list = append(*list, reason)
}

// wasDownloaded reports whether the absolute path was downloaded by an
// earlier command of the line, or lies in a directory one filled.
func (s *sink) wasDownloaded(a string) bool {
	if s.downloaded[a] {
		return true
	}
	for _, d := range s.downloadedDirs {
		if within(a, d) {
			return true
		}
	}
	return false
}
