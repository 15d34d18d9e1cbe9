package shell

// Listers: programs that read names and metadata, not contents (ls, du,
// stat). A lister that walks a tree reads every name below its operands.

func init() {
	register(&program{check: lsCheck, rest: asNames, cwd: true, opts: []option{
		flags("-a --all -A --almost-all --author -b --escape -B --ignore-backups -c -C -d --directory -D --dired -f -F " +
			"--file-type --full-time -g --group-directories-first -G --no-group -h --human-readable --si -H " +
			"--dereference-command-line --dereference-command-line-symlink-to-dir -i --inode -k --kibibytes -l -L " +
			"--dereference -m -n --numeric-uid-gid -N --literal -o -p -q --hide-control-chars --show-control-chars -Q " +
			"--quote-name -r --reverse -s --size -S -t -u -U -v -x -X -Z --context --zero -1 -@ -e -O -P -T -W -%"),
		o("-R --recursive", recurse),
		texts("--block-size= --color=? --classify=? --format= --hide= --hyperlink=? --indicator-style= -I= --ignore= " +
			"--quoting-style= --sort= --time= --time-style= --tabsize= -w= --width="),
	}}, "ls")
	register(&program{rest: asNames, trees: true, cwd: true, opts: []option{
		flags("-0 --null -a --all --apparent-size -b --bytes -c --total -D --dereference-args -H -h --human-readable " +
			"--inodes -k -l --count-links -m -P --no-dereference -S --separate-dirs --si -s --summarize -x --one-file-system -A -g -n -r"),
		o("-L --dereference", follows),
		texts("-B= --block-size= -d= --max-depth= -t= --threshold= --time=? --time-style= --exclude= -I="),
		o("-X= --exclude-from=", asRead),
		o("--files0-from=", asList),
	}}, "du")
	register(&program{rest: asNames, trees: true, cwd: true, opts: []option{
		flags("-a -d -f -x -i -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -n -C -A -S -X -J -R --inodes --device " +
			"--noreport --nolinks --dirsfirst --filesfirst --du --si --prune --matchdirs --metafirst --gitignore " +
			"--ignore-case --info --fflinks --acl --selinux --condense --version --help"),
		o("-l", follows),
		texts("-L= -P= -I= -H= -T= --charset= --filelimit= --timefmt= --sort= --hintro= --houtro= --gitfile="),
		o("-o=", asWrite),
		o("--infofile=", asRead),
		o("--fromfile --fromtabfile", widens, "reads a listing from its operands instead of the file system"),
	}}, "tree")
	register(&program{rest: asNames, opts: []option{
		flags("-L --dereference -f --file-system -t --terse"),
		texts("-c= --format= --printf= --cached="),
	}}, "stat")
	register(&program{rest: asNames, opts: []option{
		flags("-e --canonicalize-existing -m --canonicalize-missing -L --logical -P --physical -q --quiet -s --strip --no-symlinks -z --zero"),
		o("--relative-to= --relative-base=", asNames),
	}}, "realpath")
	register(&program{rest: asNames, opts: []option{
		flags("-f --canonicalize -e --canonicalize-existing -m --canonicalize-missing -n --no-newline -q --quiet -s --silent -v --verbose -z --zero"),
	}}, "readlink")
	register(opaque("reports on mounted file systems"), "df")
}

// lsCheck: ls -L only looks through the links it lists; with -R it walks
// into them, possibly out of the tree.
func lsCheck(z *analyzer, c *cmd, r *tableRun) {
	if r.has(recurse) && r.parsed.has("L", "dereference") {
		r.acts |= follows
	}
}
