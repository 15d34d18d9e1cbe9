//go:build linux

package sandbox

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

// A bind cannot cover an entry that does not exist yet, and the check after
// a command (gitGuard.end) comes when it has ended. In between, what the
// command created at the top of a git directory (a commondir, hooks/ where
// there was none) would be seen by a git the user runs meanwhile: a shell
// prompt runs git status at every prompt. The watcher closes that window
// for the git directories known when the command started: inotify reports
// each entry created there, and one git reads as configuration or runs
// (readAsConfig; other unknown names wait for the check at the end, as git
// may make them) is moved aside at once, and every running command
// stopped, so that a loop cannot make it again. (A repository a command creates is still checked
// only when the command ends: watching the whole tree would cost a watch
// per directory.)

// watcher is an inotify instance watching directories for new entries.
// Its fields are guarded by the gitGuard's lock; the file is read by the
// guard's watch goroutine, which close ends.
type watcher struct {
	// f reads the events, through the runtime's poller, so that Close
	// wakes a read in progress; fd is the same descriptor for adding and
	// removing watches (f.Fd would switch f to blocking mode, and then
	// Close could no longer end the read). closed is set before f is
	// closed, after which fd must not be used.
	f      *os.File
	fd     int
	closed bool
	wds    map[int32]string // watch descriptor -> directory
	dirs   map[string]int32
	done   chan struct{}
}

const watchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

func newWatcher() (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	return &watcher{
		f: os.NewFile(uintptr(fd), "inotify"), fd: fd,
		wds: map[int32]string{}, dirs: map[string]int32{},
		done: make(chan struct{}),
	}, nil
}

// sync watches exactly dirs (those that exist).
func (w *watcher) sync(dirs []string) {
	if w.closed {
		return
	}
	want := map[string]bool{}
	for _, d := range dirs {
		want[d] = true
	}
	for d, wd := range w.dirs {
		if !want[d] {
			_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
			delete(w.dirs, d)
			delete(w.wds, wd)
		}
	}
	for _, d := range dirs {
		if _, ok := w.dirs[d]; ok {
			continue
		}
		wd, err := unix.InotifyAddWatch(w.fd, d, watchMask)
		if err != nil {
			continue // gone, or out of watches: end still checks it
		}
		w.dirs[d], w.wds[int32(wd)] = int32(wd), d
	}
}

// watchEvent is one entry created in a watched directory.
type watchEvent struct {
	wd   int32
	name string
}

// read blocks until events arrive, or the file is closed (an error).
func (w *watcher) read(buf []byte) ([]watchEvent, error) {
	n, err := w.f.Read(buf)
	if err != nil {
		return nil, err
	}
	var out []watchEvent
	for off := 0; off+unix.SizeofInotifyEvent <= n; {
		wd := int32(binary.NativeEndian.Uint32(buf[off:]))
		mask := binary.NativeEndian.Uint32(buf[off+4:])
		nameLen := int(binary.NativeEndian.Uint32(buf[off+12:]))
		name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+nameLen]
		off += unix.SizeofInotifyEvent + nameLen
		if mask&(unix.IN_CREATE|unix.IN_MOVED_TO) == 0 {
			continue
		}
		if i := indexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		out = append(out, watchEvent{wd: wd, name: string(name)})
	}
	return out, nil
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// startWatch starts the guard's watcher, if inotify works here; close
// stops it.
func (g *gitGuard) startWatch() {
	w, err := newWatcher()
	if err != nil {
		return // end still checks after each command
	}
	g.w = w
	go func() {
		defer close(w.done)
		buf := make([]byte, 64<<10)
		for {
			evs, err := w.read(buf)
			if err != nil {
				if errors.Is(err, os.ErrClosed) {
					return
				}
				continue
			}
			for _, ev := range evs {
				g.onCreate(ev)
			}
		}
	}()
}

// stopWatch ends the watcher and waits for its goroutine.
func (g *gitGuard) stopWatch() {
	g.mu.Lock()
	w := g.w
	if w != nil {
		w.closed = true
	}
	g.mu.Unlock()
	if w == nil {
		return
	}
	w.f.Close()
	<-w.done
}

// watchDirs are the directories to watch: the known git directories, and
// the directories of what their config points at that is missing.
func (g *gitGuard) watchDirs() []string {
	var out []string
	for d := range g.tree.gitDirs {
		if under(d, g.writable) {
			out = append(out, d)
		}
	}
	for p := range g.missingRefs {
		out = append(out, filepath.Dir(p))
	}
	sort.Strings(out)
	return out
}

// onCreate handles one new entry: while a command runs, a protected entry
// nobody trusted is moved aside and every running command stopped.
func (g *gitGuard) onCreate(ev watchEvent) {
	g.mu.Lock()
	dir, ok := g.w.wds[ev.wd]
	if !ok || g.running == 0 || ev.name == "" {
		g.mu.Unlock()
		return
	}
	p := filepath.Join(dir, ev.name)
	tamper := false
	if trusted, isGit := g.trusted[dir]; isGit && readAsConfig[ev.name] {
		if was, ok := trusted[ev.name]; !ok || protectedEntries(dir)[ev.name] != was {
			tamper = true
		}
	}
	if g.missingRefs[p] {
		tamper = true
	}
	if !tamper {
		g.mu.Unlock()
		return
	}
	q := quarantiner{seq: g.seq, base: g.scanRoots[0]}
	gitDir := ""
	if _, isGit := g.trusted[dir]; isGit {
		gitDir = dir
	}
	note := q.moveAside(dir, ev.name, gitDir) + " as soon as it appeared, and the running commands were stopped"
	g.pending = append(g.pending, note)
	if st, ok := protectedEntries(dir)[quarantineDir]; ok && gitDir != "" {
		g.trusted[dir][quarantineDir] = st
	}
	stop := g.onTamper
	g.mu.Unlock()
	if stop != nil {
		stop()
	}
}
