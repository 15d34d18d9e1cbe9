package shell

// Archivers and compressors: tar, zip, unzip, gzip and its kind. Creating
// an archive reads its members and writes the archive; extracting writes
// what the archive names, which only the archive knows.

import (
	"path"
	"strings"
)

func init() {
	register(&program{prepare: oldStyleKeys("AcdrtuxzZjJaBGhiklmMOpPRsSUvWwfbCFgHIKLNTVX"), check: tarCheck, rest: asRead, opts: []option{
		o("-A --catenate --concatenate -c --create --delete -d --diff --compare -r --append -t --list -u --update "+
			"-x --extract --get --test-label", 0),
		flags("--check-device -G --incremental --ignore-failed-read --no-check-device --no-seek -n --seek -S --sparse " +
			"--exclude-backups --exclude-caches --exclude-caches-all --exclude-caches-under --exclude-vcs --exclude-vcs-ignores " +
			"--no-null --no-recursion --no-unquote --no-verbatim-files-from --null --recursion --unquote --verbatim-files-from " +
			"--anchored --ignore-case --no-anchored --no-ignore-case --no-wildcards --no-wildcards-match-slash --wildcards " +
			"--wildcards-match-slash --keep-directory-symlink --keep-newer-files -k --keep-old-files --no-overwrite-dir " +
			"--overwrite --overwrite-dir --recursive-unlink --skip-old-files -U --unlink-first -W --verify " +
			"--ignore-command-error --no-ignore-command-error -O --to-stdout --clamp-mtime --delay-directory-restore -m --touch " +
			"--no-delay-directory-restore --no-same-owner --no-same-permissions --numeric-owner -p --preserve-permissions " +
			"--same-permissions --same-owner -s --preserve-order --same-order --acls --no-acls --no-selinux --no-xattrs " +
			"--selinux --xattrs --force-local -M --multi-volume -B --read-full-records -i --ignore-zeros --old-archive " +
			"--portability --posix -a --auto-compress -j --bzip2 -J --xz --lzip --lzma --lzop --no-auto-compress --zstd -z " +
			"--gzip --gunzip --ungzip -Z --compress --uncompress --hard-dereference --one-file-system --full-time -l " +
			"--check-links -R --block-number --show-defaults --show-omitted-dirs --show-snapshot-field-ranges " +
			"--show-transformed-names --show-stored-names --utc -v --verbose -w --interactive --confirmation -o --restrict --usage"),
		o("-h --dereference", follows),
		o("-P --absolute-names", widens, "keeps absolute member names: it may write anywhere"),
		o("--remove-files", 0),
		texts("--hole-detection= --level= --occurrence=? --sparse-version= --add-file= --exclude= --exclude-ignore= " +
			"--exclude-ignore-recursive= --exclude-tag= --exclude-tag-all= --exclude-tag-under= --one-top-level=? " +
			"--atime-preserve=? --group= --group-map= --mode= --mtime= --owner= --owner-map= --sort= --xattrs-exclude= " +
			"--xattrs-include= -L= --tape-length= -b= --blocking-factor= --record-size= -H= --format= --pax-option= " +
			"-V= --label= --backup=? -K= --starting-file= --newer-mtime= -N= --newer= --after-date= --suffix= " +
			"--strip-components= --transform= --xform= --checkpoint=? --no-quote-chars= --quote-chars= --quoting-style= " +
			"--totals=? --warning= -f= --file= -C= --directory="),
		o("-T= --files-from=", asList),
		o("-X= --exclude-from=", asRead),
		o("-g= --listed-incremental= --index-file= --volno-file=", asWrite),
		o("--to-command=", asRun, "pipes every member it extracts to a shell command"),
		o("-I= --use-compress-program=", asRun, "runs a program to compress"),
		o("--checkpoint-action=", asRun, "runs an action, which can be a shell command, at checkpoints"),
		o("-F= --info-script= --new-volume-script=", asRun, "runs a script at the end of every volume"),
		o("--rsh-command= --rmt-command=", asRun, "runs a program to reach a remote archive"),
	}}, "tar")
	register(&program{handler: hZip}, "zip")
	register(&program{handler: hUnzip}, "unzip")
	register(&program{handler: hCompress}, "gzip", "gunzip", "pigz", "unpigz", "bzip2", "bunzip2", "pbzip2", "xz", "unxz",
		"lzma", "unlzma", "lzip", "zstd", "unzstd", "lz4", "unlz4", "compress", "uncompress", "brotli")
	register(decoding(reader(flags("-f --force -q --quiet -v --verbose -L --license -V --version"))), "zcat", "bzcat", "xzcat",
		"zstdcat", "lz4cat", "lzcat", "zless", "zmore")
}

// oldStyleKeys makes tar xzf archive read as tar -xzf archive: a first word
// made only of the program's option letters is a cluster of them.
func oldStyleKeys(letters string) func(c *cmd) {
	return func(c *cmd) {
		if len(c.argv) > 1 && c.argv[1].full && c.argv[1].val != "" && !strings.HasPrefix(c.argv[1].val, "-") &&
			strings.Trim(c.argv[1].val, letters) == "" {
			c.argv[1].val = "-" + c.argv[1].val
		}
	}
}

// tarCheck: tar -c, -r, -u write the archive (-f) from the members named
// (read below -C); tar -x writes what the archive names into -C or the
// working directory, which only the archive knows: Unsafe, and unbounded.
// --remove-files deletes the members it added. A -f of host:file is a
// remote archive reached through rsh.
func tarCheck(z *analyzer, c *cmd, r *tableRun) {
	has := r.parsed.has
	creates := has("c", "create", "r", "append", "u", "update", "A", "catenate", "concatenate", "delete")
	extracts := has("x", "extract", "get")
	var archive *wordInfo
	for _, o := range r.get("f", "file") {
		v := optValue(c, o)
		archive = &v
	}
	if archive != nil && archive.val != "-" {
		v := archive.val
		if strings.Contains(v, ":") && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, ".") && !has("force-local") {
			z.unsafe("tar archive %s is on a remote host, reached through rsh: %s", v, c.text)
			r.acts |= widens
			r.whyWidens = "reaches a remote archive"
		} else if creates {
			z.writeFile(c, *archive, has("r", "append", "u", "update", "A", "catenate", "concatenate"), "tar")
		} else {
			z.checkReadPath(c, *archive, "tar -f")
			z.readWord(c, *archive, Read{Contents: true})
		}
	}
	// Members are relative to -C.
	st := c.st
	dir := wordInfo{text: ".", lit: ".", val: ".", full: true}
	for _, o := range r.get("C", "directory") {
		dir = optValue(c, o)
		if !dir.full {
			z.cannotBound(c, "tar -C with a directory only known at run time")
			st = st.lostCwd()
			continue
		}
		if a, ok := z.absPath(dir.val, c.st); ok {
			st = st.atCwd(a)
		} else {
			st = st.lostCwd()
		}
	}
	member := *c
	member.st = st
	switch {
	case extracts:
		z.unsafe("tar extracts files, which may land anywhere the archive says: %s", c.text)
		z.extracts(c, archive, st.cwd)
		if !has("O", "to-stdout") && !has("to-command") {
			z.writeFile(c, dir, false, "tar -x")
			r.acts |= widens
			r.whyWidens = "-x writes the files its archive names"
		}
		for _, i := range r.operands {
			c.argv[i].nonPath = true // member names, in the archive
		}
	case creates:
		for _, i := range r.operands {
			w := c.argv[i]
			c.argv[i].nonPath = true // judged relative to -C
			z.checkReadPath(&member, w, "tar")
			z.readWord(&member, w, Read{Tree: true, Contents: true})
			if has("remove-files") {
				z.destroys(w, st, "tar --remove-files deletes")
				z.target(w, st, false, "tar --remove-files", "deletes")
			}
		}
	default: // list, diff: the members are names in the archive
		for _, i := range r.operands {
			c.argv[i].nonPath = true
		}
	}
	r.operands = nil
}

// zipTakesValue are zip's options with a value in the next word.
var zipTakesValue = set("-b", "-n", "-t", "-tt", "-O", "--out", "-P", "--password", "-Z", "--compression-method",
	"-s", "--split-size", "-sb", "-sp", "-sv", "-ds", "--dot-size", "-lf", "--logfile-path", "-la", "-li",
	"-TT", "--unzip-command", "-ic", "-fd", "-mm")

// hZip: zip [options] archive [files]: it writes the archive and reads the
// files (trees with -r); -m deletes them, -d deletes entries of the archive,
// -TT runs a program, -O writes another archive, -@ reads the names from
// standard input.
func hZip(z *analyzer, c *cmd) {
	var operands []int
	recursive, move, readsNames := false, false, false
	var out *wordInfo
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		a := w.val
		switch {
		case !w.full && w.unknownLead:
			z.cannotBound(c, "zip with an option only known at run time")
			operands = append(operands, i)
		case a == "-x" || a == "-i" || a == "--exclude" || a == "--include":
			// Patterns up to the next option.
			for i+1 < len(c.argv) && !strings.HasPrefix(c.argv[i+1].val, "-") {
				i++
				c.argv[i].nonPath = true
			}
		case zipTakesValue[a] || longFlag(a, "unzip-command"):
			if a == "-TT" || longFlag(a, "unzip-command") {
				z.unsafe("zip -TT runs a program to test the archive: %s", c.text)
			}
			if !strings.Contains(a, "=") && i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
				if a == "-O" || a == "--out" || a == "-lf" || a == "--logfile-path" {
					v := c.argv[i]
					out = &v
				}
			}
		case strings.HasPrefix(a, "-TT") || longFlag(a, "unzip-command"):
			z.unsafe("zip -TT runs a program to test the archive: %s", c.text)
		case strings.HasPrefix(a, "--"):
			recursive = recursive || a == "--recurse-paths"
			move = move || a == "--move"
			readsNames = readsNames || a == "--names-stdin"
		case strings.HasPrefix(a, "-") && a != "-":
			recursive = recursive || strings.ContainsAny(a[1:], "rR")
			move = move || strings.Contains(a[1:], "m")
			readsNames = readsNames || strings.Contains(a[1:], "@")
		default:
			operands = append(operands, i)
		}
	}
	if out != nil {
		z.writeFile(c, *out, false, "zip -O")
	}
	if readsNames {
		z.cannotBound(c, "zip -@ reads the names of the files to add from its input")
	}
	for k, i := range operands {
		w := c.argv[i]
		c.argv[i].nonPath = true
		if k == 0 {
			z.writeFile(c, w, true, "zip")
			continue
		}
		z.checkReadPath(c, w, "zip")
		z.readWord(c, w, Read{Tree: recursive, Contents: true})
		if move {
			z.destroys(w, c.st, "zip -m deletes")
			z.changeFile(c, w, "zip -m", "deletes")
		}
	}
}

// hUnzip: unzip archive [members] [-x members] [-d dir] writes the members
// into dir or the working directory; -l, -t, -v, -z and -Z only list, -p
// and -c print.
func hUnzip(z *analyzer, c *cmd) {
	var operands []int
	writes := true
	var dir *wordInfo
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		a := w.val
		switch {
		case !w.full && w.unknownLead:
			z.cannotBound(c, "unzip with an option only known at run time")
			operands = append(operands, i)
		case a == "-x":
			for i+1 < len(c.argv) && !strings.HasPrefix(c.argv[i+1].val, "-") {
				i++
				c.argv[i].nonPath = true
			}
		case a == "-d" || a == "-P" || a == "-O" || a == "-I":
			if i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
				if a == "-d" {
					v := c.argv[i]
					dir = &v
				}
			}
		case strings.HasPrefix(a, "-d") && len(a) > 2:
			v := valuePart(w, a[2:])
			dir = &v
			c.argv[i].nonPath = true
		case strings.HasPrefix(a, "-") && a != "-":
			if strings.ContainsAny(a[1:], "ltvzZpc") {
				writes = false
			}
		default:
			operands = append(operands, i)
		}
	}
	for k, i := range operands {
		c.argv[i].nonPath = true
		if k == 0 {
			z.checkReadPath(c, c.argv[i], "unzip")
			z.readWord(c, c.argv[i], Read{Contents: true})
		}
	}
	if !writes {
		return
	}
	target := wordInfo{text: ".", lit: ".", val: ".", full: true}
	if dir != nil {
		target = *dir
	}
	z.writeFile(c, target, false, "unzip")
	if len(operands) > 0 {
		a := c.argv[operands[0]]
		dir := c.st.cwd
		if d, ok := z.absPath(target.val, c.st); ok && target.full {
			dir = d
		}
		z.extracts(c, &a, dir)
	}
	z.unsafe("unzip extracts files, which may land anywhere the archive says: %s", c.text)
	z.cannotBound(c, "unzip writes the files its archive names")
}

// compressSuffix is the suffix each compressor adds.
var compressSuffix = map[string]string{"gzip": ".gz", "pigz": ".gz", "bzip2": ".bz2", "pbzip2": ".bz2", "xz": ".xz",
	"lzma": ".lzma", "lzip": ".lz", "zstd": ".zst", "lz4": ".lz4", "compress": ".Z", "brotli": ".br"}

// hCompress: gzip FILE writes FILE.gz and deletes FILE; gunzip the other
// way round; -c prints instead, -k keeps the original (zstd, lz4 and brotli
// keep it unless told otherwise), -t and -l only read. lz4 IN OUT and
// zstd -o OUT name the output.
func hCompress(z *analyzer, c *cmd) {
	prog := strings.TrimPrefix(c.base, "un")
	decompress := strings.HasPrefix(c.base, "un") || c.base == "gunzip"
	if c.base == "gunzip" {
		prog = "gzip"
	}
	keep := prog == "zstd" || prog == "lz4" || prog == "brotli"
	stdout, readOnly, recursive := false, false, false
	suffix := compressSuffix[prog]
	var out *wordInfo
	var operands []int
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		a := w.val
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case !w.full && w.unknownLead:
			z.cannotBound(c, "%s with an option only known at run time", c.base)
			operands = append(operands, i)
		case a == "--":
			operands = append(operands, appendRange(nil, i+1, len(c.argv))...)
			i = len(c.argv)
		case a == "-S" || name == "--suffix" || a == "-o" || name == "--output" || a == "-T" || name == "--threads" ||
			a == "-b" || name == "--block-size" || a == "-D" || name == "--dict" || name == "--format" || a == "-F":
			c.argv[i].nonPath = true
			v := valuePart(w, val)
			if !hasVal && i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
				v = c.argv[i]
			}
			switch {
			case a == "-S" || name == "--suffix":
				suffix = v.val
			case a == "-o" || name == "--output":
				out = &v
			}
		case strings.HasPrefix(a, "--"):
			switch name {
			case "--stdout", "--to-stdout":
				stdout = true
			case "--decompress", "--uncompress":
				decompress = true
			case "--keep":
				keep = true
			case "--rm":
				keep = false
			case "--test", "--list":
				readOnly = true
			case "--recursive":
				recursive = true
			}
		case strings.HasPrefix(a, "-") && a != "-":
			l := a[1:]
			stdout = stdout || strings.Contains(l, "c")
			decompress = decompress || strings.Contains(l, "d")
			keep = keep || strings.Contains(l, "k")
			readOnly = readOnly || strings.ContainsAny(l, "tl")
			recursive = recursive || strings.Contains(l, "r")
		default:
			operands = append(operands, i)
		}
	}
	if decompress && (stdout || len(operands) == 0) {
		z.sink.meta[c.idx].decode = true // gunzip -c, or from its input
	}
	if prog == "lz4" && len(operands) == 2 && !stdout {
		// lz4 IN OUT.
		o := c.argv[operands[1]]
		out = &o
		c.argv[operands[1]].nonPath = true
		operands = operands[:1]
	}
	for _, i := range operands {
		w := c.argv[i]
		z.readWord(c, w, Read{Contents: true, Tree: recursive})
		if stdout || readOnly || w.val == "-" {
			continue
		}
		c.argv[i].nonPath = true
		z.checkReadPath(c, w, c.base)
		switch {
		case out != nil:
		case recursive || !w.full:
			z.cannotBound(c, "%s writes files named after the ones it finds", c.base)
		case decompress:
			o := w
			o.val = strings.TrimSuffix(w.val, suffix)
			if o.val == w.val {
				o.val = strings.TrimSuffix(w.val, path.Ext(w.val))
			}
			o.lit, o.text = o.val, o.val
			z.writeFile(c, o, false, c.base)
		default:
			o := w
			o.val += suffix
			o.lit, o.text = o.val, o.val
			z.writeFile(c, o, false, c.base)
		}
		if !keep {
			z.changeFile(c, w, c.base, "deletes")
		}
	}
	if out != nil && !stdout && !readOnly {
		z.writeFile(c, *out, false, c.base)
	}
}

// extracts notes where an extraction writes: when its archive was
// downloaded by the line (or comes from its input, which a pipeline may
// feed with a download), what it writes there came from the network.
func (z *analyzer) extracts(c *cmd, archive *wordInfo, dir string) {
	if dir == "" {
		return
	}
	z.sink.meta[c.idx].extractDir = dir
	if archive == nil || archive.val == "-" {
		return // from its input: the pipeline decides
	}
	if a, ok := z.absPath(archive.val, c.st); ok && archive.full && z.sink.wasDownloaded(a) {
		z.sink.downloadedDirs = append(z.sink.downloadedDirs, dir)
	}
}
