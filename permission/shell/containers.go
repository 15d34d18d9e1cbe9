package shell

// Containers: docker and podman runs that control the host.

import "strings"

func init() {
	register(&program{handler: hDocker, unbounded: "runs containers"}, "docker")
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
		z.dangerous(escalates, "%s runs a privileged container, which controls the host: %s", c.base, c.text)
	case "--pid", "--userns", "--uts", "--ipc", "--cgroupns":
		if val == "host" {
			z.dangerous(escalates, "%s %s=host shares the host's namespace with the container: %s", c.base, name, c.text)
		}
	case "--cap-add":
		if u := strings.ToUpper(val); u == "ALL" || u == "SYS_ADMIN" || u == "CAP_SYS_ADMIN" || u == "SYS_MODULE" || u == "SYS_PTRACE" || u == "DAC_READ_SEARCH" {
			z.dangerous(escalates, "%s --cap-add=%s gives the container control of the host: %s", c.base, val, c.text)
		}
	case "--security-opt":
		if strings.Contains(val, "unconfined") {
			z.dangerous(escalates, "%s --security-opt %s turns off the container's confinement: %s", c.base, val, c.text)
		}
	case "--device":
		if blockDevice(strings.SplitN(val, ":", 2)[0]) != "" {
			z.dangerous(escalates, "%s --device %s gives the container a disk of the host: %s", c.base, val, c.text)
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
			z.protectedWrite(a).reason != "":
			z.dangerous(escalates, "%s mounts %s of the host into the container: %s", c.base, a, c.text)
		}
	}
}
