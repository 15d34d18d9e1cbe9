package shell

// Readers: the programs that read their files and print (cat, sort, wc,
// …). Their tables list every option: an option they do not list makes the
// command unbounded, as it may be one a later version added to write.

func init() {
	register(reader(flags("-A --show-all -b --number-nonblank -e -E --show-ends -n --number -s --squeeze-blank -t -T --show-tabs -u -v --show-nonprinting")),
		"cat")
	register(reader(flags("-b --before -r --regex"), texts("-s= --separator=")), "tac")
	register(numericReader(flags("-q --quiet --silent -v --verbose -z --zero-terminated"), texts("-c= --bytes= -n= --lines=")), "head")
	register(numericReader(
		flags("-f -F -q --quiet --silent --retry -v --verbose -z --zero-terminated"),
		texts("-c= --bytes= -n= --lines= --max-unchanged-stats= --pid= -s= --sleep-interval="),
		texts("--follow=?")), "tail")
	register(reader(flags("-c --bytes -m --chars -l --lines -L --max-line-length -w --words --total=?"),
		o("--files0-from=", asList)), "wc")
	register(reader(flags("-p --no-renumber"), texts("-b= --body-numbering= -d= --section-delimiter= -f= --footer-numbering= "+
		"-h= --header-numbering= -i= --line-increment= -l= --join-blank-lines= -n= --number-format= "+
		"-s= --number-separator= -v= --starting-line-number= -w= --number-width=")), "nl")
	register(reader(flags("-n --complement -s --only-delimited -z --zero-terminated"),
		texts("-b= --bytes= -c= --characters= -d= --delimiter= -f= --fields= --output-delimiter=")), "cut")
	register(reader(flags("-t --table -d --table-noheadings -e --table-header-repeat -L --keep-empty-lines -J --json -x --fillrows -h --help -V --version"),
		texts("-n= --table-name= -O= --table-order= -N= --table-columns= -l= --table-columns-limit= -E= --table-noextreme= "+
			"-H= --table-hide= -R= --table-right= -T= --table-truncate= -W= --table-wrap= -r= --tree= -i= --tree-id= "+
			"-p= --tree-parent= -c= --output-width= -o= --output-separator= -s= --separator=")), "column")
	register(decoding(reader(flags("-h --help -V --version -0 --zero"))), "rev")
	register(numericReader(flags("-b --bytes -s --spaces"), texts("-w= --width=")), "fold")
	register(numericReader(flags("-c --crown-margin -s --split-only -t --tagged-paragraph -u --uniform-spacing"),
		texts("-p= --prefix= -w= --width= -g= --goal=")), "fmt")
	register(reader(flags("-s --serial -z --zero-terminated"), texts("-d= --delimiters=")), "paste")
	register(reader(flags("-i --ignore-case --check-order --nocheck-order --header -z --zero-terminated"),
		texts("-a= -e= -j= -o= -t= -v= -1= -2=")), "join")
	register(reader(flags("-1 -2 -3 --check-order --nocheck-order --total -z --zero-terminated"),
		texts("--output-delimiter=")), "comm")
	register(reader(flags("-b --print-bytes -l --verbose -s --quiet --silent -v --version"),
		texts("-i= --ignore-initial= -n= --bytes=")), "cmp")
	register(diffProgram, "diff")
	register(checksum, "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "shasum")
	register(reader(flags("--tag --untagged -z --zero --ignore-missing --quiet --status --strict -w --warn --debug --base64 --raw"),
		o("-c --check", asList), texts("-a= --algorithm= -l= --length=")), "cksum")
	register(reader(flags("-r -s --sysv")), "sum")
	register(reader(flags("-v --output-duplicates --traditional -a -b -c -d -f -i -l -o -s -x"),
		texts("-A= --address-radix= --endian= -j= --skip-bytes= -N= --read-bytes= -t= --format="),
		texts("-S=? --strings=? -w=? --width=?")), "od")
	register(reader(flags("-b --one-byte-octal -c --one-byte-char -C --canonical -d --two-bytes-decimal -o --two-bytes-octal "+
		"-x --two-bytes-hex -v --no-squeezing -h --help -V --version"),
		texts("-e= --format= -n= --length= -s= --skip= -L=? --color=?"), o("-f= --format-file=", asRead)), "hexdump")
	register(numericReader(flags("-a --all -d --data -f --print-file-name -w --include-all-whitespace -o"),
		texts("-n= --bytes= -t= --radix= -T= --target= -e= --encoding= -U= --unicode= -s= --output-separator=")), "strings")
	register(decoder(reader(o("-d --decode -D", decodes), flags("-i --ignore-garbage"), texts("-w= --wrap="))), "base64", "base32")
	register(decoder(reader(o("-d --decode", decodes), flags("-i --ignore-garbage --base64 --base64url --base58 --base32 --base32hex --base16 --base2msbf --base2lsbf --z85"),
		texts("-w= --wrap="))), "basenc")
	register(reader(flags("-z --uncompress -Z --uncompress-noreport -b --brief -c --checking-printout -i --mime --apple --extension "+
		"--mime-type --mime-encoding -k --keep-going -l --list -L --dereference -h --no-dereference -n --no-buffer -N --no-pad "+
		"-0 --print0 -p --preserve-date -P --parameter -r --raw -s --special-files -S --no-sandbox -d --debug -v --version"),
		o("-C --compile", widens, "writes a compiled magic file"), o("-m= --magic-file=", asRead),
		o("-f= --files-from=", asList), texts("-e= --exclude= --exclude-quiet= -F= --separator=")), "file")
	register(sortProgram, "sort")
	register(&program{rest: asRead, args: []act{asRead, asWrite},
		opts: []option{flags("-c --count -d --repeated -D -i --ignore-case -u --unique -z --zero-terminated"),
			texts("--all-repeated=? --group=?"), texts("-f= --skip-fields= -s= --skip-chars= -w= --check-chars=")}}, "uniq")
	register(&program{handler: hXxd}, "xxd")
	register(decoding(&program{rest: asText, pure: true,
		opts: []option{flags("-c -C --complement -d --delete -s --squeeze-repeats -t --truncate-set1")}}), "tr")
	register(&program{rest: asRead, opts: []option{flags("-m -i"), o("-o= --output-file=", asWrite)},
		check: func(z *analyzer, c *cmd, r *tableRun) {
			z.sink.meta[c.idx].decode = true
			if !r.parsed.has("o", "output-file") {
				// It writes the file its input's begin line names.
				z.sink.a.Writes = append(z.sink.a.Writes, Write{Path: "(the file its input names)", Dynamic: true})
				r.acts |= widens
				r.whyWidens = "writes the file its input names"
			}
		}}, "uudecode")
	register(reader(flags("-i --initial"), texts("-t= --tabs=")), "expand")
	register(reader(flags("-a --all --first-only"), texts("-t= --tabs=")), "unexpand")
	register(reader(flags("-e --echo -r --repeat -z --zero-terminated"),
		texts("-i= --input-range= -n= --head-count="), o("-o= --output=", asWrite), o("--random-source=", asRead)), "shuf")
	register(reader(flags("-l --list -c -s --silent --verbose --usage -V --version"),
		texts("-f= --from-code= -t= --to-code="), o("-o= --output=", asWrite)), "iconv")
	register(reader(), "tsort")
	register(&program{check: splitCheck, rest: asRead, opts: []option{
		flags("-d -x -e --elide-empty-files -u --unbuffered --verbose"),
		texts("-a= --suffix-length= --additional-suffix= -b= --bytes= -C= --line-bytes= --numeric-suffixes=? " +
			"--hex-suffixes=? -l= --lines= -n= --number= -t= --separator="),
		o("--filter=", asRun, "runs a shell command for every piece"),
	}}, "split")
	register(&program{check: splitCheck, args: []act{asRead}, rest: asText, opts: []option{
		flags("-k --keep-files --suppress-matched -s --quiet --silent -z --elide-empty-files"),
		texts("-b= --suffix-format= -f= --prefix= -n= --digits="),
	}}, "csplit")
}

// splitCheck: split writes PREFIXaa, PREFIXab, … (x by default, its
// second operand), csplit xx00, xx01, … (-f): files whose names are only
// known at run time, in the prefix's directory.
func splitCheck(z *analyzer, c *cmd, r *tableRun) {
	prefix := wordInfo{text: "x", lit: "x", val: "x", full: true}
	if c.base == "csplit" {
		prefix = wordInfo{text: "xx", lit: "xx", val: "xx", full: true}
		for _, o := range r.get("f", "prefix") {
			prefix = optValue(c, o)
		}
	} else if len(r.operands) > 1 {
		prefix = c.argv[r.operands[1]]
		c.argv[r.operands[1]].nonPath = true
		r.operands = r.operands[:1]
	}
	if r.parsed.has("filter") {
		return // the pieces go to the filter
	}
	z.prefixWrite(c, prefix, c.base)
}

// reader is a program that reads the contents of its operands (or its
// standard input) and prints.
func reader(opts ...option) *program {
	return &program{opts: opts, rest: asRead}
}

// numericReader is a reader that takes -NUM as an option (head -20).
func numericReader(opts ...option) *program {
	p := reader(opts...)
	p.numeric = true
	return p
}

// checksum programs verify the files a list names with -c.
var checksum = reader(flags("-b --binary --tag -t --text -z --zero --ignore-missing --quiet --status --strict -w --warn"),
	o("-c --check", asList), texts("-a= --algorithm= -l= --length="))

// diffProgram compares files, or trees with -r.
var diffProgram = reader(
	flags("--normal -q --brief -s --report-identical-files -e --ed -n --rcs -y --side-by-side --left-column "+
		"--suppress-common-lines -p --show-c-function -t --expand-tabs -T --initial-tab --suppress-blank-empty -l --paginate "+
		"--no-dereference -N --new-file --unidirectional-new-file --ignore-file-name-case --no-ignore-file-name-case "+
		"-i --ignore-case -E --ignore-tab-expansion -Z --ignore-trailing-space -b --ignore-space-change -w --ignore-all-space "+
		"-B --ignore-blank-lines -a --text --strip-trailing-cr -d --minimal --speed-large-files -v --version -c -u"),
	o("-r --recursive", recurse),
	texts("-C= --context=? -U= --unified=? -W= --width= -F= --show-function-line= --label= --tabsize= -x= --exclude= "+
		"-S= --starting-file= -I= --ignore-matching-lines= -D= --ifdef= --line-format= --old-line-format= "+
		"--new-line-format= --unchanged-line-format= --old-group-format= --new-group-format= --changed-group-format= "+
		"--unchanged-group-format= --horizon-lines= --color=? --palette="),
	o("-X= --exclude-from= --from-file= --to-file=", asRead))

// sortProgram: sort -o writes a file, --compress-program runs one.
var sortProgram = reader(
	flags("-b --ignore-leading-blanks -d --dictionary-order -f --ignore-case -g --general-numeric-sort -i --ignore-nonprinting "+
		"-M --month-sort -h --human-numeric-sort -n --numeric-sort -R --random-sort -r --reverse -V --version-sort --debug "+
		"-m --merge -s --stable -u --unique -z --zero-terminated -c -C"),
	texts("--check=? --sort= --batch-size= -k= --key= -S= --buffer-size= -t= --field-separator= -T= --temporary-directory= --parallel="),
	o("-o= --output=", asWrite),
	o("--compress-program=", asRun, "runs a program to compress its temporary files"),
	o("--files0-from=", asList),
	o("--random-source=", asRead))

// hXxd: xxd [options] [infile [outfile]] writes its second operand; its
// options are whole words (-ps, -cols 8), not getopt clusters.
func hXxd(z *analyzer, c *cmd) {
	withValue := set("-c", "-cols", "-g", "-groupsize", "-l", "-len", "-n", "-name", "-o", "-offset", "-s", "-seek")
	var files []int
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		switch {
		case !w.full && w.unknownLead:
			z.cannotBound(c, "xxd with an option only known at run time")
			files = append(files, i)
		case w.val == "--":
			files = append(files, appendRange(nil, i+1, len(c.argv))...)
			i = len(c.argv)
		case withValue[w.val]:
			if i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
			}
		case len(w.val) > 1 && w.val[0] == '-':
			if !xxdFlags[w.val] && !withValue[w.val[:2]] {
				z.cannotBound(c, "xxd %s is an option the analyser does not know", w.val)
			}
			c.argv[i].nonPath = true
		default:
			files = append(files, i)
		}
	}
	for k, i := range files {
		switch k {
		case 0:
			z.readWord(c, c.argv[i], Read{Contents: true})
		case 1:
			c.argv[i].nonPath = true
			z.writeFile(c, c.argv[i], false, "xxd")
		}
	}
	for _, w := range c.argv[1:] {
		if w.val == "-r" || w.val == "-revert" {
			z.sink.meta[c.idx].decode = true
		}
	}
}

// xxdFlags are xxd's options without a value, in every spelling it takes.
var xxdFlags = set("-a", "-autoskip", "-b", "-bits", "-C", "-capitalize", "-E", "-EBCDIC", "-e", "-h", "-help", "-i",
	"-include", "-p", "-ps", "-postscript", "-plain", "-r", "-revert", "-R", "-d", "-u", "-uppercase", "-v", "-version")

// decoder marks a program whose decodes option (base64 -d) makes what it
// prints hidden text; decoding marks one whose output always is (rev, tr,
// zcat: rot13 and compression hide a script as well as base64 does).
func decoder(p *program) *program {
	p.check = func(z *analyzer, c *cmd, r *tableRun) {
		if r.has(decodes) {
			z.sink.meta[c.idx].decode = true
		}
	}
	return p
}

func decoding(p *program) *program {
	p.check = func(z *analyzer, c *cmd, _ *tableRun) { z.sink.meta[c.idx].decode = true }
	return p
}
