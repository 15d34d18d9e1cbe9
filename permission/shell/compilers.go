package shell

// Compilers, linkers and binary tools: gcc, cc, clang, ld, as, objcopy,
// strip, ar. They write their output (-o, or a.out, x.o next to the
// source); what their sources include is only known at run time.

import (
	"path"
	"strings"
)

func init() {
	register(&program{handler: hCompiler, unbounded: "compiles: it reads whatever its sources include"},
		"gcc", "cc", "c++", "g++", "clang", "clang++", "tcc", "gfortran", "c89", "c99")
	register(&program{handler: hLinker, unbounded: "links or assembles: it reads the libraries and files it finds"},
		"ld", "ld.bfd", "ld.gold", "ld.lld", "lld", "mold", "as")
	register(&program{handler: hObjcopy}, "objcopy", "strip", "llvm-objcopy", "llvm-strip")
	register(&program{prepare: oldStyleKeys("dmpqrstxabciloNPSTuvUVD"), check: arCheck, rest: asRead, opts: []option{
		o("-d -m -p -q -r -s -t -x", 0),
		flags("-a -b -c -D -f -i -l -N -o -P -S -T -u -U -v -V --thin --plugin --target --output --record-libdeps"),
	}}, "ar", "llvm-ar")
}

// compilerValues are the options of gcc and clang that take the next word
// as their value.
var compilerValues = set("-o", "-I", "-L", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote", "-idirafter",
	"-iprefix", "-iwithprefix", "-isysroot", "-x", "-MF", "-MT", "-MQ", "-Xlinker", "-Xassembler", "-Xpreprocessor",
	"-Xclang", "-T", "-aux-info", "-wrapper", "-arch", "-target", "-B", "-specs", "--sysroot", "-dumpdir", "-dumpbase",
	"-l", "-u", "-z", "-e", "-mllvm")

// hCompiler: -o names the output; without it -c writes each source's .o
// (and -S its .s) in the working directory, -E prints, and a link writes
// a.out. -MF writes a dependency file. -wrapper, -B, -specs and plugins run
// programs; @file reads more options.
func hCompiler(z *analyzer, c *cmd) {
	var out *wordInfo
	var sources []wordInfo
	compileOnly, asmOnly, preprocess := false, false, false
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		a := w.val
		switch {
		case !w.full && w.unknownLead:
			sources = append(sources, w)
		case strings.HasPrefix(a, "@") && len(a) > 1:
			z.unsafe("%s %s reads more options from a file, which may name programs to run: %s", c.base, a, c.text)
		case a == "-c":
			compileOnly = true
		case a == "-S":
			asmOnly = true
		case a == "-E" || a == "-M" || a == "-MM" || a == "-fsyntax-only" || a == "--version" || a == "-v" || a == "--help":
			preprocess = true
		case compilerValues[a]:
			c.argv[i].nonPath = a != "-I" && a != "-L" && a != "-include" && a != "-isystem" && a != "-iquote" && a != "-T"
			if i+1 >= len(c.argv) {
				break
			}
			i++
			v := c.argv[i]
			c.argv[i].nonPath = a != "-I" && a != "-L" && a != "-include" && a != "-isystem" && a != "-iquote" && a != "-T" && a != "-idirafter"
			z.compilerOption(c, a, v, &out)
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			v := valuePart(w, a[2:])
			c.argv[i].nonPath = true
			out = &v
		case strings.HasPrefix(a, "-MF") && len(a) > 3:
			c.argv[i].nonPath = true
			z.writeFile(c, valuePart(w, a[3:]), false, c.base+" -MF")
		case strings.HasPrefix(a, "-fplugin") || strings.HasPrefix(a, "-specs=") || strings.HasPrefix(a, "--specs=") ||
			strings.HasPrefix(a, "-B") || strings.HasPrefix(a, "-wrapper") || strings.HasPrefix(a, "-fuse-ld=/"):
			z.unsafe("%s %s makes the compiler run other programs: %s", c.base, a, c.text)
			c.argv[i].nonPath = true
		case strings.HasPrefix(a, "-"):
			if !strings.HasPrefix(a, "-I") && !strings.HasPrefix(a, "-L") && !strings.HasPrefix(a, "-include") {
				c.argv[i].nonPath = true // -O2, -Wall, -DX=/y
			}
		default:
			sources = append(sources, w)
		}
	}
	if preprocess {
		if out != nil {
			z.writeFile(c, *out, false, c.base+" -o")
		}
		return
	}
	switch {
	case out != nil:
		z.writeFile(c, *out, false, c.base+" -o")
	case compileOnly || asmOnly:
		ext := ".o"
		if asmOnly {
			ext = ".s"
		}
		for _, s := range sources {
			if !s.full {
				z.target(wordInfo{text: "*" + ext, val: "x" + ext, dyn: true}, c.st, false, c.base, "writes")
				continue
			}
			o := path.Base(strings.TrimSuffix(s.val, path.Ext(s.val))) + ext
			z.writeFile(c, wordInfo{text: o, lit: o, val: o, full: true}, false, c.base)
		}
	default:
		z.writeFile(c, wordInfo{text: "a.out", lit: "a.out", val: "a.out", full: true}, false, c.base)
	}
}

// compilerOption judges the value of a compiler option given in the next
// word.
func (z *analyzer) compilerOption(c *cmd, opt string, v wordInfo, out **wordInfo) {
	switch opt {
	case "-o":
		*out = &v
	case "-MF", "-aux-info", "-dumpdir":
		z.writeFile(c, v, false, c.base+" "+opt)
	case "-wrapper", "-B", "-specs":
		z.unsafe("%s %s makes the compiler run other programs: %s", c.base, opt, c.text)
	case "-Xlinker", "-Xclang", "-mllvm":
		if strings.Contains(v.val, "plugin") {
			z.unsafe("%s %s %s loads a plugin: %s", c.base, opt, v.val, c.text)
		}
	}
}

// hLinker: ld and as write -o (a.out by default); ld -T reads a linker
// script, -Map and --dependency-file write files, plugins run code. Their
// single-dash long options (-shared, -soname) are not getopt clusters.
func hLinker(z *analyzer, c *cmd) {
	var out *wordInfo
	objects := 0
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		name, val, hasVal := strings.Cut(strings.TrimPrefix(w.val, "-"), "=")
		next := func() wordInfo {
			c.argv[i].nonPath = true
			if hasVal {
				return valuePart(w, val)
			}
			if i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
				return c.argv[i]
			}
			return wordInfo{}
		}
		switch {
		case !strings.HasPrefix(w.val, "-") || !w.full && w.unknownLead:
			objects++
		case w.val == "-o" || name == "-output":
			v := next()
			out = &v
		case name == "Map" || name == "-Map" || name == "-dependency-file" || name == "-out-implib":
			z.writeFile(c, next(), false, c.base+" "+w.val)
		case name == "T" || name == "-script" || name == "-default-script" || name == "dT":
			v := next()
			z.checkReadPath(c, v, c.base)
			z.readWord(c, v, Read{Contents: true})
		case name == "plugin" || name == "-plugin":
			next()
			z.unsafe("%s %s loads a plugin, which runs code: %s", c.base, w.val, c.text)
		case strings.HasPrefix(w.val, "-o") && !strings.HasPrefix(w.val, "-oformat") && !strings.HasPrefix(w.val, "-omagic"):
			v := valuePart(w, w.val[2:])
			c.argv[i].nonPath = true
			out = &v
		case strings.HasPrefix(w.val, "-L") || strings.HasPrefix(w.val, "-I"):
			// A directory searched: a path, checked as one.
		default:
			c.argv[i].nonPath = true
		}
	}
	switch {
	case out != nil:
		z.writeFile(c, *out, false, c.base+" -o")
	case objects > 0:
		z.writeFile(c, wordInfo{text: "a.out", lit: "a.out", val: "a.out", full: true}, false, c.base)
	}
}

// objcopyValues are the options of objcopy and strip with a value in the
// next word.
var objcopyValues = set("-I", "--input-target", "-O", "--output-target", "-B", "--binary-architecture", "-F",
	"--target", "-j", "--only-section", "-R", "--remove-section", "-K", "--keep-symbol", "-N", "--strip-symbol",
	"-G", "--keep-global-symbol", "-L", "--localize-symbol", "-W", "--weaken-symbol", "-b", "--byte", "-i",
	"--interleave", "--add-section", "--dump-section", "--update-section", "--set-section-flags", "--rename-section",
	"--add-symbol", "--redefine-sym", "--redefine-syms", "--set-start", "--change-start", "--adjust-vma", "-o",
	"--add-gnu-debuglink", "--keep-symbols", "--strip-symbols", "--pad-to", "--gap-fill")

// hObjcopy: objcopy IN [OUT] writes OUT, or IN in place; strip rewrites
// its operands unless -o names the output. --dump-section writes a file,
// --add-section and --update-section read one.
func hObjcopy(z *analyzer, c *cmd) {
	var out *wordInfo
	var operands []int
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		name, val, hasVal := strings.Cut(w.val, "=")
		switch {
		case !w.full && w.unknownLead:
			operands = append(operands, i)
		case objcopyValues[name] || strings.HasPrefix(w.val, "-o") && len(w.val) > 2:
			c.argv[i].nonPath = true
			v := valuePart(w, val)
			if strings.HasPrefix(w.val, "-o") && len(w.val) > 2 {
				name, v = "-o", valuePart(w, w.val[2:])
			} else if !hasVal && i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
				v = c.argv[i]
			}
			_, file, isFile := strings.Cut(v.val, "=")
			switch name {
			case "-o":
				out = &v
			case "--dump-section":
				if isFile {
					z.writeFile(c, valuePart(v, file), false, c.base+" --dump-section")
				}
			case "--add-section", "--update-section", "--add-gnu-debuglink":
				if isFile {
					v = valuePart(v, file)
				}
				z.checkReadPath(c, v, c.base)
				z.readWord(c, v, Read{Contents: true})
			}
		case strings.HasPrefix(w.val, "-"):
		default:
			operands = append(operands, i)
		}
	}
	targets := operands
	if c.base == "objcopy" || c.base == "llvm-objcopy" {
		if len(operands) > 1 {
			o := c.argv[operands[1]]
			out = &o
			c.argv[operands[1]].nonPath = true
		}
		targets = operands[:min(1, len(operands))]
	}
	for _, i := range targets {
		z.readWord(c, c.argv[i], Read{Contents: true})
	}
	if out != nil {
		z.writeFile(c, *out, false, c.base)
		return
	}
	for _, i := range targets {
		c.argv[i].nonPath = true
		z.writeFile(c, c.argv[i], false, c.base)
	}
}

// arCheck: ar's first operand is the archive: r, q, d, m and s write it,
// x writes its members in the working directory, t and p only read.
func arCheck(z *analyzer, c *cmd, r *tableRun) {
	if len(r.operands) == 0 {
		return
	}
	archive := r.operands[0]
	members := r.operands[1:]
	c.argv[archive].nonPath = true
	switch {
	case r.parsed.has("x"):
		z.readWord(c, c.argv[archive], Read{Contents: true})
		if len(members) == 0 {
			z.target(wordInfo{text: "./…", val: "./", dyn: true}, c.st, false, "ar x", "writes")
		}
		for _, i := range members {
			c.argv[i].nonPath = true
			z.writeFile(c, c.argv[i], false, "ar x")
		}
		r.operands = nil
	case r.parsed.has("t", "p"):
		z.readWord(c, c.argv[archive], Read{Contents: true})
		r.operands = nil
	default:
		z.writeFile(c, c.argv[archive], true, c.base)
		if r.parsed.has("d") {
			for _, i := range members {
				c.argv[i].nonPath = true // names in the archive
			}
			r.operands = nil
			return
		}
		r.operands = members
	}
}
