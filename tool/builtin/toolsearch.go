package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/novacode/nova/tool"
)

// ToolSearchInput is the input of ToolSearch.
type ToolSearchInput struct {
	Query      string `json:"query" jsonschema:"Words to look for in the deferred tools' names and descriptions (slack send message), or select:name1,name2 to load tools by exact name"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"The most tools to return for a word query (default 5)"`
}

// defaultSearchResults is how many tools a word query returns unless the
// model asks for another number.
const defaultSearchResults = 5

// NewToolSearch returns the ToolSearch tool over reg's deferred tools
// (tool.Registry.Defer): a word query ranks them by name, then description
// hits; select:a,b loads exact names. The result holds each match's name,
// description and full input schema, one JSON object per tool in a
// <functions> block, the form models are trained to read tool definitions
// in. It reads nothing but reg, so it needs no permission and runs beside
// every other call. Its description never changes: the tools array stays
// byte-identical whatever is deferred later.
func NewToolSearch(reg *tool.Registry) tool.Tool {
	return tool.New(tool.ToolSearchName, toolSearchDesc, true, nil,
		func(_ context.Context, _ *tool.Env, in ToolSearchInput) (tool.Result, error) {
			return searchTools(reg, in), nil
		}).WithEffects(func(*tool.Env, ToolSearchInput) tool.Effects { return tool.Effects{} })
}

const toolSearchDesc = `Finds tools that are not in your tool list and loads their definitions. Tools from MCP servers (named mcp__<server>__<tool>) are deferred when there are many of them: they are not listed up front, but each can be called like any other tool once you know its name and parameters. Servers that connect later in the session add their tools here too.

Query forms:
- Words: "github issue", "slack send message". Matched against the deferred tools' names and descriptions; name matches rank first. max_results caps the answer (default 5).
- Exact names: "select:mcp__github__create_issue,mcp__slack__post_message" loads exactly those tools.

The result holds each match's name, description and full input JSON Schema in a <functions> block. Then call the tool by that name with arguments matching its schema. Search before calling a deferred tool whose exact name and parameters you do not know; if a tool you expect is missing, search again with other words.`

// searchTools answers one ToolSearch call.
func searchTools(reg *tool.Registry, in ToolSearchInput) tool.Result {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return tool.Errorf(`The query is empty. Search with words from a tool's name or purpose ("github issue"), or load tools by exact name with select:name1,name2.`)
	}
	deferred := reg.Deferred()
	if len(deferred) == 0 {
		return tool.Result{Content: "No tools are deferred in this session: every tool you can call is already in your tool list."}
	}
	if len(q) >= len("select:") && strings.EqualFold(q[:len("select:")], "select:") {
		return selectTools(reg, deferred, q[len("select:"):])
	}
	max := in.MaxResults
	if max <= 0 {
		max = defaultSearchResults
	}
	for _, t := range deferred {
		if strings.EqualFold(t.Name(), q) { // the model knows the name
			var b strings.Builder
			b.WriteString("Loaded 1 deferred tool. Call it by name, like any tool in your list.\n")
			writeFunctions(&b, []tool.Tool{t})
			return tool.Result{Content: b.String()}
		}
	}
	found := rankTools(deferred, q)
	if len(found) == 0 {
		return tool.Result{Content: fmt.Sprintf("No deferred tool matched %q. Search again with other words from a tool's name or purpose, or load tools by exact name with select:name1,name2. %s", q, deferredSummary(deferred))}
	}
	var b strings.Builder
	shown := found[:min(max, len(found))]
	if len(shown) < len(found) {
		fmt.Fprintf(&b, "%d deferred tools matched %q; the best %d follow (raise max_results for more).", len(found), q, len(shown))
	} else {
		fmt.Fprintf(&b, "%s matched %q.", plural(len(found), "deferred tool"), q)
	}
	b.WriteString(" Call them by name, like any tool in your list.\n")
	writeFunctions(&b, shown)
	return tool.Result{Content: b.String()}
}

// selectTools loads the tools named in list (comma-separated), in its order.
func selectTools(reg *tool.Registry, deferred []tool.Tool, list string) tool.Result {
	byName := make(map[string]tool.Tool, len(deferred))
	for _, t := range deferred {
		byName[t.Name()] = t
	}
	var found []tool.Tool
	var listed, missing []string
	seen := map[string]bool{}
	for n := range strings.SplitSeq(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		if t, ok := byName[n]; ok {
			found = append(found, t)
		} else if _, ok := reg.Get(n); ok {
			listed = append(listed, n)
		} else {
			missing = append(missing, n)
		}
	}
	var b strings.Builder
	if len(found) > 0 {
		fmt.Fprintf(&b, "Loaded %s. Call them by name, like any tool in your list.\n", plural(len(found), "deferred tool"))
		writeFunctions(&b, found)
	}
	if len(listed) > 0 {
		fmt.Fprintf(&b, "Already in your tool list (call directly): %s.\n", strings.Join(listed, ", "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "No deferred tool is named %s. Search by words to find the right name. %s\n", strings.Join(missing, ", "), deferredSummary(deferred))
	}
	if b.Len() == 0 {
		return tool.Errorf("select: names no tool. Give exact names: select:name1,name2.")
	}
	return tool.Result{Content: strings.TrimSuffix(b.String(), "\n"), IsError: len(found) == 0 && len(listed) == 0}
}

// rankTools returns the deferred tools that match the query's words, ranked
// by how many words occur in the name, then by how many begin a word of the
// description, then by name. "mcp" is no clue: every MCP tool's name has it.
func rankTools(deferred []tool.Tool, q string) []tool.Tool {
	terms := slices.DeleteFunc(words(q), func(w string) bool { return w == "mcp" })
	type hit struct {
		t           tool.Tool
		name, descr int
	}
	var hits []hit
	for _, t := range deferred {
		name := strings.ToLower(t.Name())
		h := hit{t: t}
		dw := words(t.Description())
		for _, term := range terms {
			if strings.Contains(name, term) {
				h.name++
			}
			if slices.ContainsFunc(dw, func(w string) bool { return strings.HasPrefix(w, term) }) {
				h.descr++
			}
		}
		if h.name > 0 || h.descr > 0 {
			hits = append(hits, h)
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		switch {
		case a.name != b.name:
			return b.name - a.name
		case a.descr != b.descr:
			return b.descr - a.descr
		}
		return strings.Compare(a.t.Name(), b.t.Name())
	})
	out := make([]tool.Tool, len(hits))
	for i, h := range hits {
		out[i] = h.t
	}
	return out
}

// words splits s into lower-case words of letters and digits, dropping
// one-letter ones and repeats.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) > 1 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// function is one tool definition in a <functions> block.
type function struct {
	Description string          `json:"description"`
	Name        string          `json:"name"`
	Parameters  json.RawMessage `json:"parameters"`
}

// writeFunctions writes ts as a <functions> block, one compact JSON object
// per tool. A tool whose schema is not valid JSON is named with a note
// instead.
func writeFunctions(b *strings.Builder, ts []tool.Tool) {
	b.WriteString("<functions>\n")
	for _, t := range ts {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(function{Description: t.Description(), Name: t.Name(), Parameters: t.Schema()}); err != nil {
			fmt.Fprintf(b, "<!-- %s: its input schema is not valid JSON; call it with the arguments its description names -->\n", t.Name())
			continue
		}
		b.WriteString("<function>")
		b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		b.WriteString("</function>\n")
	}
	b.WriteString("</functions>")
}

// deferredSummary says how many tools are deferred and where they come
// from: the MCP servers by name (mcp__<server>), other tools by count.
func deferredSummary(deferred []tool.Tool) string {
	var order []string
	count := map[string]int{}
	for _, t := range deferred {
		src := "other"
		if rest, ok := strings.CutPrefix(t.Name(), "mcp__"); ok {
			if server, _, ok := strings.Cut(rest, "__"); ok {
				src = "mcp__" + server
			}
		}
		if count[src] == 0 {
			order = append(order, src)
		}
		count[src]++
	}
	parts := make([]string, len(order))
	for i, src := range order {
		parts[i] = fmt.Sprintf("%s (%d)", src, count[src])
	}
	are := fmt.Sprintf("%d tools are", len(deferred))
	if len(deferred) == 1 {
		are = "1 tool is"
	}
	return fmt.Sprintf("%s deferred, from: %s.", are, strings.Join(parts, ", "))
}
