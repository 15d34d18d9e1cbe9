package sandbox

import (
	"strings"
)

// What of a git directory a command may write.
//
// Git runs code from its directory: hooks; commands named in its config
// (core.fsmonitor, core.pager, filter and diff drivers, aliases, …); and
// the config and hooks of any directory that commondir, a worktree's or a
// submodule's git directory, names. It runs them later, outside the
// sandbox, when the user runs git (a shell prompt runs `git status` at
// every prompt). So everything of a git directory is read-only to commands
// but what ordinary work writes: commit, checkout, branch, stash, merge,
// rebase, cherry-pick, revert, bisect, tag, notes, gc and fetch into the
// repository. The list follows gitrepository-layout(5) and the state files
// of those commands; a name not on it (a file git adds in a later version
// too) is protected, which can only make some git command fail inside
// the sandbox, never let one plant code.
//
// Left writable on purpose, although git reads them: objects/ (including
// objects/info/alternates, which can add object stores but runs nothing),
// refs and the index (a gitlink in the index makes `git status` recurse
// into a submodule, but only with that submodule's own, equally protected,
// git directory), and rebase-merge/ (an interactive rebase's todo list can
// hold `exec` lines: a command could leave a rebase in progress that runs
// something on `git rebase --continue`; `git status` runs nothing of it).

// workNames are the entries of a git directory that ordinary work writes.
var workNames = map[string]bool{
	"objects": true, "refs": true, "logs": true, "reftable": true, "packed-refs": true,
	"HEAD": true, "ORIG_HEAD": true, "FETCH_HEAD": true, "AUTO_MERGE": true,
	"MERGE_HEAD": true, "MERGE_MSG": true, "MERGE_MODE": true, "MERGE_RR": true, "MERGE_AUTOSTASH": true,
	"CHERRY_PICK_HEAD": true, "REVERT_HEAD": true, "REBASE_HEAD": true,
	"COMMIT_EDITMSG": true, "SQUASH_MSG": true,
	"index": true, "shallow": true,
	"rebase-merge": true, "rebase-apply": true, "sequencer": true, "rr-cache": true,
	"gc.pid": true, "gc.log": true, "lost-found": true, "lfs": true,
	"fsmonitor--daemon": true, "fsmonitor--daemon.ipc": true,
	"packed-refs.new": true, // git pack-refs, renamed onto packed-refs
}

// workPrefixes and workSuffixes cover the families of such names: bisect
// state, notes merges, temporary and split indexes, editor files, and the
// lock files git creates beside whatever it updates (a lock file is never
// read as configuration; renaming config.lock onto a read-only config
// fails).
var (
	workPrefixes = []string{"BISECT_", "NOTES_MERGE_", "index.", "sharedindex.", "next-index-", "shallow_"}
	workSuffixes = []string{".lock", "_EDITMSG"}
)

// workEntry reports whether name, an entry at the top of a git directory,
// is one ordinary git work writes and git never reads as configuration
// nor runs.
func workEntry(name string) bool {
	if workNames[name] {
		return true
	}
	for _, p := range workPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, s := range workSuffixes {
		if strings.HasSuffix(name, s) && len(name) > len(s) {
			return true
		}
	}
	return false
}

// isContainer reports whether name, at the top of a git directory, holds
// other git directories: submodules' (modules/) and linked worktrees'
// (worktrees/). Each of those is protected as a git directory of its own,
// so that work inside a submodule or worktree still goes on.
func isContainer(name string) bool { return name == "modules" || name == "worktrees" }

// readAsConfig are the entries of a git directory git reads as
// configuration or runs, known by name. Created while a command runs, one
// of them stops the command at once (see watch_linux.go); any other new
// entry that is no work entry is moved aside when the command ends, since
// a name git may write that the list above lacks must not stop a command.
var readAsConfig = map[string]bool{
	"config": true, "config.worktree": true, "hooks": true, "info": true, "commondir": true,
	"gitdir": true, "modules": true, "worktrees": true, "branches": true, "remotes": true,
}
