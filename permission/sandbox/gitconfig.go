package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A repository a command creates (git init, git clone, or files written to
// look like one) is not protected while that command runs: its config and
// hooks did not exist when the sandbox was set up. Once the command has
// ended, its config is checked against the variables that git init, git
// clone, git remote, git branch --set-upstream and git config user.* write,
// none of which makes git run anything; any other variable (core.fsmonitor,
// core.hooksPath, an alias, a filter, include.path, …) is taken out. Such a
// config is read with a parser of git's config syntax; one it cannot read
// is replaced whole.

// gitConfigEntry is one variable of a git config file.
type gitConfigEntry struct {
	section, subsection, key string // section and key lower case
	value                    string
	noValue                  bool // `key` alone: true
}

func (e gitConfigEntry) name() string {
	if e.section == "" {
		return e.key // before any section header: git reads it, uses it nowhere
	}
	if e.subsection != "" {
		return e.section + "." + e.subsection + "." + e.key
	}
	return e.section + "." + e.key
}

// safeConfig are the variables a new repository's config may keep, by
// "section.key", or "section.*.key" for any subsection.
var safeConfig = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.autocrlf": true, "core.eol": true, "core.safecrlf": true,
	"core.quotepath": true, "core.sparsecheckout": true, "core.sparsecheckoutcone": true,
	"core.checkstat": true, "core.trustctime": true, "core.untrackedcache": true, "core.abbrev": true,
	"extensions.objectformat": true, "extensions.refstorage": true, "extensions.worktreeconfig": true,
	"extensions.preciousobjects": true, "extensions.partialclone": true,
	"remote.*.url": true, "remote.*.pushurl": true, "remote.*.fetch": true, "remote.*.push": true,
	"remote.*.mirror": true, "remote.*.tagopt": true, "remote.*.promisor": true,
	"remote.*.partialclonefilter": true, "remote.*.prune": true,
	"branch.*.remote": true, "branch.*.merge": true, "branch.*.rebase": true,
	"branch.*.pushremote": true, "branch.*.description": true,
	"submodule.*.url": true, "submodule.*.active": true, "submodule.*.branch": true,
	"user.name": true, "user.email": true,
	"commit.gpgsign": true, "tag.gpgsign": true, "init.defaultbranch": true,
	"pull.rebase": true, "pull.ff": true, "push.default": true, "push.autosetupremote": true,
	"fetch.prune": true, "rerere.enabled": true, "color.ui": true, "gc.auto": true,
	"index.sparse": true, "index.version": true, "receive.denycurrentbranch": true,
	"lfs.repositoryformatversion": true,
}

func safeConfigEntry(e gitConfigEntry) bool {
	if e.section == "advice" && e.subsection == "" {
		return true // hints on or off
	}
	k := e.section + "." + e.key
	if e.subsection != "" {
		k = e.section + ".*." + e.key
	}
	return safeConfig[k]
}

// parseGitConfig reads a config file the way git does (git-config(1),
// "Syntax"): sections with optional quoted or dotted subsections, variables
// with or without a value, quoting, escapes, line continuations, comments.
func parseGitConfig(data []byte) ([]gitConfigEntry, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	p := &configParser{data: data, line: 1}
	var out []gitConfigEntry
	var section, subsection string
	for {
		c, ok := p.peek()
		if !ok {
			return out, nil
		}
		switch {
		case c == '\n' || c == ' ' || c == '\t' || c == '\r':
			p.next()
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			p.next()
			var err error
			if section, subsection, err = p.header(); err != nil {
				return nil, err
			}
		case isAlpha(c):
			e, err := p.variable()
			if err != nil {
				return nil, err
			}
			e.section, e.subsection = section, subsection
			out = append(out, e)
		default:
			return nil, p.errorf("unexpected %q", c)
		}
	}
}

type configParser struct {
	data []byte
	pos  int
	line int
}

func (p *configParser) peek() (byte, bool) {
	if p.pos >= len(p.data) {
		return 0, false
	}
	return p.data[p.pos], true
}

func (p *configParser) next() (byte, bool) {
	c, ok := p.peek()
	if ok {
		p.pos++
		if c == '\n' {
			p.line++
		}
	}
	return c, ok
}

func (p *configParser) skipLine() {
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return
		}
	}
}

func (p *configParser) errorf(format string, args ...any) error {
	return fmt.Errorf("git config line %d: %s", p.line, fmt.Sprintf(format, args...))
}

var errConfigEOF = errors.New("unexpected end of file")

// header reads a section header after its '['.
func (p *configParser) header() (section, subsection string, err error) {
	var name strings.Builder
	for {
		c, ok := p.next()
		if !ok {
			return "", "", p.errorf("section header: %v", errConfigEOF)
		}
		switch {
		case c == ']':
			s := strings.ToLower(name.String())
			if s == "" {
				return "", "", p.errorf("empty section name")
			}
			// The old [section.subsection] form.
			if sec, sub, ok := strings.Cut(s, "."); ok {
				return sec, sub, nil
			}
			return s, "", nil
		case c == ' ' || c == '\t':
			sub, err := p.extendedHeader()
			if err != nil {
				return "", "", err
			}
			s := strings.ToLower(name.String())
			if s == "" || strings.Contains(s, ".") {
				return "", "", p.errorf("bad section name %q", s)
			}
			return s, sub, nil
		case isAlnum(c) || c == '-' || c == '.':
			name.WriteByte(c)
		default:
			return "", "", p.errorf("bad character %q in a section name", c)
		}
	}
}

// extendedHeader reads ` "subsection"]` after a section name.
func (p *configParser) extendedHeader() (string, error) {
	for {
		c, ok := p.next()
		if !ok {
			return "", p.errorf("section header: %v", errConfigEOF)
		}
		if c == ' ' || c == '\t' {
			continue
		}
		if c != '"' {
			return "", p.errorf("expected a quoted subsection")
		}
		break
	}
	var sub strings.Builder
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return "", p.errorf("unterminated subsection")
		}
		switch c {
		case '"':
			if c, ok := p.next(); !ok || c != ']' {
				return "", p.errorf("expected ] after the subsection")
			}
			return sub.String(), nil
		case '\\':
			c, ok = p.next()
			if !ok || c == '\n' {
				return "", p.errorf("unterminated subsection")
			}
		}
		sub.WriteByte(c)
	}
}

// variable reads `name`, `name = value` or `name` and a comment.
func (p *configParser) variable() (gitConfigEntry, error) {
	var name strings.Builder
	for {
		c, ok := p.peek()
		if !ok || !(isAlnum(c) || c == '-') {
			break
		}
		name.WriteByte(c)
		p.next()
	}
	e := gitConfigEntry{key: strings.ToLower(name.String())}
	for {
		c, ok := p.peek()
		switch {
		case !ok || c == '\n':
			e.noValue = true
			return e, nil
		case c == ' ' || c == '\t' || c == '\r':
			p.next()
		case c == '#' || c == ';':
			p.skipLine()
			e.noValue = true
			return e, nil
		case c == '=':
			p.next()
			v, err := p.value()
			e.value = v
			return e, err
		default:
			return e, p.errorf("bad character %q after variable %s", c, e.key)
		}
	}
}

// value reads a value up to the end of its line, as git's parse_value:
// leading and trailing blanks dropped, blanks inside kept, quotes and
// escapes applied, a backslash at the end of a line continuing it.
func (p *configParser) value() (string, error) {
	var b strings.Builder
	quoted := false
	space := 0 // blanks seen but not yet written
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			if quoted {
				return "", p.errorf("unterminated quote")
			}
			return b.String(), nil
		}
		if !quoted && (c == '#' || c == ';') {
			p.skipLine()
			return b.String(), nil
		}
		if !quoted && (c == ' ' || c == '\t' || c == '\r') {
			if b.Len() > 0 {
				space++
			}
			continue
		}
		for ; space > 0; space-- {
			b.WriteByte(' ')
		}
		switch c {
		case '\\':
			c, ok = p.next()
			switch {
			case !ok:
				return "", p.errorf("backslash at the end of the file")
			case c == '\n':
				continue
			case c == 't':
				c = '\t'
			case c == 'b':
				c = '\b'
			case c == 'n':
				c = '\n'
			case c == '\\' || c == '"':
			default:
				return "", p.errorf("bad escape \\%c", c)
			}
			b.WriteByte(c)
		case '"':
			quoted = !quoted
		default:
			b.WriteByte(c)
		}
	}
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

// sanitizeGitConfig returns the config data without the variables a new
// repository may not keep, and their names ("" and all of them, for a
// file that cannot be parsed: then the result is the minimal config git
// init writes for a repository of that kind).
func sanitizeGitConfig(data []byte, bare bool) (clean []byte, removed []string) {
	entries, err := parseGitConfig(data)
	if err != nil {
		return minimalGitConfig(bare), []string{"everything (" + err.Error() + ")"}
	}
	var kept []gitConfigEntry
	for _, e := range entries {
		if safeConfigEntry(e) {
			kept = append(kept, e)
		} else if !slices.Contains(removed, e.name()) {
			removed = append(removed, e.name())
		}
	}
	if len(removed) == 0 {
		return data, nil
	}
	return formatGitConfig(kept), removed
}

func minimalGitConfig(bare bool) []byte {
	return fmt.Appendf(nil, "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = %v\n\tlogallrefupdates = true\n", bare)
}

// formatGitConfig writes entries back in git's syntax, values quoted.
func formatGitConfig(entries []gitConfigEntry) []byte {
	var b bytes.Buffer
	var sec, sub string
	for i, e := range entries {
		if i == 0 || e.section != sec || e.subsection != sub {
			sec, sub = e.section, e.subsection
			if sub == "" {
				fmt.Fprintf(&b, "[%s]\n", sec)
			} else {
				fmt.Fprintf(&b, "[%s \"%s\"]\n", sec, strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(sub))
			}
		}
		if e.noValue {
			fmt.Fprintf(&b, "\t%s\n", e.key)
			continue
		}
		v := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\b", `\b`).Replace(e.value)
		fmt.Fprintf(&b, "\t%s = \"%s\"\n", e.key, v)
	}
	return b.Bytes()
}

// commandKeys are variables whose value is a command git runs (first word
// a program, or with "!" a shell command), by "section.key" or
// "section.*.key". A program named by a path in the work tree is as much
// git's configuration as the config itself.
var commandKeys = map[string]bool{
	"core.fsmonitor": true, "core.pager": true, "core.editor": true, "core.sshcommand": true,
	"core.askpass": true, "core.gitproxy": true, "core.alternaterefscommand": true,
	"sequence.editor": true, "gpg.program": true, "gpg.*.program": true,
	"credential.helper": true, "credential.*.helper": true,
	"diff.external": true, "diff.*.textconv": true, "diff.*.command": true,
	"difftool.*.cmd": true, "mergetool.*.cmd": true, "merge.*.driver": true,
	"filter.*.clean": true, "filter.*.smudge": true, "filter.*.process": true,
	"alias.*": true, "pager.*": true, "uploadpack.packobjectshook": true,
	"remote.*.uploadpack": true, "remote.*.receivepack": true,
}

// configRef is a file or directory a git config makes git read as
// configuration or run, as written in it.
type configRef struct {
	path string
	// relativeTo says what a relative path is relative to: "config" (the
	// directory of the file that names it) or "worktree" (the top of the
	// work tree).
	relativeTo string
}

// gitConfigRefs lists what entries point at: include.path and
// includeIf.*.path (files read as more config), core.hooksPath (the hooks
// directory), and the program of a command-valued variable when it is
// named by a path. The caller resolves them.
func gitConfigRefs(entries []gitConfigEntry) []configRef {
	var out []configRef
	for _, e := range entries {
		if e.noValue || e.value == "" {
			continue
		}
		switch {
		case e.key == "path" && (e.section == "include" && e.subsection == "" || e.section == "includeif"):
			out = append(out, configRef{path: e.value, relativeTo: "config"})
		case e.section == "core" && e.subsection == "" && e.key == "hookspath":
			out = append(out, configRef{path: e.value, relativeTo: "worktree"})
		case isCommandKey(e):
			if p := commandProgram(e.value); strings.Contains(p, "/") {
				out = append(out, configRef{path: p, relativeTo: "worktree"})
			}
		}
	}
	return out
}

func isCommandKey(e gitConfigEntry) bool {
	switch e.section {
	case "alias":
		return strings.HasPrefix(strings.TrimSpace(e.value), "!")
	case "pager":
		return true
	case "core":
		if e.key == "fsmonitor" {
			switch strings.ToLower(e.value) {
			case "true", "false", "yes", "no", "on", "off", "1", "0":
				return false // the built-in daemon, or none
			}
		}
	}
	k := e.section + "." + e.key
	if e.subsection != "" {
		k = e.section + ".*." + e.key
	}
	return commandKeys[k]
}

// commandProgram returns the first word of a command as a shell would
// read it: after a leading "!", a quoted word unquoted. (Quotes in the
// config file itself are gone already: these are the shell's.)
func commandProgram(v string) string {
	v = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), "!"))
	if v == "" {
		return ""
	}
	if q := v[0]; q == '"' || q == '\'' {
		if end := strings.IndexByte(v[1:], q); end >= 0 {
			return v[1 : 1+end]
		}
		return v[1:]
	}
	if i := strings.IndexAny(v, " \t;|&"); i >= 0 {
		return v[:i]
	}
	return v
}
