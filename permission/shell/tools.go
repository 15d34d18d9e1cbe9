package shell

import (
	"path"
	"strings"
)

func addToolHandlers() {
	for name, h := range map[string]handler{
		"find": hFind, "sed": hSed, "awk": hAwk, "grep": hGrep, "rg": hGrep, "fd": hFd, "sort": hSort,
		"tar": hTar, "zip": hZip, "man": hMan, "vim": hVim, "emacs": hEmacs, "ssh": hSSH, "scp": hScp,
		"rsync": hRsync, "go": hGo, "npm": hNpm, "pnpm": hNpm, "yarn": hNpm, "npx": hNpx, "pnpx": hNpx,
		"bunx": hNpx, "make": hMake, "cargo": hCargo, "pip": hPip, "docker": hDocker, "curl": hCurl,
		"wget": hWget, "wget2": hWget, "tee": hTee, "cp": hCopy, "mv": hCopy, "install": hCopy, "ln": hCopy,
		"git": hGit, "less": hLess, "more": hLess,
	} {
		handlers[name] = h
	}
	for _, name := range []string{"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "karma",
		"playwright", "cypress", "rspec", "rake", "bundle", "mvn", "gradle", "ant", "sbt", "lein", "mix", "dotnet",
		"bazel", "bazelisk", "buck", "buck2", "just", "task", "ninja", "meson", "cmake", "scons", "phpunit",
		"composer", "uv", "poetry", "pipenv", "hatch", "pdm", "nx", "turbo", "lerna", "eslint", "prettier",
		"webpack", "vite", "rollup", "next", "nuxt", "pre-commit", "lefthook", "terraform", "tofu", "pulumi",
		"cdk", "ansible-playbook", "tsx", "nodemon", "gulp", "grunt", "swift-build", "xcodebuild", "flutter",
		"dart", "zig", "tox4", "behave", "nosetests", "trial", "ctest", "maturin", "setup.py"} {
		if handlers[name] == nil {
			handlers[name] = hBuildTool
		}
	}
}

// hBuildTool: build and test runners run code the workspace defines
// (tests, build scripts, plugin configuration).
func hBuildTool(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if !(w.val == "--version" || w.val == "-V" || w.val == "--help" || w.val == "-h" || w.val == "version" || w.val == "help") {
			z.projectCode("%s runs code defined in the workspace (tests, build scripts or configuration)", c.base)
			return
		}
	}
	if len(c.argv) == 1 {
		z.projectCode("%s runs code defined in the workspace (tests, build scripts or configuration)", c.base)
	}
}

// findTakesArg are find primaries with one argument.
var findTakesArg = set("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
	"-lname", "-ilname", "-newer", "-anewer", "-cnewer", "-samefile", "-perm", "-type", "-xtype", "-user", "-group",
	"-uid", "-gid", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-used", "-links", "-inum",
	"-maxdepth", "-mindepth", "-fstype", "-context", "-printf", "-regextype", "-files0-from", "-D", "-O")

// findNoFilter are find primaries that do not narrow what matches.
var findNoFilter = set("-delete", "-depth", "-d", "-maxdepth", "-mindepth", "-xdev", "-mount", "-print", "-print0",
	"-follow", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", "-daystart", "-regextype", "-warn",
	"-nowarn", "-true", "-o", "-or", "-a", "-and", "-not", "!", "(", ")", ",", "-ls", "-H", "-L", "-P")

// hFind: -exec and friends run commands, -delete and -fprint change files.
// Deleting from /, ~ or above the workspace is Dangerous; deleting from the
// workspace root without any test (find . -delete) too.
func hFind(z *analyzer, c *cmd) {
	i := 1
	for i < len(c.argv) {
		a := c.argv[i].val
		if a == "-H" || a == "-L" || a == "-P" {
			i++
			continue
		}
		if a == "-D" || a == "-O" || strings.HasPrefix(a, "-O") && len(a) > 2 {
			if a == "-D" || a == "-O" {
				i++
			}
			i++
			continue
		}
		break
	}
	var starts []wordInfo
	for i < len(c.argv) {
		w := c.argv[i]
		a := w.val
		if w.full && (strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == ",") {
			break
		}
		starts = append(starts, w)
		i++
	}
	if len(starts) == 0 {
		starts = []wordInfo{{text: ".", lit: ".", val: ".", full: true}}
	}
	deletes, filtered := false, false
	for ; i < len(c.argv); i++ {
		w := c.argv[i]
		a := w.val
		if !w.full {
			z.unsafe("find with an expression only known at run time: %s", w.text)
			filtered = true
			continue
		}
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(c.argv) && !(c.argv[j].full && (c.argv[j].val == ";" || c.argv[j].val == "+")) {
				j++
			}
			z.unsafe("find %s runs a command for every file it finds: %s", a, c.text)
			if j > i+1 {
				if inner := canonical(path.Base(c.argv[i+1].val)); inner == "rm" || inner == "shred" || inner == "unlink" || inner == "srm" {
					deletes = true
				}
				z.inner(c, i+1, j, nil)
			}
			i = j
			continue
		case "-delete":
			deletes = true
			z.unsafe("find -delete deletes every file it matches: %s", c.text)
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			z.unsafe("find %s writes a file: %s", a, c.text)
			if i+1 < len(c.argv) {
				z.checkWrite(c.argv[i+1], c.st, "find "+a)
				i++
				if a == "-fprintf" && i+1 < len(c.argv) {
					i++
					c.argv[i].nonPath = true
				}
			}
			continue
		}
		if !findNoFilter[a] {
			filtered = true
		}
		if findTakesArg[a] && i+1 < len(c.argv) {
			i++
			switch a {
			case "-newer", "-anewer", "-cnewer", "-samefile", "-files0-from":
			default:
				c.argv[i].nonPath = true
			}
		}
	}
	if !deletes {
		return
	}
	for _, s := range starts {
		for _, v := range s.values() {
			a, ok := z.absPath(v, c.st)
			if ok && a == z.opt.Workspace {
				if !filtered {
					z.dangerous("find deletes everything in the workspace: %s", c.text)
				}
				continue
			}
			if r := z.destroyTarget(v, c.st); r != "" {
				z.dangerous("find deletes files in %s", r)
			}
		}
	}
}

var sedSpec = optSpec{flags: "nrEsuzb", withArg: "efl", optArg: "i", long: map[string]byte{"expression": 'r', "file": 'r',
	"in-place": 'o', "line-length": 'r', "null-data": 'n', "zero-terminated": 'n', "separate": 'n', "unbuffered": 'n',
	"regexp-extended": 'n', "silent": 'n', "quiet": 'n', "posix": 'n', "debug": 'n', "sandbox": 'n',
	"follow-symlinks": 'n', "binary": 'n', "help": 'n', "version": 'n'}}

// hSed: the e command and the e flag run commands, w/W and the w flag write
// files; -i edits its files (reported as Writes); -f reads a script the
// analyser cannot see.
func hSed(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, sedSpec)
	if p.dynOpt {
		z.unsafe("sed with an option only known at run time: %s", c.text)
	}
	sandbox := p.has("sandbox")
	var scripts []wordInfo
	for _, o := range p.opts {
		switch o.name {
		case "e", "expression":
			if o.valIdx >= 0 {
				w := c.argv[o.valIdx]
				if o.valIdx == o.idx {
					w.val = o.val
				}
				c.argv[o.valIdx].nonPath = true
				scripts = append(scripts, w)
			}
		case "f", "file":
			z.unsafe("sed -f runs a script from a file the analyser does not read: %s", c.text)
		}
	}
	files := p.operands
	if len(scripts) == 0 && !p.has("f", "file") && len(files) > 0 {
		c.argv[files[0]].nonPath = true
		scripts = append(scripts, c.argv[files[0]])
		files = files[1:]
	}
	for _, s := range scripts {
		if !s.full {
			z.unsafe("sed script only known at run time: %s", s.text)
			continue
		}
		r := parseSed(s.val)
		if r.err != "" {
			z.unsafe("sed script the analyser cannot read (%s): %s", r.err, s.text)
			continue
		}
		if !sandbox {
			if r.exec {
				z.unsafe("sed script runs shell commands (the e command or flag): %s", s.text)
			}
			for _, f := range r.writes {
				z.unsafe("sed script writes the file %s", f)
				z.checkWrite(wordInfo{text: f, lit: f, val: f, full: true}, c.st, "sed w")
			}
			for _, f := range r.reads {
				if why := z.outside(f, c.st); why != "" {
					z.unsafe("sed script reads a path outside the workspace: %s", why)
				}
			}
		}
	}
	if p.has("i", "in-place") {
		suffix := ""
		for _, o := range p.get("i", "in-place") {
			suffix = o.val
		}
		for _, i := range files {
			w := c.argv[i]
			c.argv[i].nonPath = true // judged as a write
			z.writeTarget(w, c.st, false, "sed -i")
			if suffix != "" && !strings.ContainsAny(suffix, "*/") && w.full {
				// The backup copy: sed -i.bak f writes f.bak too.
				b := w
				b.val += suffix
				b.text += suffix
				z.writeTarget(b, c.st, false, "sed -i")
			}
		}
	}
}

// sedResult is what a sed script does beyond printing.
type sedResult struct {
	exec   bool
	writes []string
	reads  []string
	err    string
}

// parseSed reads a GNU sed script closely enough to find the commands and
// flags that run programs or touch files. Anything it does not understand
// is an error (and so Unsafe).
func parseSed(s string) sedResult {
	var r sedResult
	i := 0
	skipSpace := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	toEOL := func() string {
		j := i
		for i < len(s) && s[i] != '\n' {
			i++
		}
		return strings.TrimSpace(s[j:i])
	}
	// delimited reads up to the unescaped delimiter d.
	delimited := func(d byte) bool {
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case d:
				i++
				return true
			case '\n':
				if d != '\n' {
					// GNU sed allows newlines in s replacement only when
					// escaped.
					return false
				}
			}
			i++
		}
		return false
	}
	address := func() bool {
		switch {
		case i < len(s) && s[i] >= '0' && s[i] <= '9':
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < len(s) && s[i] == '$':
			i++
		case i < len(s) && s[i] == '/':
			i++
			if !delimited('/') {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		case i+1 < len(s) && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !delimited(d) {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	for i < len(s) {
		skipSpace()
		if i >= len(s) {
			break
		}
		if s[i] == '\n' || s[i] == ';' {
			i++
			continue
		}
		if s[i] == '#' {
			toEOL()
			continue
		}
		if !address() {
			r.err = "unterminated address"
			return r
		}
		skipSpace()
		if i < len(s) && s[i] == ',' {
			i++
			skipSpace()
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if !address() {
				r.err = "unterminated address"
				return r
			}
			skipSpace()
		}
		for i < len(s) && (s[i] == '!' || s[i] == ' ') {
			i++
		}
		if i >= len(s) {
			r.err = "missing command"
			return r
		}
		c := s[i]
		i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'L', 'q', 'Q':
			skipSpace()
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case 'a', 'i', 'c':
			// Text to the end of the line, with \-newline continuing it.
			for i < len(s) {
				if s[i] == '\\' && i+1 < len(s) {
					i += 2
					continue
				}
				if s[i] == '\n' {
					break
				}
				i++
			}
		case ':':
			skipSpace()
			for i < len(s) && s[i] != '\n' && s[i] != ';' {
				i++
			}
		case 'b', 't', 'T':
			skipSpace()
			for i < len(s) && s[i] != '\n' && s[i] != ';' && s[i] != '}' {
				i++
			}
		case 'r', 'R':
			r.reads = append(r.reads, toEOL())
		case 'w', 'W':
			r.writes = append(r.writes, toEOL())
		case 'e':
			r.exec = true
			toEOL()
		case 'v':
			skipSpace()
			for i < len(s) && s[i] != '\n' && s[i] != ';' {
				i++
			}
		case 's', 'y':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
				r.err = "bad delimiter"
				return r
			}
			d := s[i]
			i++
			// Two sections: the pattern (or source characters), then the
			// replacement.
			for range 2 {
				if !delimited(d) {
					r.err = "unterminated " + string(c) + " command"
					return r
				}
			}
			if c == 'y' {
				break
			}
		flags:
			for i < len(s) {
				switch f := s[i]; {
				case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9':
					i++
				case f == 'e':
					r.exec = true
					i++
				case f == 'w':
					i++
					r.writes = append(r.writes, toEOL())
					break flags
				default:
					break flags
				}
			}
		default:
			r.err = "unknown command " + string(c)
			return r
		}
	}
	return r
}

// hAwk: system(), pipes and redirections in an awk program run commands or
// write files. Conservatively any program containing system, |, > or
// getline is Unsafe, as is a program from a file (-f) or an extension.
func hAwk(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "bcCgMNnOPrsStVh", withArg: "FvfeEil", optArg: "dDLop", long: map[string]byte{
		"field-separator": 'r', "assign": 'r', "file": 'r', "source": 'r', "exec": 'r', "include": 'r', "load": 'r',
		"sandbox": 'n', "characters-as-bytes": 'n', "traditional": 'n', "copyright": 'n', "dump-variables": 'o',
		"debug": 'o', "lint": 'o', "bignum": 'n', "use-lc-numeric": 'n', "non-decimal-data": 'n', "optimize": 'n',
		"no-optimize": 'n', "pretty-print": 'o', "profile": 'o', "posix": 'n', "re-interval": 'n', "version": 'n', "help": 'n'}})
	sandbox := p.has("S", "sandbox")
	var progs []wordInfo
	for _, o := range p.opts {
		switch o.name {
		case "f", "file", "E", "exec", "i", "include", "l", "load":
			z.unsafe("awk -%s runs a program or extension the analyser does not read: %s", o.name, c.text)
			if o.name == "f" || o.name == "file" || o.name == "E" || o.name == "exec" {
				progs = append(progs, wordInfo{full: true, val: "BEGIN{}"}) // the program is there
			}
		case "e", "source":
			if o.valIdx >= 0 {
				w := c.argv[o.valIdx]
				if o.valIdx == o.idx {
					w.val = o.val
				}
				c.argv[o.valIdx].nonPath = true
				progs = append(progs, w)
			}
		case "v", "assign", "F", "field-separator":
			if o.valIdx >= 0 {
				c.argv[o.valIdx].nonPath = true
			}
		case "o", "pretty-print", "p", "profile", "d", "dump-variables":
			if o.hasVal {
				z.checkWrite(wordInfo{text: o.val, lit: o.val, val: o.val, full: true}, c.st, "awk -"+o.name)
			}
		}
	}
	ops := p.operands
	if len(progs) == 0 && len(ops) > 0 {
		c.argv[ops[0]].nonPath = true
		progs = append(progs, c.argv[ops[0]])
		ops = ops[1:]
	}
	for _, i := range ops {
		if name, _, ok := strings.Cut(c.argv[i].val, "="); ok && isName(name) {
			c.argv[i].nonPath = true // var=value operand
		}
	}
	for _, w := range progs {
		if !w.full {
			z.unsafe("awk program only known at run time: %s", w.text)
			continue
		}
		if sandbox {
			continue
		}
		if strings.Contains(w.val, "system") || strings.ContainsAny(w.val, "|>") || strings.Contains(w.val, "getline") || strings.Contains(w.val, "@") {
			z.unsafe("awk program may run commands or write files (system, |, >, getline or @load): %s", w.text)
		}
	}
}

// hGrep: the pattern is text, not a path. rg --pre and --hostname-bin run
// programs.
func hGrep(z *analyzer, c *cmd) {
	spec := optSpec{flags: "abcEFGhHiIlLnoqrRsTUvVwxyzZP", withArg: "efmABCdDX", long: map[string]byte{
		"regexp": 'r', "file": 'r', "max-count": 'r', "after-context": 'r', "before-context": 'r', "context": 'r',
		"directories": 'r', "devices": 'r', "include": 'r', "exclude": 'r', "exclude-dir": 'r', "exclude-from": 'r',
		"label": 'r', "color": 'o', "colour": 'o', "binary-files": 'r', "group-separator": 'r'}}
	if c.base == "rg" {
		spec = optSpec{flags: "abcFhHiIlLnNopqsSuUvVwxz0", withArg: "efgmtTABCEjMrdQ", long: map[string]byte{
			"regexp": 'r', "file": 'r', "glob": 'r', "iglob": 'r', "type": 'r', "type-not": 'r', "type-add": 'r',
			"type-clear": 'r', "max-count": 'r', "after-context": 'r', "before-context": 'r', "context": 'r',
			"encoding": 'r', "threads": 'r', "max-columns": 'r', "replace": 'r', "max-depth": 'r', "maxdepth": 'r',
			"pre": 'r', "pre-glob": 'r', "hostname-bin": 'r', "sort": 'r', "sortr": 'r', "colors": 'r', "color": 'r',
			"engine": 'r', "path-separator": 'r', "context-separator": 'r', "field-match-separator": 'r',
			"field-context-separator": 'r', "dfa-size-limit": 'r', "regex-size-limit": 'r', "max-filesize": 'r',
			"ignore-file": 'r', "generate": 'r', "hyperlink-format": 'r', "files": 'n', "type-list": 'n'}}
		for _, w := range c.argv[1:] {
			if longFlag(w.val, "pre", "pre-glob") || longFlag(w.val, "hostname-bin") {
				z.unsafe("rg %s runs a program: %s", w.val, c.text)
			}
		}
	}
	p := getopt(c.argv, 1, spec)
	explicit := false
	for _, o := range p.opts {
		switch o.name {
		case "e", "regexp", "f", "file":
			explicit = true
		}
		if o.valIdx >= 0 && o.name != "f" && o.name != "file" && o.name != "exclude-from" && o.name != "ignore-file" {
			c.argv[o.valIdx].nonPath = true
		}
	}
	if !explicit && !p.has("files", "type-list") && len(p.operands) > 0 {
		c.argv[p.operands[0]].nonPath = true
	}
}

func hFd(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "HIuspLa0lqgFiS1", withArg: "xXetEdScjo", long: map[string]byte{
		"exec": 'r', "exec-batch": 'r', "extension": 'r', "type": 'r', "exclude": 'r', "max-depth": 'r', "min-depth": 'r',
		"exact-depth": 'r', "size": 'r', "changed-within": 'r', "changed-before": 'r', "color": 'r', "threads": 'r',
		"owner": 'r', "base-directory": 'r', "search-path": 'r', "format": 'r', "path-separator": 'r', "ignore-file": 'r',
		"max-results": 'r', "batch-size": 'r', "and": 'r', "hyperlink": 'o'}})
	for _, o := range p.opts {
		if o.name == "x" || o.name == "X" || o.name == "exec" || o.name == "exec-batch" {
			z.unsafe("fd %s runs a command for every file it finds: %s", optName(o), c.text)
			if o.valIdx >= 0 {
				end := o.valIdx + 1
				for end < len(c.argv) && c.argv[end].val != ";" {
					end++
				}
				z.inner(c, o.valIdx, end, nil)
			}
			return
		}
		if o.valIdx >= 0 && o.name != "base-directory" && o.name != "search-path" && o.name != "ignore-file" {
			c.argv[o.valIdx].nonPath = true
		}
	}
	if len(p.operands) > 0 {
		c.argv[p.operands[0]].nonPath = true
	}
}

func hSort(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "bcCdfghiMmnrRsuVz", withArg: "koStT", long: map[string]byte{"output": 'r',
		"compress-program": 'r', "key": 'r', "field-separator": 'r', "buffer-size": 'r', "temporary-directory": 'r',
		"files0-from": 'r', "parallel": 'r', "random-source": 'r', "batch-size": 'r', "sort": 'r', "check": 'o'}})
	for _, o := range p.opts {
		switch o.name {
		case "compress-program":
			z.unsafe("sort --compress-program runs a program: %s", c.text)
		case "o", "output":
			if o.valIdx >= 0 {
				z.checkWrite(c.argv[o.valIdx], c.st, "sort -o")
			}
		case "k", "key", "t", "field-separator", "S", "buffer-size":
			if o.valIdx >= 0 {
				c.argv[o.valIdx].nonPath = true
			}
		}
	}
}

// hTar: options that run programs are Unsafe, and so is extracting (what
// it writes is only known from the archive).
func hTar(z *analyzer, c *cmd) {
	argv := c.argv
	if len(argv) > 1 && argv[1].full && !strings.HasPrefix(argv[1].val, "-") && strings.Trim(argv[1].val, "abcdfhijklmnoprstuvwxzABCGIJKLMNOPSTUVWXZ") == "" {
		// Old style: tar xzf archive.
		argv = append([]wordInfo(nil), argv...)
		argv[1].val = "-" + argv[1].val
	}
	p := getopt(argv, 1, optSpec{flags: "AcdrtuxzZjJaBGhiklmMOpPRsSUvWw", withArg: "bCfFgHIKLNTVX", long: map[string]byte{
		"to-command": 'r', "use-compress-program": 'r', "checkpoint-action": 'r', "info-script": 'r', "new-volume-script": 'r',
		"rsh-command": 'r', "rmt-command": 'r', "extract": 'n', "get": 'n', "file": 'r', "directory": 'r', "force-local": 'n',
		"files-from": 'r', "exclude-from": 'r', "exclude": 'r', "transform": 'r', "xform": 'r', "create": 'n', "list": 'n',
		"append": 'n', "update": 'n', "diff": 'n', "compare": 'n', "delete": 'n', "owner": 'r', "group": 'r', "mode": 'r',
		"format": 'r', "checkpoint": 'o', "blocking-factor": 'r', "index-file": 'r', "volno-file": 'r', "label": 'r',
		"newer": 'r', "after-date": 'r', "newer-mtime": 'r', "suffix": 'r', "backup": 'o', "warning": 'r', "strip-components": 'r'}})
	for _, o := range p.opts {
		switch o.name {
		case "to-command", "use-compress-program", "I", "checkpoint-action", "info-script", "new-volume-script", "F", "rsh-command", "rmt-command":
			z.unsafe("tar --%s runs a program: %s", o.name, c.text)
		case "x", "extract", "get":
			z.unsafe("tar extracts files, which may land anywhere the archive says: %s", c.text)
		case "f", "file":
			if v := o.val; strings.Contains(v, ":") && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, ".") && !p.has("force-local") {
				z.unsafe("tar archive %s is on a remote host, reached through rsh: %s", v, c.text)
			}
			if o.valIdx >= 0 && p.has("c", "create", "r", "append", "u", "update") {
				w := c.argv[o.valIdx]
				if o.valIdx == o.idx {
					w.val = o.val
				}
				z.checkWrite(w, c.st, "tar")
			}
		case "transform", "xform", "exclude", "owner", "group", "mode", "format", "label", "warning":
			if o.valIdx >= 0 {
				c.argv[o.valIdx].nonPath = true
			}
		}
	}
}

func hZip(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if strings.HasPrefix(w.val, "-TT") || longFlag(w.val, "unzip-command") {
			z.unsafe("zip -TT runs a program to test the archive: %s", c.text)
		}
	}
}

func hMan(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		a := w.val
		if strings.HasPrefix(a, "-P") || strings.HasPrefix(a, "-H") || strings.HasPrefix(a, "-B") || longFlag(a, "pager") || longFlag(a, "html") || longFlag(a, "browser") {
			z.unsafe("man %s runs a pager or browser the command names: %s", a, c.text)
		}
	}
	c.noFiles = true
}

func hLess(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if strings.HasPrefix(w.val, "+") && strings.Contains(w.val, "!") {
			z.unsafe("%s %s runs a shell command: %s", c.base, w.val, c.text)
		}
	}
}

// hVim: -c, --cmd, +cmd, -S and -s run editor commands, which include :!.
func hVim(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		a := w.val
		if a == "-c" || a == "--cmd" || a == "-S" || a == "-s" || a == "-u" || a == "-U" || a == "-W" || a == "-w" ||
			strings.HasPrefix(a, "+") && len(a) > 1 && a[1] != '/' && !isNumber(a[1:]) || strings.HasPrefix(a, "--cmd=") ||
			a == "-e" || a == "-E" || a == "--headless" || a == "-l" {
			z.unsafe("%s %s runs editor commands, which can run programs: %s", c.base, a, c.text)
			return
		}
	}
}

func hEmacs(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		a := w.val
		if a == "-l" || a == "-f" || a == "-x" || a == "--batch" || a == "--script" || longFlag(a, "eval") || longFlag(a, "load") || longFlag(a, "funcall") || longFlag(a, "script") {
			z.unsafe("emacs %s runs Lisp code: %s", a, c.text)
			return
		}
	}
}

// sshOptUnsafe: ssh -o options that run local commands or read more
// configuration.
func sshOptUnsafe(v string) bool {
	l := strings.ToLower(strings.TrimSpace(v))
	for _, k := range []string{"proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "include", "match", "proxyjump", "remotecommand", "securitykeyprovider", "pkcs11provider"} {
		if strings.HasPrefix(l, k) {
			return true
		}
	}
	return false
}

func hSSH(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "46AaCfGgKkMNnqsTtVvXxY", withArg: "BbcDEeFIiJLlmOoPpQRSWw", posix: true})
	for _, o := range p.opts {
		switch {
		case o.name == "o" && sshOptUnsafe(o.val), o.name == "F", o.name == "J":
			z.unsafe("ssh -%s %s can run local commands or load other configuration: %s", o.name, o.val, c.text)
		}
		if o.valIdx >= 0 && o.name != "F" && o.name != "i" && o.name != "E" && o.name != "S" {
			c.argv[o.valIdx].nonPath = true
		}
	}
	for _, i := range p.operands {
		c.argv[i].nonPath = true // host and remote command
	}
}

func isRemote(v string) bool {
	i := strings.IndexByte(v, ':')
	return i > 0 && !strings.Contains(v[:i], "/")
}

func hScp(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "346ABCpqrRTOsv", withArg: "cDFiJlooPSX", long: nil})
	for _, o := range p.opts {
		switch {
		case o.name == "S", o.name == "o" && sshOptUnsafe(o.val), o.name == "F", o.name == "J":
			z.unsafe("%s -%s %s can run local commands: %s", c.base, o.name, o.val, c.text)
		}
	}
	for _, i := range p.operands {
		if isRemote(c.argv[i].val) {
			c.argv[i].nonPath = true
		}
	}
	if n := len(p.operands); n >= 2 {
		dst := c.argv[p.operands[n-1]]
		if !isRemote(dst.val) {
			z.checkWrite(dst, c.st, c.base)
		}
	}
}

func hRsync(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "vqcaRbuldLkKHpEAXogDtOJSnWxyzPhir0CFm8", withArg: "eBfMT", long: map[string]byte{
		"rsh": 'r', "rsync-path": 'r', "filter": 'r', "exclude": 'r', "include": 'r', "exclude-from": 'r', "include-from": 'r',
		"files-from": 'r', "backup-dir": 'r', "suffix": 'r', "temp-dir": 'r', "partial-dir": 'r', "compare-dest": 'r',
		"copy-dest": 'r', "link-dest": 'r', "log-file": 'r', "password-file": 'r', "chmod": 'r', "chown": 'r',
		"remote-option": 'r', "out-format": 'r', "info": 'r', "debug": 'r', "port": 'r', "timeout": 'r', "bwlimit": 'r',
		"max-size": 'r', "min-size": 'r', "usermap": 'r', "groupmap": 'r', "write-batch": 'r', "only-write-batch": 'r',
		"read-batch": 'r', "delete": 'n', "delete-before": 'n', "delete-during": 'n', "delete-delay": 'n', "delete-after": 'n',
		"delete-excluded": 'n', "del": 'n', "remove-source-files": 'n', "dry-run": 'n'}})
	for _, o := range p.opts {
		switch o.name {
		case "e", "rsh", "rsync-path", "remote-option", "M":
			z.unsafe("rsync %s runs a program or remote command the command names: %s", optName(o), c.text)
		case "filter", "exclude", "include", "out-format", "chmod", "info", "debug", "f", "chown", "usermap", "groupmap":
			if o.valIdx >= 0 {
				c.argv[o.valIdx].nonPath = true
			}
		}
	}
	for _, i := range p.operands {
		if isRemote(c.argv[i].val) {
			c.argv[i].nonPath = true
		}
	}
	n := len(p.operands)
	if n < 2 {
		return
	}
	dst := c.argv[p.operands[n-1]]
	if isRemote(dst.val) {
		return
	}
	if !p.has("n", "dry-run") {
		z.checkWrite(dst, c.st, "rsync")
		for _, o := range p.opts {
			if strings.HasPrefix(o.name, "del") {
				z.destroys(dst, c.st, "rsync --delete empties")
				break
			}
		}
	}
	if p.has("remove-source-files") {
		for _, i := range p.operands[:n-1] {
			z.destroys(c.argv[i], c.st, "rsync --remove-source-files deletes")
		}
	}
}

// hGo: -exec and -toolexec run programs around every build step; go env -w
// changes the configuration of every later go command; go run/test/generate
// run workspace code.
func hGo(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		a := strings.TrimPrefix(w.val, "-")
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if strings.HasPrefix(w.val, "-") && (name == "exec" || name == "toolexec" || name == "vettool" || name == "overlay") {
			z.unsafe("go -%s runs a program the command names: %s", name, c.text)
		}
	}
	sub := ""
	for _, w := range c.argv[1:] {
		if !strings.HasPrefix(w.val, "-") {
			sub = w.val
			break
		}
	}
	switch sub {
	case "env":
		for _, w := range c.argv[2:] {
			if w.val == "-w" || w.val == "-u" {
				z.unsafe("go env %s changes the configuration of every later go command: %s", w.val, c.text)
			}
		}
	case "run", "test", "generate", "tool", "build", "vet", "install":
		if sub == "build" || sub == "vet" || sub == "install" {
			return // compiles, but runs no workspace code (cgo aside)
		}
		z.projectCode("go %s runs code from the workspace", sub)
	}
}

var npmReadOnly = set("ls", "list", "ll", "la", "view", "v", "info", "show", "outdated", "search", "s", "se", "find",
	"help", "whoami", "ping", "doctor", "root", "prefix", "bin", "explain", "why", "fund", "docs", "home", "bugs", "repo",
	"audit", "licenses", "query", "-v", "--version", "-h", "--help", "get", "versions", "owner", "access", "team",
	"token", "profile", "sbom", "diff", "config", "c")

// hNpm: package scripts are workspace code; config set and --script-shell
// change what runs.
func hNpm(z *analyzer, c *cmd) {
	sub := ""
	subIdx := -1
	for i, w := range c.argv[1:] {
		if longFlag(w.val, "script-shell") || strings.HasPrefix(w.val, "--npm_config_") {
			z.unsafe("%s %s changes the shell that runs package scripts: %s", c.base, w.val, c.text)
		}
		if (w.val == "-c" || w.val == "--call" || strings.HasPrefix(w.val, "--call=")) && subIdx >= 0 && (sub == "exec" || sub == "x" || sub == "dlx") {
			z.unsafe("%s %s %s runs a shell command: %s", c.base, sub, w.val, c.text)
			if i+2 < len(c.argv) && w.val != "--call=" {
				z.scriptArg(c, c.argv[i+2], c.base+" "+sub+" -c")
			}
		}
		if sub == "" && !strings.HasPrefix(w.val, "-") {
			sub, subIdx = w.val, i+1
		}
	}
	if sub == "config" || sub == "c" || sub == "set" {
		if sub == "set" || subIdx+1 < len(c.argv) && set("set", "edit", "delete", "fix", "rm")[c.argv[subIdx+1].val] {
			z.unsafe("%s config changes the configuration of every later %s command (it can set the shell scripts run with): %s", c.base, c.base, c.text)
		}
		return
	}
	if npmReadOnly[sub] && !(c.base == "yarn" && sub == "") {
		return
	}
	if sub == "" && c.base != "yarn" && len(c.argv) > 1 {
		return
	}
	what := sub
	if (sub == "run" || sub == "run-script" || sub == "rum" || sub == "urn") && subIdx+1 < len(c.argv) && !strings.HasPrefix(c.argv[subIdx+1].val, "-") {
		what += " " + c.argv[subIdx+1].val
	}
	z.projectCode("%s %s runs package scripts defined in the workspace", c.base, what)
}

func hNpx(z *analyzer, c *cmd) {
	for i, w := range c.argv[1:] {
		if w.val == "-c" || w.val == "--call" {
			z.unsafe("%s -c runs a shell command: %s", c.base, c.text)
			if i+2 < len(c.argv) {
				z.scriptArg(c, c.argv[i+2], c.base+" -c")
			}
			return
		}
		if !strings.HasPrefix(w.val, "-") {
			break
		}
	}
	z.projectCode("%s runs a package's program, from the workspace or downloaded", c.base)
}

// hMake: Makefile recipes are workspace code; variable overrides on the
// command line can change any recipe (make test CC='sh -c …'), and --eval
// adds rules.
func hMake(z *analyzer, c *cmd) {
	z.projectCode("%s runs the recipes of the workspace's Makefile", c.base)
	p := getopt(c.argv, 1, optSpec{flags: "bBdeiknpqrRsStvwh", withArg: "CfIjlEoOWL", optArg: "", long: map[string]byte{
		"eval": 'r', "file": 'r', "makefile": 'r', "directory": 'r', "include-dir": 'r', "jobs": 'o', "load-average": 'o',
		"old-file": 'r', "assume-old": 'r', "new-file": 'r', "assume-new": 'r', "what-if": 'r', "output-sync": 'o', "debug": 'o'}})
	if p.has("E", "eval") {
		z.unsafe("%s --eval adds rules from the command line: %s", c.base, c.text)
	}
	for _, i := range p.operands {
		if name, _, ok := strings.Cut(c.argv[i].val, "="); ok && name != "" && !strings.Contains(name, "/") {
			z.unsafe("%s %s overrides a variable, which can change what any recipe runs: %s", c.base, c.argv[i].val, c.text)
		}
	}
}

func hCargo(z *analyzer, c *cmd) {
	sub := ""
	for _, w := range c.argv[1:] {
		if longFlag(w.val, "config") || w.val == "-Z" {
			z.unsafe("cargo %s changes cargo's configuration, which can name programs to run: %s", w.val, c.text)
		}
		if sub == "" && !strings.HasPrefix(w.val, "-") && !strings.HasPrefix(w.val, "+") {
			sub = w.val
		}
	}
	switch sub {
	case "build", "b", "check", "c", "test", "t", "run", "r", "bench", "doc", "d", "clippy", "fix", "install",
		"publish", "package", "rustc", "rustdoc", "miri", "nextest", "llvm-cov", "tarpaulin", "fuzz", "expand":
		z.projectCode("cargo %s runs code from the workspace (build scripts, tests or the program)", sub)
	}
}

func hPip(z *analyzer, c *cmd) {
	sub := ""
	for _, w := range c.argv[1:] {
		if !strings.HasPrefix(w.val, "-") {
			sub = w.val
			break
		}
	}
	switch sub {
	case "install", "wheel", "download":
		z.projectCode("pip %s runs the build scripts of the packages it handles", sub)
	case "config":
		for _, w := range c.argv[2:] {
			if w.val == "set" || w.val == "edit" || w.val == "unset" {
				z.unsafe("pip config %s changes the configuration of every later pip command: %s", w.val, c.text)
			}
		}
	}
}

// hDocker: a privileged container or one mounting /, the home directory,
// /etc or the Docker socket controls the host.
func hDocker(z *analyzer, c *cmd) {
	i := 1
	// Skip global options (docker --context x run …).
	for i < len(c.argv) && strings.HasPrefix(c.argv[i].val, "-") {
		if !strings.Contains(c.argv[i].val, "=") && (c.argv[i].val == "-H" || c.argv[i].val == "--host" || c.argv[i].val == "--context" || c.argv[i].val == "-c" || c.argv[i].val == "--config" || c.argv[i].val == "-l" || c.argv[i].val == "--log-level") {
			i++
		}
		i++
	}
	if i >= len(c.argv) {
		return
	}
	sub := c.argv[i].val
	if sub == "container" && i+1 < len(c.argv) {
		i++
		sub = c.argv[i].val
	}
	if sub != "run" && sub != "create" && sub != "exec" {
		return
	}
	boolOpts := set("--rm", "--privileged", "--init", "--read-only", "--interactive", "--tty", "--detach",
		"--publish-all", "--no-healthcheck", "--oom-kill-disable", "--sig-proxy", "--quiet", "--disable-content-trust", "--help", "--use-api-socket")
	for i++; i < len(c.argv); i++ {
		w := c.argv[i]
		a := w.val
		if !strings.HasPrefix(a, "-") || a == "-" {
			break // the image: the rest is the container's command
		}
		name, val, hasVal := strings.Cut(a, "=")
		takes := false
		switch {
		case strings.HasPrefix(a, "--"):
			takes = !hasVal && !boolOpts[name]
		default:
			// -it, -d, -P are flags; other short options take a value,
			// attached or in the next word.
			letters := a[1:]
			for j := 0; j < len(letters); j++ {
				if !strings.ContainsRune("itdP", rune(letters[j])) {
					name, val, hasVal = "-"+letters[j:j+1], letters[j+1:], j+1 < len(letters)
					takes = !hasVal
					break
				}
			}
		}
		if takes && i+1 < len(c.argv) {
			i++
			val = c.argv[i].val
			c.argv[i].nonPath = true
		}
		z.dockerOption(c, name, val, w)
	}
}

func (z *analyzer) dockerOption(c *cmd, name, val string, w wordInfo) {
	switch name {
	case "--privileged":
		z.dangerous("%s runs a privileged container, which controls the host: %s", c.base, c.text)
	case "--pid", "--userns", "--uts", "--ipc", "--cgroupns":
		if val == "host" {
			z.dangerous("%s %s=host shares the host's namespace with the container: %s", c.base, name, c.text)
		}
	case "--cap-add":
		if u := strings.ToUpper(val); u == "ALL" || u == "SYS_ADMIN" || u == "CAP_SYS_ADMIN" || u == "SYS_MODULE" || u == "SYS_PTRACE" || u == "DAC_READ_SEARCH" {
			z.dangerous("%s --cap-add=%s gives the container control of the host: %s", c.base, val, c.text)
		}
	case "--security-opt":
		if strings.Contains(val, "unconfined") {
			z.dangerous("%s --security-opt %s turns off the container's confinement: %s", c.base, val, c.text)
		}
	case "--device":
		if blockDevice(strings.SplitN(val, ":", 2)[0]) != "" {
			z.dangerous("%s --device %s gives the container a disk of the host: %s", c.base, val, c.text)
		}
	case "-v", "--volume", "--mount":
		src := strings.SplitN(val, ":", 2)[0]
		if name == "--mount" {
			src = ""
			for _, kv := range strings.Split(val, ",") {
				if k, v, ok := strings.Cut(kv, "="); ok && (k == "source" || k == "src") {
					src = v
				}
			}
		}
		if !strings.HasPrefix(src, "/") && !strings.HasPrefix(src, ".") {
			return // a named volume
		}
		a, ok := z.absPath(src, c.st)
		if !ok {
			return
		}
		switch {
		case a == "/", strings.Count(a, "/") == 1 && a != "/tmp" && a != "/mnt" && a != "/data" && a != "/srv" && a != "/opt",
			z.opt.Home != "" && within(z.opt.Home, a), strings.HasSuffix(a, "/docker.sock"), strings.HasSuffix(a, "/podman.sock"),
			z.protectedWrite(a) != "":
			z.dangerous("%s mounts %s of the host into the container: %s", c.base, a, c.text)
		}
	}
}

// curlWrites are curl options whose argument is a file it writes.
var curlWrites = set("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
	"--stderr", "--etag-save", "--hsts", "--alt-svc", "--libcurl", "--output-dir")

func hCurl(z *analyzer, c *cmd) {
	remoteName := false
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		a := w.val
		name, val, hasVal := a, "", false
		if strings.HasPrefix(a, "--") {
			name, val, hasVal = strings.Cut(a, "=")
		} else if strings.HasPrefix(a, "-") && len(a) > 2 && curlWrites[a[:2]] {
			name, val, hasVal = a[:2], a[2:], true
		}
		switch {
		case name == "-K" || name == "--config":
			z.unsafe("curl %s reads options from a file: %s", a, c.text)
		case name == "-O" || name == "--remote-name" || name == "--remote-name-all" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], "O"):
			remoteName = true
		case curlWrites[name]:
			t := w
			if hasVal {
				t.val = val
			} else if i+1 < len(c.argv) {
				i++
				t = c.argv[i]
			}
			z.checkWrite(t, c.st, "curl "+name)
			if (name == "-o" || name == "--output") && t.full {
				if abs, ok := z.absPath(t.val, c.st); ok {
					z.sink.downloaded[abs] = true
				}
			}
		case (name == "-d" || name == "--data" || name == "--data-binary" || name == "--data-urlencode" || name == "-F" || name == "--form" || name == "-T" || name == "--upload-file") && i+1 < len(c.argv) && !hasVal:
			i++ // the argument is checked by checkPaths (@file, file)
		}
	}
	if remoteName && c.st.cwd != "" {
		for _, w := range c.argv[1:] {
			if !strings.HasPrefix(w.val, "-") && w.full {
				name := path.Base(strings.SplitN(strings.SplitN(w.val, "?", 2)[0], "#", 2)[0])
				z.sink.downloaded[joinPath(c.st.cwd, name)] = true
			}
		}
	}
}

func hWget(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "bqvndNSxcrkKEpHLm46FhV", withArg: "OoaPeiBtTwlQUYADRIXUY", long: map[string]byte{
		"output-document": 'r', "output-file": 'r', "append-output": 'r', "directory-prefix": 'r', "execute": 'r',
		"input-file": 'r', "post-file": 'r', "body-file": 'r', "save-cookies": 'r', "load-cookies": 'r', "warc-file": 'r',
		"config": 'r', "base": 'r', "tries": 'r', "timeout": 'r', "wait": 'r', "level": 'r', "quota": 'r', "user-agent": 'r',
		"header": 'r', "post-data": 'r', "method": 'r', "body-data": 'r', "user": 'r', "password": 'r', "accept": 'r',
		"reject": 'r', "domains": 'r', "exclude-domains": 'r', "include-directories": 'r', "exclude-directories": 'r',
		"referer": 'r', "restrict-file-names": 'r', "use-askpass": 'o', "default-page": 'r', "rejected-log": 'r'}})
	for _, o := range p.opts {
		switch o.name {
		case "e", "execute", "config", "use-askpass":
			z.unsafe("wget --%s runs wgetrc commands or programs: %s", o.name, c.text)
		case "O", "output-document", "o", "output-file", "a", "append-output", "save-cookies", "warc-file", "rejected-log", "P", "directory-prefix":
			if o.valIdx >= 0 && o.val != "-" {
				w := c.argv[o.valIdx]
				if o.valIdx == o.idx {
					w.val = o.val
				}
				z.checkWrite(w, c.st, "wget -"+o.name)
				if (o.name == "O" || o.name == "output-document") && w.full {
					if abs, ok := z.absPath(w.val, c.st); ok {
						z.sink.downloaded[abs] = true
					}
				}
			}
		case "header", "user-agent", "post-data", "body-data", "method", "accept", "reject", "U", "user", "password":
			if o.valIdx >= 0 {
				c.argv[o.valIdx].nonPath = true
			}
		}
	}
	if !p.has("O", "output-document") && c.st.cwd != "" {
		for _, i := range p.operands {
			if v := c.argv[i].val; c.argv[i].full {
				name := path.Base(strings.SplitN(strings.SplitN(v, "?", 2)[0], "#", 2)[0])
				z.sink.downloaded[joinPath(c.st.cwd, name)] = true
			}
		}
	}
}

// hTee writes its file operands like a redirection does.
func hTee(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "aip", long: map[string]byte{"append": 'n', "ignore-interrupts": 'n', "output-error": 'o', "help": 'n', "version": 'n'}})
	appendMode := p.has("a", "append")
	for _, i := range p.operands {
		c.argv[i].nonPath = true // judged as a write
		z.writeTarget(c.argv[i], c.st, appendMode, "tee")
	}
}

// hCopy: cp, mv, install and ln write their target; mv also removes its
// sources.
func hCopy(z *analyzer, c *cmd) {
	spec := optSpec{flags: "abdfHilLnPprRsTuvxZ", withArg: "tS", long: map[string]byte{"target-directory": 'r',
		"suffix": 'r', "backup": 'o', "reflink": 'o', "sparse": 'r', "preserve": 'o', "no-preserve": 'r', "context": 'o',
		"no-target-directory": 'n', "strip-program": 'r', "mode": 'r', "owner": 'r', "group": 'r', "update": 'o'}}
	if c.base == "install" {
		spec.withArg = "tSgmo"
		spec.flags = "bCcdDpsTvZ"
	}
	p := getopt(c.argv, 1, spec)
	if p.has("strip-program") {
		z.unsafe("install --strip-program runs a program: %s", c.text)
	}
	if c.base == "install" && p.has("d", "directory") {
		for _, i := range p.operands {
			z.checkWrite(c.argv[i], c.st, "install -d")
		}
		return
	}
	targets, joined, sources := z.copyTargets(c, p)
	for _, t := range targets {
		z.checkWrite(t, c.st, c.base)
	}
	for _, j := range joined {
		z.dangerWrite(j, c.st, c.base)
	}
	if c.base == "mv" {
		for _, i := range sources {
			z.destroys(c.argv[i], c.st, "mv moves away")
			z.deletesProtected(c.argv[i], c.st, "mv")
		}
	}
}
