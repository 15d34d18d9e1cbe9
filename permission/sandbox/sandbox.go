// Package sandbox confines the commands the Bash tool runs at the level of
// the operating system, underneath the permission chain.
//
// The permission chain decides whether a command may run; it reads the
// command as text, and a prompt-injected model will keep looking for text
// that reads as harmless and does harm. The sandbox is the second line: it
// limits what any command can do once it runs, whatever its text said.
//
// Confined commands may read the whole filesystem but write only in the
// workspace, in extra writable directories and in a temporary directory;
// they have no network unless it is allowed. Two backends exist, tried in
// this order:
//
//   - bubblewrap (the bwrap program): a mount namespace where / is
//     read-only and the writable directories are bound read-write on top;
//     a private /tmp, /dev and /proc; a new PID namespace (the command can
//     neither see nor signal nor ptrace NovaCode or other processes of the
//     user, and every process it leaves behind dies with it); a new
//     network namespace unless the network is allowed. What git, run later
//     by the user outside the sandbox, reads as configuration or runs is
//     read-only inside, in every repository in the writable directories
//     (nested ones, submodules, worktrees, bare ones, the targets of .git
//     files): all of each git directory but what ordinary work writes
//     (objects, refs, the index, HEAD, …: see workEntry), and what its
//     config points at in the work tree (core.hooksPath, include.path, a
//     script named by core.fsmonitor). What does not exist when a command
//     starts cannot be bound; what a command creates there (a commondir, a
//     new repository with a core.fsmonitor) is checked and undone once it
//     has ended, when no process of it is left (see Finish), and what git
//     reads as configuration appearing in a known git directory while
//     commands run stops them at once (watch_linux.go). Files with a
//     hard link outside the writable directories are bound read-only too:
//     nothing else stops a write through a link. .novacode is read-only,
//     so a command cannot change what the next session allows. The
//     writable directories are scanned once when the sandbox is made, and
//     for hard links again whenever Guarantees is asked.
//   - Landlock (Linux 5.13+), where bwrap is missing or cannot create
//     namespaces: one thread of NovaCode, set apart for the purpose, takes
//     a Landlock ruleset and forks the command, which inherits it (see
//     Start); NovaCode itself stays unconfined. Landlock cannot make a part
//     of a writable directory read-only, so git metadata and .novacode are
//     not protected, nor files with outside hard links (Guarantees says
//     so), and there is no private /tmp: TMPDIR is the only temp dir
//     writable. A command can signal only processes of its own sandbox.
//     The thread stays until Finish, and then, from inside the command's
//     Landlock domain, kills every process left in it (a background job, a
//     daemon that started its own session), as bubblewrap's PID namespace
//     does; before Landlock ABI 6 (Linux 6.12), which scopes signals, it
//     kills the command's session instead, which a daemon can leave.
//
// Commands get no capability under either backend, even where NovaCode
// runs as root (a container, CI): with one, a command could remount a
// read-only bind writable, reboot or reconfigure the network.
//
// With the network off, a seccomp filter refuses the sockets that the
// backend does not otherwise isolate: under bubblewrap, unix-domain and vsock
// sockets (the Docker socket or the session bus would let a command ask a
// process outside the sandbox to act for it); under Landlock, every socket
// family but netlink, since Landlock alone restricts TCP only from ABI 4,
// UDP only from ABI 10, and never multipath TCP. InitProcess keeps the
// command from inheriting descriptors NovaCode's parent left open.
//
// Under bubblewrap, processes a command leaves in the background die when
// it ends, and a timeout ends the command at once (bwrap dies of the
// SIGTERM and the PID namespace with it), without a grace period. Under
// Landlock they die at Finish. Either way, once Finish has returned they
// are gone, not only sent SIGKILL: it waits for that (see endWait).
//
// The binary's main should call InitProcess first thing; without it,
// descriptors the process inherited reach commands. Neither backend starts
// a second copy of NovaCode: a command costs bwrap at most.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Mode says whether commands must, may or must not be sandboxed.
type Mode string

const (
	// ModeAuto uses the best sandbox available, and runs commands
	// unsandboxed, with a notice, where there is none.
	ModeAuto Mode = "auto"
	// ModeOn requires a sandbox: New fails where there is none.
	ModeOn Mode = "on"
	// ModeOff runs commands unsandboxed.
	ModeOff Mode = "off"
)

// ParseMode reads a mode from settings or a flag; the empty string is
// ModeAuto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeAuto, nil
	case ModeAuto, ModeOn, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("parse sandbox mode %q: want auto, on or off", s)
}

// Policy says what confined commands may do.
type Policy struct {
	// Workspace is writable; it must be an absolute path to a directory.
	Workspace string
	// Writable lists extra writable directories (additionalDirectories).
	// Those missing when a command starts are left out for that command.
	Writable []string
	// AllowNetwork lets commands use the network, unix-domain sockets
	// included.
	AllowNetwork bool
	// TempDir is the session's temporary directory: writable, and TMPDIR
	// points at it. It is created if missing. When empty, bubblewrap
	// commands use their private /tmp (empty for each command), and
	// Landlock commands get a directory New creates and Close removes.
	TempDir string
	// ReadOnly lists directories inside the writable ones that commands
	// must not change (NovaCode's data directory when it lies in the
	// workspace: its settings decide what runs without asking). Under
	// bubblewrap they are bound read-only, TempDir staying writable inside
	// them; Landlock, which can only allow, cannot exclude them.
	ReadOnly []string
}

// Backend kinds, as Kind reports them.
const (
	KindBubblewrap = "bubblewrap"
	KindLandlock   = "landlock"
	KindNone       = "none"
)

// Sandbox wraps commands so that they run confined. It implements
// tool.Sandbox. A Sandbox is safe for concurrent use; Close ends it.
type Sandbox struct {
	kind    string
	notice  string
	policy  Policy // cleaned; TempDir set for Landlock
	bwrap   string // path of bwrap
	ownTemp string // temp dir New created, removed by Close
	// git keeps git metadata and files with outside hard links read-only
	// under bubblewrap (nil for the other kinds).
	git *gitGuard
	// started holds the commands Start started and Finish has not
	// finished: *exec.Cmd -> *bwrapCmd or *confinedCmd.
	started sync.Map
}

// probes is how New looks at the machine; tests replace parts of it.
type probes struct {
	lookPath    func(file string) (string, error)
	probeBwrap  func(bwrap string, args []string) error
	landlockABI func() int
}

func systemProbes() probes {
	return probes{
		lookPath:    exec.LookPath,
		probeBwrap:  cachedProbeBwrap,
		landlockABI: landlockABI,
	}
}

// New picks the backend for mode on this machine. Mode on without any
// backend is an error that says what to install; mode off, or auto without
// a backend, gives a Sandbox of kind "none" whose Start is cmd.Start.
func New(mode Mode, p Policy) (*Sandbox, error) {
	return newSandbox(mode, p, systemProbes())
}

func newSandbox(mode Mode, p Policy, pr probes) (*Sandbox, error) {
	switch mode {
	case ModeAuto, ModeOn, ModeOff:
	case "":
		mode = ModeAuto
	default:
		return nil, fmt.Errorf("new sandbox: unknown mode %q", mode)
	}
	if mode == ModeOff {
		return &Sandbox{kind: KindNone}, nil
	}
	if !osSandbox {
		if mode == ModeOn {
			return nil, fmt.Errorf("new sandbox: sandbox mode is on, but the OS sandbox (bubblewrap or Landlock) is Linux-only and this is %s: set the sandbox mode to auto or off", runtime.GOOS)
		}
		return &Sandbox{kind: KindNone, notice: "commands run unsandboxed: the OS sandbox (bubblewrap or Landlock) is Linux-only"}, nil
	}
	p, err := cleanPolicy(p)
	if err != nil {
		return nil, err
	}

	var reasons []string
	bw, err := findBwrap(p, pr)
	if err == nil {
		roots := append([]string{p.Workspace}, realDirs(p.Writable)...)
		writable := roots
		if p.TempDir != "" {
			writable = append(slices.Clone(roots), p.TempDir)
		}
		s := &Sandbox{kind: KindBubblewrap, policy: p, bwrap: bw}
		s.git = newGitGuard(roots, writable, s.stopRunning)
		return s, nil
	}
	reasons = append(reasons, err.Error())

	if err := findLandlock(pr); err == nil {
		s := &Sandbox{kind: KindLandlock, policy: p}
		if s.policy.TempDir == "" {
			// Landlock has no private /tmp; the command needs somewhere.
			dir, err := os.MkdirTemp("", "nova-sandbox-")
			if err != nil {
				return nil, fmt.Errorf("new sandbox: create temp dir: %w", err)
			}
			if dir, err = filepath.EvalSymlinks(dir); err != nil {
				return nil, fmt.Errorf("new sandbox: temp dir: %w", err)
			}
			s.policy.TempDir, s.ownTemp = dir, dir
		}
		return s, nil
	}
	reasons = append(reasons, err.Error())

	why := strings.Join(reasons, "; ")
	if mode == ModeOn {
		return nil, fmt.Errorf("new sandbox: sandbox mode is on but no sandbox is available (%s): install bubblewrap (apt-get install bubblewrap), or set the sandbox mode to auto or off", why)
	}
	return &Sandbox{
		kind:   KindNone,
		notice: "commands run unsandboxed (" + why + "): install bubblewrap (apt-get install bubblewrap) to confine them",
	}, nil
}

// cleanPolicy checks p and makes its paths absolute and symlink-free, so
// that bind mounts and Landlock rules name the directories themselves, and
// creates the temp dir.
func cleanPolicy(p Policy) (Policy, error) {
	if p.Workspace == "" || !filepath.IsAbs(p.Workspace) {
		return p, fmt.Errorf("new sandbox: workspace %q is not an absolute path", p.Workspace)
	}
	ws, err := filepath.EvalSymlinks(p.Workspace)
	if err != nil {
		return p, fmt.Errorf("new sandbox: workspace: %w", err)
	}
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return p, fmt.Errorf("new sandbox: workspace %s is not a directory", p.Workspace)
	}
	out := Policy{Workspace: ws, AllowNetwork: p.AllowNetwork}
	for _, w := range p.Writable {
		if !filepath.IsAbs(w) {
			return p, fmt.Errorf("new sandbox: writable directory %q is not an absolute path", w)
		}
		// Missing ones are resolved when a command starts (see realDirs).
		out.Writable = append(out.Writable, filepath.Clean(w))
	}
	if p.TempDir != "" {
		if !filepath.IsAbs(p.TempDir) {
			return p, fmt.Errorf("new sandbox: temp dir %q is not an absolute path", p.TempDir)
		}
		if err := os.MkdirAll(p.TempDir, 0o700); err != nil {
			return p, fmt.Errorf("new sandbox: create temp dir: %w", err)
		}
		if out.TempDir, err = filepath.EvalSymlinks(p.TempDir); err != nil {
			return p, fmt.Errorf("new sandbox: temp dir: %w", err)
		}
	}
	for _, d := range p.ReadOnly {
		if d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			return p, fmt.Errorf("new sandbox: read-only directory %q is not an absolute path", d)
		}
		// Missing ones are resolved when a command starts (see realDirs).
		out.ReadOnly = append(out.ReadOnly, filepath.Clean(d))
	}
	return out, nil
}

// findBwrap returns the path of a bwrap that works here with the
// namespaces the policy needs.
func findBwrap(p Policy, pr probes) (string, error) {
	bw, err := pr.lookPath("bwrap")
	if err != nil {
		return "", errors.New("bubblewrap is not installed")
	}
	if err := pr.probeBwrap(bw, probeArgs(p)); err != nil {
		return "", fmt.Errorf("bubblewrap cannot start here: %w", err)
	}
	return bw, nil
}

func findLandlock(pr probes) error {
	if abi := pr.landlockABI(); abi < 1 {
		return errors.New("the kernel has no Landlock")
	}
	return nil
}

var probeCache sync.Map // key string -> *probeResult

type probeResult struct {
	once sync.Once
	err  error
}

// cachedProbeBwrap runs bwrap once per distinct set of flags: it can be
// installed and still fail, where user namespaces are disabled or a
// container forbids mounting /proc, and a failing bwrap would fail every
// command.
func cachedProbeBwrap(bwrap string, args []string) error {
	key := bwrap + "\x00" + strings.Join(args, "\x00")
	v, _ := probeCache.LoadOrStore(key, &probeResult{})
	r := v.(*probeResult)
	r.once.Do(func() { r.err = probeBwrap(bwrap, args) })
	return r.err
}

func probeBwrap(bwrap string, args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	argv := append(append(append([]string(nil), args...), "--"), "true")
	out, err := exec.CommandContext(ctx, bwrap, argv...).CombinedOutput()
	if err != nil {
		if msg := strings.TrimSpace(string(out)); msg != "" {
			return fmt.Errorf("%s", firstLine(msg))
		}
		return err
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Kind names the backend: "bubblewrap", "landlock" or "none". A nil
// *Sandbox, like every method here, acts as kind "none".
func (s *Sandbox) Kind() string {
	if s == nil {
		return KindNone
	}
	return s.kind
}

// Notice is a line for the user when commands run unsandboxed though the
// mode did not ask for that; it is empty otherwise.
func (s *Sandbox) Notice() string {
	if s == nil {
		return ""
	}
	return s.notice
}

// Describe says in a few words what confines commands.
func (s *Sandbox) Describe() string {
	if s == nil {
		return "no sandbox: commands run unconfined"
	}
	net := "network off"
	if s.policy.AllowNetwork {
		net = "network allowed"
	}
	switch s.kind {
	case KindBubblewrap:
		return "bubblewrap sandbox: writes only in the workspace, extra directories and temp dir; " + net
	case KindLandlock:
		return "Landlock sandbox: writes only in the workspace, extra directories and temp dir (.git and hard-linked files not protected); " + net
	}
	return "no sandbox: commands run unconfined"
}

// Policy returns the policy in effect, its paths resolved.
func (s *Sandbox) Policy() Policy {
	if s == nil {
		return Policy{}
	}
	p := s.policy
	p.Writable = append([]string(nil), p.Writable...)
	return p
}

// Close stops the scan of the writable directories if it still runs,
// ends what is left of commands Start started and Finish did not finish
// (as Finish does, without the git check), and removes the temp dir New
// created, if any.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	if s.git != nil {
		s.git.close()
	}
	// Commands never finished: end what is left of them.
	s.started.Range(func(k, _ any) bool {
		v, ok := s.started.LoadAndDelete(k) // not if Finish took it meanwhile
		if !ok {
			return true
		}
		switch c := v.(type) {
		case *confinedCmd:
			c.end()
		case *bwrapCmd:
			c.init.end()
		}
		return true
	})
	if s.ownTemp == "" {
		return nil
	}
	if err := os.RemoveAll(s.ownTemp); err != nil {
		return fmt.Errorf("close sandbox: %w", err)
	}
	return nil
}

// Guarantees is what the sandbox promises about every command it starts,
// as the permission chain needs to know it: a rule for a command that runs
// code the project defines (npm test, make) is only as safe as the
// sandbox around it.
type Guarantees struct {
	// Confined: commands write only in the workspace, the extra writable
	// directories and the temp dir, and reach no network unless allowed.
	Confined bool
	// GitMetadata: commands cannot change what git, run later by the user
	// outside the sandbox, reads as configuration or runs (hooks, config,
	// commondir, info/, modules/, worktrees/, …) in any repository in the
	// writable directories, nor leave behind a repository that would run
	// anything. Bubblewrap only, and only where the scan found every
	// repository and the binds fit.
	GitMetadata bool
	// HardLinks: commands cannot write through a hard link to a file
	// outside the writable directories. Bubblewrap only, and only where
	// the scan found every such file and the binds fit.
	HardLinks bool
	// Gaps say, one sentence each, why a promise above is not kept.
	Gaps []string
}

// ConfinesProjectCode reports whether a command that runs whatever the
// project defines is confined: its writes cannot reach outside, neither
// directly nor through git or a hard link.
func (g Guarantees) ConfinesProjectCode() bool { return g.Confined && g.GitMetadata && g.HardLinks }

// Guarantees reports what the sandbox promises now. Under bubblewrap it
// first walks the writable directories again for files with several hard
// links (one may have been linked from outside since the last walk); the
// walk is bounded by ctx and a timeout, and one that cannot finish keeps
// the promise off.
func (s *Sandbox) Guarantees(ctx context.Context) Guarantees {
	switch s.Kind() {
	case KindBubblewrap:
		git, links, gaps := s.git.guarantees(ctx)
		return Guarantees{Confined: true, GitMetadata: git, HardLinks: links, Gaps: gaps}
	case KindLandlock:
		return Guarantees{Confined: true, Gaps: []string{
			"Landlock cannot make part of the workspace read-only, so a command can change git's hooks and config, which git runs outside the sandbox",
			"Landlock cannot keep a command from writing through a hard link to a file outside the workspace",
		}}
	}
	return Guarantees{Gaps: []string{"commands run unsandboxed"}}
}

// Start starts cmd confined: cmd is complete (Path, Args, Dir, Env,
// streams, SysProcAttr) and not yet started. Start returns once the
// command runs or has failed to start; on an error it has not run. The
// caller then waits for it as for any command, and must start it the way
// the Bash tool does: its first process leads a process group of its own,
// and killing that group kills everything the command started. Dir
// defaults to the workspace.
//
// Bubblewrap becomes the process that runs cmd (cmd's Path and Args are
// rewritten), with the socket filter handed over on a pipe (--seccomp 3);
// Start holds the command back until it has a pidfd for the first process
// of bwrap's PID namespace (--info-fd, --block-fd), by which Finish waits
// for the namespace to be empty.
// Landlock needs no second process: a thread of this process, locked to
// one goroutine and never reused, takes the Landlock domain, no_new_privs
// and the socket filter, and forks the command, which inherits them; the
// rest of the process stays unconfined.
//
// Descriptors the process inherited without close-on-exec would reach the
// command; InitProcess marks them at start. A program that embeds the
// sandbox without calling it must not leave such descriptors open.
func (s *Sandbox) Start(cmd *exec.Cmd) error {
	if cmd.Process != nil {
		return errors.New("start command: already started")
	}
	if len(cmd.Args) == 0 {
		return errors.New("start command: empty argv")
	}
	if s == nil || s.kind == KindNone {
		return cmd.Start()
	}
	if len(cmd.ExtraFiles) > 0 {
		return errors.New("start command: the sandbox does not pass extra files on")
	}
	if cmd.Err != nil {
		return cmd.Err
	}
	if cmd.Dir == "" {
		cmd.Dir = s.policy.Workspace
	}
	switch s.kind {
	case KindBubblewrap:
		protect, seq := s.git.begin()
		c, err := s.startBwrap(cmd, protect)
		if err != nil {
			s.git.end(seq)
			return err
		}
		c.seq = seq
		s.started.Store(cmd, c)
		return nil
	case KindLandlock:
		c, err := s.startLandlock(cmd)
		if err != nil {
			return err
		}
		s.started.Store(cmd, c)
		return nil
	}
	return fmt.Errorf("start command: unknown sandbox kind %q", s.kind)
}

// Finish must be called once for every command Start started, after
// cmd.Wait has returned (or the caller has given up on it: a killed
// command). It ends what the command left behind and undoes what it did
// that the sandbox could not stop while it ran, and returns a note for the
// model about it ("" if none):
//
//   - every process the command left (a background job, a daemon, one in
//     a new process group or session) is killed, and Finish returns once
//     they have all exited (zombies waiting to be reaped count as exited:
//     they run nothing). Under Landlock these are the processes in the
//     command's Landlock domain where the kernel scopes signals (Linux
//     6.12), else those in its session; under bubblewrap, those in its
//     PID namespace, which bwrap's exit has the kernel kill, though only
//     after cmd.Wait has returned. A process stuck in the kernel that
//     has not exited endWait after the kill is left to finish dying, and
//     the note says so.
//   - under bubblewrap, once no process of the command is left, git
//     metadata the command created that no read-only bind could cover,
//     because it did not exist yet (a commondir, a new repository's
//     config), is checked and undone: see gitGuard.end.
//
// ctx bounds nothing that must happen: Finish finishes even when ctx has
// ended (NovaCode is exiting), as a check left half done would leave git
// metadata or processes behind; the work is bounded by its own limits.
func (s *Sandbox) Finish(_ context.Context, cmd *exec.Cmd) string {
	if s == nil {
		return ""
	}
	v, ok := s.started.LoadAndDelete(cmd)
	if !ok {
		return ""
	}
	switch c := v.(type) {
	case *bwrapCmd:
		// Processes first: one still running could create git metadata
		// after the check.
		left := c.init.end()
		return joinNotes(left, s.git.end(c.seq))
	case *confinedCmd:
		return c.end()
	}
	return ""
}

func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "\n")
}

// bwrapCmd is a command started by bubblewrap.
type bwrapCmd struct {
	seq  uint64  // the gitGuard's number of the command
	init *nsInit // pid 1 of its PID namespace; nil if bwrap failed before making one
}

// startBwrap starts cmd under bwrap, and holds the first process of its
// PID namespace before the command runs: Finish waits for it (nsInit).
func (s *Sandbox) startBwrap(cmd *exec.Cmd, protect []string) (*bwrapCmd, error) {
	argv, files, err := s.wrapBwrap(cmd.Args, cmd.Dir, protect)
	if err != nil {
		return nil, err
	}
	defer closeFiles(files) // the child has its own copies once started
	h, err := newBwrapHandshake()
	if err != nil {
		return nil, err
	}
	defer h.release()
	cmd.Path = s.bwrap
	cmd.Args, cmd.ExtraFiles = h.add(argv, files)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h.started()
	pid, err := h.childPID()
	if err != nil {
		// The sandbox holds the command back until released: it has
		// not run, and does not.
		killGroup(cmd.Process.Pid)
		_ = cmd.Wait()
		return nil, fmt.Errorf("start command: %w", err)
	}
	return &bwrapCmd{init: openInit(pid, cmd.Process.Pid)}, nil
}

// stopRunning kills every command Start started that has not finished: a
// bubblewrap command created git metadata while it ran (see watch_linux.go),
// and it cannot be told which one did. The process group is the command's
// (Start's caller makes it lead one); bwrap's dying takes its PID
// namespace with it.
func (s *Sandbox) stopRunning() {
	s.started.Range(func(k, _ any) bool {
		if cmd, ok := k.(*exec.Cmd); ok && cmd.Process != nil {
			killGroup(cmd.Process.Pid)
		}
		return true
	})
}

// wrapBwrap returns the bwrap argv that runs argv in dir, and the files it
// must inherit as descriptors 3, 4, … (the socket filter).
func (s *Sandbox) wrapBwrap(argv []string, dir string, protect []string) ([]string, []*os.File, error) {
	args, err := bwrapArgs(s.policy, dir, protect)
	if err != nil {
		return nil, nil, err
	}
	var files []*os.File
	if !s.policy.AllowNetwork {
		f, err := seccompFile()
		if err != nil {
			return nil, nil, fmt.Errorf("start command: %w", err)
		}
		if f != nil {
			files = append(files, f)
			args = append(args, "--seccomp", "3")
		}
	}
	return concat([]string{s.bwrap}, args, []string{"--"}, argv), files, nil
}

// startLandlock starts cmd on a thread that confines itself first (see
// Start and startOnConfinedThread).
func (s *Sandbox) startLandlock(cmd *exec.Cmd) (*confinedCmd, error) {
	if _, err := os.Stat(s.policy.Workspace); err != nil {
		return nil, fmt.Errorf("start command: workspace: %w", err)
	}
	writable := append(append([]string{s.policy.Workspace}, realDirs(s.policy.Writable)...), s.policy.TempDir)
	ruleset, err := landlockRuleset(writable, s.policy.AllowNetwork)
	if err != nil {
		return nil, fmt.Errorf("start command: %w", err)
	}
	defer ruleset.close()
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = setEnv(cmd.Env, "TMPDIR", s.policy.TempDir)
	cleanup := killSession
	if ruleset.signalScope {
		cleanup = func(int) []int { return endDomain() }
	}
	return startOnConfinedThread(cmd, ruleset, s.policy.AllowNetwork, cleanup)
}

func closeFiles(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// setEnv returns env with key set to value, replacing earlier values.
func setEnv(env []string, key, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, key+"="+value)
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// realDirs resolves the directories that exist now; a missing extra
// directory would make bwrap fail, and Landlock cannot name it.
func realDirs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		r, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			out = append(out, r)
		}
	}
	return out
}
