package shell

// Network clients: downloads and the files they write.

import (
	"path"
	"strings"
)

func init() {
	register(&program{handler: hCurl, unbounded: "reaches the network"}, "curl")
	register(&program{handler: hWget, unbounded: "reaches the network"}, "wget", "wget2")
}

// downloaders fetch data from the network.
var downloaders = set("curl", "wget", "wget2", "fetch", "aria2c", "axel", "http", "https", "xh", "xhs",
	"lwp-request", "GET", "HEAD", "POST", "lynx", "links", "elinks", "w3m", "nc", "ncat", "netcat", "socat",
	"telnet", "openssl", "ftp", "tftp", "curlie", "httpie")

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
