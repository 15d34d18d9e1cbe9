package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"

	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/novacode/nova"

// rules: a package (relative path, "/..." for a subtree) may not import
// anything matching the listed prefixes. "!thirdparty" forbids every
// non-standard-library import outside the module and of our copies of
// upstream modules (third_party/); "!ours" every import of the
// module's own packages outside third_party/.
var rules = []struct {
	pkg    string
	forbid []string
}{
	{"event", []string{module + "/", "!thirdparty"}},
	{"llm", []string{module + "/", "!thirdparty"}},
	{"llm/openai", []string{module + "/agent", module + "/tool", module + "/event", module + "/internal", module + "/permission", module + "/llm/anthropic", module + "/llm/openaichat"}},
	{"llm/openaichat", []string{module + "/agent", module + "/tool", module + "/event", module + "/internal", module + "/permission", module + "/llm/anthropic", module + "/llm/openai"}},
	{"llm/anthropic", []string{module + "/llm/openai", module + "/agent", module + "/tool", module + "/event", module + "/internal", module + "/permission"}},
	// The adapters' shared skeleton knows no protocol and no SDK.
	{"llm/internal/...", []string{module + "/agent", module + "/tool", module + "/event", module + "/internal", module + "/permission", module + "/llm/anthropic", module + "/llm/openai", module + "/llm/llmtest", "!thirdparty"}},
	{"llm/llmtest/...", []string{module + "/agent", module + "/tool", module + "/event", module + "/internal", module + "/permission"}},
	{"tool/...", []string{module + "/agent", module + "/internal", module + "/event"}},
	{"session", []string{module + "/agent", module + "/tool", module + "/event", module + "/internal", module + "/permission", module + "/llm/", "!thirdparty"}},
	{"internal/contextinfo", []string{module + "/agent", module + "/internal/cli", module + "/tool", module + "/permission"}},
	{"internal/config", []string{module + "/agent", module + "/internal/cli"}},
	// The values a check speaks in: whoever calls a checker can name them
	// without linking the chain.
	{"permission/verdict", []string{module + "/", "!thirdparty"}},
	{"permission", []string{module + "/agent", module + "/tool", module + "/llm", module + "/internal", module + "/event"}},
	{"agent", []string{module + "/internal", module + "/cmd", module + "/llm/"}},
	// Our copies of upstream modules import each other and upstream's
	// dependencies, nothing of NovaCode's own.
	{"third_party/...", []string{"!ours"}},
	// Nothing links a second Bubble Tea, Glamour, Chroma or Bubbles next to
	// our copies (third_party/*/novacode.upstream): their types would not
	// mix with the copies'.
	// MCP servers as tools: who may start them and whether a call may run
	// are the caller's (the SDK's) decisions.
	{"mcp", []string{module + "/agent", module + "/internal", module + "/event", module + "/permission", module + "/session", module + "/llm/"}},
	{"mcp/mcptest", []string{module + "/"}},
	{"...", []string{module + "/cmd", "charm.land/bubbletea/", "charm.land/glamour/", "charm.land/bubbles/", "github.com/alecthomas/chroma/"}},
}

// sdkInternals are the internal packages the SDK (the module root) uses.
var sdkInternals = map[string]bool{
	module + "/internal/config":      true,
	module + "/internal/contextinfo": true,
	module + "/internal/gitexclude":  true,
}

// publicInternals are the internal packages a public package other than
// the SDK uses, each with its reason.
var publicInternals = map[string]map[string]string{
	// A batch's result lines are print mode's result object plus the
	// task's id: one definition of that JSON, so that the two never drift
	// apart. fleet re-exports the type (fleet.Result, an alias).
	"fleet": {module + "/internal/printmode": "a batch result is print mode's result line"},
}

// cliImports are the module packages internal/cli may import.
var cliImports = map[string]bool{
	module:                         true, // the SDK
	module + "/event":              true,
	module + "/fleet":              true, // nova batch
	module + "/internal/iostreams": true,
	module + "/internal/printmode": true,
	module + "/internal/tui":       true,
	module + "/internal/serve":     true,
	module + "/internal/serve/web": true,
	module + "/internal/acp":       true, // nova acp: the frontend for editors
}

// acpImports are the module packages internal/acp may import: like the
// CLI it reaches the runtime only through the SDK and its events, and
// mcp for the type in which the editor's MCP servers go to the SDK
// (nova.Options.MCPServers).
var acpImports = map[string]bool{
	module:            true,
	module + "/event": true,
	module + "/mcp":   true,
}

func TestImportRules(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string][]string{} // package dir -> imports of its non-test files
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			imports[rel] = append(imports[rel], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 5 {
		t.Fatalf("found only %d packages; is the walk broken?", len(imports))
	}
	for pkg, ims := range imports {
		for _, r := range rules {
			if !matches(r.pkg, pkg) {
				continue
			}
			for _, im := range ims {
				for _, f := range r.forbid {
					if forbidden(f, im) {
						t.Errorf("%s imports %s, which its layer forbids (%s)", pkg, im, f)
					}
				}
			}
		}
		// Public packages never reach into internal/, but for the SDK at
		// the module root — settings files, the context block and git's
		// exclude list are how it does what the CLI does, and none of
		// their types appear in its API — and publicInternals.
		if !strings.HasPrefix(pkg, "internal") && !strings.HasPrefix(pkg, "cmd") && !strings.HasPrefix(pkg, "bench") {
			for _, im := range ims {
				if strings.HasPrefix(im, module+"/internal") && !(pkg == "." && sdkInternals[im]) && publicInternals[pkg][im] == "" {
					t.Errorf("public package %s imports %s", pkg, im)
				}
			}
		}
		// The CLI is flags and frontends on the SDK: of the runtime it
		// reaches only the SDK and the events, so the SDK can never fall
		// behind what the CLI does.
		if pkg == "internal/cli" {
			for _, im := range ims {
				if strings.HasPrefix(im, module) && !cliImports[im] {
					t.Errorf("internal/cli imports %s; it may import only the SDK (%s), event and the frontends: move what it needs into the SDK", im, module)
				}
			}
		}
		// The ACP agent is a frontend on the SDK too: an editor's session
		// gets what the CLI's does.
		if pkg == "internal/acp" {
			for _, im := range ims {
				if strings.HasPrefix(im, module) && !acpImports[im] {
					t.Errorf("internal/acp imports %s; it may import only the SDK (%s), event and mcp's server configuration: move what it needs into the SDK", im, module)
				}
			}
		}
	}
}

func matches(rule, pkg string) bool {
	switch {
	case rule == "...":
		return true
	case strings.HasSuffix(rule, "/..."):
		base := strings.TrimSuffix(rule, "/...")
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return rule == pkg
}

func forbidden(rule, im string) bool {
	switch rule {
	case "!thirdparty":
		first, _, _ := strings.Cut(im, "/")
		return strings.Contains(first, ".") && !strings.HasPrefix(im, module+"/") ||
			strings.HasPrefix(im, module+"/third_party/")
	case "!ours":
		return strings.HasPrefix(im, module+"/") && !strings.HasPrefix(im, module+"/third_party/")
	}
	return strings.HasPrefix(im, rule)
}

func TestEveryPackageHasADocComment(t *testing.T) {
	root, _ := filepath.Abs("../..")
	dirs := map[string]bool{}
	documented := map[string]bool{}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		// Our copies of upstream modules keep upstream's conventions
		// (scripts/check-forks).
		if d.IsDir() && path == filepath.Join(root, "third_party") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.Dir(path)
		dirs[dir] = true
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err == nil && f.Doc != nil {
			documented[dir] = true
		}
		return nil
	})
	for d := range dirs {
		if !documented[d] {
			rel, _ := filepath.Rel(root, d)
			t.Errorf("package %s has no doc comment", rel)
		}
	}

}
