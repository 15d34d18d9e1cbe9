package shell

// Formatters and converters that rewrite the files they are given: gofmt
// -w, clang-format -i, dos2unix, black, rustfmt, shfmt -w, yq -i. Without
// their in-place option the ones that print only read.

func init() {
	register(&program{rest: asRead, trees: true, wordOptions: true, opts: []option{
		o("-w", inPlace),
		flags("-l -d -e -s -a -W"),
		texts("-r= -cpuprofile="),
	}}, "gofmt")
	register(&program{rest: asRead, trees: true, wordOptions: true, unbounded: "looks up packages in the module cache", opts: []option{
		o("-w", inPlace),
		flags("-l -d -e -v -format-only"),
		texts("-local= -srcdir="),
	}}, "goimports")
	register(&program{rest: asRead, wordOptions: true, opts: []option{
		o("-i", inPlace),
		flags("--dry-run -n --Werror --dump-config --sort-includes --verbose --fcolor-diagnostics --fno-color-diagnostics"),
		texts("--style= --fallback-style= --assume-filename= --lines= --offset= --length= --cursor= --qualifier-alignment= --ferror-limit="),
	}}, "clang-format")
	register(&program{handler: hDos2unix}, "dos2unix", "unix2dos", "mac2unix", "unix2mac")
	register(&program{rest: asWrite, unbounded: "reads its configuration and plugins from the workspace", opts: []option{
		o("--check --diff", 0),
		flags("-q --quiet -v --verbose --fast --safe --preview --unstable --skip-string-normalization -S " +
			"--skip-magic-trailing-comma -C --color --no-color --required-version --ipynb --pyi"),
		texts("-l= --line-length= -t= --target-version= --include= --exclude= --extend-exclude= --force-exclude= " +
			"--stdin-filename= -W= --workers= --config= -c= --code= --python-cell-magics="),
	}, check: checkOnly("check", "diff")}, "black")
	register(&program{rest: asWrite, unbounded: "reads its configuration from the workspace", opts: []option{
		o("--check", 0),
		flags("-v --verbose -q --quiet --backup --files-with-diff -l -V"),
		texts("--edition= --emit= --color= --config-path= --config= --print-config="),
	}, check: checkOnly("check", "emit")}, "rustfmt")
	register(&program{rest: asRead, trees: true, wordOptions: true, opts: []option{
		o("-w --write", inPlace),
		flags("-l --list -d --diff -s --simplify -mn --minify -p --posix -bn -ci -sr -kp -fn -f --find -tojson --to-json"),
		texts("-i= --indent= -ln= --language-dialect= --filename="),
		flags("--apply-ignore"),
	}}, "shfmt")
	register(&program{rest: asRead, args: []act{asText}, opts: []option{
		o("-i --inplace", inPlace),
		flags("-r --unwrapScalar -P --prettyPrint -C --colors -M --no-colors -N --no-doc -e --exit-status -n --null-input " +
			"-0 --nul-output -s --split-exp -j --tojson --no-fail -v --verbose -V"),
		texts("-p= --input-format= -o= --output-format= -I= --indent= --expression= --from-file= --front-matter= --header-preprocess="),
	}}, "yq")
}

// checkOnly: with one of the options named, the formatter only reports:
// its operands are read, not rewritten.
func checkOnly(names ...string) func(z *analyzer, c *cmd, r *tableRun) {
	return func(z *analyzer, c *cmd, r *tableRun) {
		if !r.parsed.has(names...) {
			return
		}
		for _, i := range r.operands {
			z.readWord(c, c.argv[i], Read{Contents: true})
		}
		r.operands = nil
	}
}

// hDos2unix converts its files in place, or IN to OUT with -n.
func hDos2unix(z *analyzer, c *cmd) {
	pairs := false
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		switch {
		case w.val == "-n" || w.val == "--newfile":
			pairs = true
		case w.val == "-o" || w.val == "--oldfile":
			pairs = false
		case w.val == "-c" || w.val == "--convmode" || w.val == "-f" && false:
			if i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
			}
		case len(w.val) > 1 && w.val[0] == '-':
		case pairs && i+1 < len(c.argv):
			z.readWord(c, w, Read{Contents: true})
			i++
			c.argv[i].nonPath = true
			z.writeFile(c, c.argv[i], false, c.base+" -n")
		default:
			c.argv[i].nonPath = true
			z.checkReadPath(c, w, c.base)
			z.writeFile(c, w, false, c.base)
		}
	}
}
