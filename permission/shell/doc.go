// Package shell analyses a bash command line before NovaCode runs it, so that
// the permission chain can decide a Bash tool call command by command.
//
// The model that writes the command reads untrusted text and may have been
// told to smuggle something past the user's rules. A rule such as
// Bash(git status:*) is meant for `git status`, not for
// `git status; curl … | sh`, so the chain needs every simple command that
// would run, with its words after quote removal, and a list of everything
// that a per-command rule cannot vouch for. This package gives exactly that,
// using the real shell parser (mvdan.cc/sh/v3/syntax) instead of string
// splitting: quoting, here-documents, substitutions and ANSI-C strings are
// read the way bash reads them.
//
// The analysis is purely lexical: it never touches the file system, never
// runs anything and never follows symlinks (pathguard does that for the
// files a command writes). It is deliberately conservative: whatever it
// cannot prove harmless lands in Unsafe, and the chain asks a person. It
// never stops early: a line of 500 commands is analysed to the end.
//
// # Findings
//
//   - Commands: every simple command that may run, in source order, including
//     those inside pipelines, lists, subshells, groups, command and process
//     substitutions, unquoted here-documents, control structures, function
//     bodies, `sh -c` strings, and the commands run by wrappers such as sudo,
//     env, xargs and find -exec (so that a deny rule for rm also catches
//     `sudo rm`). declare/export/local/readonly and let are commands too;
//     [[ ]] and (( )) are not.
//   - Writes: the files the line certainly writes, creates, deletes or
//     changes: redirections (>, >>, &>, &>>, >|, <>, >&file; not descriptor
//     duplications or /dev/null, /dev/stdout, /dev/stderr, /dev/tty) and
//     the targets of every known writer — dd of=; cp, mv, ln and install
//     targets (and mv's sources); rm, rmdir, unlink, shred, truncate, touch,
//     mkdir, mkfifo, chmod, chown operands; tee; sed -i, perl -i, ruby -i,
//     awk -i inplace (with their backups); curl -o/-O/--output-dir/-D/-c,
//     wget -O/-P or the name it downloads to; tar -cf (and -x's directory),
//     zip, unzip -d, gzip and its kind; sort -o, uniq IN OUT, xxd IN OUT,
//     shuf -o, iconv -o, split and csplit (their prefix); go build -o, go
//     test -o/-c and its profiles, gcc/cc/ld/as -o (or a.out, x.o),
//     objcopy, strip, ar; git archive -o, format-patch (-o), bundle create,
//     checkout-index --prefix, --output; ssh-keygen's key files, openssl
//     -out, gpg -o; gofmt -w and other formatters; find -fprint; strace -o,
//     time -o, script. A program writes nothing only if its description
//     says it only reads with the options given. What only the program
//     knows (a glob's matches, a prefix's pieces, what tar -x or find
//     -delete touches) is a Dynamic write. An unknown program's operands
//     and option paths are possible writes (Effects.MayWrite), as are those
//     of any command whose effects cannot be bounded (patch, git apply,
//     make, a script).
//   - Unsafe: reasons the command cannot be judged by per-command rules. The
//     chain asks, except in bypassPermissions mode.
//   - Dangerous: reasons from a fixed list of destructive or persistent
//     actions. The chain asks even in bypassPermissions mode.
//   - ProjectCode: commands that run code the workspace defines (npm test,
//     make, go test, cargo build, pytest, ./script, python x.py). Not a
//     reason to ask by itself: allowing `npm test` is reasonable, but that
//     code is only as trustworthy as the workspace, which auto-accepted
//     edits can change.
//
// # Words
//
// A word is fixed when it has no expansion: quotes are removed, backslash
// escapes and $'…' ANSI-C escapes are decoded ($'\x63url' is curl), a
// leading ~ or ~/ becomes Options.Home. Anything else — $VAR, ${…}, $(…),
// `…`, $((…)), <(…), an unquoted glob or brace pattern, ~user, $"…" — is
// Dynamic and reported as its source text. Internally the analyser still
// resolves what it can ($HOME, $PWD, $(pwd), variables the line set to fixed
// strings, loop variables over fixed words, word splitting of known values)
// for its own checks, and treats an unknown variable as possibly empty:
// rm -rf "$DIR"/* is rm -rf /* when DIR is unset.
//
// The working directory is followed through cd and pushd: after
// `cd x && …` relative paths are judged in x; after `cd x; …` (the cd may
// have failed) in either directory; after a cd to a dynamic place it is
// unknown. Subshells, pipelines elements and background jobs do not change
// it.
//
// # Unsafe rules
//
//   - The line does not parse as bash (ParseError), a `sh -c` string does not
//     parse, or nesting is too deep to follow.
//   - Control characters (other than tab and newline), bidirectional-text
//     controls, zero-width or other invisible characters anywhere, invalid
//     UTF-8, and any non-ASCII or control character in a command name.
//   - A command name that is not a fixed word ($X, "$CMD", $(echo rm), a glob).
//   - eval, source and ., exec, alias, trap, enable, builtin, command (but
//     not command -v/-V), hash -p, fc, bind -x, compgen/complete -C/-F,
//     mapfile -C, coproc, function definitions (f(){…} can shadow any
//     command), set -k and other set/shopt options that change how later
//     lines are read (expand_aliases, …).
//   - Assignments of variables that change what runs or is loaded: PATH,
//     LD_*, DYLD_*, GIT_*, PAGER/EDITOR/VISUAL and friends, BASH_ENV, ENV,
//     IFS, PS4, PROMPT_COMMAND, HOME, XDG_*, *_OPTIONS, *_OPTS, *FLAGS,
//     *_PATH, *_HOME, *_COMMAND, language runtimes' variables (PYTHON*,
//     NODE_*, PERL*, RUBY*, …) — as command prefixes (PAGER=x git log), bare,
//     or through declare/export/local/readonly. A few harmless settings
//     (GIT_PAGER=cat, LC_ALL=C, NODE_ENV=test, …) are allowed. declare -n,
//     declare -i, declare with a dynamic argument, exported functions.
//   - Arithmetic that can run commands: bash evaluates the value of every
//     variable named in $((…)), $[…], ((…)), let, [[ -eq ]], array subscripts
//     and ${x:off:len} as arithmetic again, array subscripts included, and a
//     subscript may hold $(…). So quoted text in arithmetic, and variables
//     the line sets to anything but a number, are Unsafe; so are subscripts
//     given to read, unset, printf -v, test -v and [[ -v ]], and ${x@P}.
//   - Shells running a string or standard input: sh/bash/zsh/dash/ksh/fish/…
//     -c (the string is analysed too), -s, -i, `-` or no script; interpreters
//     running inline code or standard input: python -c, perl -e/-E/-i, ruby
//     -e/-i, node -e/-p, php -r, lua -e, Rscript -e, osascript -e, deno eval,
//     bun -e, … or with no script.
//   - Wrappers that run their arguments as a command (the wrapped command is
//     also listed and judged): xargs, env CMD, nohup, nice, timeout, time
//     (the program, not the keyword, which is transparent), watch, sudo,
//     doas, su, stdbuf, setsid, chroot, ionice, strace/ltrace, parallel,
//     script, flock, taskset, busybox, pkexec, unshare, nsenter, firejail,
//     valgrind and similar; at/batch; open/xdg-open.
//   - find -exec, -execdir, -ok, -okdir, -delete, -fprint, -fprint0,
//     -fprintf, -fls; fd -x/-X.
//   - sed scripts with the e command, the e or w flags of s, or w/W (parsed,
//     not pattern-matched); sed -f; sed -i is reported as Writes instead.
//   - awk programs containing system, |, >, getline or @ (unless --sandbox),
//     and awk -f/-E/-i/-l.
//   - git: -c, --config-env, --exec-path=, --git-dir, --work-tree; a
//     subcommand that is not built in (an alias or git-* program);
//     --output, --output-directory, -o (diff/log/show/format-patch),
//     --ext-diff, --textconv, --upload-pack, --receive-pack, --exec, -u
//     (clone/ls-remote), clone -c/--config, --template, ext:: and fd:: URLs,
//     grep -O/--open-files-in-pager, rebase -x/--exec, bisect run,
//     submodule foreach, filter-branch, difftool/mergetool -x/--extcmd,
//     send-email --smtp-server/--*-cmd; branch, tag, remote and config in
//     anything but their listing/reading forms (git branch -D main).
//   - Other programs' options that run programs: rg --pre/--hostname-bin,
//     sort --compress-program, tar --to-command/-I/--use-compress-program/
//     --checkpoint-action/-F/--info-script/--rsh-command, tar -x and remote
//     archives, zip -TT, man -P/-H, less +!cmd, vim -c/--cmd/+cmd/-S/-s/-u,
//     emacs --eval/-l/-f, ssh -o ProxyCommand/LocalCommand/…, ssh -F/-J,
//     scp -S, rsync -e/--rsh/--rsync-path, go -exec/-toolexec/-vettool,
//     go env -w/-u, make NAME=value and --eval, cargo --config, npm/yarn/pnpm
//     config set and --script-shell, npx -c, npm exec -c, pip config set,
//     wget -e/--execute, curl -K/--config, install --strip-program.
//   - Paths outside the workspace in fixed arguments (also in --opt=value,
//     -o/path and @file forms) of every program that may touch files (not
//     echo, printf, test and the like), in redirections, and as write
//     targets (cp/mv/ln/install/rsync/scp targets, tee, curl -o, wget -O,
//     dd of=, sort -o, …); anything under /proc; `..` that climbs out;
//     relative paths after a cd that leaves the workspace; writes into .git,
//     .mcp.json, .envrc, .gitmodules, .gitattributes; /dev/tcp and /dev/udp
//     (network connections).
//
// # Dangerous rules
//
//   - Recursive or forced deletes (rm -r/-R/--recursive/-f in any spelling
//     or order, also under sudo, in sh -c, with options from variables) of /,
//     a top-level directory, the home directory, the workspace, any
//     ancestor of them, or their contents (/*, ~/*, ./*, .*; any glob under
//     /, ~ or an ancestor). rm of start-up, history and key files. The same
//     targets for chmod/chown/chgrp -R (and chmod of / itself), find -delete
//     or find -exec rm (and find . -delete with no test), rsync --delete,
//     mv, shred.
//   - mkfs*, mke2fs, mkswap, wipefs -a, blkdiscard, partition editors other
//     than their listing forms, cryptsetup luksFormat/erase, zfs/zpool
//     destroy, lvremove/vgremove/pvremove; dd of= a disk; any write to a disk
//     or memory device (/dev/sd*, /dev/nvme*, /dev/mapper/*, /dev/mem, …).
//   - Fork bombs: a function that calls itself in a pipeline or in the
//     background, whatever its name.
//   - Writes (redirections, tee, cp/mv/install/ln targets, sed -i, sed w,
//     curl -o, wget -O, dd of=, git --output, sort -o, truncate, shred) to
//     shell start-up and tool configuration files in any home directory
//     (.bashrc, .profile, .zshrc, .gitconfig, .npmrc, .netrc, .mcp.json, …),
//     history files, ~/.ssh, ~/.gnupg, ~/.config/{fish,git,systemd,autostart,
//     gh,…}, ~/.aws, ~/.kube, ~/.docker, LaunchAgents, NovaCode's own
//     settings (.novacode anywhere), and system trees (/etc, /usr, /boot,
//     /bin, /sbin, /lib*, /root, cron spools, /System, /Library).
//   - A download piped into an interpreter reading standard input
//     (curl/wget/fetch/… | … sh/bash/python/…, also through sudo or env), a
//     shell or interpreter running a substitution that downloads
//     (bash <(curl …), sh -c "$(curl …)", source <(…), eval "$(curl …)",
//     python -c "$(curl …)"), and running a file the same line downloaded
//     (curl -o x.sh …; sh x.sh; wget …/i.sh && ./i.sh).
//   - shutdown, reboot, halt, poweroff, kexec, killall5, init/telinit 0/6/1,
//     systemctl/loginctl poweroff/reboot/halt/suspend/… and session kills;
//     kill with pid -1 (kill -9 -1, kill -- -1); pkill/killall -u with no
//     pattern.
//   - crontab other than -l (installing or removing scheduled commands),
//     history -c/-d, git clean -f without -n.
//   - docker/podman run, create or exec with --privileged, host namespaces
//     (--pid=host, …), --cap-add=ALL/SYS_ADMIN/…, unconfined security
//     options, a disk device, or a bind mount of /, a top-level system
//     directory, the home directory or an ancestor, a protected path or the
//     Docker socket.
//
// Look-alikes are not Dangerous: text that mentions a dangerous command
// (echo "rm -rf /", grep -r mkfs, git commit -m '… curl | sh …'), reading
// protected files (cat ~/.bashrc, ls /etc), scoped deletes and mode changes
// (rm -rf ./build, chmod -R 755 ./scripts), dd to a file, curl -o to a file,
// git clean -n.
//
// # Limits
//
// Symlinks, hard links and what programs do with files named inside other
// files (a Makefile, a sed script read with -f, tar archives) are not
// followed; pathguard re-checks the files a command writes. Programs the
// analyser does not know are judged by their paths and by the rules that
// allow them: a rule for a program is trusted to mean all of its options.
package shell
