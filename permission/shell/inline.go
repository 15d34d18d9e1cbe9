package shell

// Inline code: python -c, node -e, perl -e, ruby -e, php -r and their kind
// run code the shell analyser cannot parse, but it can look for the calls
// that matter — deleting files, running programs (or code built at run
// time), reaching the network — whatever the rest of the code does.

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// codeRule is one kind of call in one language.
type codeRule struct {
	kind string // "deletes", "runs", "network"
	re   *regexp.Regexp
}

// codeLangs maps interpreters to the language whose rules apply.
var codeLangs = map[string]string{
	"python": "python", "node": "js", "deno": "js", "bun": "js", "ts-node": "js", "tsx": "js", "esno": "js",
	"qjs": "js", "gjs": "js", "perl": "perl", "ruby": "ruby", "irb": "ruby", "php": "php", "lua": "lua",
	"luajit": "lua", "osascript": "applescript", "Rscript": "r", "R": "r", "julia": "julia", "groovy": "groovy",
	"elixir": "elixir", "iex": "elixir",
}

// codeRules are compiled on first use: most commands are not inline code.
var codeRules = sync.OnceValue(func() map[string][]codeRule {
	rules := map[string][]codeRule{}
	add := func(lang, kind, expr string) {
		rules[lang] = append(rules[lang], codeRule{kind, regexp.MustCompile(expr)})
	}
	add("python", "deletes", `\bos\s*\.\s*(remove|unlink|rmdir|removedirs|truncate)\b|\bshutil\s*\.\s*(rmtree|move)\b|\.\s*(unlink|rmdir|rmtree)\s*\(|\bsend2trash\b`)
	add("python", "runs", `\bos\s*\.\s*(system|popen|exec\w*|spawn\w*|fork|posix_spawn\w*|dup2)\b|\bsubprocess\b|\bpty\b|\bcommands\s*\.|\b__import__\b|\bimportlib\b|\b(exec|eval|compile)\s*\(|\bctypes\b`)
	add("python", "network", `\b(socket|urllib\d?|requests|httpx|aiohttp|ftplib|smtplib|telnetlib|paramiko|websockets?|xmlrpc|http\s*\.\s*client|httplib2?)\b`)
	add("js", "deletes", `\b(fs|fsp|promises)\s*\.\s*(rm|rmSync|rmdir|rmdirSync|unlink|unlinkSync|truncate|truncateSync)\b|\.\s*(rmSync|rmdirSync|unlinkSync|rm|unlink|rmdir)\s*\(|\brimraf\b|\bDeno\s*\.\s*remove\b|\bBun\s*\.\s*file\([^)]*\)\s*\.\s*delete\b`)
	add("js", "runs", `\bchild_process\b|\b(exec|execSync|execFile|execFileSync|spawn|spawnSync|fork)\s*\(|\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(|\bvm\s*\.|\bprocess\s*\.\s*binding\b|\bDeno\s*\.\s*(run|Command)\b|\bBun\s*\.\s*(spawn|spawnSync|\$)\b`)
	add("js", "network", `\bfetch\s*\(|\brequire\s*\(\s*['"](node:)?(https?|http2|net|dgram|tls)['"]|\bfrom\s+['"](node:)?(https?|http2|net|dgram|tls)['"]|\bhttps?\s*\.\s*(get|request)\b|\bXMLHttpRequest\b|\bWebSocket\b|\baxios\b|\bnet\s*\.\s*(connect|createConnection|Socket)\b|\bDeno\s*\.\s*connect\b`)
	add("perl", "deletes", `\bunlink\b|\brmtree\b|\bremove_tree\b|\brmdir\b`)
	add("perl", "runs", "\\bsystem\\b|\\bexec\\b|`|\\bqx\\b|\\bfork\\b|\\beval\\b|\\bopen\\s*\\(?[^;]*['\"]\\s*\\||\\|\\s*['\"]\\s*\\)|\\bopen\\s*\\(?[^;]*['\"]-\\|")
	add("perl", "network", `\bSocket\b|\bIO::Socket\b|\bLWP\b|\bHTTP::Tiny\b|\bNet::|\bMojo::UserAgent\b|\bWWW::Mechanize\b`)
	add("ruby", "deletes", `\bFileUtils\s*\.\s*(rm|rm_r|rm_rf|rm_f|remove\w*)\b|\bFile\s*\.\s*(delete|unlink)\b|\bDir\s*\.\s*(rmdir|delete|unlink)\b|\.\s*(rmtree|unlink)\b`)
	add("ruby", "runs", "\\bsystem\\b|\\bexec\\b|`|%x|\\bIO\\s*\\.\\s*popen\\b|\\bOpen3\\b|\\bspawn\\b|\\bfork\\b|\\beval\\b|\\binstance_eval\\b|\\bKernel\\s*\\.|\\bPTY\\b")
	add("ruby", "network", `\b(Socket|TCPSocket|UDPSocket|TCPServer)\b|\bNet::(HTTP|FTP|SMTP)\b|\bopen-uri\b|\bURI\s*\.\s*open\b|\b(Faraday|HTTParty|RestClient)\b|require\s*['"]socket['"]`)
	add("php", "deletes", `\b(unlink|rmdir)\s*\(`)
	add("php", "runs", "\\b(system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec|eval|assert|create_function)\\s*\\(|`")
	add("php", "network", `\b(fsockopen|pfsockopen|stream_socket_client|socket_create|curl_init|curl_exec)\s*\(|\b(file_get_contents|fopen|copy)\s*\(\s*['"](https?|ftp)://`)
	add("lua", "deletes", `\bos\s*\.\s*remove\b`)
	add("lua", "runs", `\bos\s*\.\s*execute\b|\bio\s*\.\s*popen\b|\bloadstring\b|\bload\s*\(|\bdofile\b`)
	add("lua", "network", `\bsocket\b|\bhttp\s*\.\s*request\b`)
	add("applescript", "runs", `do\s+shell\s+script`)
	add("r", "deletes", `\b(unlink|file\.remove)\s*\(`)
	add("r", "runs", `\b(system|system2|shell|eval|parse)\s*\(`)
	add("r", "network", `\b(download\.file|url|socketConnection|GET|POST)\s*\(`)
	add("julia", "deletes", `\brm\s*\(`)
	add("julia", "runs", "\\brun\\s*\\(|`|\\beval\\s*\\(|\\bMeta\\.parse\\b")
	add("julia", "network", `\bdownload\s*\(|\bSockets\b|\bHTTP\.`)
	add("groovy", "deletes", `\.\s*(delete|deleteDir)\s*\(`)
	add("groovy", "runs", `\.\s*execute\s*\(|\bRuntime\b|\bProcessBuilder\b|\bEval\s*\.`)
	add("groovy", "network", `\bnew\s+URL\b|\bSocket\b`)
	add("elixir", "deletes", `\bFile\s*\.\s*(rm|rm_rf|rm!|rm_rf!)\b`)
	add("elixir", "runs", `\bSystem\s*\.\s*cmd\b|:os\s*\.\s*cmd\b|\bCode\s*\.\s*eval`)
	add("elixir", "network", `\bHTTPoison\b|:httpc\b|:gen_tcp\b|\bReq\s*\.`)
	return rules
})

// codeWrites find the files inline code writes by a literal name (the
// last group of each match): open("f", "w"), fs.writeFileSync("f", …),
// File.write("f", …), file_put_contents("f", …).
var codeWrites = sync.OnceValue(func() map[string][]*regexp.Regexp {
	c := regexp.MustCompile
	return map[string][]*regexp.Regexp{
		"python": {c(`\bopen\s*\(\s*['"]([^'"]+)['"]\s*,\s*['"][^'"]*[wax+]`),
			c(`Path\s*\(\s*['"]([^'"]+)['"]\s*\)\s*\.\s*write_(?:text|bytes)`)},
		"js":   {c(`\b(?:writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream)\s*\(\s*['"\x60]([^'"\x60]+)['"\x60]`)},
		"perl": {c(`\bopen\s*\(?\s*\$?\w+\s*,\s*['"](?:>>?|\+[<>])\s*([^'"]+)['"]`), c(`\bopen\s*\(?\s*\$?\w+\s*,\s*['"](?:>>?|\+[<>])['"]\s*,\s*['"]([^'"]+)['"]`)},
		"ruby": {c(`\bFile\s*\.\s*(?:write|open)\s*\(\s*['"]([^'"]+)['"]\s*,\s*['"][wa]`), c(`\bFile\s*\.\s*write\s*\(\s*['"]([^'"]+)['"]`)},
		"php":  {c(`\bfile_put_contents\s*\(\s*['"]([^'"]+)['"]`), c(`\bfopen\s*\(\s*['"]([^'"]+)['"]\s*,\s*['"][wax]`)},
		"lua":  {c(`\bio\s*\.\s*open\s*\(\s*['"]([^'"]+)['"]\s*,\s*['"][wa]`)},
	}
})

// inlineCode judges code an interpreter runs from the command line, a
// here-document or piped text: deleting files destroys; running programs
// or code built at run time escalates (what runs is hidden from review); a
// network connection leaks (it can send any file), and with a program run
// it is a reverse shell.
func (z *analyzer) inlineCode(interp, code, text string, st state) {
	lang := codeLangs[canonical(interp)]
	literal := false
	for _, re := range codeWrites()[lang] {
		for _, m := range re.FindAllStringSubmatch(code, -1) {
			f := m[len(m)-1]
			literal = true
			z.target(wordInfo{text: f, lit: f, val: f, full: true}, st, false, interp+" code", "writes")
		}
	}
	if !literal && lang != "" {
		z.codeNamesStartupFile(interp, code, text)
	}
	found := map[string]string{}
	for _, r := range codeRules()[lang] {
		if m := r.re.FindString(code); m != "" && found[r.kind] == "" {
			found[r.kind] = strings.TrimRight(strings.TrimSpace(m), "( ")
		}
	}
	if m := found["deletes"]; m != "" {
		z.dangerous(destroys, "%s code deletes files (%s): %s", interp, m, text)
	}
	switch run, net := found["runs"], found["network"]; {
	case run != "" && net != "":
		z.dangerous(escalates, "%s code connects to the network and runs programs (%s, %s), as a reverse shell does: %s", interp, net, run, text)
	case run != "":
		z.dangerous(escalates, "%s code runs programs or code built at run time (%s), hidden from review: %s", interp, run, text)
	case net != "":
		z.dangerous(leaks, "%s code reaches the network (%s), so it can send any file away: %s", interp, net, text)
	}
}

// codeStrings finds the string literals of inline code.
var codeStrings = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`'([^'\\]|\\.)*'|"([^"\\]|\\.)*"|\x60([^\x60\\]|\\.)*\x60`)
})

// codeWriting are the calls through which inline code changes files.
var codeWriting = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(write\w*|append\w*|file_put_contents|copy\w*|symlink\w*|rename\w*|createWriteStream)\b|\bf?open\s*\([^)]*['"][wax+]['"b]|\bopen\s*\(?\s*\$?\w+\s*,\s*['"]\s*(>|\+<)`)
})

// codeNamesStartupFile: code that writes files and names a start-up file,
// key directory or system tree in a literal (process.env.HOME +
// "/.bashrc", os.path.expanduser("~/.ssh/authorized_keys")) escalates,
// though the analyser cannot name the file it writes.
func (z *analyzer) codeNamesStartupFile(interp, code, text string) {
	if !codeWriting().MatchString(code) {
		return
	}
	for _, lit := range codeStrings().FindAllString(code, -1) {
		s := strings.Trim(lit, "'\"\x60")
		if !strings.Contains(s, "/") && !strings.HasPrefix(s, ".") {
			continue
		}
		// As written, and as a part after a home directory (HOME +
		// "/.bashrc", "~/.ssh/authorized_keys").
		for _, a := range []string{path.Clean("/" + strings.TrimPrefix(s, "/")), path.Join("/home/someone", strings.TrimPrefix(s, "~"))} {
			if r := z.protectedWrite(a); r.reason != "" && r.cat == escalates {
				z.dangerous(escalates, "%s code writes files and names %s, a start-up file, key or system path: %s", interp, s, text)
				return
			}
		}
	}
}
