package pathguard

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode"
)

// nameParts splits p on both separators, whatever the OS: a name such as
// `.git\hooks\x` is one odd file name on Linux but a hook on Windows, and a
// path written for one may reach the other (shared drives, WSL).
func nameParts(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' })
}

// normName reduces a component to what Windows would open: case folded,
// trailing dots and spaces stripped (`.git.` and `.git ` are `.git`), an
// NTFS stream suffix dropped (`.git::$INDEX_ALLOCATION`). Used for matching
// protected and secret names only, never for opening.
func normName(c string) string {
	if c == "." || c == ".." {
		return c
	}
	if i := strings.IndexByte(c, ':'); i > 0 {
		c = c[:i]
	}
	c = strings.TrimRight(c, ". ")
	return strings.ToLower(c)
}

// startupFiles are shell start-up files: whatever is written to them runs
// in every new shell the user opens.
var startupFiles = []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout"}

// protected returns why writing any of paths must be asked, or "".
func (g *Guard) protected(paths []string, gitChecks bool) string {
	for _, p := range paths {
		if r := protectedName(p); r != "" {
			return r
		}
		// $NOVA_HOME is ~/.novacode by another name (which protectedName
		// knows): its settings file trusts workspaces and holds the
		// person's own hooks, which run without asking anyone.
		for _, d := range g.dataDirs {
			if _, ok := relParts(p, d); ok && d != "" {
				return "NovaCode's data directory (" + d + "): its settings decide what runs without asking, hooks included"
			}
		}
	}
	if !gitChecks {
		return ""
	}
	for _, p := range paths {
		if r := gitProtected(p); r != "" {
			return r
		}
	}
	return ""
}

// protectedName judges a path by its names alone.
func protectedName(p string) string {
	parts := nameParts(p)
	norm := make([]string, len(parts))
	for i, c := range parts {
		norm[i] = normName(c)
	}
	for i, c := range norm {
		switch {
		case c == ".git" && i < len(norm)-1:
			return "inside a .git directory: git runs its hooks and obeys its config"
		case c == ".git":
			return "a .git entry: a .git file can point git at another directory, with other hooks"
		case c == ".novacode":
			return "NovaCode's own settings (.novacode): they decide what runs without asking"
		}
	}
	if len(norm) == 0 {
		return ""
	}
	last := norm[len(norm)-1]
	switch {
	case last == ".mcp.json":
		return "MCP server configuration (.mcp.json): it starts programs"
	case last == ".gitattributes":
		return "git attributes (.gitattributes): they pick the filter, diff and merge drivers git runs"
	case last == ".gitmodules":
		return "submodule configuration (.gitmodules): it tells git which repositories to fetch and check out"
	case last == ".envrc":
		return "a direnv file (.envrc): it runs when a shell enters the directory"
	case last == ".gitconfig", len(norm) >= 3 && norm[len(norm)-3] == ".config" && norm[len(norm)-2] == "git":
		return "git's configuration for every repository (" + parts[len(parts)-1] + "): git runs the commands it names"
	case slices.Contains(startupFiles, last):
		return fmt.Sprintf("a shell start-up file (%s): it runs in every new shell", parts[len(parts)-1])
	case hasSuffixParts(norm, ".config", "fish", "config.fish"),
		len(norm) >= 4 && hasSuffixParts(norm[:len(norm)-1], ".config", "fish", "conf.d"):
		return "a fish start-up file: it runs in every new shell"
	case len(norm) >= 2 && norm[0] == "etc" && (strings.HasPrefix(norm[1], "profile") || strings.HasPrefix(norm[1], "bash") || strings.HasPrefix(norm[1], "zsh") || norm[1] == "environment"):
		return "a system-wide shell start-up file: it runs in every new shell"
	}
	return ""
}

func hasSuffixParts(parts []string, suffix ...string) bool {
	return len(parts) >= len(suffix) && slices.Equal(parts[len(parts)-len(suffix):], suffix)
}

// gitProtected looks at the directories holding p for git directories that
// do not say .git in the path: directories laid out as one (HEAD with
// objects/ and refs/, or HEAD with a commondir file, as a worktree's has),
// which is how the targets of `gitdir:` files look (submodules, worktrees,
// --separate-git-dir) and how a bare repository looks, and git obeys them
// all; and the target of a `.git` file in a directory holding p. It also
// refuses the write that would complete such a layout.
func gitProtected(p string) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	dir := filepath.Dir(p)
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil && fi.Mode().IsRegular() {
			for _, gd := range gitdirTargets(d) {
				if within(p, gd, true) {
					return fmt.Sprintf("inside %s, the git directory that %s points to: git runs its hooks and obeys its config", gd, filepath.Join(d, ".git"))
				}
			}
		}
		if m := gitMarkers(d); m.head && (m.objects && m.refs || m.commondir) {
			return fmt.Sprintf("inside %s, which is laid out as a git directory: git runs its hooks and obeys its config", d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	// Writing p creates p and every missing directory above it (the file
	// tools create parents); any of them may be the part that completes a
	// layout: writing half/objects/x creates half/objects.
	for q := p; ; q = filepath.Dir(q) {
		if _, err := os.Lstat(q); err == nil || filepath.Dir(q) == q {
			return ""
		}
		if completesLayout(q) {
			return fmt.Sprintf("creating %s would make %s a git directory that git would obey", filepath.Base(q), filepath.Dir(q))
		}
	}
}

// completesLayout reports whether creating the missing path q would make
// its parent laid out as a git directory.
func completesLayout(q string) bool {
	m := gitMarkers(filepath.Dir(q))
	switch filepath.Base(q) {
	case "HEAD":
		return m.objects && m.refs || m.commondir
	case "objects":
		return m.head && m.refs
	case "refs":
		return m.head && m.objects
	case "commondir":
		return m.head
	}
	return false
}

// markers are the parts of a git directory's layout found in a directory.
type markers struct{ head, objects, refs, commondir bool }

func gitMarkers(d string) markers {
	var m markers
	if fi, err := os.Lstat(filepath.Join(d, "HEAD")); err == nil {
		// A symlink HEAD is an old but valid form.
		m.head = fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0
	}
	if fi, err := os.Lstat(filepath.Join(d, "objects")); err == nil {
		m.objects = fi.IsDir()
	}
	if fi, err := os.Lstat(filepath.Join(d, "refs")); err == nil {
		m.refs = fi.IsDir()
	}
	if fi, err := os.Lstat(filepath.Join(d, "commondir")); err == nil {
		m.commondir = fi.Mode().IsRegular()
	}
	return m
}

// gitdirTargets reads the `.git` file in d and returns, resolved, the git
// directory it names and that directory's common directory (a worktree's
// gitdir points into the main repository's, via its commondir file).
func gitdirTargets(d string) []string {
	target := readFirstLine(filepath.Join(d, ".git"))
	rest, ok := strings.CutPrefix(target, "gitdir:")
	if !ok {
		return nil
	}
	gd := strings.TrimSpace(rest)
	if gd == "" || strings.ContainsRune(gd, 0) {
		return nil
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(d, gd)
	}
	gd = resolve(filepath.Clean(gd)).path
	out := []string{gd}
	if common := strings.TrimSpace(readFirstLine(filepath.Join(gd, "commondir"))); common != "" && !strings.ContainsRune(common, 0) {
		if !filepath.IsAbs(common) {
			common = filepath.Join(gd, common)
		}
		out = append(out, resolve(filepath.Clean(common)).path)
	}
	return out
}

// readFirstLine returns the first line of a small regular file, "" if there
// is none. It never opens anything but a regular file (a FIFO would block).
func readFirstLine(p string) string {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 4096)
	if sc.Scan() {
		return strings.TrimRight(sc.Text(), "\r")
	}
	return ""
}

// envExamples are .env.* names that hold no secrets by convention.
var envExamples = []string{".env.example", ".env.sample", ".env.template"}

// homeSecrets are, relative to home, directories and files holding
// credentials: keys, and the tokens command-line tools keep after a login.
// Lower case, as normName leaves names.
var homeSecrets = [][]string{
	// Keys and general credential stores.
	{".ssh"}, {".gnupg"}, {".password-store"}, {".local", "share", "keyrings"},
	{".netrc"}, {".git-credentials"}, {".config", "git", "credentials"},
	// NovaCode's own user settings may hold API keys (so may NOVA_HOME's:
	// see Guard.dataDirs), and so may other coding agents'.
	{".novacode", "settings.json"}, {".claude", ".credentials.json"}, {".codex", "auth.json"},
	// Cloud and cluster CLIs.
	{".aws"}, {".azure"}, {".config", "gcloud"}, {".kube"}, {".oci"},
	{".config", "doctl"}, {".config", "hcloud"}, {".fly"}, {".s3cfg"}, {".boto"},
	{".config", "rclone", "rclone.conf"}, {".databrickscfg"},
	{".terraform.d", "credentials.tfrc.json"}, {".terraformrc"}, {".vault-token"},
	// Code hosts.
	{".config", "gh", "hosts.yml"}, {".config", "hub"}, {".config", "glab-cli", "config.yml"},
	{".config", "github-copilot"}, {".huggingface", "token"}, {".cache", "huggingface", "token"},
	// Package registries.
	{".docker", "config.json"}, {".npmrc"}, {".yarnrc"}, {".yarnrc.yml"}, {".pypirc"},
	{".cargo", "credentials"}, {".cargo", "credentials.toml"}, {".gem", "credentials"},
	{".m2", "settings.xml"}, {".m2", "settings-security.xml"}, {".gradle", "gradle.properties"},
	{".config", "configstore"},
	// Databases.
	{".pgpass"}, {".my.cnf"},
}

// secret returns why reading any of paths should be asked, or "".
func (g *Guard) secret(paths []string) string {
	for _, p := range paths {
		if r := g.secretOne(p); r != "" {
			return r
		}
	}
	return ""
}

func (g *Guard) secretOne(p string) string {
	parts := nameParts(p)
	if len(parts) == 0 {
		return ""
	}
	if r := secretName(parts[len(parts)-1]); r != "" {
		return r
	}
	return g.homeSecret(p)
}

// secretName judges a file by its name alone.
func secretName(name string) string {
	last := normName(name)
	switch {
	case last == ".env" || (strings.HasPrefix(last, ".env.") && !slices.Contains(envExamples, last)):
		return "an environment file (" + name + "), which usually holds credentials"
	case strings.HasPrefix(last, "id_rsa") || strings.HasPrefix(last, "id_ed25519") || strings.HasPrefix(last, "id_ecdsa") || strings.HasPrefix(last, "id_dsa"):
		return "an SSH key (" + name + ")"
	case strings.HasSuffix(last, ".pem") || strings.HasSuffix(last, ".key"):
		return "a key or certificate file (" + name + ")"
	}
	return ""
}

// homeSecret judges p by where it is under the home directory.
func (g *Guard) homeSecret(p string) string {
	for _, home := range []string{g.home, g.homeResolved} {
		if home == "" {
			continue
		}
		rel, ok := relParts(p, home)
		if !ok {
			continue
		}
		for _, s := range homeSecrets {
			if len(rel) >= len(s) && slices.Equal(rel[:len(s)], s) {
				return "credentials under ~/" + strings.Join(s, "/")
			}
		}
	}
	for _, d := range g.dataDirs {
		if rel, ok := relParts(p, d); ok && d != "" && slices.Equal(rel, []string{"settings.json"}) {
			return "NovaCode's user settings (" + filepath.Join(d, "settings.json") + "), which may hold API keys"
		}
	}
	return ""
}

// relParts returns the normalised components of p below dir.
func relParts(p, dir string) ([]string, bool) {
	pp, dp := nameParts(p), nameParts(dir)
	if len(dp) > len(pp) {
		return nil, false
	}
	for i, c := range dp {
		if normName(c) != normName(pp[i]) {
			return nil, false
		}
	}
	rel := make([]string, 0, len(pp)-len(dp))
	for _, c := range pp[len(dp):] {
		rel = append(rel, normName(c))
	}
	return rel, true
}

// specialRoots are kernel pseudo-filesystems: reading them leaks process
// state, writing them changes the system.
var specialRoots = []string{"/proc", "/sys", "/dev"}

// special returns why the resolved file is not a plain file or directory.
func special(paths []string, res resolution) string {
	if res.viaProc != "" {
		return fmt.Sprintf("reached through %s, a /proc link whose meaning depends on the process", res.viaProc)
	}
	if runtime.GOOS != "windows" {
		for _, p := range paths {
			for _, s := range specialRoots {
				if within(p, s, false) {
					return fmt.Sprintf("under %s, a kernel pseudo-filesystem", s)
				}
			}
		}
	}
	if res.info == nil {
		return ""
	}
	switch m := res.info.Mode(); {
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO): opening it can block"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return ""
}

// caseInsensitive probes whether the filesystem holding dir ignores case:
// it looks up an existing name of dir (or of an ancestor) with its case
// swapped and compares the two with SameFile. Nothing is written. With no
// name to probe, it assumes the platform default.
func caseInsensitive(dir string) bool {
	if f, err := os.Open(dir); err == nil {
		names, _ := f.Readdirnames(64)
		f.Close()
		for _, n := range names {
			if r, ok := probeCase(dir, n); ok {
				return r
			}
		}
	}
	for d := dir; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if r, ok := probeCase(filepath.Dir(d), filepath.Base(d)); ok {
			return r
		}
	}
	return runtime.GOOS == "darwin" || runtime.GOOS == "windows"
}

// probeCase looks up name in dir with its case swapped; ok is false when
// name has no letter to swap or cannot be looked up.
func probeCase(dir, name string) (insensitive, ok bool) {
	swapped := strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, name)
	if swapped == name {
		return false, false
	}
	orig, err := os.Lstat(filepath.Join(dir, name))
	if err != nil {
		return false, false
	}
	other, err := os.Lstat(filepath.Join(dir, swapped))
	if err != nil {
		return false, missing(err)
	}
	return os.SameFile(orig, other), true
}
