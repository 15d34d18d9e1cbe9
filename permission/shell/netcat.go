package shell

// Raw network tools: nc and its kind, socat, telnet. What they read from
// their input goes to another host; with a program attached (nc -e, socat
// EXEC:) another host runs commands here.

import (
	"slices"
	"strings"
)

func init() {
	register(&program{handler: hNetcat, unbounded: "reaches the network"}, "nc", "ncat", "netcat", "nc.openbsd", "nc.traditional")
	register(&program{handler: hSocat, unbounded: "reaches the network"}, "socat")
	register(&program{handler: hTelnet, unbounded: "reaches the network"}, "telnet")
	register(&program{handler: hTunnel, unbounded: "reaches the network"}, "ngrok", "cloudflared", "lt", "localtunnel", "bore",
		"chisel", "frpc", "tailscale")
}

// hNetcat: -e and -c (ncat --exec, --sh-exec, --lua-exec) connect a
// program to the network: a reverse or bind shell. -o writes a dump.
func hNetcat(z *analyzer, c *cmd) {
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		name, val, hasVal := strings.Cut(w.val, "=")
		c.argv[i].nonPath = true // hosts, ports and options
		switch {
		case name == "-e" || name == "-c" || name == "--exec" || name == "--sh-exec" || name == "--lua-exec" ||
			strings.HasPrefix(w.val, "-e") && len(w.val) > 2 && !strings.HasPrefix(w.val, "--"):
			z.unsafe("%s %s runs a program for the other end of the connection: %s", c.base, name, c.text)
			z.dangerous(escalates, "%s %s connects a program to the network, for another host to run commands here: %s", c.base, name, c.text)
			if !hasVal && len(w.val) == 2 && i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
			}
		case name == "-o" || name == "--output" || name == "--append-output":
			v := valuePart(w, val)
			if !hasVal && i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
				v = c.argv[i]
			}
			z.writeFile(c, v, name == "--append-output", c.base+" "+name)
		case len(w.val) == 2 && strings.Contains("pswiqxXIOTVbCGgmPK", w.val[1:]) && w.val[0] == '-':
			if i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
			}
		}
	}
}

// hSocat: socat ADDRESS ADDRESS. EXEC: and SYSTEM: run a program; with a
// network address on the other side it is a shell for another host. OPEN:,
// CREATE:, GOPEN: and the like are files: read and sent, or written.
func hSocat(z *analyzer, c *cmd) {
	var addrs []wordInfo
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		c.argv[i].nonPath = true
		if strings.HasPrefix(w.val, "-") && len(w.val) > 1 {
			continue
		}
		addrs = append(addrs, w)
	}
	kind := func(a wordInfo) string {
		t, _, _ := strings.Cut(a.val, ":")
		t = strings.ToUpper(t)
		switch {
		case !a.full:
			return "unknown"
		case t == "EXEC" || t == "SYSTEM":
			return "exec"
		case strings.HasPrefix(t, "TCP") || strings.HasPrefix(t, "UDP") || strings.HasPrefix(t, "SSL") ||
			strings.HasPrefix(t, "OPENSSL") || strings.HasPrefix(t, "SCTP") || strings.HasPrefix(t, "SOCKS") ||
			strings.HasPrefix(t, "PROXY") || strings.HasPrefix(t, "IP") || strings.HasPrefix(t, "DTLS"):
			return "network"
		case t == "OPEN" || t == "CREATE" || t == "GOPEN" || t == "FILE" || t == "PIPE" && strings.Contains(a.val, ":"):
			return "file"
		case a.val == "-" || t == "STDIO" || t == "STDIN" || t == "STDOUT" || t == "FD":
			return "stdio"
		}
		return "other"
	}
	network := false
	for _, a := range addrs {
		network = network || kind(a) == "network" || kind(a) == "unknown"
	}
	for _, a := range addrs {
		switch kind(a) {
		case "exec":
			z.unsafe("socat %s runs a program: %s", a.val, c.text)
			if network {
				z.dangerous(escalates, "socat connects a program to the network, for another host to run commands here: %s", c.text)
			}
			_, cmdline, _ := strings.Cut(a.val, ":")
			cmdline, _, _ = strings.Cut(cmdline, ",")
			z.script(cmdline, c.st, "socat "+a.val)
		case "file":
			_, f, _ := strings.Cut(a.val, ":")
			f, _, _ = strings.Cut(f, ",")
			w := valuePart(a, f)
			z.checkReadPath(c, w, "socat")
			z.readWord(c, w, Read{Contents: true})
			if network {
				z.sink.meta[c.idx].sent = append(z.sink.meta[c.idx].sent, w)
			}
			if t, _, _ := strings.Cut(strings.ToUpper(a.val), ":"); t == "CREATE" || t == "OPEN" && strings.Contains(a.val, "creat") {
				z.writeFile(c, w, false, "socat")
			}
		}
	}
}

// hTelnet: telnet HOST [PORT]: what reaches its input goes to the host.
func hTelnet(z *analyzer, c *cmd) {
	for i := range c.argv[1:] {
		c.argv[i+1].nonPath = true
	}
}

// hTunnel: ngrok, cloudflared tunnel, localtunnel, bore, chisel, frpc and
// tailscale funnel publish local ports to the internet: a way in for
// other hosts.
func hTunnel(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		switch w.val {
		case "--version", "version", "-v", "--help", "help", "status", "login", "update":
			return
		}
	}
	if c.base == "cloudflared" && (len(c.argv) < 2 || c.argv[1].val != "tunnel" && c.argv[1].val != "access") {
		return
	}
	if c.base == "tailscale" && !slices.ContainsFunc(c.argv[1:], func(w wordInfo) bool { return w.val == "funnel" || w.val == "serve" }) {
		return
	}
	z.dangerous(escalates, "%s publishes a local port to other hosts, a way in to this machine: %s", c.base, c.text)
}
