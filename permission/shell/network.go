package shell

// Network clients: curl and wget — the files they write (-o, -O, -P, the
// name of what they download), the files they read and send (-d @f, -T f,
// --post-file), and the local files file:// URLs name. What they fetch is
// the network's: their effects are never bounded.

import (
	"path"
	"strings"
)

func init() {
	register(&program{check: curlCheck, rest: asText, unbounded: "reaches the network", opts: []option{
		flags("--anyauth -a --append --basic --cert-status --compressed --compressed-ssh --create-dirs --crlf --digest " +
			"-q --disable --disable-eprt --disable-epsv --disallow-username-in-url --doh-cert-status --doh-insecure -f --fail " +
			"--fail-early --fail-with-body --false-start --form-escape --ftp-create-dirs --ftp-pasv --ftp-pret " +
			"--ftp-skip-pasv-ip --ftp-ssl-ccc --ftp-ssl-control -G --get -g --globoff --haproxy-protocol -I --head " +
			"--http0.9 -0 --http1.0 --http1.1 --http2 --http2-prior-knowledge --http3 --http3-only --ignore-content-length " +
			"-i --include -k --insecure -4 --ipv4 -6 --ipv6 -j --junk-session-cookies -l --list-only -L --location " +
			"--location-trusted --mail-rcpt-allowfails -M --manual --metalink --negotiate -n --netrc --netrc-optional " +
			"-: --next --no-alpn -N --no-buffer --no-clobber --no-keepalive --no-npn --no-progress-meter --no-sessionid " +
			"--ntlm --ntlm-wb -Z --parallel --parallel-immediate --path-as-is --post301 --post302 --post303 -# " +
			"--progress-bar --proxy-anyauth --proxy-basic --proxy-digest --proxy-insecure --proxy-negotiate --proxy-ntlm " +
			"--proxy-ssl-allow-beast --proxy-ssl-auto-client-cert --proxy-tlsv1 -p --proxytunnel --raw -J " +
			"--remote-header-name -O --remote-name --remote-name-all -R --remote-time --remove-on-error --retry-all-errors " +
			"--retry-connrefused --sasl-ir -S --show-error -s --silent --socks5-basic --socks5-gssapi --socks5-gssapi-nec " +
			"--ssl --ssl-allow-beast --ssl-auto-client-cert --ssl-no-revoke --ssl-reqd --ssl-revoke-best-effort -2 --sslv2 " +
			"-3 --sslv3 --styled-output --suppress-connect-headers --tcp-fastopen --tcp-nodelay --tftp-no-options -1 " +
			"--tlsv1 --tlsv1.0 --tlsv1.1 --tlsv1.2 --tlsv1.3 --tr-encoding --trace-time -B --use-ascii -v --verbose " +
			"-V --xattr --no-show-error --skip-existing --ca-native --proxy-ca-native"),
		texts("--abstract-unix-socket= --aws-sigv4= --cert-type= --ciphers= --connect-timeout= --connect-to= " +
			"-C= --continue-at= --create-file-mode= --curves= --delegation= --dns-interface= --dns-ipv4-addr= " +
			"--dns-ipv6-addr= --dns-servers= --doh-url= --engine= --expect100-timeout= --form-string= --ftp-account= " +
			"--ftp-alternative-to-user= --ftp-method= -P= --ftp-port= --ftp-ssl-ccc-mode= --happy-eyeballs-timeout-ms= " +
			"-H= --header= --hostpubmd5= --hostpubsha256= --interface= --keepalive-time= --key-type= --krb= " +
			"--limit-rate= --local-port= --login-options= --mail-auth= --mail-from= --mail-rcpt= --max-filesize= " +
			"--max-redirs= -m= --max-time= --noproxy= --oauth2-bearer= --parallel-max= --pass= --pinnedpubkey= " +
			"--proto= --proto-default= --proto-redir= --proxy-cert-type= --proxy-ciphers= --proxy-header= " +
			"--proxy-key-type= --proxy-pass= --proxy-pinnedpubkey= --proxy-service-name= --proxy-tls13-ciphers= " +
			"--proxy-tlsauthtype= --proxy-tlspassword= --proxy-tlsuser= -U= --proxy-user= --proxy1.0= -Q= --quote= " +
			"-r= --range= --rate= -e= --referer= -X= --request= --request-target= --resolve= --retry= --retry-delay= " +
			"--retry-max-time= --sasl-authzid= --service-name= --socks4= --socks4a= --socks5= --socks5-gssapi-service= " +
			"--socks5-hostname= -Y= --speed-limit= -y= --speed-time= -t= --telnet-option= --tftp-blksize= -z= " +
			"--time-cond= --tls-max= --tls13-ciphers= --tlsauthtype= --tlspassword= --tlsuser= --unix-socket= " +
			"--url= --url-query= -u= --user= -A= --user-agent= -w= --write-out= -x= --proxy= --output-dir= " +
			"-d= --data= --data-ascii= --data-binary= --data-raw= --data-urlencode= --json= -F= --form= -T= --upload-file= -b= --cookie= " +
			"--variable= --expand-url= --ip-tos= --vlan-priority="),
		o("-o= --output= -D= --dump-header= -c= --cookie-jar= --trace= --trace-ascii= --stderr= --libcurl= "+
			"--etag-save= --hsts= --alt-svc=", asWrite),
		o("-E= --cert= --key= --cacert= --capath= --crlfile= --pubkey= --proxy-cacert= --proxy-capath= "+
			"--proxy-cert= --proxy-crlfile= --proxy-key= --netrc-file= --etag-compare= --random-file= --egd-file=", asRead),
		o("-K= --config=", asConfig),
	}}, "curl")
	register(&program{check: wgetCheck, rest: asText, unbounded: "reaches the network", opts: []option{
		flags("-b --background -d --debug -q --quiet -v --verbose --no-verbose -F --force-html --no-config " +
			"--retry-connrefused --no-clobber --no-netrc -c --continue --show-progress -N --timestamping " +
			"--no-if-modified-since --no-use-server-timestamps -S --server-response --spider --random-wait --no-proxy " +
			"--no-dns-cache --ignore-case -4 --inet4-only -6 --inet6-only --ask-password --no-iri --unlink --xattr " +
			"--no-directories -x --force-directories --no-host-directories --protocol-directories --no-cache " +
			"-E --adjust-extension --ignore-length --save-headers --no-http-keep-alive --no-cookies --keep-session-cookies " +
			"--content-disposition --content-on-error --auth-no-challenge --https-only --no-check-certificate --no-hsts " +
			"--no-remove-listing --no-glob --no-passive-ftp --preserve-permissions --retr-symlinks --ftps-implicit " +
			"--ftps-resume-ssl --ftps-clear-data-connection --ftps-fallback-to-ftp --warc-cdx --no-warc-compression " +
			"--no-warc-digests --no-warc-keep-log -r --recursive --delete-after -k --convert-links --convert-file-only " +
			"-K --backup-converted -m --mirror -p --page-requisites --strict-comments --follow-ftp -H --span-hosts " +
			"-L --relative --trust-server-names --no-parent"),
		texts("--report-speed= -B= --base= -t= --tries= --retry-on-http-error= --start-pos= --progress= -T= --timeout= " +
			"--dns-timeout= --connect-timeout= --read-timeout= -w= --wait= --waitretry= -Q= --quota= --bind-address= " +
			"--limit-rate= --restrict-file-names= --prefer-family= --user= --password= --local-encoding= --remote-encoding= " +
			"--cut-dirs= --http-user= --http-password= --default-page= --header= --compression= --max-redirect= " +
			"--proxy-user= --proxy-password= --referer= -U= --user-agent= --post-data= --method= --body-data= " +
			"--secure-protocol= --certificate-type= --private-key-type= --pinnedpubkey= --ciphers= --ftp-user= " +
			"--ftp-password= --warc-header= --warc-max-size= -l= --level= --backups= -A= --accept= -R= --reject= " +
			"--accept-regex= --reject-regex= --regex-type= -D= --domains= --exclude-domains= --follow-tags= " +
			"--ignore-tags= -I= --include-directories= -X= --exclude-directories= -O= --output-document= " +
			"-P= --directory-prefix= --post-file= --body-file= --warc-tempdir="),
		o("-o= --output-file= --rejected-log= --save-cookies= --hsts-file=", asWrite),
		o("-a= --append-output=", asAppend),
		o("-i= --input-file= --load-cookies= --certificate= --private-key= --ca-certificate= --ca-directory= "+
			"--crl-file= --warc-dedup=", asRead),
		o("--warc-file=", asText),
		o("-e= --execute=", asRun, "runs wgetrc commands, which can name programs to run"),
		o("--use-askpass=?", asRun, "runs a program for the password"),
		o("--config=", asConfig),
	}}, "wget", "wget2")
}

// downloaders fetch data from the network.
var downloaders = set("curl", "wget", "wget2", "fetch", "aria2c", "axel", "http", "https", "xh", "xhs",
	"lwp-request", "GET", "HEAD", "POST", "lynx", "links", "elinks", "w3m", "nc", "ncat", "netcat", "socat",
	"telnet", "openssl", "ftp", "tftp", "curlie", "httpie")

// curlCheck: what curl writes (-o, and with -O the last part of each URL,
// in --output-dir), reads and sends (-d @file, -F name=@file, -T file), and
// the local files file:// URLs read.
func curlCheck(z *analyzer, c *cmd, r *tableRun) {
	outDir := ""
	for _, o := range r.get("output-dir") {
		v := optValue(c, o)
		outDir = v.val
		z.checkWrite(v, c.st, "curl --output-dir")
	}
	remoteName := r.parsed.has("O", "remote-name", "remote-name-all")
	for _, o := range r.opts {
		if o.valIdx < 0 {
			continue
		}
		v := optValue(c, o)
		switch o.name {
		case "o", "output":
			if v.full {
				p := v.val
				if !strings.HasPrefix(p, "/") {
					p = path.Join(orDefault(outDir, "."), p)
				}
				if a, ok := z.absPath(p, c.st); ok {
					z.sink.downloaded[a] = true
				}
			}
		case "d", "data", "data-ascii", "data-binary", "data-urlencode", "json", "F", "form", "T", "upload-file":
			z.sends(c, o.name, v)
		case "url":
			z.fileURL(c, v)
		case "b", "cookie":
			if v.full && !strings.Contains(v.val, "=") {
				z.checkReadPath(c, v, "curl -b")
				z.readWord(c, v, Read{Contents: true})
			}
		}
	}
	for _, i := range r.operands {
		w := c.argv[i]
		z.fileURL(c, w)
		if !remoteName || !w.full {
			continue
		}
		name := path.Base(strings.SplitN(strings.SplitN(w.val, "?", 2)[0], "#", 2)[0])
		if name == "." || name == "/" || !strings.Contains(w.val, "/") {
			continue
		}
		t := wordInfo{text: name, lit: name, val: path.Join(orDefault(outDir, "."), name), full: true}
		t.lit, t.text = t.val, t.val
		z.writeFile(c, t, false, "curl -O")
		if a, ok := z.absPath(t.val, c.st); ok {
			z.sink.downloaded[a] = true
		}
	}
	if r.parsed.has("J", "remote-header-name") && remoteName {
		d := orDefault(outDir, ".")
		z.target(wordInfo{text: d + "/…", val: d + "/", dyn: true}, c.st, false, "curl -J", "writes")
	}
}

// sends judges what a network client uploads: @file and <file values
// (curl -d @f, -F k=@f), whole files (curl -T f, wget --post-file f), or
// standard input (@-, -T -). The file is read (and judged as a read).
func (z *analyzer) sends(c *cmd, opt string, v wordInfo) {
	file := v
	switch opt {
	case "T", "upload-file", "post-file", "body-file":
	case "F", "form":
		_, val, _ := strings.Cut(v.val, "=")
		if !strings.HasPrefix(val, "@") && !strings.HasPrefix(val, "<") {
			return
		}
		f, _, _ := strings.Cut(val[1:], ";")
		file = valuePart(v, f)
	case "data-urlencode":
		// name@file or @file.
		i := strings.IndexByte(v.val, '@')
		if i < 0 || strings.Contains(v.val[:i], "=") {
			return
		}
		file = valuePart(v, v.val[i+1:])
	default:
		if !strings.HasPrefix(v.val, "@") {
			return
		}
		file = valuePart(v, v.val[1:])
	}
	if file.val == "-" || file.val == "" && file.full {
		z.sink.meta[c.idx].sendsStdin = true
		return
	}
	z.checkReadPath(c, file, c.base)
	z.readWord(c, file, Read{Contents: true})
	z.sink.meta[c.idx].sent = append(z.sink.meta[c.idx].sent, file)
}

// fileURL: a file:// URL reads a local file.
func (z *analyzer) fileURL(c *cmd, w wordInfo) {
	p, ok := strings.CutPrefix(strings.ToLower(w.val), "file://")
	if !ok {
		return
	}
	p = w.val[len(w.val)-len(p):]
	if i := strings.IndexByte(p, '/'); i > 0 {
		p = p[i:] // file://host/path
	}
	v := valuePart(w, p)
	z.checkReadPath(c, v, c.base+" file://")
	z.readWord(c, v, Read{Contents: true})
}

// wgetCheck: wget writes -O (unless -), or the last part of each URL in -P
// or the working directory (a whole tree with -r, -m or -p); it reads and
// sends --post-file and --body-file.
func wgetCheck(z *analyzer, c *cmd, r *tableRun) {
	dir := "."
	for _, o := range r.get("P", "directory-prefix") {
		v := optValue(c, o)
		dir = v.val
		if !v.full {
			dir = ""
		}
		z.checkWrite(v, c.st, "wget -P")
	}
	for _, o := range r.get("post-file", "body-file") {
		z.sends(c, o.name, optValue(c, o))
	}
	for _, o := range r.get("warc-file") {
		v := optValue(c, o)
		v.val += ".warc.gz"
		v.lit, v.text = v.val, v.text+".warc.gz"
		z.writeFile(c, v, false, "wget --warc-file")
	}
	if docs := r.get("O", "output-document"); len(docs) > 0 {
		for _, o := range docs {
			v := optValue(c, o)
			if v.val == "-" {
				continue
			}
			z.writeFile(c, v, false, "wget -O")
			if a, ok := z.absPath(v.val, c.st); ok && v.full {
				z.sink.downloaded[a] = true
			}
		}
		return
	}
	if r.parsed.has("spider", "delete-after") {
		return
	}
	if r.parsed.has("r", "recursive", "m", "mirror", "p", "page-requisites", "content-disposition", "trust-server-names", "i", "input-file") || dir == "" {
		d := orDefault(dir, "$DIR")
		z.target(wordInfo{text: d + "/…", val: d + "/", dyn: true, unknownLead: dir == ""}, c.st, false, "wget", "writes")
		return
	}
	for _, i := range r.operands {
		w := c.argv[i]
		if !w.full || !strings.Contains(w.val, "/") {
			continue
		}
		name := path.Base(strings.SplitN(strings.SplitN(w.val, "?", 2)[0], "#", 2)[0])
		if strings.HasSuffix(strings.SplitN(w.val, "?", 2)[0], "/") || name == "" || strings.Contains(name, ":") {
			name = "index.html"
		}
		t := wordInfo{full: true, val: path.Join(dir, name)}
		t.lit, t.text = t.val, t.val
		z.writeFile(c, t, false, "wget")
		if a, ok := z.absPath(t.val, c.st); ok {
			z.sink.downloaded[a] = true
		}
	}
}
