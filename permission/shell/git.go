package shell

// git: global options, subcommands, and what they read.

import (
	"path"
	"slices"
	"strings"
)

func init() {
	register(&program{handler: func(z *analyzer, c *cmd) {
		hGit(z, c)
		z.gitEffects(c)
	}}, "git")
}

// gitReads are git subcommands that only read the repository (their
// forms that change something are Unsafe in the analysis already:
// branch -D, tag -d, config --set, remote add).
// config, remote -v and var are left out: what they print (remote URLs,
// credential helpers) may hold tokens, as .git/config may.
var gitReads = set("status", "log", "diff", "show", "blame", "annotate", "shortlog", "describe", "rev-parse",
	"rev-list", "ls-files", "ls-tree", "cat-file", "grep", "branch", "tag", "show-ref", "for-each-ref",
	"merge-base", "name-rev", "count-objects", "version", "check-ignore", "check-attr", "whatchanged",
	"diff-files", "diff-index", "diff-tree", "cherry", "show-branch", "range-diff", "reflog", "stash", "worktree")

// gitEffects: the read-only subcommands read the repository: every file in
// it (status, diff, log -p), taken as the workspace and the directory git
// runs in, plus the paths named on the line.
func (z *analyzer) gitEffects(c *cmd) {
	cwd := c.st
	i := 1
	for ; i < len(c.argv); i++ {
		a := c.argv[i].val
		if !c.argv[i].full {
			z.cannotBound(c, "git with words only known at run time")
			return
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		switch a {
		case "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
			"--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects":
		case "-C":
			if i+1 >= len(c.argv) {
				return
			}
			i++
			w := c.argv[i]
			if !w.full {
				z.cannotBound(c, "git -C with a directory only known at run time")
				return
			}
			if dirs := z.absPaths(w.val, cwd); len(dirs) == 1 {
				cwd = cwd.atCwd(dirs[0])
			} else {
				z.cannotBound(c, "git -C from a directory the analyser could not follow")
				return
			}
		default:
			z.cannotBound(c, "git option %s", a)
			return
		}
	}
	if i >= len(c.argv) {
		return // git alone prints its usage
	}
	sub := c.argv[i].val
	args := c.argv[i+1:]
	first := ""
	if len(args) > 0 {
		first = args[0].val
	}
	ok := gitReads[sub]
	switch sub {
	case "stash":
		ok = first == "list" || first == "show"
	case "reflog":
		ok = first == "" || first == "show" || strings.HasPrefix(first, "-")
	case "worktree":
		ok = first == "list"
	}
	if !ok {
		z.cannotBound(c, "git %s may change the repository or reach a remote", sub)
		return
	}
	contents := false
	if sub == "grep" && slices.ContainsFunc(args, func(w wordInfo) bool {
		return longFlag(w.val, "untracked") || longFlag(w.val, "no-index")
	}) {
		contents = true // it searches files git does not track (.env)
	}
	if sub == "diff" && slices.ContainsFunc(args, func(w wordInfo) bool { return w.val == "--no-index" }) {
		contents = true
	}
	for _, d := range append([]string{z.opt.Workspace}, cwd.cwds()...) {
		if d != "" {
			z.addRead(Read{Path: d, Tree: true, Contents: contents})
		}
	}
	if len(cwd.cwds()) == 0 {
		z.cannotBound(c, "git runs in a directory the analyser could not follow")
	}
	// Paths named on the line (git diff -- f, git show HEAD:f): checked
	// like any read, so that a secret named there is asked about.
	for _, w := range args {
		if w.nonPath || !w.full {
			continue
		}
		v := w.val
		if strings.HasPrefix(v, "-") {
			// --contents=FILE (blame) and the like.
			for _, p := range attachedPaths(v) {
				for _, a := range z.absPaths(p, cwd) {
					z.addRead(Read{Path: a, Contents: true})
				}
			}
			continue
		}
		if _, after, found := strings.Cut(v, ":"); found {
			v = after
		}
		if v == "" {
			continue
		}
		for _, a := range z.absPaths(v, cwd) {
			z.addRead(Read{Path: a, Contents: true})
		}
	}
}

// gitCommands are git's own subcommands. Anything else is an alias or an
// external git-* program, which can run anything (alias.x = !sh -c …).
var gitCommands = set("add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle",
	"cat-file", "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index",
	"cherry", "cherry-pick", "citool", "clean", "clone", "column", "commit", "commit-graph", "commit-tree", "config",
	"count-objects", "credential", "describe", "diagnose", "diff", "diff-files", "diff-index", "diff-tree", "difftool",
	"fast-export", "fast-import", "fetch", "fetch-pack", "filter-branch", "fmt-merge-msg", "for-each-ref",
	"for-each-repo", "format-patch", "fsck", "gc", "get-tar-commit-id", "grep", "gui", "hash-object", "help", "hook",
	"index-pack", "init", "instaweb", "interpret-trailers", "log", "ls-files", "ls-remote", "ls-tree", "mailinfo",
	"mailsplit", "maintenance", "merge", "merge-base", "merge-file", "merge-index", "merge-one-file", "merge-tree",
	"mergetool", "mktag", "mktree", "multi-pack-index", "mv", "name-rev", "notes", "pack-objects", "pack-refs",
	"patch-id", "prune", "prune-packed", "pull", "push", "range-diff", "read-tree", "rebase", "reflog", "remote",
	"repack", "replace", "replay", "request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm",
	"send-email", "send-pack", "shortlog", "show", "show-branch", "show-index", "show-ref", "sparse-checkout",
	"stash", "status", "stripspace", "submodule", "switch", "symbolic-ref", "tag", "unpack-file", "unpack-objects",
	"update-index", "update-ref", "update-server-info", "var", "verify-commit", "verify-pack", "verify-tag",
	"version", "whatchanged", "worktree", "write-tree", "lfs", "backfill", "refs", "last-modified", "repo")

// gitRunsPrograms are subcommands whose purpose is to run other programs.
var gitRunsPrograms = map[string]string{
	"filter-branch": "runs shell snippets for every commit",
	"instaweb":      "starts a web server",
	"web--browse":   "starts a browser",
	"hook":          "runs a repository hook",
	"credential":    "talks to credential helpers",
}

// hGit checks git's global options, then its subcommand.
func hGit(z *analyzer, c *cmd) {
	var settings []gitSetting
	setting := func(kv wordInfo) {
		k, _, _ := strings.Cut(kv.val, "=")
		v := valuePart(kv, kv.val[min(len(k)+1, len(kv.val)):])
		settings = append(settings, gitSetting{key: strings.ToLower(k), val: v})
	}
	i := 1
	for ; i < len(c.argv); i++ {
		w := c.argv[i]
		a := w.val
		if !w.full && w.unknownLead {
			z.unsafe("git with an option only known at run time: %s", c.text)
			return
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		switch {
		case a == "-c" || strings.HasPrefix(a, "-c"):
			// core.pager, core.fsmonitor, core.sshCommand, alias.*,
			// diff.external … are all programs git runs.
			z.unsafe("git -c sets configuration, which can make git run any program: %s", c.text)
			if a == "-c" {
				i++
				if i < len(c.argv) {
					c.argv[i].nonPath = true
					setting(c.argv[i])
				}
			} else {
				setting(valuePart(w, a[2:]))
			}
		case longFlag(a, "config-env"):
			z.unsafe("git --config-env sets configuration, which can make git run any program: %s", c.text)
			kv := valuePart(w, strings.TrimPrefix(strings.TrimPrefix(a, "--config-env"), "="))
			if !strings.Contains(a, "=") {
				i++
				if i < len(c.argv) {
					kv = c.argv[i]
				}
			}
			k, _, _ := strings.Cut(kv.val, "=")
			settings = append(settings, gitSetting{key: strings.ToLower(k), val: wordInfo{text: "$" + k, dyn: true}})
		case strings.HasPrefix(a, "--exec-path="):
			z.unsafe("git --exec-path makes git run its subcommands from another directory: %s", c.text)
		case a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--super-prefix" || a == "--list-cmds" || a == "--attr-source":
			if a == "--git-dir" || a == "--work-tree" {
				z.unsafe("git %s points git at another repository, whose configuration can run programs: %s", a, c.text)
			}
			i++
		case strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree="):
			z.unsafe("git %s points git at another repository, whose configuration can run programs: %s", a, c.text)
		case a == "-C":
			i++
		}
	}
	if i >= len(c.argv) {
		return
	}
	subw := c.argv[i]
	if !subw.full {
		z.unsafe("git subcommand only known at run time: %s", c.text)
		return
	}
	sub := subw.val
	c.argv[i].nonPath = true // a subcommand, not a path
	args := c.argv[i+1:]
	if why, ok := gitRunsPrograms[sub]; ok {
		z.unsafe("git %s %s: %s", sub, why, c.text)
		z.gitDanger(c, sub, args, settings)
		return
	}
	if !gitCommands[sub] {
		z.unsafe("git %s is not a built-in git command: it may be an alias or an external program, which can run anything", sub)
		z.gitDanger(c, sub, args, settings)
		return
	}
	z.gitFlags(c, sub, args)
	z.gitWrites(c, sub, args)
	switch sub {
	case "add":
		for _, w := range args {
			if strings.HasPrefix(w.val, "-") && w.full {
				continue
			}
			if why := z.secretWord(w, c.st); why != "" {
				z.dangerous(leaks, "git add stages a secret, which a commit and a push send to every clone: %s (%s)", c.text, why)
				break
			}
		}
	case "clone":
		z.gitClone(c, args)
	case "apply", "am":
		if !slices.ContainsFunc(args, func(w wordInfo) bool {
			return w.val == "--check" || w.val == "--stat" || w.val == "--numstat" || w.val == "--summary" || w.val == "--show-current-patch"
		}) {
			z.patchWrites(c, "git "+sub)
		}
	}
	z.gitDanger(c, sub, args, settings)
	switch sub {
	case "branch":
		gitBranch(z, c, args)
	case "tag":
		gitTag(z, c, args)
	case "config":
		gitConfig(z, c, args)
	case "remote":
		if len(args) > 0 && !(args[0].val == "-v" || args[0].val == "--verbose" || args[0].val == "show" || args[0].val == "get-url") {
			z.unsafe("git remote %s changes the repository's remotes: %s", args[0].val, c.text)
		}
	case "clean":
		force, dry := false, false
		for _, w := range args {
			a := w.val
			if a == "--force" || shortFlag(a, 'f', "eX") {
				force = true
			}
			if a == "--dry-run" || shortFlag(a, 'n', "eX") || a == "-i" || a == "--interactive" {
				dry = true
			}
			if !w.full && w.unknownLead {
				force = true
			}
		}
		if force && !dry {
			z.unsafe("git clean -f deletes untracked files: %s", c.text)
		}
	case "rebase":
		for _, w := range args {
			if w.val == "-x" || longFlag(w.val, "exec") || strings.HasPrefix(w.val, "-x") {
				z.unsafe("git rebase --exec runs a shell command after each commit: %s", c.text)
			}
		}
	case "bisect":
		if len(args) > 0 && args[0].val == "run" {
			z.unsafe("git bisect run runs a command for every step: %s", c.text)
		}
	case "submodule":
		for _, w := range args {
			if w.val == "foreach" {
				z.unsafe("git submodule foreach runs a shell command in every submodule: %s", c.text)
			}
		}
	case "difftool", "mergetool":
		for _, w := range args {
			if w.val == "-x" || longFlag(w.val, "extcmd") || strings.HasPrefix(w.val, "-x") {
				z.unsafe("git %s --extcmd runs a program: %s", sub, c.text)
			}
		}
	case "send-email":
		for _, w := range args {
			for _, f := range []string{"smtp-server", "to-cmd", "cc-cmd", "header-cmd", "sendmail-cmd", "identity"} {
				if longFlag(w.val, f) {
					z.unsafe("git send-email --%s can run a program: %s", f, c.text)
				}
			}
		}
	case "commit", "merge", "am", "revert", "cherry-pick":
		// Messages are text, not paths.
		for k, w := range args {
			if (w.val == "-m" || w.val == "--message" || w.val == "-F") && k+1 < len(args) {
				args[k+1].nonPath = w.val != "-F"
			}
		}
	}
}

// gitOutputO are the subcommands whose -o names the file or directory they
// write.
var gitOutputO = set("format-patch", "diff", "log", "show", "whatchanged", "range-diff", "archive")

// gitFlags checks the options that write files or run programs in any
// subcommand.
func (z *analyzer) gitFlags(c *cmd, sub string, args []wordInfo) {
	for k := 0; k < len(args); k++ {
		w := args[k]
		a := w.val
		if !w.full && w.unknownLead {
			// git diff $X: $X may be --output=… or --ext-diff; the chain
			// asks for dynamic words anyway.
			continue
		}
		switch {
		case longFlag(a, "output") || longFlag(a, "output-directory"):
			z.unsafe("git %s %s writes to a file: %s", sub, a, c.text)
			args[k].nonPath = true
			t := w
			if _, v, ok := strings.Cut(a, "="); ok {
				t = valuePart(w, v)
			} else if k+1 < len(args) {
				k++
				args[k].nonPath = true
				t = args[k]
			}
			z.writeFile(c, t, false, "git "+sub+" --output")
		case (a == "-o" || strings.HasPrefix(a, "-o")) && gitOutputO[sub]:
			if sub != "archive" {
				z.unsafe("git %s -o writes files: %s", sub, c.text)
			}
			args[k].nonPath = true
			t := valuePart(w, strings.TrimPrefix(a, "-o"))
			if a == "-o" && k+1 < len(args) {
				k++
				args[k].nonPath = true
				t = args[k]
			}
			z.writeFile(c, t, false, "git "+sub+" -o")
		case longFlag(a, "ext-diff"):
			z.unsafe("git %s --ext-diff runs the external diff program of the configuration: %s", sub, c.text)
		case longFlag(a, "textconv", "text"):
			z.unsafe("git %s --textconv runs conversion programs: %s", sub, c.text)
		case longFlag(a, "upload-pack") || longFlag(a, "receive-pack") || longFlag(a, "exec") && sub != "rebase":
			z.unsafe("git %s %s runs a program on the other end, which may be this machine: %s", sub, a, c.text)
		case a == "-u" && (sub == "clone" || sub == "ls-remote" || sub == "archive"):
			z.unsafe("git %s -u names the upload-pack program to run: %s", sub, c.text)
		case (a == "-c" || longFlag(a, "config")) && (sub == "clone" || sub == "submodule" || sub == "init"):
			z.unsafe("git %s %s sets configuration, which can make git run any program: %s", sub, a, c.text)
		case longFlag(a, "template"):
			z.unsafe("git %s --template copies hooks from a template directory: %s", sub, c.text)
		case (sub == "grep") && (a == "-O" || strings.HasPrefix(a, "-O") || longFlag(a, "open-files-in-pager")):
			z.unsafe("git grep -O runs a pager program on the matching files: %s", c.text)
		case strings.HasPrefix(a, "ext::") || strings.HasPrefix(a, "fd::"):
			z.unsafe("git remote URL %s runs a command as transport: %s", a, c.text)
		}
	}
}

// gitBranch allows the listing forms only: git branch -D main is not what
// a rule for `git branch` is meant for.
func gitBranch(z *analyzer, c *cmd, args []wordInfo) {
	listing := set("-a", "--all", "-r", "--remotes", "-l", "--list", "-v", "-vv", "--verbose", "--show-current",
		"--color", "--no-color", "--column", "--no-column", "-i", "--ignore-case", "--no-abbrev", "-q", "--quiet",
		"--omit-empty")
	withValue := set("--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "--abbrev")
	list := false
	var operands []wordInfo
	for k := 0; k < len(args); k++ {
		a := args[k].val
		name, _, hasVal := strings.Cut(a, "=")
		switch {
		case listing[name]:
			if name == "-l" || name == "--list" || name == "-a" || name == "-r" || name == "--all" || name == "--remotes" {
				list = true
			}
		case withValue[name]:
			list = true
			if !hasVal && k+1 < len(args) && !strings.HasPrefix(args[k+1].val, "-") {
				k++ // the commit, key or format
			}
		case strings.HasPrefix(a, "--color=") || strings.HasPrefix(a, "--column=") || strings.HasPrefix(a, "--abbrev="):
		case strings.HasPrefix(a, "-"):
			z.unsafe("git branch %s changes branches: %s", a, c.text)
			return
		default:
			operands = append(operands, args[k])
		}
	}
	if len(operands) > 0 && !list {
		z.unsafe("git branch %s creates a branch: %s", operands[0].text, c.text)
	}
}

func gitTag(z *analyzer, c *cmd, args []wordInfo) {
	list := false
	var operands []wordInfo
	for k := 0; k < len(args); k++ {
		a := args[k].val
		name, _, hasVal := strings.Cut(a, "=")
		switch {
		case name == "-l" || name == "--list" || strings.HasPrefix(name, "-n") || name == "--column" || name == "--no-column" ||
			name == "--color" || name == "-i" || name == "--ignore-case" || name == "--omit-empty":
			list = true
		case name == "--contains" || name == "--no-contains" || name == "--merged" || name == "--no-merged" || name == "--points-at" || name == "--sort" || name == "--format":
			list = true
			if !hasVal && k+1 < len(args) && !strings.HasPrefix(args[k+1].val, "-") {
				k++
			}
		case name == "-v" || name == "--verify":
			list = true
		case strings.HasPrefix(a, "-"):
			z.unsafe("git tag %s changes tags: %s", a, c.text)
			return
		default:
			operands = append(operands, args[k])
		}
	}
	if len(operands) > 0 && !list {
		z.unsafe("git tag %s creates a tag: %s", operands[0].text, c.text)
	}
}

// gitConfig allows reading only: writing configuration can make every later
// git command run a program (core.pager, core.fsmonitor, core.hooksPath …).
func gitConfig(z *analyzer, c *cmd, args []wordInfo) {
	read := set("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "-l", "--list",
		"get", "list")
	flags := set("--global", "--system", "--local", "--worktree", "--show-origin", "--show-scope", "--name-only", "-z",
		"--null", "--includes", "--no-includes", "--bool", "--int", "--path", "--expiry-date", "--bool-or-int")
	withValue := set("--file", "-f", "--blob", "--type", "--default")
	isRead := false
	var operands []wordInfo
	for k := 0; k < len(args); k++ {
		a := args[k].val
		name, _, hasVal := strings.Cut(a, "=")
		switch {
		case read[name]:
			isRead = true
		case flags[name]:
		case withValue[name]:
			if !hasVal {
				k++
			}
		default:
			operands = append(operands, args[k])
		}
	}
	if isRead || len(operands) == 1 && !strings.HasPrefix(operands[0].val, "-") {
		return
	}
	if len(operands) == 0 && len(args) == 0 {
		return
	}
	z.unsafe("git config changes configuration, which can make every later git command run a program: %s", c.text)
}

// gitWrites records the files git subcommands write outside the
// repository's own: format-patch's patches (in the working directory
// without -o), bundle create's bundle, checkout-index --prefix's copies.
func (z *analyzer) gitWrites(c *cmd, sub string, args []wordInfo) {
	has := func(names ...string) bool {
		return slices.ContainsFunc(args, func(w wordInfo) bool {
			return slices.ContainsFunc(names, func(n string) bool { return w.val == n || strings.HasPrefix(w.val, n+"=") })
		})
	}
	switch sub {
	case "format-patch":
		if !has("-o", "--output-directory", "--stdout") && !slices.ContainsFunc(args, func(w wordInfo) bool { return strings.HasPrefix(w.val, "-o") }) {
			z.target(wordInfo{text: "[0-9][0-9][0-9][0-9]-*.patch", val: "0001-x.patch", dyn: true}, c.st, false, "git format-patch", "writes")
		}
	case "bundle":
		if len(args) > 1 && args[0].val == "create" {
			for k := 1; k < len(args); k++ {
				if strings.HasPrefix(args[k].val, "-") {
					continue
				}
				args[k].nonPath = true
				z.writeFile(c, args[k], false, "git bundle create")
				break
			}
		}
	case "worktree", "submodule":
		// git worktree add PATH, git submodule add URL [PATH]: a
		// directory filled with files.
		if len(args) < 2 || args[0].val != "add" {
			break
		}
		var ops []wordInfo
		for k := 1; k < len(args); k++ {
			a := args[k].val
			switch {
			case a == "-b" || a == "-B" || a == "--branch" || a == "--name" || a == "--reference" || a == "--depth" || a == "--reason":
				k++
			case strings.HasPrefix(a, "-"):
			default:
				ops = append(ops, args[k])
			}
		}
		if sub == "submodule" {
			if len(ops) == 0 || !ops[0].full {
				break
			}
			if len(ops) == 1 {
				name := strings.TrimSuffix(path.Base(strings.TrimSuffix(ops[0].val, "/")), ".git")
				ops = append(ops, wordInfo{text: name, lit: name, val: name, full: true})
			}
			if a, ok := z.absPath(ops[1].val, c.st); ok && ops[1].full {
				z.sink.downloadedDirs = append(z.sink.downloadedDirs, a)
			}
			ops = ops[1:]
		}
		if len(ops) > 0 {
			z.writeFile(c, ops[0], false, "git "+sub+" add")
		}
	case "checkout-index":
		for k, w := range args {
			p, ok := strings.CutPrefix(w.val, "--prefix=")
			if !ok {
				continue
			}
			args[k].nonPath = true
			v := valuePart(w, p)
			if strings.HasSuffix(p, "/") {
				z.writeFile(c, v, false, "git checkout-index --prefix")
			} else {
				z.prefixWrite(c, v, "git checkout-index --prefix")
			}
		}
	}
}

// gitClone notes the directory a clone fills: running what it holds runs
// code from the network. It is written, too.
func (z *analyzer) gitClone(c *cmd, args []wordInfo) {
	var ops []wordInfo
	for k := 0; k < len(args); k++ {
		a := args[k].val
		switch {
		case a == "-b" || a == "--branch" || a == "-o" || a == "--origin" || a == "--depth" || a == "-j" ||
			a == "--jobs" || a == "--reference" || a == "--separate-git-dir" || a == "--filter" || a == "-c" || a == "--config":
			k++
		case strings.HasPrefix(a, "-"):
		default:
			ops = append(ops, args[k])
		}
	}
	if len(ops) == 0 || !ops[0].full {
		return
	}
	dir := strings.TrimSuffix(path.Base(strings.TrimSuffix(ops[0].val, "/")), ".git")
	target := wordInfo{text: dir, lit: dir, val: dir, full: true}
	if len(ops) > 1 {
		target = ops[1]
	}
	if !target.full || target.val == "" {
		return
	}
	if a, ok := z.absPath(target.val, c.st); ok {
		z.sink.downloadedDirs = append(z.sink.downloadedDirs, a)
	}
	z.writeFile(c, target, false, "git clone")
}
