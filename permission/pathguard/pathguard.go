// Package pathguard is the path sandbox of the file tools: it decides
// whether a path the model names lies in the workspace (or a configured
// additional directory), and classifies what touching it would mean.
//
// Two moments matter. Before a call, the permission chain asks Inspect about
// the path the model wrote; Inspect resolves it the way the kernel would
// (`..`, symbolic links including dangling ones, /proc magic links), so a
// path that reads as "inside" but lands outside is seen for what it is.
// After the open, the tool asks Recheck about the path the kernel reports
// for the file descriptor it really got, so that a symlink swapped in
// between the check and the open (a TOCTOU race) cannot make the tool touch
// something the check never saw.
//
// Inspect never fails: every problem it meets is reported in Info, and the
// chain asks a person whenever Info says anything is off. Matching of
// protected and secret names is deliberately generous (case-insensitive,
// Windows trailing dots and spaces ignored, both separators): asking once
// too often is cheap, missing a hook file is not.
package pathguard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Info is what Inspect found out about one path.
type Info struct {
	// Input is the path as given.
	Input string
	// Abs is the absolute path, lexically cleaned (what the file tools
	// open).
	Abs string
	// Resolved is Abs with every symbolic link resolved. For a path that
	// does not exist it is the longest existing ancestor, resolved, plus
	// the rest; a dangling symlink is followed to its target, because
	// creating the file (O_CREAT) would follow it too.
	Resolved string
	// Inside reports whether Resolved lies within the workspace or an
	// additional directory (compared by path components, so /ws-evil is not
	// inside /ws). Always false when Err is set or the path goes through a
	// /proc magic link.
	Inside bool
	// Root is the root (workspace or additional directory) Resolved is in.
	Root string
	// Protected is non-empty when writing here must be asked even in
	// acceptEdits mode: git's own files, NovaCode's settings, MCP
	// configuration and shell start-up files, all of which lead to code
	// being run later.
	Protected string
	// Secret is non-empty when reading here should be asked by default:
	// credentials and private keys.
	Secret string
	// HardLinks is the link count of an existing regular file. More than
	// one means another name for the same file may be outside the
	// workspace, so a write must be asked.
	HardLinks uint64
	// Special is non-empty for what is not a plain file or directory and
	// must not be written: devices, FIFOs, sockets, anything under /proc,
	// /sys or /dev, and paths that go through a /proc magic link.
	Special string
	// Err describes a resolution problem (a symlink loop, a permission
	// error, an ambiguous `..`); the chain must ask.
	Err string
}

// Guard knows the roots of one session. It is immutable after New and safe
// for concurrent use.
type Guard struct {
	roots        []root // roots[0] is the workspace
	home         string // as given, cleaned; "" when unknown
	homeResolved string
	// dataDirs are NovaCode's data directories other than ~/.novacode
	// ($NOVA_HOME, a program's Options.DataDir), each as given and
	// resolved: its settings file trusts workspaces and holds the person's
	// own hooks, so writing there is protected and its settings.json is a
	// secret.
	dataDirs []string
}

type root struct {
	path string // resolved
	// fold is set when the root's filesystem ignores case, so that
	// /WS/x is inside /ws.
	fold bool
}

// New returns a guard for workspace and additionalDirs. The roots are
// resolved once, here: later symlink changes to the roots themselves are
// not followed. Relative additional directories are taken relative to the
// workspace, and "~/" expands to home. An additional directory that does not
// exist yet is resolved as far as it exists, so it works once created. home
// (may be "") is where "~" points and where credentials are looked for;
// $NOVA_HOME, when set, is where NovaCode's user settings are, a secret.
func New(workspace string, additionalDirs []string, home string) (*Guard, error) {
	if workspace == "" {
		return nil, errors.New("pathguard: new guard: workspace is empty")
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("pathguard: new guard: workspace %s: %w", workspace, err)
	}
	wsResolved, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return nil, fmt.Errorf("pathguard: new guard: resolve workspace: %w", err)
	}
	g := &Guard{}
	if home != "" {
		if g.home, err = filepath.Abs(home); err != nil {
			return nil, fmt.Errorf("pathguard: new guard: home %s: %w", home, err)
		}
		g.homeResolved = resolveRoot(g.home)
	}
	if d := os.Getenv("NOVA_HOME"); d != "" && !strings.ContainsRune(d, 0) {
		if abs, err := filepath.Abs(d); err == nil {
			g.dataDirs = append(g.dataDirs, abs, resolveRoot(abs))
		}
	}
	g.roots = append(g.roots, root{path: wsResolved, fold: caseInsensitive(wsResolved)})
	for _, d := range additionalDirs {
		if strings.ContainsRune(d, 0) {
			return nil, fmt.Errorf("pathguard: new guard: additional directory %q contains a NUL byte", d)
		}
		if d == "" {
			continue
		}
		if p, ok := expandHome(d, g.home); ok {
			d = p
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(ws, d)
		}
		r := resolveRoot(filepath.Clean(d))
		if !slices.ContainsFunc(g.roots, func(x root) bool { return x.path == r }) {
			g.roots = append(g.roots, root{path: r, fold: caseInsensitive(r)})
		}
	}
	return g, nil
}

// resolveRoot resolves a root directory: EvalSymlinks when it exists, the
// walk of Inspect (longest existing ancestor) when it does not.
func resolveRoot(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return resolve(p).path
}

// Roots returns the resolved roots, the workspace first.
func (g *Guard) Roots() []string {
	out := make([]string, len(g.roots))
	for i, r := range g.roots {
		out[i] = r.path
	}
	return out
}

// Inspect resolves p (relative to base, or to the workspace when base is
// empty; a leading "~/" means home) and classifies it. It never panics and
// never fails: problems are reported in Info.Err.
func (g *Guard) Inspect(p, base string) Info { return g.inspect(p, base, true) }

// inspect is Inspect; gitChecks false skips the filesystem probes for git
// directories, which only matter to writes (Recheck of a read runs for
// every file Grep opens).
func (g *Guard) inspect(p, base string, gitChecks bool) Info {
	info := Info{Input: p}
	if strings.ContainsRune(p, 0) || strings.ContainsRune(base, 0) {
		// The kernel would truncate at the NUL (C APIs) or refuse the
		// path (Go returns EINVAL); either way, what a checker sees is not
		// what would be opened.
		info.Err = "the path contains a NUL byte"
		return info
	}
	if base == "" {
		base = g.roots[0].path
	} else if !filepath.IsAbs(base) {
		base = filepath.Join(g.roots[0].path, base)
	}
	raw := p
	if exp, ok := expandHome(p, g.home); ok {
		raw = exp
	} else if isTildePath(p) {
		info.Err = "the path starts with ~ but no home directory is known"
	}
	if !filepath.IsAbs(raw) {
		// Keep it uncleaned: a `..` after a symlink means something else
		// to the kernel than to filepath.Clean (see below).
		raw = base + string(filepath.Separator) + raw
	}
	info.Abs = filepath.Clean(raw)

	res := resolve(info.Abs)
	info.Resolved = res.path
	if res.err != nil && info.Err == "" {
		info.Err = res.err.Error()
	}
	paths := []string{info.Abs}
	if info.Resolved != info.Abs {
		paths = append(paths, info.Resolved)
	}

	// The file tools open the cleaned path, but a shell, or any C
	// program, resolves "dir/link/../x" by following link first. When the
	// two readings disagree the path is ambiguous: ask, and classify both.
	if hasDotDot(raw) {
		if phys := resolve(raw); phys.path != res.path {
			paths = append(paths, phys.path)
			if info.Err == "" {
				info.Err = fmt.Sprintf("the path has `..` after a symbolic link: the kernel reads it as %s, but cleaned it is %s", phys.path, res.path)
			}
		}
	}

	// A /proc magic link is never inside: /proc/<pid>/root of a process
	// in another mount namespace reads as "/" but leads elsewhere, so what
	// it resolves to here is only a guess.
	if info.Err == "" && res.viaProc == "" {
		info.Root, info.Inside = g.rootOf(info.Resolved)
	}
	info.Protected = g.protected(paths, gitChecks)
	info.Secret = g.secret(paths)
	info.Special = special(paths, res)
	if res.info != nil && res.info.Mode().IsRegular() {
		info.HardLinks = linkCount(res.info)
	}
	return info
}

// ErrRefused is what every Recheck refusal wraps.
var ErrRefused = errors.New("refused for safety")

// RefusedError is a Recheck refusal.
type RefusedError struct {
	Path   string // the real path of the opened file
	Write  bool
	Reason string
}

func (e *RefusedError) Error() string {
	op := "reading"
	if e.Write {
		op = "writing"
	}
	return fmt.Sprintf("%s %s was refused for safety: %s", op, e.Path, e.Reason)
}

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Recheck implements tool.PathGuard. realPath is what the kernel reports for
// an opened file (RealPath). It passes when realPath is inside a root and,
// for a read, holds no secrets or, for a write, is not protected, has one
// link and is not special; or when a person or rule approved it for this
// call (approved holds resolved paths): a write must match an approved path
// exactly, a read may also lie below an approved directory (a Grep or LS of
// an approved outside directory opens the files in it), unless it holds
// secrets the approved directory did not.
//
// realPath is judged both as written and after resolving it again, and must
// pass both: as written because a canonical path from /proc is the truth
// and re-resolving it could be fooled by a symlink swapped in since; resolved
// because a fallback RealPath (outside Linux) may not be canonical.
func (g *Guard) Recheck(realPath string, write bool, approved []string) error {
	refuse := func(format string, args ...any) error {
		return &RefusedError{Path: realPath, Write: write, Reason: fmt.Sprintf(format, args...)}
	}
	if realPath == "" || strings.ContainsRune(realPath, 0) || !filepath.IsAbs(realPath) {
		return refuse("the opened file has no usable path (%q), so it cannot be checked", realPath)
	}
	clean := filepath.Clean(realPath)
	if g.approved(clean, write, approved) {
		return nil
	}
	info := g.inspect(clean, "", write)
	_, lexInside := g.rootOf(clean)
	switch {
	case info.Err != "":
		return refuse("it could not be resolved safely (%s)", info.Err)
	case !lexInside || !info.Inside:
		where := clean
		if info.Resolved != clean {
			where = fmt.Sprintf("%s (resolved: %s)", clean, info.Resolved)
		}
		hint := ""
		if !write && info.Secret != "" {
			hint = fmt.Sprintf("; it may hold secrets (%s), which only an approval of this very path (or of a secret directory holding it) covers", info.Secret)
		}
		return refuse("the file actually opened, %s, is outside the workspace (%s) and the additional directories, and was not approved for this call%s", where, g.roots[0].path, hint)
	case !write && info.Secret != "":
		return refuse("it may hold secrets (%s) and reading it was not approved for this call", info.Secret)
	case write && info.Special != "":
		return refuse("it is not a regular file (%s)", info.Special)
	case write && info.Protected != "":
		return refuse("it is protected (%s) and writing it was not approved for this call", info.Protected)
	case write && info.HardLinks > 1:
		return refuse("it has %d hard links, and another name for the same file may be outside the workspace", info.HardLinks)
	}
	return nil
}

// RealPath is the package's RealPath, offered to the file tools through
// tool.PathGuard: the path of an open file as the kernel names it.
func (*Guard) RealPath(f *os.File) (string, error) { return RealPath(f) }

// ResolvePath is the package's ResolvePath, offered to the file tools through
// tool.PathGuard: symlinks resolved as Inspect and Recheck resolve them.
func (*Guard) ResolvePath(p string) (string, error) { return ResolvePath(p) }

// approved reports whether clean is covered by the approved paths.
func (g *Guard) approved(clean string, write bool, approved []string) bool {
	fold := runtime.GOOS == "darwin" || runtime.GOOS == "windows"
	var secret *string // computed at most once, lazily
	for _, a := range approved {
		if a == "" || !filepath.IsAbs(a) || strings.ContainsRune(a, 0) {
			continue
		}
		a = filepath.Clean(a)
		if clean == a || (fold && strings.EqualFold(clean, a)) {
			return true
		}
		if write || !within(clean, a, fold) {
			continue
		}
		if secret == nil {
			s := g.secret([]string{clean})
			secret = &s
		}
		if *secret == "" || g.secret([]string{a}) != "" {
			return true
		}
	}
	return false
}

// rootOf returns the most specific root p lies in.
func (g *Guard) rootOf(p string) (string, bool) {
	best := ""
	for _, r := range g.roots {
		if within(p, r.path, r.fold) && len(r.path) > len(best) {
			best = r.path
		}
	}
	return best, best != ""
}

// within reports whether p is dir or below it, comparing whole components.
func within(p, dir string, fold bool) bool {
	pv, dv := filepath.VolumeName(p), filepath.VolumeName(dir)
	if !strings.EqualFold(pv, dv) {
		return false
	}
	pc, dc := components(p[len(pv):]), components(dir[len(dv):])
	if len(dc) > len(pc) {
		return false
	}
	for i, c := range dc {
		if c != pc[i] && !(fold && strings.EqualFold(c, pc[i])) {
			return false
		}
	}
	return true
}

// components splits a path into its non-empty components (by the OS
// separator only: this is for comparing real paths).
func components(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) })
}

// hasDotDot reports whether p has a `..` component.
func hasDotDot(p string) bool { return slices.Contains(components(p), "..") }

// isTildePath reports whether p is "~" or starts with "~/" (or "~\" on
// Windows).
func isTildePath(p string) bool {
	return p == "~" || strings.HasPrefix(p, "~/") || (filepath.Separator == '\\' && strings.HasPrefix(p, `~\`))
}

// expandHome expands a leading "~" to home; ok is false when p has none or
// home is unknown. "~user" is not expanded: the file tools take paths
// literally, and only the model's shorthand for its own home is common.
func expandHome(p, home string) (string, bool) {
	if !isTildePath(p) || home == "" {
		return "", false
	}
	// Not filepath.Join, which would clean away a `..` whose meaning
	// depends on the symlinks before it (see Inspect).
	return home + p[1:], true
}

// AddDataDir protects d as NovaCode's data directory, as $NOVA_HOME is: an
// embedding program's choice of data directory (nova.Options.DataDir) may
// lie anywhere, the workspace included.
func (g *Guard) AddDataDir(d string) {
	if d == "" || strings.ContainsRune(d, 0) {
		return
	}
	if abs, err := filepath.Abs(d); err == nil {
		g.dataDirs = append(g.dataDirs, abs, resolveRoot(abs))
	}
}
