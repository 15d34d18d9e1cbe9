package shell

// sed: its script, parsed for the commands that run programs or write files.

import "strings"

func init() {
	register(&program{check: sedCheck, rest: asRead, opts: []option{
		flags("-n --quiet --silent -E -r --regexp-extended -s --separate -u --unbuffered -z --null-data " +
			"--posix --debug --sandbox --follow-symlinks -b --binary"),
		texts("-e= --expression= -l= --line-length="),
		o("-f= --file=", asRun, "runs a script from a file the analyser does not read"),
		o("-i=? --in-place=?", inPlace),
	}}, "sed")
}

// sedCheck: the e command and the e flag run commands, w/W and the w flag
// write files; -i edits the files (reported as Writes, with the backup
// copies). sed without -n counts as unbounded, as its output is usually
// meant to replace a file.
func sedCheck(z *analyzer, c *cmd, r *tableRun) {
	sandbox := r.parsed.has("sandbox")
	if r.dynOpt {
		z.unsafe("sed with an option only known at run time: %s", c.text)
	}
	var scripts []wordInfo
	for _, o := range r.get("e", "expression") {
		if o.valIdx >= 0 {
			scripts = append(scripts, optValue(c, o))
		}
	}
	files := r.operands
	if len(scripts) == 0 && !r.parsed.has("f", "file") && len(files) > 0 {
		c.argv[files[0]].nonPath = true
		scripts = append(scripts, c.argv[files[0]])
		files = files[1:]
	}
	for _, s := range scripts {
		if !s.full {
			z.unsafe("sed script only known at run time: %s", s.text)
			continue
		}
		res := parseSed(s.val)
		if res.err != "" {
			z.unsafe("sed script the analyser cannot read (%s): %s", res.err, s.text)
			continue
		}
		if sandbox {
			continue
		}
		if res.exec {
			z.unsafe("sed script runs shell commands (the e command or flag): %s", s.text)
		}
		for _, f := range res.writes {
			z.unsafe("sed script writes the file %s", f)
			if f != "/dev/stdout" && f != "/dev/stderr" {
				z.writeFile(c, wordInfo{text: f, lit: f, val: f, full: true}, false, "sed w")
			}
		}
		for _, f := range res.reads {
			if why := z.outside(f, c.st); why != "" {
				z.unsafe("sed script reads a path outside the workspace: %s", why)
			}
		}
	}
	if !r.has(inPlace) {
		if !r.parsed.has("n", "quiet", "silent") {
			r.acts |= widens
			r.whyWidens = "without -n prints every line, usually to replace a file"
		}
		return
	}
	suffix := ""
	for _, o := range r.get("i", "in-place") {
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
			// Two delimited parts: the pattern and the replacement
			// (or the two character lists of y).
			if !delimited(d) {
				r.err = "unterminated " + string(c) + " command"
				return r
			}
			if !delimited(d) {
				r.err = "unterminated " + string(c) + " command"
				return r
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
