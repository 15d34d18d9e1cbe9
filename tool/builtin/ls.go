package builtin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/novacode/nova/tool"
)

// LSInput is the input of the LS tool.
type LSInput struct {
	Path   string   `json:"path" jsonschema:"The absolute path to the directory to list"`
	Ignore []string `json:"ignore,omitempty" jsonschema:"List of glob patterns to ignore"`
}

// lsMaxEntries caps the listing; the tree is built breadth-first, so a cut
// listing still shows the upper levels in full.
const lsMaxEntries = 1000

// NewLS returns the LS tool.
func NewLS() *tool.Typed[LSInput] {
	return tool.New("LS", lsDesc, true, nil, runLS).WithEffects(func(env *tool.Env, in LSInput) tool.Effects {
		return tool.Effects{Reads: []string{env.Abs(cmp.Or(in.Path, "."))}}
	})
}

const lsDesc = `Lists files and directories under a path as an indented tree; directories end with "/".

Usage:
- path should be an absolute path to a directory.
- Entries excluded by .gitignore and the .git directory are skipped. ignore takes extra glob patterns to leave out (matched against names and against paths relative to path), e.g. ["*.log", "testdata/**"].
- Large trees are cut at 1000 entries, shallowest first.
- Prefer Glob and Grep when you know what you are looking for.`

// lsNode is one directory in the listing.
type lsNode struct {
	name     string
	children []*lsNode
	isDir    bool
}

func runLS(ctx context.Context, env *tool.Env, in LSInput) (tool.Result, error) {
	if strings.TrimSpace(in.Path) == "" {
		return tool.Errorf("path is empty. Give the directory to list."), nil
	}
	root, res, ok := searchDir(env, in.Path)
	if !ok {
		return res, nil
	}
	for _, p := range in.Ignore {
		if !doublestar.ValidatePattern(filepath.ToSlash(p)) {
			return tool.Errorf("Invalid ignore pattern %q: check for an unclosed [ or {.", p), nil
		}
	}
	userIgnored := func(rel string) bool {
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		for _, p := range in.Ignore {
			p = strings.TrimSuffix(filepath.ToSlash(p), "/")
			if doublestar.MatchUnvalidated(p, name) || doublestar.MatchUnvalidated(p, rel) {
				return true
			}
		}
		return false
	}

	// Breadth-first, so the cap cuts the deepest levels, not whole
	// top-level directories that happen to sort last.
	type pending struct {
		node    *lsNode
		path    string
		rel     string
		ignores *ignoreStack
	}
	top := &lsNode{name: root, isDir: true}
	queue := []pending{{top, root, "", newIgnoreStack(root, "")}}
	count, cut, refused := 0, false, 0
	for len(queue) > 0 && !cut {
		if ctx.Err() != nil {
			return tool.Errorf("LS was cancelled."), nil
		}
		cur := queue[0]
		queue = queue[1:]
		entries, err := readDirChecked(ctx, env, cur.path)
		if err != nil {
			if cur.node == top {
				return ioResult("list", root, err), nil
			}
			if _, ok := errors.AsType[*refusal](err); ok {
				refused++
			}
			continue
		}
		for _, e := range entries {
			isDir := e.IsDir()
			path := filepath.Join(cur.path, e.Name())
			rel := e.Name()
			if cur.rel != "" {
				rel = cur.rel + "/" + e.Name()
			}
			if vcsDirs[e.Name()] || cur.ignores.ignored(path, isDir) || userIgnored(rel) {
				continue
			}
			if count == lsMaxEntries {
				cut = true
				break
			}
			count++
			n := &lsNode{name: e.Name(), isDir: isDir}
			cur.node.children = append(cur.node.children, n)
			if isDir {
				queue = append(queue, pending{n, path, rel, cur.ignores.enter(path)})
			}
		}
	}

	var b strings.Builder
	if cut {
		fmt.Fprintf(&b, "There are more than %d entries under %s; only the first %d are shown (shallowest first). Use LS on a subdirectory, or Glob and Grep to find specific files.\n\n", lsMaxEntries, root, lsMaxEntries)
	}
	fmt.Fprintf(&b, "- %s/\n", strings.TrimSuffix(root, string(filepath.Separator)))
	var render func(n *lsNode, depth int)
	render = func(n *lsNode, depth int) {
		for _, c := range n.children {
			b.WriteString(strings.Repeat("  ", depth))
			b.WriteString("- ")
			b.WriteString(c.name)
			if c.isDir {
				b.WriteByte('/')
			}
			b.WriteByte('\n')
			render(c, depth+1)
		}
	}
	render(top, 1)
	if count == 0 {
		b.WriteString("  (no entries)\n")
	}
	if refused > 0 {
		dirs := "1 directory"
		if refused > 1 {
			dirs = fmt.Sprintf("%d directories", refused)
		}
		fmt.Fprintf(&b, "\n(The contents of %s were not listed: the path guard refused them, as they changed or lead outside the workspace or to secrets.)\n", dirs)
	}
	return tool.Result{Content: b.String()}, nil
}
