package shell

// Key and crypto tools: ssh-keygen, openssl, gpg — the key files, the
// certificates and the outputs they write, and the secrets they print.

import "strings"

func init() {
	register(&program{handler: hSSHKeygen}, "ssh-keygen")
	register(&program{rest: asRead, wordOptions: true, check: opensslCheck,
		unbounded: "is a toolkit whose subcommands reach the network or load modules", opts: []option{
			o("-out= -keyout= -writerand= -CAserial= -certout= -sigfile= -reqout= -sess_out= -keylogfile= -msgfile=", asWrite),
			o("-in= -key= -inkey= -signkey= -CAfile= -CA= -CAkey= -cert= -certfile= -rand= -kfile= -prverify= "+
				"-untrusted= -trusted= -crl= -dhparam= -extfile= -sess_in= -peerkey= -paramfile= -content= -recip= "+
				"-data= -signature= -ssl_config= -CApath=", asRead),
			texts("-subj= -days= -newkey= -passin= -passout= -pass= -connect= -servername= -port= -host= -md= " +
				"-digest= -cipher= -curve= -name= -set_serial= -extensions= -reqexts= -addext= -pkeyopt= -keyform= " +
				"-outform= -inform= -certform= -CAform= -CAkeyform= -nameopt= -certopt= -purpose= -alias= -iter= " +
				"-saltlen= -algorithm= -keyalg= -macalg= -sigalg= -starttls= -proxy= -verify_hostname= -timeout= " +
				"-nbits= -bits= -K= -iv= -kdf= -rsa_keygen_bits= -groups= -sigalgs= -ciphersuites= -alpn= " +
				"-sess_id_context= -keymatexport= -preexpiry= -checkend= -ext= -S= -sigopt= -vfyopt= -macopt= " +
				"-kdfopt= -propquery= -section= -policy= -startdate= -enddate= -crldays= -crlhours= -crlexts= -mac= -verify="),
			o("-config=", asConfig),
			o("-engine= -provider= -provider-path= -load_engine=", asRun, "loads a module, which runs code"),
		}}, "openssl")
	register(&program{handler: hGpg, unbounded: "keeps its keyring in ~/.gnupg"}, "gpg", "gpg2")
}

// opensslCheck: openssl's first operand is its subcommand.
func opensslCheck(z *analyzer, c *cmd, r *tableRun) {
	if len(r.operands) > 0 && r.operands[0] == 1 {
		c.argv[1].nonPath = true // the subcommand
		r.operands = r.operands[1:]
	}
	for _, w := range c.argv[min(2, len(c.argv)):] {
		if w.val == "-d" || w.val == "-decode" || w.val == "--decode" {
			z.sink.meta[c.idx].decode = true // openssl enc -d, openssl base64 -d
		}
	}
	if len(c.argv) > 1 && (c.argv[1].val == "s_client" || c.argv[1].val == "s_server") {
		z.sink.meta[c.idx].sendsStdin = true
	}
}

// keygenValues are the ssh-keygen options with a value in the next word.
var keygenValues = set("-f", "-t", "-b", "-C", "-N", "-P", "-F", "-R", "-s", "-I", "-n", "-V", "-z", "-O", "-a", "-E",
	"-m", "-D", "-w", "-Y", "-r", "-g", "-M", "-J", "-j", "-K")

// hSSHKeygen: generating a key writes -f and -f.pub (~/.ssh/id_* by
// default, which is Dangerous to write); -R and -H rewrite known_hosts, -p
// and -c the key, -k a revocation list, -s the certificates of its
// operands, -A the host keys under /etc/ssh. -l, -y, -F, -B, -L, -e, -i,
// -Q and -Y verify only read. -D and -w load a library.
func hSSHKeygen(z *analyzer, c *cmd) {
	vals := map[string]wordInfo{}
	modes := ""
	var operands []wordInfo
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		a := w.val
		switch {
		case !w.full && w.unknownLead:
			z.cannotBound(c, "ssh-keygen with an option only known at run time")
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				l := "-" + a[j:j+1]
				if !keygenValues[l] {
					modes += a[j : j+1]
					continue
				}
				c.argv[i].nonPath = true
				v := valuePart(w, a[j+1:])
				if j+1 == len(a) && i+1 < len(c.argv) {
					i++
					c.argv[i].nonPath = true
					v = c.argv[i]
				}
				vals[l] = v
				modes += a[j : j+1]
				break
			}
		default:
			operands = append(operands, w)
		}
	}
	if _, ok := vals["-D"]; ok || strings.Contains(modes, "w") {
		z.unsafe("ssh-keygen -D/-w loads a library, which runs code: %s", c.text)
	}
	key, haveKey := vals["-f"]
	if !haveKey {
		key = wordInfo{text: "~/.ssh/id_*", val: z.opt.Home + "/.ssh/id_ed25519", dyn: true}
	}
	pub := key
	pub.val += ".pub"
	pub.lit, pub.text = pub.val, pub.text+".pub"
	readKey := func() {
		if haveKey {
			z.checkReadPath(c, key, "ssh-keygen -f")
			z.readWord(c, key, Read{Contents: true})
		}
	}
	y := vals["-Y"]
	switch {
	case strings.ContainsAny(modes, "lyBLeiQ") || strings.Contains(modes, "F") && !strings.Contains(modes, "R"),
		strings.Contains(modes, "Y") && y.val != "sign":
		readKey()
	case strings.Contains(modes, "A"):
		z.writeFile(c, wordInfo{text: "/etc/ssh/ssh_host_*", val: "/etc/ssh/ssh_host_key", dyn: true}, false, "ssh-keygen -A")
	case strings.ContainsAny(modes, "RH"):
		kh := key
		if !haveKey {
			kh = wordInfo{text: "~/.ssh/known_hosts", lit: z.opt.Home + "/.ssh/known_hosts", val: z.opt.Home + "/.ssh/known_hosts", full: z.opt.Home != ""}
		}
		z.writeFile(c, kh, false, "ssh-keygen -"+string(modes[strings.IndexAny(modes, "RH")]))
	case strings.Contains(modes, "s"), strings.Contains(modes, "Y"):
		suffix := "-cert.pub"
		if strings.Contains(modes, "Y") {
			suffix = ".sig"
		}
		for _, o := range operands {
			t := o
			t.val += suffix
			t.lit, t.text = t.val, t.text+suffix
			z.readWord(c, o, Read{Contents: true})
			z.writeFile(c, t, false, "ssh-keygen")
		}
	case strings.ContainsAny(modes, "pck"):
		z.writeFile(c, key, false, "ssh-keygen")
	default: // generates a key pair
		z.writeFile(c, key, false, "ssh-keygen")
		z.writeFile(c, pub, false, "ssh-keygen")
	}
}

// gpgValues are gpg's options with a value in the next word.
var gpgValues = set("-o", "--output", "-r", "--recipient", "-u", "--local-user", "--homedir", "--keyring",
	"--secret-keyring", "--passphrase", "--passphrase-file", "--passphrase-fd", "--default-key", "--trust-model",
	"--keyserver", "--recv-keys", "--cipher-algo", "--digest-algo", "--compress-algo", "--pinentry-mode",
	"--status-fd", "--logger-fd", "--attribute-fd", "--command-fd", "-z", "--set-filename", "--comment",
	"--trusted-key", "--export-options", "--import-options", "--list-options", "--verify-options", "--keyid-format")

// hGpg: -o writes its output; encrypting or signing a file without -o
// writes the file with .gpg, .asc or .sig added; --passphrase-file reads.
func hGpg(z *analyzer, c *cmd) {
	var out *wordInfo
	var files []wordInfo
	modes := map[string]bool{}
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		name, val, hasVal := strings.Cut(w.val, "=")
		switch {
		case !w.full && w.unknownLead:
			files = append(files, w)
		case gpgValues[name]:
			c.argv[i].nonPath = true
			v := valuePart(w, val)
			if !hasVal && i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
				v = c.argv[i]
			}
			switch name {
			case "-o", "--output":
				out = &v
			case "--passphrase-file", "--keyring", "--secret-keyring":
				z.checkReadPath(c, v, "gpg "+name)
				z.readWord(c, v, Read{Contents: true})
			}
		case strings.HasPrefix(w.val, "--"):
			modes[name] = true
		case len(w.val) > 1 && w.val[0] == '-':
			for _, l := range w.val[1:] {
				modes["-"+string(l)] = true
			}
		default:
			files = append(files, w)
		}
	}
	if out != nil {
		if out.val != "-" {
			z.writeFile(c, *out, false, "gpg -o")
		}
		return
	}
	suffix := ""
	switch {
	case modes["--detach-sign"] || modes["-b"]:
		suffix = ".sig"
	case modes["--encrypt"] || modes["-e"] || modes["--symmetric"] || modes["-c"] || modes["--sign"] || modes["-s"]:
		suffix = ".gpg"
	}
	if suffix == "" {
		return
	}
	if modes["--armor"] || modes["-a"] {
		suffix = ".asc"
	}
	for _, f := range files {
		if !f.full {
			continue
		}
		t := f
		t.val += suffix
		t.lit, t.text = t.val, t.text+suffix
		z.writeFile(c, t, false, "gpg")
	}
}
