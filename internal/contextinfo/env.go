package contextinfo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// GitTimeout bounds all git commands of one Environment call together: a
	// huge or wedged repository must not delay the start of a session.
	GitTimeout = 2 * time.Second
	// maxListedFiles is how many status entries the <env> block names.
	maxListedFiles = 10
)

// Environment returns the <env> block for dir at time now. The format is
// fixed, one "Key: value" line each, in this order:
//
//	<env>
//	Working directory: /abs/dir
//	Platform: linux/amd64 (Debian GNU/Linux 12 (bookworm))
//	Date: 2026-01-02
//	Git repository: yes
//	Repository root: /abs
//	Branch: main
//	Upstream: origin/main (ahead 1, behind 2)
//	Status: 1 staged, 2 modified, 3 untracked
//	Changes:
//	  M  staged.go
//	   M dir/modified.go
//	  ?? new.txt
//	  … and 3 more
//	</env>
//
// Platform is GOOS/GOARCH, followed on Linux by PRETTY_NAME from os-release
// when there is one. Date is now's calendar date in now's location.
//
// Whether dir is in a repository is decided without git: the nearest
// ancestor of dir (dir included) holding a .git entry is the repository root,
// the same rule MemoryFiles uses. Outside a repository the block ends after
// "Git repository: no" and git is never run. Inside one, git supplies the
// rest; if git is missing, fails or takes longer than GitTimeout, the lines
// after "Repository root" are replaced by "Git: not available".
//
// Branch is the branch name, "<name> (no commits yet)" in an empty
// repository, or "detached at <short sha>". Upstream is present only when the
// branch tracks one: "(ahead N, behind M)", "(up to date)" or "(gone)".
// Status is "clean" or the counts "N staged, N modified, N untracked", with
// ", N conflicted" appended when there are unmerged paths; a path both
// staged and modified counts in both. Changes lists at most 10 entries of
// `git status --porcelain=v1` verbatim (status code, then the path relative
// to the repository root), then "… and N more". The last line has no
// trailing newline.
func Environment(ctx context.Context, dir string, now time.Time) string {
	abs := absPath(dir)
	var b strings.Builder
	b.WriteString("<env>\n")
	fmt.Fprintf(&b, "Working directory: %s\n", abs)
	fmt.Fprintf(&b, "Platform: %s\n", platform())
	fmt.Fprintf(&b, "Date: %s\n", now.Format(time.DateOnly))
	root, ok := repoRoot(abs)
	if !ok {
		b.WriteString("Git repository: no\n")
	} else {
		b.WriteString("Git repository: yes\n")
		fmt.Fprintf(&b, "Repository root: %s\n", root)
		ctx, cancel := context.WithTimeout(ctx, GitTimeout)
		defer cancel()
		if st, err := readGitStatus(ctx, abs); err != nil {
			b.WriteString("Git: not available\n")
		} else {
			st.write(&b)
		}
	}
	b.WriteString("</env>")
	return b.String()
}

// absPath makes dir absolute and clean. It falls back to the cleaned input
// if the working directory is unknown: the block must still be produced.
func absPath(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return filepath.Clean(dir)
}

// repoRoot returns the nearest ancestor of abs (abs included) that holds a
// .git entry (a directory, or the file of a worktree or submodule).
func repoRoot(abs string) (string, bool) {
	for d := abs; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// platform is GOOS/GOARCH plus, on Linux, the distribution's pretty name.
func platform() string {
	p := runtime.GOOS + "/" + runtime.GOARCH
	if runtime.GOOS == "linux" {
		if name := distribution(); name != "" {
			p += " (" + name + ")"
		}
	}
	return p
}

// distribution is read once: it cannot change while the process runs, and
// Preamble is called again after every compaction.
var distribution = sync.OnceValue(func() string {
	for _, p := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		if data, err := os.ReadFile(p); err == nil {
			return prettyName(data)
		}
	}
	return ""
})

// prettyName extracts PRETTY_NAME from os-release content, which uses shell
// quoting: a value may be double- or single-quoted, and inside double quotes
// a backslash escapes $, ", \ and `.
func prettyName(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, val, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || key != "PRETTY_NAME" {
			continue
		}
		return strings.Map(dropControl, unquoteShell(val))
	}
	return ""
}

func unquoteShell(v string) string {
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return v[1 : len(v)-1]
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$\"\\`", v[i+1]) >= 0 {
				i++
			}
			b.WriteByte(v[i])
		}
		return b.String()
	}
	return v
}

// dropControl removes control characters (for strings.Map): text that ends
// up in the prompt must not be able to start a new line of the block.
func dropControl(r rune) rune {
	if r < 0x20 || r == 0x7f {
		return -1
	}
	return r
}

// gitStatus is what `git status --porcelain=v1 -b` says, parsed.
type gitStatus struct {
	branch     string
	noCommits  bool
	detached   bool
	shortSHA   string
	upstream   string
	ahead      int
	behind     int
	gone       bool
	staged     int
	modified   int
	untracked  int
	conflicted int
	entries    []string // status lines, verbatim
}

func (s *gitStatus) write(b *strings.Builder) {
	switch {
	case s.detached && s.shortSHA != "":
		fmt.Fprintf(b, "Branch: detached at %s\n", s.shortSHA)
	case s.detached:
		b.WriteString("Branch: detached\n")
	case s.noCommits:
		fmt.Fprintf(b, "Branch: %s (no commits yet)\n", s.branch)
	default:
		fmt.Fprintf(b, "Branch: %s\n", s.branch)
	}
	if s.upstream != "" {
		switch {
		case s.gone:
			fmt.Fprintf(b, "Upstream: %s (gone)\n", s.upstream)
		case s.ahead == 0 && s.behind == 0:
			fmt.Fprintf(b, "Upstream: %s (up to date)\n", s.upstream)
		default:
			fmt.Fprintf(b, "Upstream: %s (ahead %d, behind %d)\n", s.upstream, s.ahead, s.behind)
		}
	}
	if len(s.entries) == 0 {
		b.WriteString("Status: clean\n")
		return
	}
	fmt.Fprintf(b, "Status: %d staged, %d modified, %d untracked", s.staged, s.modified, s.untracked)
	if s.conflicted > 0 {
		fmt.Fprintf(b, ", %d conflicted", s.conflicted)
	}
	b.WriteString("\nChanges:\n")
	for i, e := range s.entries {
		if i == maxListedFiles {
			fmt.Fprintf(b, "  … and %d more\n", len(s.entries)-maxListedFiles)
			break
		}
		fmt.Fprintf(b, "  %s\n", e)
	}
}

// gitEnvDrop are the variables that would point git at another repository
// than the one the .git walk found (set, say, when nova runs inside a git
// hook); they are removed so the block describes dir.
var gitEnvDrop = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
	"GIT_COMMON_DIR": true, "GIT_NAMESPACE": true, "GIT_CEILING_DIRECTORIES": true,
	"GIT_DISCOVERY_ACROSS_FILESYSTEM": true, "GIT_PREFIX": true,
}

// git runs read-only git commands in one directory.
type git struct {
	path string
	dir  string
	env  []string
}

// safeOptions come before every subcommand. The repository's config is not
// trusted (it may come from an unpacked archive), so everything through
// which a plain `git status` can start a program is switched off: the
// fsmonitor hook and hooks in general (post-index-change). Filters are
// handled per repository in readGitStatus. --no-optional-locks (and
// GIT_OPTIONAL_LOCKS=0) stop status from writing the refreshed index, which
// would be a side effect and could race with the user's own git.
// core.quotePath=false keeps non-ASCII names readable.
var safeOptions = []string{
	"--no-pager", "--no-optional-locks",
	"-c", "core.fsmonitor=",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.quotePath=false",
}

func newGit(dir string) (*git, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("find git: %w", err)
	}
	env := make([]string, 0, len(os.Environ())+2)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !gitEnvDrop[k] && k != "GIT_OPTIONAL_LOCKS" && k != "GIT_TERMINAL_PROMPT" {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
	return &git{path: path, dir: dir, env: env}, nil
}

// run returns git's standard output. extra are -c options placed before the
// subcommand.
func (g *git) run(ctx context.Context, extra []string, args ...string) ([]byte, error) {
	argv := make([]string, 0, len(safeOptions)+len(extra)+len(args))
	argv = append(append(append(argv, safeOptions...), extra...), args...)
	cmd := exec.CommandContext(ctx, g.path, argv...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	// A killed git may leave a child holding the pipe; do not wait for it.
	cmd.WaitDelay = 100 * time.Millisecond
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			return out, fmt.Errorf("git %s: %w: %s", args[0], err, bytes.TrimSpace(ee.Stderr))
		}
		return out, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

// filterOverrides returns -c options that disable the filter drivers the
// repository's own config (.git/config, the worktree config and what they
// include) defines. A clean filter is a program git runs on a file's content
// when status has to compare it with the index (a file whose mtime changed),
// so a repository could otherwise run code as soon as the agent starts in it.
// Drivers from the user's global or system config (git-lfs, typically) are
// the user's own choice and stay. Empty clean/smudge/process values make git
// skip a driver; required=false keeps it from then failing the command.
func (g *git) filterOverrides(ctx context.Context) ([]string, error) {
	out, err := g.run(ctx, nil, "config", "--show-scope", "-z", "--name-only", "--get-regexp", `^filter\.`)
	scoped := true
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 129 {
		// git < 2.26 has no --show-scope: treat every driver as untrusted.
		scoped = false
		out, err = g.run(ctx, nil, "config", "-z", "--name-only", "--get-regexp", `^filter\.`)
	}
	if err != nil {
		if errors.As(err, &ee) && ee.ExitCode() == 1 {
			return nil, nil // no filter.* keys at all
		}
		return nil, err
	}
	fields := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	seen := map[string]bool{}
	var opts []string
	for len(fields) > 0 {
		scope, key := "", fields[0]
		if scoped && len(fields) >= 2 {
			scope, key = fields[0], fields[1]
			fields = fields[2:]
		} else {
			fields = fields[1:]
		}
		if scope == "system" || scope == "global" || scope == "command" {
			continue
		}
		i, j := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
		if i < 0 || j <= i {
			continue // "filter.x" without a subsection names no driver
		}
		name := key[i+1 : j]
		if seen[name] {
			continue
		}
		seen[name] = true
		// -c splits at the first '=', so such a name cannot be overridden:
		// refuse rather than run status with the driver live.
		if strings.ContainsAny(name, "=\n") {
			return nil, fmt.Errorf("filter driver %q cannot be disabled", name)
		}
		for _, v := range []string{"clean=", "smudge=", "process=", "required=false"} {
			opts = append(opts, "-c", "filter."+name+"."+v)
		}
	}
	return opts, nil
}

// readGitStatus runs git in dir and parses the status.
func readGitStatus(ctx context.Context, dir string) (*gitStatus, error) {
	g, err := newGit(dir)
	if err != nil {
		return nil, err
	}
	filters, err := g.filterOverrides(ctx)
	if err != nil {
		return nil, err
	}
	// dirty: submodule work trees are not inspected, which would mean a
	// nested git status per submodule, with that submodule's own config.
	out, err := g.run(ctx, filters, "status", "--porcelain=v1", "-b", "--ignore-submodules=dirty")
	if err != nil {
		return nil, err
	}
	st := parseStatus(string(out))
	if st.detached {
		if sha, err := g.run(ctx, nil, "rev-parse", "--short", "HEAD"); err == nil {
			st.shortSHA = strings.TrimSpace(string(sha))
		}
	}
	return st, nil
}

// parseStatus reads porcelain v1 output with the -b header line.
func parseStatus(out string) *gitStatus {
	st := &gitStatus{}
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if rest, ok := strings.CutPrefix(line, "## "); ok {
			st.parseHeader(rest)
			continue
		}
		if len(line) < 4 {
			continue
		}
		x, y := line[0], line[1]
		switch {
		case x == '!' && y == '!':
			continue // ignored files are never requested; be safe anyway
		case x == '?' && y == '?':
			st.untracked++
		case x == 'U' || y == 'U' || (x == 'A' && y == 'A') || (x == 'D' && y == 'D'):
			st.conflicted++
		default:
			if x != ' ' {
				st.staged++
			}
			if y != ' ' {
				st.modified++
			}
		}
		st.entries = append(st.entries, strings.Map(dropControl, line))
	}
	return st
}

// parseHeader reads the text after "## ": "main", "main...origin/main
// [ahead 1, behind 2]", "main...origin/main [gone]", "No commits yet on
// main" or "HEAD (no branch)". Porcelain output is never translated. Ref
// names cannot contain " [" or "...", so both are safe separators.
func (st *gitStatus) parseHeader(h string) {
	if name, ok := strings.CutPrefix(h, "No commits yet on "); ok {
		st.branch, st.noCommits = name, true
		return
	}
	if name, ok := strings.CutPrefix(h, "Initial commit on "); ok { // git < 2.15
		st.branch, st.noCommits = name, true
		return
	}
	if h == "HEAD (no branch)" {
		st.detached = true
		return
	}
	if i := strings.Index(h, " ["); i >= 0 && strings.HasSuffix(h, "]") {
		track := h[i+2 : len(h)-1]
		h = h[:i]
		if track == "gone" {
			st.gone = true
		}
		for part := range strings.SplitSeq(track, ", ") {
			if n, ok := strings.CutPrefix(part, "ahead "); ok {
				st.ahead, _ = strconv.Atoi(n)
			} else if n, ok := strings.CutPrefix(part, "behind "); ok {
				st.behind, _ = strconv.Atoi(n)
			}
		}
	}
	st.branch, st.upstream, _ = strings.Cut(h, "...")
}
