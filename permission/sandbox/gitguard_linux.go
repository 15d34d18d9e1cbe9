//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Limits of the scan and of the binds. A workspace beyond them is still
// confined as far as they reach; the sandbox then only stops promising
// (Guarantees) what it could not check, so that rules for project runners
// ask.
const (
	// scanLimit and scanTimeout bound one walk of the writable
	// directories (about 1 s on a 2-core machine at the limit; see
	// BENCHMARKS.md).
	scanLimit   = 1_000_000
	scanTimeout = 10 * time.Second
	// maxGitBinds and maxLinkBinds bound the binds of git metadata and of
	// linked files per command: bwrap rereads the mount table for each
	// (100 binds cost some 30 ms a command, 500 cost 350).
	maxGitBinds  = 128
	maxLinkBinds = 64
)

// gitGuard keeps git metadata and files with outside hard links in the
// writable directories out of reach of bubblewrap commands, and checks,
// after each command, what it created that no bind could cover because it
// did not exist yet. It is owned by its Sandbox; its methods are safe for
// concurrent use.
type gitGuard struct {
	scanRoots []string // the workspace and extra directories
	writable  []string // scanRoots and the temp dir
	limit     int      // entries per walk
	ctx       context.Context
	cancel    context.CancelFunc
	// started starts the first scan, on the first command or question:
	// a session that runs no command (a one-line answer) pays nothing.
	started sync.Once
	done    chan struct{} // closed when the first scan has ended (or was never needed)
	scanMu  sync.Mutex    // one rescan for hard links at a time

	mu   sync.Mutex
	tree *tree
	// trusted holds, per git directory, its protected entries when they
	// were last known not to be a command's work: at the start of a
	// command while no other ran, or after the check of one.
	trusted map[string]map[string]entryState
	running int    // commands started and not finished
	seq     uint64 // commands started so far
	// vetted is, per git directory found after the start of the session,
	// the seq at which it was checked: commands started before that did
	// not have it bound read-only and are checked again when they end.
	vetted map[string]uint64
	links  linkState
	// gitOver is set when the git metadata of the last command needed more
	// than maxGitBinds binds: some was left writable.
	gitOver bool
	// missingRefs are files and directories git's config points at in the
	// writable directories (an included config, a hooks directory) that
	// did not exist when last trusted: a command must not create them.
	missingRefs map[string]bool
	// unchecked is set when the look after a command could not finish (a
	// command made more entries than a walk reads): what is new at the
	// next start is then checked as a command's work, not trusted as the
	// user's; pending holds what that check did, for the next note.
	unchecked bool
	pending   []string
	// w watches the known git directories while commands run (nil where
	// inotify does not work); onTamper stops the running commands when
	// one creates a protected entry (see watch_linux.go).
	w        *watcher
	onTamper func()
}

// entryState is what a protected entry was: its identity and type, and
// for a symbolic link (which a bind cannot protect: mounting follows it)
// its target, to put it back.
type entryState struct {
	id     fileID
	mode   uint32 // S_IFMT bits
	target string
}

type linkState struct {
	binds   []string
	ok      bool   // every file with an outside link is bound read-only
	why     string // why not, for the user
	scanned time.Time
}

// newGitGuard prepares the guard of roots; its first scan starts with the
// first command or question (start). onTamper (may be nil) stops every
// running command.
func newGitGuard(roots, writable []string, onTamper func()) *gitGuard {
	return newGitGuardLimit(roots, writable, scanLimit, onTamper)
}

// newGitGuardLimit is newGitGuard with another entry limit per walk.
func newGitGuardLimit(roots, writable []string, limit int, onTamper func()) *gitGuard {
	ctx, cancel := context.WithCancel(context.Background())
	return &gitGuard{
		scanRoots: roots, writable: writable, limit: limit, ctx: ctx, cancel: cancel,
		done:     make(chan struct{}),
		trusted:  map[string]map[string]entryState{},
		vetted:   map[string]uint64{},
		onTamper: onTamper,
	}
}

// start starts the first scan in the background, once. Nothing of a
// command has run before it, so what it finds is the user's.
func (g *gitGuard) start() {
	g.started.Do(func() {
		go func() {
			defer close(g.done)
			ctx, cancel := context.WithTimeout(g.ctx, scanTimeout)
			defer cancel()
			t := scanTree(ctx, g.scanRoots, g.limit)
			g.mu.Lock()
			defer g.mu.Unlock()
			g.tree = t
			g.addLinkTargets()
			g.trustAll()
			g.links = linkStateOf(t, maxLinkBinds)
			if ctx.Err() == nil {
				g.startWatch()
			}
		}()
	})
}

// close stops the scan and the watcher and waits for them.
func (g *gitGuard) close() {
	g.cancel()
	g.started.Do(func() { close(g.done) }) // never started: nothing to wait for
	<-g.done
	g.stopWatch()
	g.scanMu.Lock() // a rescan in progress ends with its own deadline
	defer g.scanMu.Unlock()
}

// guarantees says whether git metadata and files with outside links are
// out of reach of commands, and if not why. It walks the writable
// directories again for files with several hard links first (one may have
// been linked since, from outside), unless a walk that started after this
// call was made has already done so; the walk is bounded by ctx and
// scanTimeout.
func (g *gitGuard) guarantees(ctx context.Context) (git, links bool, gaps []string) {
	asked := time.Now()
	g.start()
	select {
	case <-g.done:
	case <-ctx.Done():
		return false, false, []string{"the sandbox has not finished checking the writable directories for git repositories and hard links"}
	}
	g.scanMu.Lock()
	g.mu.Lock()
	fresh := g.links.scanned.After(asked)
	g.mu.Unlock()
	if !fresh {
		sctx, cancel := context.WithTimeout(ctx, scanTimeout)
		t := scanTree(sctx, g.scanRoots, scanLimit)
		cancel()
		ls := linkStateOf(t, maxLinkBinds)
		ls.scanned = time.Now()
		if ctx.Err() == nil { // not cut short by the caller
			g.mu.Lock()
			g.links = ls
			g.mu.Unlock()
		}
	}
	g.scanMu.Unlock()

	g.mu.Lock()
	defer g.mu.Unlock()
	g.bindArgs() // whether git metadata fits in the binds now
	git = g.tree.complete && !g.gitOver
	switch {
	case !g.tree.complete:
		gaps = append(gaps, fmt.Sprintf("the writable directories hold more than %d entries (or could not all be read), too many to find every git repository in them", scanLimit))
	case g.gitOver:
		gaps = append(gaps, fmt.Sprintf("the git repositories in the writable directories need more than %d read-only binds", maxGitBinds))
	}
	if !g.links.ok {
		gaps = append(gaps, g.links.why)
	}
	return git, g.links.ok, gaps
}

// linkStateOf says which binds keep files with outside links read-only.
func linkStateOf(t *tree, max int) linkState {
	ls := linkState{scanned: time.Now()}
	if !t.complete {
		ls.why = fmt.Sprintf("the writable directories hold more than %d entries (or could not all be read), too many to check for files with several hard links", scanLimit)
		return ls
	}
	binds, ok := t.linkBinds(max)
	if !ok {
		ls.why = fmt.Sprintf("%d files in the writable directories have hard links outside them, more than the sandbox can make read-only", len(t.outsideLinks()))
		return ls
	}
	ls.binds, ls.ok = binds, true
	return ls
}

// begin is called before a command starts; it returns the binds that
// protect git metadata and linked files, and the command's number for end.
func (g *gitGuard) begin() ([]string, uint64) {
	g.start()
	<-g.done
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running == 0 {
		// Nothing of a command runs: what changed since was done by the
		// user (or a file tool the user approved), not by a command;
		// unless the look after the last command did not finish.
		ctx, cancel := context.WithTimeout(context.Background(), scanTimeout)
		newDirs, newLinks := g.tree.refresh(ctx)
		cancel()
		if g.unchecked {
			q := quarantiner{seq: g.seq, base: g.scanRoots[0]}
			g.pending = append(g.pending, g.vetNew(newDirs, newLinks, &q)...)
			g.unchecked = !g.tree.refreshComplete
		}
		g.addLinkTargets()
		g.trustAll()
		g.vetted = map[string]uint64{}
		if g.w != nil {
			g.w.sync(g.watchDirs())
		}
	}
	g.running++
	g.seq++
	return g.bindArgs(), g.seq
}

// trustAll records the protected entries of every known git directory,
// and which paths its config points at are missing.
func (g *gitGuard) trustAll() {
	g.trusted = map[string]map[string]entryState{}
	g.missingRefs = map[string]bool{}
	var refs []string
	for d := range g.tree.gitDirs {
		g.trusted[d] = protectedEntries(d)
		refs = append(refs, g.configRefs(d)...)
	}
	refs = append(refs, g.globalRefs()...)
	for _, p := range refs {
		if _, err := os.Lstat(p); err != nil {
			g.missingRefs[p] = true
		}
	}
}

// globalGitConfigs are the user's own git config files (git-config(1),
// FILES), which git reads in every repository, and the attributes file
// beside them.
func globalGitConfigs() []string {
	var out []string
	if p := os.Getenv("GIT_CONFIG_GLOBAL"); p != "" && filepath.IsAbs(p) {
		out = append(out, p)
	}
	home, _ := os.UserHomeDir()
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		out = append(out, filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git", "attributes"))
	}
	return out
}

// globalRefs returns the user's git config files that lie in a writable
// directory (NovaCode started in the home directory, or with it among the
// additional directories), and what they point at there: protected like a
// repository's config, since git obeys them in every repository.
func (g *gitGuard) globalRefs() []string {
	var out []string
	for _, f := range globalGitConfigs() {
		f = resolveLexical(f)
		if under(f, g.writable) {
			out = append(out, f)
		}
		out = append(out, g.fileRefs(f, "", "")...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// configRefs returns, resolved, the paths in writable directories that the
// config of git directory d (and what it includes, to a depth of ten)
// points at: see gitConfigRefs.
func (g *gitGuard) configRefs(d string) []string {
	worktree := ""
	if filepath.Base(d) == ".git" {
		worktree = filepath.Dir(d)
	}
	out := append(g.fileRefs(filepath.Join(d, "config"), worktree, d), g.fileRefs(filepath.Join(d, "config.worktree"), worktree, d)...)
	if worktree != "" {
		// The user's own config applies here too: a relative
		// core.hooksPath in it names a directory of this work tree.
		for _, f := range globalGitConfigs() {
			out = append(out, g.fileRefs(f, worktree, d)...)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// fileRefs returns what config file points at in writable directories
// (but inside skip, a git directory protected anyway), following includes;
// paths relative to the work tree are left out where worktree is "".
func (g *gitGuard) fileRefs(config, worktree, skip string) []string {
	var out []string
	seen := map[string]bool{}
	var read func(file string, depth int)
	read = func(file string, depth int) {
		if depth > 10 || seen[file] {
			return
		}
		seen[file] = true
		data := readSmall(file)
		if data == nil {
			return
		}
		entries, err := parseGitConfig(data)
		if err != nil {
			return
		}
		for _, ref := range gitConfigRefs(entries) {
			p := ref.path
			switch {
			case strings.HasPrefix(p, "~/"):
				home, err := os.UserHomeDir()
				if err != nil {
					continue
				}
				p = filepath.Join(home, p[2:])
			case filepath.IsAbs(p):
			case ref.relativeTo == "config":
				p = filepath.Join(filepath.Dir(file), p)
			case worktree != "":
				p = filepath.Join(worktree, p)
			default:
				continue // relative to a work tree this directory does not name
			}
			p = resolveLexical(p)
			if ref.relativeTo == "config" {
				read(p, depth+1)
			}
			if under(p, g.writable) && (skip == "" || !under(p, []string{skip})) {
				out = append(out, p)
			}
		}
	}
	read(config, 0)
	return out
}

// protectedEntries lists the entries of git directory d that are not work
// entries.
func protectedEntries(d string) map[string]entryState {
	out := map[string]entryState{}
	ents, _ := os.ReadDir(d)
	for _, e := range ents {
		if workEntry(e.Name()) || harmlessEntry(e.Name()) {
			continue
		}
		var st unix.Stat_t
		if unix.Lstat(filepath.Join(d, e.Name()), &st) != nil {
			continue
		}
		es := entryState{id: fileID{st.Dev, st.Ino}, mode: st.Mode & unix.S_IFMT}
		if es.mode == unix.S_IFLNK {
			es.target, _ = os.Readlink(filepath.Join(d, e.Name()))
		}
		out[e.Name()] = es
	}
	return out
}

// harmlessEntry is an entry of a git directory that git itself never
// reads (description is gitweb's): it needs no bind.
func harmlessEntry(name string) bool { return name == "description" }

// addLinkTargets adds to the known git directories those that .git files
// and links name in writable directories the scan does not cover (the
// temp dir): they must be protected as well.
func (g *gitGuard) addLinkTargets() {
	for l := range g.tree.gitLinks {
		for _, d := range linkTargets(l) {
			if _, ok := g.tree.gitDirs[d]; ok || !under(d, g.writable) || !isGitDir(d) {
				continue
			}
			var st unix.Stat_t
			if unix.Lstat(d, &st) == nil {
				g.tree.gitDirs[d] = fileID{st.Dev, st.Ino}
			}
		}
	}
}

// bindArgs returns the binds for one command: every git directory in a
// writable directory bound onto itself (a mount point cannot be renamed or
// removed, so .git cannot be moved aside and replaced) with its protected
// entries read-only (its modules/ and worktrees/ too, with the git
// directories in them bound writable again on top, and theirs read-only),
// .git files read-only, then the files with outside links. Missing
// protected entries cannot be bound: end takes care of those a command
// creates.
func (g *gitGuard) bindArgs() []string {
	dirs := make([]string, 0, len(g.tree.gitDirs))
	for d := range g.tree.gitDirs {
		if under(d, g.writable) {
			dirs = append(dirs, d)
		}
	}
	// Parents before what they hold: a git directory in a container is
	// bound writable after the container is bound read-only. The
	// workspace's own repository, nearest the top, first.
	sort.Slice(dirs, func(i, j int) bool {
		if a, b := strings.Count(dirs[i], "/"), strings.Count(dirs[j], "/"); a != b {
			return a < b
		}
		return dirs[i] < dirs[j]
	})
	var args []string
	n := 0
	g.gitOver = false
	add := func(flag, p string) {
		n++
		args = append(args, flag, p, p)
	}
	for _, d := range dirs {
		if !isDirNoFollow(d) {
			continue
		}
		names := sortedNames(protectedEntries(d))
		if n+1+len(names) > maxGitBinds {
			g.gitOver = true
			continue
		}
		add("--bind", d)
		for _, name := range names {
			p := filepath.Join(d, name)
			fi, err := os.Lstat(p)
			if err != nil {
				continue
			}
			if fi.Mode()&os.ModeSymlink != 0 {
				// A bind cannot protect the link itself (mounting
				// follows it; end puts it back if a command replaces
				// it), but it protects what it points to, where git
				// reads: hooks -> ../githooks in the work tree.
				if t, err := filepath.EvalSymlinks(p); err == nil && under(t, g.writable) {
					add("--ro-bind", t)
				}
				continue
			}
			add("--ro-bind", p)
		}
		// What its config points at in the work tree: bound over the
		// workspace's bind, read-only.
		for _, p := range g.configRefs(d) {
			if _, err := os.Stat(p); err != nil {
				continue // missing: end moves aside what a command creates
			}
			if n >= maxGitBinds {
				g.gitOver = true
				break
			}
			add("--ro-bind", p)
		}
	}
	// The user's own git config, where it lies in a writable directory.
	for _, p := range g.globalRefs() {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if n >= maxGitBinds {
			g.gitOver = true
			break
		}
		add("--ro-bind", p)
	}
	links := make([]string, 0, len(g.tree.gitLinks))
	for l := range g.tree.gitLinks {
		if fi, err := os.Lstat(l); err == nil && fi.Mode().IsRegular() && under(l, g.writable) {
			links = append(links, l)
		}
	}
	sort.Strings(links)
	for _, l := range links {
		if n >= maxGitBinds {
			g.gitOver = true
			break
		}
		add("--ro-bind", l)
	}
	for _, b := range g.links.binds { // at most maxLinkBinds
		if _, err := os.Lstat(b); err == nil {
			add("--ro-bind", b)
		}
	}
	return args
}

func sortedNames(m map[string]entryState) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func isDirNoFollow(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// end is called once the command numbered seq has ended, with every
// process of it gone (bubblewrap's PID namespace sees to that). It undoes
// what the command did to git metadata that no bind could stop: protected
// entries it created in known git directories are moved aside; a
// repository it created (or made by writing files laid out as one, or a
// .git file it pointed elsewhere) has its config cleared of variables that
// run anything, its hooks, commondir, and a .git link to a place commands
// could fill moved aside. Nothing is deleted: what is moved aside gets a
// ".nova-quarantine-N" suffix, which git ignores. It returns what it did,
// for the model.
func (g *gitGuard) end(seq uint64) string {
	g.start()
	<-g.done
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	var notes []string
	q := quarantiner{seq: seq, base: g.scanRoots[0]}

	dirs := make([]string, 0, len(g.trusted))
	for d := range g.trusted {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		notes = append(notes, g.sweepDir(d, &q)...)
	}
	for _, p := range sortedKeys(g.missingRefs) {
		if _, err := os.Lstat(p); err == nil {
			notes = append(notes, q.moveAside(filepath.Dir(p), filepath.Base(p), "")+" (git's config points at it)")
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), scanTimeout)
	newDirs, newLinks := g.tree.refresh(ctx)
	cancel()
	if !g.tree.refreshComplete {
		g.unchecked = true
		notes = append(notes, fmt.Sprintf("the command created more than %d entries, more than the sandbox can look through after a command: a git repository it made among them may not have been checked (look for .git directories it created before running git in them)", g.tree.limit))
	}
	for d, at := range g.vetted {
		if at >= seq {
			if id, ok := g.tree.gitDirs[d]; ok {
				newDirs[d] = id // checked while this command ran: again
			}
		}
	}
	notes = append(notes, g.vetNew(newDirs, newLinks, &q)...)
	notes = append(g.pending, notes...)
	g.pending = nil
	if len(notes) == 0 {
		return ""
	}
	return "The sandbox undid what this command did to git metadata, which git would run or obey outside the sandbox: " +
		strings.Join(notes, "; ") + ". Commands cannot change git hooks or configuration; ask the user to make such a change."
}

// vetNew checks new .git links and new git directories (see vetLink and
// vetGitDir) and records the directories as checked.
func (g *gitGuard) vetNew(newDirs map[string]fileID, newLinks map[string]linkID, q *quarantiner) []string {
	var notes []string
	for _, l := range sortedKeys(newLinks) {
		notes = append(notes, g.vetLink(l, q, newDirs)...)
	}
	for _, d := range sortedKeys(newDirs) {
		notes = append(notes, vetGitDir(d, q)...)
		g.vetted[d] = g.seq
		g.trusted[d] = protectedEntries(d)
	}
	return notes
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sweepDir moves aside the protected entries of git directory d that were
// not there (or were another file) when the command started, and puts
// back a symbolic link it replaced or removed.
func (g *gitGuard) sweepDir(d string, q *quarantiner) []string {
	trusted := g.trusted[d]
	if !isDirNoFollow(d) {
		return nil // moved or removed with its work tree: refresh finds it
	}
	var notes []string
	now := protectedEntries(d)
	if st, ok := now[quarantineDir]; ok {
		if was, ok := trusted[quarantineDir]; !ok || was.id != st.id {
			// Not the one the sandbox made: it cannot hold the rest.
			notes = append(notes, q.moveAside(d, quarantineDir, ""))
		}
	}
	for _, name := range sortedNames(now) {
		st := now[name]
		was, ok := trusted[name]
		// The target too: a link cannot be bound, so a command can
		// replace it, and the new file may reuse the old one's inode.
		if ok && was == st || name == quarantineDir {
			continue
		}
		notes = append(notes, q.moveAside(d, name, d))
	}
	if st, ok := protectedEntries(d)[quarantineDir]; ok {
		trusted[quarantineDir] = st
	}
	for _, name := range sortedNames(trusted) {
		was := trusted[name]
		if was.target == "" {
			continue
		}
		if cur, ok := protectedEntries(d)[name]; ok && cur == was {
			continue
		}
		p := filepath.Join(d, name)
		if err := os.Symlink(was.target, p); err != nil {
			notes = append(notes, fmt.Sprintf("could not put back the link %s -> %s (%v): check it", q.rel(p), was.target, err))
			continue
		}
		notes = append(notes, fmt.Sprintf("put back the link %s -> %s", q.rel(p), was.target))
		var lst unix.Stat_t
		if unix.Lstat(p, &lst) == nil {
			trusted[name] = entryState{id: fileID{lst.Dev, lst.Ino}, mode: unix.S_IFLNK, target: was.target}
		}
	}
	return notes
}
